"""``mj.experimental``: the modules seed 004 documents under ``jax.experimental``.

:mod:`~mj.experimental.stax` and :mod:`~mj.experimental.optimizers` are
:mod:`mj.example_libraries`' (JAX's later home for them), under their old names;
:mod:`~mj.experimental.optix` (composable gradient transformations),
:mod:`~mj.experimental.loops` (``Scope``: Python-looking loops staged as ``scan``/``cond``/
``while_loop``) and :mod:`~mj.experimental.ode` (``odeint``, with the adjoint method for
gradients) live here.
"""

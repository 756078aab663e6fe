"""``mj.example_libraries``: JAX's example libraries, for mj.

:mod:`~mj.example_libraries.stax` (neural-net layers as ``(init_fun, apply_fun)`` pairs) and
:mod:`~mj.example_libraries.optimizers` (``(init_fun, update_fun, get_params)`` triples), with
JAX 0.10.2's numbers. They are examples, built only on mj's public API (``mj.numpy``,
``mj.lax``, ``mj.random``, ``mj.nn``, ``mj.tree_util``); seed 004 documents them under their
old names ``jax.experimental.stax``/``optimizers``, which :mod:`mj.experimental` keeps.
"""

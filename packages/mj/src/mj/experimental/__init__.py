"""``mj.experimental``: the modules JAX keeps under ``jax.experimental``
(:mod:`~mj.experimental.ode`: ``odeint``)."""

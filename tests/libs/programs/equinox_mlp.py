"""equinox's README style: eqx.nn.MLP trained with eqx.filter_jit / eqx.filter_value_and_grad
and optax; prints the loss curve as JSON. Runs unchanged on JAX and, via mj.as_jax, on mj."""

import json

import equinox as eqx
import jax
import jax.numpy as jnp
import optax


def main(steps=100):
    key = jax.random.PRNGKey(0)
    kx, km = jax.random.split(key)
    x = jax.random.uniform(kx, (64, 2), minval=-2.0, maxval=2.0)
    y = jnp.cos(x[:, :1]) * x[:, 1:]
    model = eqx.nn.MLP(in_size=2, out_size=1, width_size=16, depth=2, key=km)
    optim = optax.adam(1e-2)
    opt_state = optim.init(eqx.filter(model, eqx.is_inexact_array))

    @eqx.filter_grad
    def grad_fn(model, x, y):
        return jnp.mean((jax.vmap(model)(x) - y) ** 2)

    @eqx.filter_jit
    def loss_fn(model, x, y):
        return jnp.mean((jax.vmap(model)(x) - y) ** 2)

    @eqx.filter_jit
    def make_step(model, opt_state, x, y):
        grads = grad_fn(model, x, y)
        updates, opt_state = optim.update(grads, opt_state, eqx.filter(model, eqx.is_array))
        return eqx.apply_updates(model, updates), opt_state

    losses = []
    for _ in range(steps):
        losses.append(float(loss_fn(model, x, y)))
        model, opt_state = make_step(model, opt_state, x, y)
    return losses


if __name__ == "__main__":
    print(json.dumps({"eqx_mlp": main()}))

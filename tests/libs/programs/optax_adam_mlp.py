"""optax's README loop: an MLP fitted with adam (and with a chain of gradient clipping and
adamw); prints the loss curves as JSON. Runs unchanged on JAX and, via mj.as_jax, on mj."""

import itertools
import json

import jax
import jax.numpy as jnp
import optax


def init_mlp(key, sizes):
    params = []
    for din, dout in itertools.pairwise(sizes):
        key, sub = jax.random.split(key)
        params.append(
            {"w": jax.random.normal(sub, (din, dout)) / jnp.sqrt(din), "b": jnp.zeros(dout)}
        )
    return params


def mlp(params, x):
    for layer in params[:-1]:
        x = jax.nn.relu(x @ layer["w"] + layer["b"])
    return x @ params[-1]["w"] + params[-1]["b"]


def loss_fn(params, x, y):
    return jnp.mean(optax.l2_loss(mlp(params, x), y))


def train(optimizer, steps=100):
    key = jax.random.PRNGKey(0)
    kx, kp = jax.random.split(key)
    x = jax.random.uniform(kx, (64, 3), minval=-2.0, maxval=2.0)
    y = jnp.sin(x).sum(axis=1, keepdims=True)
    params = init_mlp(kp, [3, 32, 32, 1])
    opt_state = optimizer.init(params)

    @jax.jit
    def step(params, opt_state):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        updates, opt_state = optimizer.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    losses = []
    for _ in range(steps):
        params, opt_state, loss = step(params, opt_state)
        losses.append(float(loss))
    return losses


if __name__ == "__main__":
    adam = train(optax.adam(1e-2))
    chain = train(
        optax.chain(
            optax.clip_by_global_norm(1.0),
            optax.adamw(optax.exponential_decay(1e-2, 50, 0.5), weight_decay=1e-3),
        )
    )
    print(json.dumps({"adam": adam, "chain_clip_adamw": chain}))

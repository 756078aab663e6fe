"""flax.linen's README style: a Conv + Dense model, init / apply / grad, trained with optax;
prints the loss curve as JSON. Runs unchanged on JAX and, via mj.as_jax, on mj."""

import json

import flax.linen as nn
import jax
import jax.numpy as jnp
import optax


class CNN(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Conv(features=4, kernel_size=(3, 3))(x)
        x = nn.relu(x)
        x = x.reshape((x.shape[0], -1))
        x = nn.Dense(features=16)(x)
        x = nn.relu(x)
        return nn.Dense(features=1)(x)


def main(steps=60):
    key = jax.random.PRNGKey(0)
    kx, kp = jax.random.split(key)
    x = jax.random.normal(kx, (16, 6, 6, 1))
    y = jnp.mean(x, axis=(1, 2))
    model = CNN()
    params = model.init(kp, x)
    tx = optax.adam(1e-2)
    opt_state = tx.init(params)

    def loss_fn(params):
        return jnp.mean((model.apply(params, x) - y) ** 2)

    @jax.jit
    def step(params, opt_state):
        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = tx.update(grads, opt_state)
        return optax.apply_updates(params, updates), opt_state, loss

    losses = []
    for _ in range(steps):
        params, opt_state, loss = step(params, opt_state)
        losses.append(float(loss))
    return losses


if __name__ == "__main__":
    print(json.dumps({"flax_linen_cnn": main()}))

"""flax.linen's layers and lifted transformations as its docs use them (LayerNorm, BatchNorm
with mutable batch_stats, Dropout, Embed, MultiHeadDotProductAttention, nn.RNN over LSTM and
GRU cells (a lifted scan), nn.vmap, nn.remat, nn.jit, lazy_init, ConvTranspose, GroupNorm,
pooling, nn.tabulate); prints each result as JSON. Runs unchanged on JAX and, via
mj.as_jax, on mj."""

import json

import flax.linen as nn
import jax
import jax.numpy as jnp


class MLP(nn.Module):
    @nn.compact
    def __call__(self, x):
        return nn.Dense(3)(nn.gelu(nn.Dense(5)(x)))


def main():
    out = {}

    def record(name, f):
        try:
            out[name] = jax.tree.map(lambda a: jnp.asarray(a).tolist(), f())
        except Exception as e:
            out[name] = f"raised {type(e).__name__}"

    k = jax.random.PRNGKey(0)
    x = jax.random.normal(k, (4, 8))

    def run(module, *args):
        variables = module.init(k, *args)
        return jax.tree.map(lambda a: a.sum(), module.apply(variables, *args))

    def batchnorm():
        module = nn.BatchNorm(use_running_average=False)
        y, updates = module.apply(module.init(k, x), x, mutable=["batch_stats"])
        return y.sum(), jax.tree.map(jnp.sum, updates)

    record("layernorm", lambda: run(nn.LayerNorm(), x))
    record("batchnorm", batchnorm)
    record(
        "dropout",
        lambda: nn.Dropout(0.5, deterministic=False).apply({}, x, rngs={"dropout": k}).sum(),
    )
    record("embed", lambda: run(nn.Embed(10, 4), jnp.array([1, 2])))
    record("attention", lambda: run(nn.MultiHeadDotProductAttention(num_heads=2), x[None], x[None]))
    record("rnn_lstm", lambda: run(nn.RNN(nn.LSTMCell(4)), x[None]))
    record("rnn_gru", lambda: run(nn.RNN(nn.GRUCell(4)), x[None]))
    record(
        "vmap_lifted",
        lambda: run(
            nn.vmap(MLP, variable_axes={"params": 0}, split_rngs={"params": True})(),
            x.reshape(2, 2, 8),
        ),
    )
    record("remat", lambda: run(nn.remat(MLP)(), x))
    record("jit_lifted", lambda: run(nn.jit(MLP)(), x))
    record(
        "lazy_init_shapes",
        lambda: jax.tree.map(
            lambda a: list(a.shape), MLP().lazy_init(k, jax.ShapeDtypeStruct((4, 8), jnp.float32))
        ),
    )
    record("conv_transpose", lambda: run(nn.ConvTranspose(2, (3,)), x[..., None]))
    record("groupnorm", lambda: run(nn.GroupNorm(num_groups=2), x))
    record("avg_pool", lambda: nn.avg_pool(x[None, ..., None], (2, 2)).sum())
    record("tabulate_lists_layers", lambda: "Dense_1" in nn.tabulate(MLP(), k)(x))
    return out


if __name__ == "__main__":
    print(json.dumps({"flax_linen_layers": main()}))

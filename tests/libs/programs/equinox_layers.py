"""equinox's layers and filtered transformations as its docs use them (Conv2d, LayerNorm,
RMSNorm, MultiheadAttention, GRUCell, BatchNorm with state, Dropout, pooling, filter_vmap,
filter_checkpoint, tree_at, error_if, eqx.internal.while_loop, filter_pure_callback); prints
each result (or the exception type it raised) as JSON. Runs unchanged on JAX and, via
mj.as_jax, on mj."""

import json

import equinox as eqx
import jax
import jax.numpy as jnp


def main():
    out = {}

    def record(name, f):
        try:
            out[name] = jax.tree.map(lambda a: jnp.asarray(a).tolist(), f())
        except Exception as e:
            out[name] = f"raised {type(e).__name__}"

    k = jax.random.PRNGKey(0)
    x = jax.random.normal(k, (3, 8, 8))
    linear = eqx.nn.Linear(8, 2, key=k)
    record("conv2d", lambda: eqx.nn.Conv2d(3, 4, 3, key=k)(x).sum())
    record("layernorm", lambda: eqx.nn.LayerNorm(8)(x[0, 0]).sum())
    record("rmsnorm", lambda: eqx.nn.RMSNorm(8)(x[0, 0]).sum())
    record("linear_filter_vmap", lambda: eqx.filter_vmap(linear)(x[0]).sum())
    record("tree_at", lambda: eqx.tree_at(lambda m: m.bias, linear, jnp.ones(2)).bias)
    record("dropout", lambda: eqx.nn.Dropout(0.5)(jnp.ones(6), key=k))
    record("mha", lambda: eqx.nn.MultiheadAttention(2, 8, key=k)(x[0], x[0], x[0]).sum())
    record("gru", lambda: eqx.nn.GRUCell(8, 4, key=k)(x[0, 0], jnp.zeros(4)).sum())
    record("embedding", lambda: eqx.nn.Embedding(5, 3, key=k)(jnp.array(2)).sum())
    record("maxpool", lambda: eqx.nn.MaxPool2d(2, 2)(x).sum())

    def batchnorm():
        model, state = eqx.nn.make_with_state(eqx.nn.BatchNorm)(8, "batch", mode="batch")
        batched = eqx.filter_vmap(model, in_axes=(0, None), out_axes=(0, None), axis_name="batch")
        y, _ = batched(x[:, 0], state)
        return y.sum()

    record("batchnorm", batchnorm)
    record(
        "checkpoint_grad",
        lambda: eqx.filter_grad(eqx.filter_checkpoint(lambda a: jnp.sum(jnp.sin(a))))(jnp.ones(3)),
    )
    record(
        "value_and_grad_aux",
        lambda: eqx.filter_value_and_grad(lambda m, a: (m(a).sum(), 1.0), has_aux=True)(
            linear, x[0, 0]
        )[0],
    )
    record("error_if_passes", lambda: eqx.error_if(jnp.ones(2), jnp.array(False), "bad"))
    record(
        "error_if_raises_in_jit",
        lambda: eqx.filter_jit(lambda a: eqx.error_if(a, a > 0, "positive"))(jnp.ones(2)),
    )
    record(
        "checkpointed_while_loop",
        lambda: eqx.internal.while_loop(
            lambda c: c < 10, lambda c: c + 3, 0, max_steps=10, kind="checkpointed"
        ),
    )
    record(
        "filter_pure_callback",
        lambda: eqx.filter_pure_callback(
            lambda a: a * 2,
            jnp.ones(2),
            result_shape_dtypes=jax.ShapeDtypeStruct((2,), jnp.float32),
        ),
    )
    return out


if __name__ == "__main__":
    print(json.dumps({"equinox_layers": main()}))

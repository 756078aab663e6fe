"""Public JAX names JAX's own test files (issue 35) use that mj lacked, each compared with real
JAX 0.10.2 in both dtype modes: ``jax.nn.dot_product_attention`` (the ``'xla'`` path), ..."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle


def _close(want, got, tol=1e-5):
    want_leaves, got_leaves = jax.tree.leaves(want), jax.tree.leaves(got)
    assert len(want_leaves) == len(got_leaves)
    for w, g in zip(want_leaves, got_leaves, strict=True):
        assert np.dtype(g.dtype) == np.dtype(w.dtype)
        assert g.shape == w.shape
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=tol, atol=tol)


# --- dot_product_attention -------------------------------------------------------------------

_B, _T, _S, _N, _K, _H = 2, 5, 7, 4, 2, 3
_rng = np.random.RandomState(0)
_Q = _rng.randn(_B, _T, _N, _H)
_KEY = _rng.randn(_B, _S, _K, _H)
_V = _rng.randn(_B, _S, _K, _H)
_BIAS = _rng.randn(1, _N, _T, _S)
_MASK = _rng.rand(_B, 1, _T, _S) > 0.3

ATTENTION_CASES = {
    "plain": {},
    "bias": {"bias": _BIAS},
    "mask": {"mask": _MASK},
    "causal": {"is_causal": True},
    "seq_lengths": {
        "query_seq_lengths": np.array([3, 5], np.int32),
        "key_value_seq_lengths": np.array([7, 4], np.int32),
    },
    "window": {"local_window_size": (1, 2)},
    "window_int_scale_bias_mask": {
        "local_window_size": 1,
        "scale": 0.3,
        "bias": _BIAS,
        "mask": _MASK,
    },
    "residual": {"return_residual": True},
    "causal_residual_xla": {"is_causal": True, "return_residual": True, "implementation": "xla"},
}


@pytest.mark.parametrize("case", ATTENTION_CASES)
def test_dot_product_attention_as_jax(x64, case):
    kw = ATTENTION_CASES[case]
    q, k, v = (x.astype(np.float32) for x in (_Q, _KEY, _V))
    _close(jax.nn.dot_product_attention(q, k, v, **kw), mj.nn.dot_product_attention(q, k, v, **kw))


@pytest.mark.parametrize("dtype", ["float64", "bfloat16"])
def test_dot_product_attention_dtypes_and_3d(x64, dtype):
    q, k, v = (x[0].astype(dtype) for x in (_Q, _KEY, _V))  # (T, N, H): no batch dimension
    mask = np.arange(_S) <= _S // 2
    want = jax.nn.dot_product_attention(jnp.asarray(q), k, v, mask=mask)
    got = mj.nn.dot_product_attention(mnp.asarray(q), k, v, mask=mask)
    _close(want, got, tol=2e-2 if dtype == "bfloat16" else 1e-6)


def test_dot_product_attention_gradients_and_vmap(x64):
    q, k, v, bias = (x.astype(np.float32) for x in (_Q, _KEY, _V, _BIAS))

    def loss(lib):
        def f(q, k, v, b):
            out, lse = lib.nn.dot_product_attention(
                q, k, v, b, is_causal=True, return_residual=True
            )
            return (out * out).sum() + lse.sum()

        return lib.grad(f, argnums=(0, 1, 2, 3))

    _close(loss(jax)(q, k, v, bias), loss(mj)(q, k, v, bias), tol=1e-4)

    def per_example(lib):
        return lib.vmap(lambda q, k, v: lib.nn.dot_product_attention(q, k, v, is_causal=True))

    _close(per_example(jax)(q, k, v), per_example(mj)(q, k, v))


def test_dot_product_attention_refusals():
    q, k, v = (x.astype(np.float32) for x in (_Q, _KEY, _V))
    with pytest.raises(ValueError, match="multiple of key/value heads"):
        mj.nn.dot_product_attention(q[:, :, :3], k, v)
    with pytest.raises(ValueError, match="mask dtype should be bool"):
        mj.nn.dot_product_attention(q, k, v, mask=_MASK.astype(np.int32))
    with pytest.raises(ValueError, match="Unsupported implementation option"):
        mj.nn.dot_product_attention(q, k, v, implementation="flash")
    for lib in (jax, mj):  # the same refusals in JAX
        with pytest.raises(ValueError, match="value dtype should be"):
            lib.nn.dot_product_attention(q, k, v.astype(np.float64))

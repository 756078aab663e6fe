"""jit retraces exactly when JAX's jit does: the same sequence of calls (device arrays, NumPy
arrays of every dtype, NumPy and Python scalars, pytrees of them, in both dtype modes) traces
mj's function and JAX's at the same calls, and gives the same values in the same dtypes
(float64 NumPy data narrowed to float32 in 32-bit mode before it reaches the device)."""

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle


def _counted(tree_map: Callable[..., Any], traces: list[int]) -> Callable[..., Any]:
    def f(*args: Any) -> Any:
        traces.append(1)
        return tree_map(lambda v: v if v.dtype == np.bool_ else v * 1, args)

    return f


def _calls(rng: np.random.Generator) -> list[tuple[str, Callable[[Any, Any], tuple[Any, ...]]]]:
    """(label, make(put, asarray) -> args): host values shared by both systems, device ones
    made by each system's ``device_put`` / ``asarray``."""
    x64 = rng.standard_normal((2, 3))
    calls: list[tuple[str, Callable[[Any, Any], tuple[Any, ...]]]] = []
    for dtype in (
        np.float64,
        np.float32,
        np.float16,
        ml_dtypes.bfloat16,
        np.int64,
        np.int32,
        np.uint8,
        np.bool_,
        np.complex128,
        np.complex64,
    ):
        host = (x64 * 10).astype(dtype)
        calls.append((f"numpy {np.dtype(dtype).name}", lambda p, a, h=host: (h,)))
        calls.append((f"numpy {np.dtype(dtype).name} again", lambda p, a, h=host: (h + h,)))
        calls.append((f"device {np.dtype(dtype).name}", lambda p, a, h=host: (p(h),)))
    calls += [
        ("python float", lambda p, a: (1.5,)),
        ("python float again", lambda p, a: (-2.5,)),
        ("numpy float64 scalar", lambda p, a: (np.float64(1.5),)),
        ("numpy float32 scalar", lambda p, a: (np.float32(1.5),)),
        ("python int", lambda p, a: (3,)),
        ("python int near int32 max", lambda p, a: (2**31 - 1,)),
        ("numpy int64 scalar", lambda p, a: (np.int64(3),)),
        ("python bool", lambda p, a: (True,)),
        ("python complex", lambda p, a: (1 + 2j,)),
        ("weak device scalar", lambda p, a: (a(0.5),)),
        ("list of device and host", lambda p, a: ([p(x64), x64], x64.astype(np.float32))),
        ("tuple of device and host", lambda p, a: ((p(x64), x64), x64.astype(np.float32))),
        ("same list, other values", lambda p, a: ([p(-x64), 2 * x64], x64.astype(np.float32))),
        ("dict with scalar", lambda p, a: ({"w": p(x64), "b": 2.0}, None)),
        ("dict other key", lambda p, a: ({"w": p(x64), "c": 2.0}, None)),
        ("dict scalar other value", lambda p, a: ({"w": x64, "b": 7.0}, None)),
    ]
    return calls


def test_jit_traces_at_the_same_calls_as_jax(x64):
    rng = np.random.default_rng(0)
    mj_traces: list[int] = []
    jax_traces: list[int] = []
    mf = mj.jit(_counted(mj.tree_util.tree_map, mj_traces))
    jf = jax.jit(_counted(jax.tree_util.tree_map, jax_traces))
    for label, make in _calls(rng) * 2:  # the second round: every kind seen before
        before = len(mj_traces), len(jax_traces)
        got = mf(*make(mj.device_put, mnp.asarray))
        want = jf(*make(jax.device_put, jnp.asarray))
        traced = len(mj_traces) - before[0], len(jax_traces) - before[1]
        assert traced[0] == traced[1], (label, traced)
        got_leaves, want_leaves = mj.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)
        assert len(got_leaves) == len(want_leaves), label
        for g, w in zip(got_leaves, want_leaves, strict=True):
            assert np.asarray(g).dtype == np.asarray(w).dtype, (label, g, w)
            assert g.weak_type == w.weak_type, label
            np.testing.assert_array_equal(np.asarray(g), np.asarray(w), err_msg=label)
    assert len(mj_traces) == len(jax_traces)

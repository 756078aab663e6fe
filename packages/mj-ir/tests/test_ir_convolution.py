"""conv_general_dilated under tracing: the jaxpr evaluates to the eager values, shapes and
dtypes, and tracing rejects what eager evaluation rejects."""

import numpy as np
import pytest

from mj_core import lax
from mj_ir import eval_jaxpr, make_jaxpr, typecheck_jaxpr


def _conv(x, w):
    return lax.conv_general_dilated(
        x, w, (2, 1), "SAME", None, (1, 2), ("NHWC", "HWIO", "NCHW"), feature_group_count=2
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_jaxpr_evaluates_like_eager(dtype):
    rng = np.random.default_rng(0)
    x = (rng.normal(size=(2, 7, 6, 4)) * 3).astype(dtype)
    w = (rng.normal(size=(3, 2, 2, 6)) * 3).astype(dtype)
    closed = make_jaxpr(_conv)(x, w)
    typecheck_jaxpr(closed.jaxpr)
    (eqn,) = closed.jaxpr.eqns
    assert eqn.primitive.name == "conv_general_dilated"
    assert eqn.params["padding"] == ((1, 1), (1, 1))
    assert eqn.params["dimension_numbers"] == ((0, 3, 1, 2), (3, 2, 0, 1), (0, 1, 2, 3))
    (out,) = eval_jaxpr(closed, [x, w])
    eager = _conv(x, w)
    assert out.shape == eager.shape == (2, 6, 4, 6)
    assert out.dtype == eager.dtype == dtype
    np.testing.assert_array_equal(out, eager)
    assert closed.out_avals[0].shape == (2, 6, 4, 6)


def test_tracing_reports_the_users_line():
    def bad(x, w):
        return lax.conv(x, w, (1, 1), "VALID")

    with pytest.raises(TypeError, match=r"conv_general_dilated.*f32\[1,3,4,4\].*in bad at"):
        make_jaxpr(bad)(np.ones((1, 3, 4, 4), np.float32), np.ones((2, 2, 2, 2), np.float32))


def test_mixed_dtypes_are_rejected():
    with pytest.raises(TypeError, match="same dtype"):
        make_jaxpr(lambda x, w: lax.conv(x, w, (1,), "VALID"))(
            np.ones((1, 1, 4), np.float32), np.ones((1, 1, 2), np.float64)
        )

"""jit of conv_general_dilated: one stablehlo.convolution, the same values, dtypes and shapes
as eager evaluation, also under grad and vmap."""

import numpy as np
import pytest

from mj_autodiff import grad
from mj_batch import vmap
from mj_core import lax
from mj_xla import jit

# (lhs shape, rhs shape, strides, padding, lhs_dilation, rhs_dilation, dimension numbers,
#  feature_group_count, batch_group_count)
CONFIGS = [
    ((2, 3, 6, 5), (4, 3, 3, 2), (1, 1), "SAME", (1, 1), (1, 1), None, 1, 1),
    ((2, 3, 7, 6), (4, 3, 3, 2), (2, 3), ((1, 2), (-1, 1)), (1, 1), (1, 1), None, 1, 1),
    ((1, 2, 5, 5), (3, 2, 2, 3), (1, 1), ((2, 1), (1, 2)), (2, 3), (2, 1), None, 1, 1),
    ((2, 4, 6, 5), (6, 2, 3, 2), (2, 1), ((1, 0), (0, 1)), (2, 1), (1, 2), None, 2, 1),
    ((4, 3, 6, 5), (6, 3, 2, 2), (1, 2), ((0, 1), (1, 1)), (1, 1), (2, 1), None, 1, 2),
    ((2, 6, 5, 4), (3, 2, 2, 4), (2, 2), "VALID", (1, 1), (1, 1), ("NHWC", "HWIO", "NCHW"), 2, 1),
    ((2, 3, 9), (5, 3, 4), (3,), ((2, 1),), (2,), (2,), None, 1, 1),
    ((1, 2, 4, 4, 3), (2, 2, 2, 3, 2), (1, 2, 1), "SAME", (1, 1, 1), (1, 1, 2), None, 1, 1),
]  # fmt: skip
DTYPES = [np.float32, np.float64, np.int32, np.complex64, np.bool_]


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("config", CONFIGS, ids=[str(i) for i in range(len(CONFIGS))])
def test_jit_matches_eager(config, dtype, request):
    if np.dtype(dtype).kind == "i":  # XLA's GPU backend has no integer convolution (JAX's too)
        request.getfixturevalue("on_cpu")
    ls, rs, strides, padding, ld, rd, dn, fgc, bgc = config
    rng = np.random.default_rng(0)
    x = (rng.normal(size=ls) * 3).astype(dtype)
    w = (rng.normal(size=rs) * 3).astype(dtype)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * rng.normal(size=ls).astype(dtype)

    def conv(x, w):
        return lax.conv_general_dilated(x, w, strides, padding, ld, rd, dn, fgc, bgc)

    eager = conv(x, w)
    compiled = np.asarray(jit(conv)(x, w))
    assert compiled.shape == eager.shape
    assert compiled.dtype == eager.dtype == dtype
    tol = 1e-4 if np.dtype(dtype).itemsize <= 8 else 1e-12
    np.testing.assert_allclose(compiled, eager, rtol=tol, atol=tol)


def test_lowering_is_one_convolution():
    def conv(x, w):
        return lax.conv_general_dilated(
            x, w, (2, 1), ((1, 0), (2, 2)), (1, 2), (3, 1), ("NHWC", "HWIO", "NHWC"), 2
        )

    text = (
        jit(conv)
        .lower(np.ones((1, 8, 8, 4), np.float32), np.ones((3, 2, 2, 6), np.float32))
        .as_text()
    )
    assert text.count("stablehlo.convolution") == 1
    assert "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]" in text
    assert (
        "stride = [2, 1], pad = [[1, 0], [2, 2]], lhs_dilate = [1, 2], rhs_dilate = [3, 1]" in text
    )
    assert "feature_group_count = 2" in text


@pytest.mark.usefixtures("on_cpu")  # an integer convolution: none on a GPU (JAX's neither)
def test_preferred_element_type_and_weak_free_dtypes_under_jit():
    x = np.arange(8, dtype=np.int8).reshape(1, 1, 8) * np.int8(15)
    w = np.ones((1, 1, 3), np.int8)

    def conv(x, w):
        return lax.conv(x, w, (1,), "VALID", preferred_element_type=np.int32)

    out = jit(conv)(x, w)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(np.asarray(out)[0, 0], [45, 90, 135, 180, 225, 270])


def test_jit_of_grad_and_vmap_match_eager():
    rng = np.random.default_rng(2)
    xs, w = rng.normal(size=(3, 2, 2, 7, 6)), rng.normal(size=(4, 2, 3, 3))

    def loss(w, x):
        out = lax.conv_general_dilated(x, w, (2, 1), "SAME", None, (1, 2))
        return lax.reduce_sum(lax.tanh(out), (0, 1, 2, 3))

    per_example = vmap(grad(loss), in_axes=(None, 0))
    np.testing.assert_allclose(np.asarray(jit(per_example)(w, xs)), per_example(w, xs), rtol=1e-12)

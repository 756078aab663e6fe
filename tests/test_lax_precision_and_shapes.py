"""``lax.Precision`` and ``precision=`` (lowered as StableHLO's ``precision_config``), and the
shape helpers ``conv_*_shape_tuple`` / ``reduce_window_shape_tuple`` checked against the
shapes the operations produce (issue 23)."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import lax

pytestmark = pytest.mark.default_precision

A = np.arange(6.0, dtype=np.float32).reshape(2, 3)
B = np.arange(12.0, dtype=np.float32).reshape(3, 4)


@pytest.mark.parametrize(
    ("given", "want"),
    [
        ("highest", ("HIGHEST", "HIGHEST")),
        ("float32", ("HIGHEST", "HIGHEST")),
        ("tensorfloat32", ("HIGH", "HIGH")),
        ("bfloat16", ("DEFAULT", "DEFAULT")),
        (lax.Precision.HIGH, ("HIGH", "HIGH")),
        (("highest", lax.Precision.DEFAULT), ("HIGHEST", "DEFAULT")),
    ],
)
def test_precision_is_lowered_as_precision_config(given, want):
    text = mj.jit(lambda a, b: lax.dot(a, b, precision=given)).lower(A, B).as_text()
    assert f"precision = [{', '.join(want)}]" in text
    np.testing.assert_allclose(lax.dot(A, B, precision=given), A @ B)


def test_no_precision_emits_no_config():
    assert "precision" not in mj.jit(lambda a, b: lax.dot(a, b)).lower(A, B).as_text()


def test_precision_names_and_errors():
    assert lax.Precision("highest") is lax.Precision.HIGHEST
    assert str(lax.Precision.HIGH) == "HIGH"
    with pytest.raises(ValueError, match="Precision argument must be one of"):
        lax.dot(A, B, precision="fast")
    with pytest.raises(ValueError, match="Precision argument must be one of"):
        lax.dot(A, B, precision=3)


def test_precision_survives_grad_vmap_and_the_numpy_products():
    def loss(a):
        return lax.dot(a, B, precision="highest").sum()

    np.testing.assert_allclose(mj.grad(loss)(A), np.broadcast_to(B.sum(1), A.shape))
    assert "HIGHEST" in mj.jit(mj.grad(loss)).lower(A).as_text()
    assert (
        "HIGHEST"
        in mj.jit(mj.vmap(lambda a: lax.dot(a, B, precision="highest"))).lower(A).as_text()
    )
    for f in (mnp.dot, mnp.matmul, lambda a, b, **k: mnp.tensordot(a, b, 1, **k)):
        np.testing.assert_allclose(f(A, B, precision="highest"), A @ B)
        assert "HIGH," in mj.jit(lambda a, b, f=f: f(a, b, precision="high")).lower(A, B).as_text()
    got = mnp.einsum("ij,jk->ik", A, B, precision="highest")
    np.testing.assert_allclose(got, A @ B)


def test_conv_precision():
    lhs, rhs = np.ones((1, 2, 5, 5), np.float32), np.ones((3, 2, 3, 3), np.float32)
    text = (
        mj.jit(lambda a, b: lax.conv(a, b, (1, 1), "SAME", precision="highest"))
        .lower(lhs, rhs)
        .as_text()
    )
    assert (
        "precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]" in text
    )


CONVS = [
    ((1, 5, 7, 2), (3, 3, 2, 4), (1, 1), "SAME", ("NHWC", "HWIO", "NHWC")),
    ((1, 5, 7, 2), (3, 3, 2, 4), (2, 3), "VALID", ("NHWC", "HWIO", "NHWC")),
    ((2, 3, 9, 8), (4, 3, 2, 3), (2, 2), [(1, 0), (2, 1)], ("NCHW", "OIHW", "NCHW")),
    ((2, 3, 9), (4, 3, 2), (3,), "SAME", ("NCH", "OIH", "NCH")),
]


@pytest.mark.parametrize(("lhs", "rhs", "strides", "padding", "dnums"), CONVS)
def test_conv_general_shape_tuple_is_the_shape_conv_produces(lhs, rhs, strides, padding, dnums):
    out = lax.conv_general_dilated(
        np.ones(lhs, np.float32), np.ones(rhs, np.float32), strides, padding,
        dimension_numbers=dnums,
    )  # fmt: skip
    assert lax.conv_general_shape_tuple(lhs, rhs, strides, padding, dnums) == out.shape
    dn = lax.conv_dimension_numbers(lhs, rhs, dnums)
    assert lax.conv_general_shape_tuple(lhs, rhs, strides, padding, dn) == out.shape


@pytest.mark.parametrize(
    ("lhs", "rhs", "strides", "padding", "dnums"),
    [
        ((1, 5, 7, 2), (3, 3, 4, 2), (2, 2), "SAME", ("NHWC", "HWOI", "NHWC")),
        ((1, 5, 7, 2), (3, 3, 4, 2), (2, 3), "VALID", ("NHWC", "HWOI", "NHWC")),
        ((1, 5, 7, 2), (3, 3, 4, 2), (2, 1), [(1, 1), (0, 2)], ("NHWC", "HWOI", "NHWC")),
    ],
)
def test_conv_transpose_shape_tuple_is_the_shape_conv_transpose_produces(
    lhs, rhs, strides, padding, dnums
):
    out = lax.conv_transpose(
        np.ones(lhs, np.float32), np.ones(rhs, np.float32), strides, padding,
        dimension_numbers=dnums,
    )  # fmt: skip
    assert lax.conv_transpose_shape_tuple(lhs, rhs, strides, padding, dnums) == out.shape


@pytest.mark.parametrize(
    ("shape", "window", "strides", "padding", "base", "win_dil"),
    [
        ((6, 7), (2, 3), (2, 1), ((0, 0), (1, 1)), None, None),
        ((6, 7), (2, 3), (1, 2), ((1, 0), (0, 2)), (2, 1), (1, 2)),
        ((4,), (5,), (1,), ((0, 0),), None, None),  # window larger than the input: empty
    ],
)
def test_reduce_window_shape_tuple_is_the_shape_reduce_window_produces(
    shape, window, strides, padding, base, win_dil
):
    out = lax.reduce_window(
        np.ones(shape, np.float32), 0.0, lax.add, window, strides, padding,
        base_dilation=base, window_dilation=win_dil,
    )  # fmt: skip
    want = lax.reduce_window_shape_tuple(shape, window, strides, padding, base, win_dil)
    assert want == out.shape


def test_conv_shape_tuple_errors():
    with pytest.raises(TypeError, match="Wrong number of explicit pads"):
        lax.conv_shape_tuple((1, 1, 4, 4), (1, 1, 2, 2), (1, 1), [(0, 0)])
    with pytest.raises(ValueError, match="Negative padding is larger"):
        lax.conv_shape_tuple((1, 1, 4), (1, 1, 2), (1,), [(-3, -2)])

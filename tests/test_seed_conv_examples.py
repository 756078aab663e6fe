"""Seed 004, Sharp Bits, "Convolutions": every example ported unchanged except for the import
(``from mj import lax``; the page's ``np`` is ``jax.numpy`` and ``onp`` is NumPy), checked
against the shapes and dimension numbers the page prints and against an independent NumPy
reference (a sum over kernel taps of shifted slices).

The page's text lost its minus signs; the kernels use JAX's original signed values.
"""

import itertools

import numpy as onp
import pytest

import mj.numpy as np
from mj import jit, lax


def reference_conv(lhs, rhs, dn, strides, padding, lhs_dilation, rhs_dilation):
    """Convolution by summing ``kernel tap x shifted input`` over the taps, in NumPy."""
    x = onp.transpose(onp.asarray(lhs, onp.float64), dn.lhs_spec)
    w = onp.transpose(onp.asarray(rhs, onp.float64), dn.rhs_spec)
    spatial = x.shape[2:]
    dilated = onp.zeros(
        (*x.shape[:2], *((s - 1) * d + 1 for s, d in zip(spatial, lhs_dilation, strict=True)))
    )
    dilated[(slice(None), slice(None), *(slice(None, None, d) for d in lhs_dilation))] = x
    x = onp.pad(dilated, [(0, 0), (0, 0), *padding])
    window = [(k - 1) * r + 1 for k, r in zip(w.shape[2:], rhs_dilation, strict=True)]
    out_sp = [(p - k) // s + 1 for p, k, s in zip(x.shape[2:], window, strides, strict=True)]
    out = onp.zeros((x.shape[0], w.shape[0], *out_sp))
    for tap in itertools.product(*map(range, w.shape[2:])):
        starts = [t * r for t, r in zip(tap, rhs_dilation, strict=True)]
        shifted = x[
            (
                slice(None),
                slice(None),
                *(
                    slice(b, b + (n - 1) * s + 1, s)
                    for b, n, s in zip(starts, out_sp, strides, strict=True)
                ),
            )
        ]
        out += onp.einsum("nc...,oc->no...", shifted, w[(slice(None), slice(None), *tap)])
    return onp.transpose(out, onp.argsort(dn.out_spec))


def check(out, lhs, rhs, dn, strides, padding, lhs_dilation, rhs_dilation):
    ref = reference_conv(lhs, rhs, dn, strides, padding, lhs_dilation, rhs_dilation)
    assert out.shape == ref.shape
    assert out.dtype == onp.float32
    onp.testing.assert_allclose(onp.asarray(out, onp.float64), ref, rtol=1e-5, atol=1e-5)


@pytest.fixture(scope="module")
def kernel():
    # 2D kernel - HWIO layout
    kernel = onp.zeros((3, 3, 3, 3), dtype=np.float32)
    kernel += onp.array([[1, 1, 0], [1, 0, -1], [0, -1, -1]])[:, :, onp.newaxis, onp.newaxis]
    return kernel


@pytest.fixture(scope="module")
def img():
    # NHWC layout
    img = onp.zeros((1, 200, 198, 3), dtype=np.float32)
    for k in range(3):
        x = 30 + 60 * k
        y = 20 + 60 * k
        img[0, x : x + 10, y : y + 10, k] = 1.0
    return img


NCHW_OIHW = lax.ConvDimensionNumbers((0, 1, 2, 3), (0, 1, 2, 3), (0, 1, 2, 3))


def test_lax_conv(img, kernel):
    lhs, rhs = np.transpose(img, [0, 3, 1, 2]), np.transpose(kernel, [3, 2, 0, 1])
    out = lax.conv(
        lhs,  # lhs = NCHW image tensor
        rhs,  # rhs = OIHW conv kernel tensor
        (1, 1),  # window strides
        "SAME",
    )  # padding mode
    assert out.shape == (1, 3, 200, 198)
    check(out, lhs, rhs, NCHW_OIHW, (1, 1), [(1, 1), (1, 1)], (1, 1), (1, 1))


def test_lax_conv_with_general_padding(img, kernel):
    lhs, rhs = np.transpose(img, [0, 3, 1, 2]), np.transpose(kernel, [2, 3, 0, 1])
    out = lax.conv_with_general_padding(
        lhs,  # lhs = NCHW image tensor
        rhs,  # rhs = IOHW conv kernel tensor
        (1, 1),  # window strides
        ((2, 2), (2, 2)),  # general padding 2x2
        (1, 1),  # lhs/image dilation
        (1, 1),
    )  # rhs/kernel dilation
    assert out.shape == (1, 3, 202, 200)
    check(out, lhs, rhs, NCHW_OIHW, (1, 1), [(2, 2), (2, 2)], (1, 1), (1, 1))


@pytest.fixture(scope="module")
def dn(img, kernel):
    return lax.conv_dimension_numbers(
        img.shape,  # only ndim matters, not shape
        kernel.shape,  # only ndim matters, not shape
        ("NHWC", "HWIO", "NHWC"),
    )  # the important bit


def test_dimension_numbers_print_like_the_page(dn):
    assert str(dn) == (
        "ConvDimensionNumbers(lhs_spec=(0, 3, 1, 2), rhs_spec=(3, 2, 0, 1), out_spec=(0, 3, 1, 2))"
    )


# (window strides, padding, lhs dilation, rhs dilation, printed shape, explicit padding)
GENERAL_DILATED = {
    "same": ((1, 1), "SAME", (1, 1), (1, 1), (1, 200, 198, 3), [(1, 1), (1, 1)]),
    "valid": ((1, 1), "VALID", (1, 1), (1, 1), (1, 198, 196, 3), [(0, 0), (0, 0)]),
    "same_stride_2": ((2, 2), "SAME", (1, 1), (1, 1), (1, 100, 99, 3), [(0, 1), (0, 1)]),
    "atrous": ((1, 1), "VALID", (1, 1), (12, 12), (1, 176, 174, 3), [(0, 0), (0, 0)]),
    "lhs_dilation": ((1, 1), ((0, 0), (0, 0)), (2, 2), (1, 1), (1, 397, 393, 3), [(0, 0)] * 2),
}


@pytest.mark.parametrize("case", GENERAL_DILATED)
def test_conv_general_dilated(case, img, kernel, dn):
    strides, padding, lhs_dilation, rhs_dilation, shape, pads = GENERAL_DILATED[case]
    out = lax.conv_general_dilated(
        img,  # lhs = image tensor
        kernel,  # rhs = conv kernel tensor
        strides,  # window strides
        padding,  # padding mode
        lhs_dilation,  # lhs/image dilation
        rhs_dilation,  # rhs/kernel dilation
        dn,
    )  # dimension_numbers = lhs, rhs, out dimension permutation
    assert out.shape == shape
    check(out, img, kernel, dn, strides, pads, lhs_dilation, rhs_dilation)


def test_transposed_convolution(img, kernel, dn):
    # transposed conv = 180deg kernel rotation plus LHS dilation
    # rotate kernel 180deg:
    kernel_rot = np.rot90(np.rot90(kernel, axes=(0, 1)), axes=(0, 1))
    # need a custom output padding:
    padding = ((2, 1), (2, 1))
    out = lax.conv_general_dilated(
        img,  # lhs = image tensor
        kernel_rot,  # rhs = conv kernel tensor
        (1, 1),  # window strides
        padding,  # padding mode
        (2, 2),  # lhs/image dilation
        (1, 1),  # rhs/kernel dilation
        dn,
    )  # dimension_numbers = lhs, rhs, out dimension permutation
    assert out.shape == (1, 400, 396, 3)
    check(out, img, onp.asarray(kernel)[::-1, ::-1], dn, (1, 1), padding, (2, 2), (1, 1))
    # the same transposed convolution, as lax.conv_transpose computes it
    again = lax.conv_transpose(img, kernel_rot, (2, 2), "SAME", dimension_numbers=dn)
    onp.testing.assert_allclose(again, out, rtol=1e-6)


def test_1d_convolution():
    # 1D kernel - WIO layout
    kernel = onp.array(
        [[[1, 0, -1], [-1, 0, 1]], [[1, 1, 1], [-1, -1, -1]]], dtype=np.float32
    ).transpose([2, 1, 0])
    # 1D data - NWC layout
    data = onp.zeros((1, 200, 2), dtype=np.float32)
    for i in range(2):
        for k in range(2):
            x = 35 * i + 30 + 60 * k
            data[0, x : x + 30, k] = 1.0
    assert (data.shape, kernel.shape) == ((1, 200, 2), (3, 2, 2))
    dn = lax.conv_dimension_numbers(data.shape, kernel.shape, ("NWC", "WIO", "NWC"))
    assert str(dn) == (
        "ConvDimensionNumbers(lhs_spec=(0, 2, 1), rhs_spec=(2, 1, 0), out_spec=(0, 2, 1))"
    )
    out = lax.conv_general_dilated(
        data,  # lhs = image tensor
        kernel,  # rhs = conv kernel tensor
        (1,),  # window strides
        "SAME",  # padding mode
        (1,),  # lhs/image dilation
        (1,),  # rhs/kernel dilation
        dn,
    )  # dimension_numbers = lhs, rhs, out dimension permutation
    assert out.shape == (1, 200, 2)
    check(out, data, kernel, dn, (1,), [(1, 1)], (1,), (1,))


def test_3d_convolution():
    # Random 3D kernel - HWDIO layout
    kernel = onp.array(
        [
            [[0, 0, 0], [0, 1, 0], [0, 0, 0]],
            [[0, 1, 0], [1, 0, 1], [0, 1, 0]],
            [[0, 0, 0], [0, 1, 0], [0, 0, 0]],
        ],
        dtype=np.float32,
    )[:, :, :, onp.newaxis, onp.newaxis]
    # 3D data - NHWDC layout
    data = onp.zeros((1, 30, 30, 30, 1), dtype=np.float32)
    x, y, z = onp.mgrid[0:1:30j, 0:1:30j, 0:1:30j]
    data += (onp.sin(2 * x * np.pi) * onp.cos(2 * y * np.pi) * onp.cos(2 * z * np.pi))[
        None, :, :, :, None
    ]
    assert (data.shape, kernel.shape) == ((1, 30, 30, 30, 1), (3, 3, 3, 1, 1))
    dn = lax.conv_dimension_numbers(data.shape, kernel.shape, ("NHWDC", "HWDIO", "NHWDC"))
    assert str(dn) == (
        "ConvDimensionNumbers(lhs_spec=(0, 4, 1, 2, 3), rhs_spec=(4, 3, 0, 1, 2), "
        "out_spec=(0, 4, 1, 2, 3))"
    )
    out = lax.conv_general_dilated(
        data,  # lhs = image tensor
        kernel,  # rhs = conv kernel tensor
        (1, 1, 1),  # window strides
        "SAME",  # padding mode
        (1, 1, 1),  # lhs/image dilation
        (1, 1, 1),  # rhs/kernel dilation
        dn,
    )  # dimension_numbers
    assert out.shape == (1, 30, 30, 30, 1)
    check(out, data, kernel, dn, (1, 1, 1), [(1, 1)] * 3, (1, 1, 1), (1, 1, 1))


def test_examples_run_the_same_under_jit(img, kernel, dn):
    def conv(img, kernel):
        return lax.conv_general_dilated(img, kernel, (2, 2), "SAME", (1, 1), (1, 1), dn)

    onp.testing.assert_allclose(jit(conv)(img, kernel), conv(img, kernel), rtol=1e-5, atol=1e-6)

"""conv_general_dilated: the NumPy impl against a direct loop over output positions, and the
mj_core.lax wrappers' parameter handling (dimension strings, padding modes, errors)."""

import itertools

import numpy as np
import pytest

import mj_core.numpy as mnp
from mj_core import lax
from mj_core.lax import ConvDimensionNumbers


def loop_conv(lhs, rhs, strides, padding, lhs_dil, rhs_dil, dn, fgc=1, bgc=1):
    """The definition, one output element at a time (canonical NCHW/OIHW order inside)."""
    x = np.transpose(lhs, dn.lhs_spec)
    w = np.transpose(rhs, dn.rhs_spec)
    n = x.shape[0]
    o, i = w.shape[:2]
    kernel = w.shape[2:]
    # value of the dilated, padded input at an index (zero outside / between samples)

    def at(b, f, pos):
        idx = []
        for p, size, (lo, _), d in zip(pos, x.shape[2:], padding, lhs_dil, strict=True):
            q = p - lo
            if q < 0 or q % d or q // d >= size:
                return 0.0
            idx.append(q // d)
        return x[(b, f, *idx)]

    padded = [
        (s - 1) * d + 1 + lo + hi
        for s, d, (lo, hi) in zip(x.shape[2:], lhs_dil, padding, strict=True)
    ]
    window = [(k - 1) * r + 1 for k, r in zip(kernel, rhs_dil, strict=True)]
    out_sp = [max(0, (p - k) // s + 1) for p, k, s in zip(padded, window, strides, strict=True)]
    groups = max(fgc, bgc)
    n_out, o_per_group = n // bgc, o // groups
    out = np.zeros((n_out, o, *out_sp), np.result_type(x, w))
    for b, f in itertools.product(range(n_out), range(o)):
        g = f // o_per_group
        for pos in itertools.product(*map(range, out_sp)):
            acc = 0.0
            for ci, k in itertools.product(range(i), itertools.product(*map(range, kernel))):
                where = [
                    p * s + kk * r for p, s, kk, r in zip(pos, strides, k, rhs_dil, strict=True)
                ]
                if bgc > 1:
                    acc += at(g * n_out + b, ci, where) * w[(f, ci, *k)]
                else:
                    acc += at(b, g * i + ci, where) * w[(f, ci, *k)]
            out[(b, f, *pos)] = acc
    return np.transpose(out, np.argsort(dn.out_spec))


# (lhs shape, rhs shape, strides, padding, lhs_dilation, rhs_dilation, dimension numbers,
#  feature_group_count, batch_group_count)
CONFIGS = [
    ((2, 3, 6, 5), (4, 3, 3, 2), (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1), None, 1, 1),
    ((2, 3, 7, 6), (4, 3, 3, 2), (2, 3), ((1, 2), (0, 1)), (1, 1), (1, 1), None, 1, 1),
    ((1, 2, 5, 5), (3, 2, 2, 3), (1, 1), ((2, 1), (1, 2)), (2, 3), (1, 1), None, 1, 1),
    ((1, 2, 8, 7), (3, 2, 2, 3), (1, 2), ((0, 0), (1, 0)), (1, 1), (3, 2), None, 1, 1),
    ((2, 3, 7, 6), (2, 3, 3, 2), (1, 1), ((-1, 2), (1, -2)), (1, 1), (1, 1), None, 1, 1),
    ((2, 4, 6, 5), (6, 2, 3, 2), (2, 1), ((1, 0), (0, 1)), (2, 1), (1, 2), None, 2, 1),
    ((4, 3, 6, 5), (6, 3, 2, 2), (1, 2), ((0, 1), (1, 1)), (1, 1), (2, 1), None, 1, 2),
    ((2, 6, 5, 3), (3, 2, 3, 4), (1, 1), ((1, 1), (0, 0)), (1, 1), (1, 1), "NHWC", 1, 1),
    ((2, 3, 9), (5, 3, 4), (3,), ((2, 1),), (2,), (2,), None, 1, 1),
    ((1, 2, 4, 4, 3), (2, 2, 2, 3, 2), (1, 2, 1), ((1, 0), (0, 1), (1, 1)), (1, 1, 1),
     (1, 1, 2), None, 1, 1),
]  # fmt: skip

TF_DNUMS = ("NHWC", "HWIO", "NHWC")


def _dnums(lhs_shape, rhs_shape, spec):
    return lax.conv_dimension_numbers(lhs_shape, rhs_shape, TF_DNUMS if spec == "NHWC" else spec)


@pytest.mark.parametrize("config", CONFIGS, ids=[str(i) for i in range(len(CONFIGS))])
def test_impl_matches_the_loop_definition(config, rng):
    ls, rs, strides, padding, ld, rd, spec, fgc, bgc = config
    x, w = rng.normal(size=ls), rng.normal(size=rs)
    dn = _dnums(ls, rs, spec)
    out = lax.conv_general_dilated(x, w, strides, padding, ld, rd, dn, fgc, bgc)
    ref = loop_conv(x, w, strides, padding, ld, rd, dn, fgc, bgc)
    assert out.shape == ref.shape
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64, np.complex128])
def test_dtypes_are_kept(dtype, rng):
    x = (rng.normal(size=(2, 2, 5, 4)) * 3).astype(dtype)
    w = (rng.normal(size=(3, 2, 2, 2)) * 3).astype(dtype)
    dn = lax.conv_dimension_numbers(x.shape, w.shape, None)
    out = lax.conv(x, w, (1, 1), "VALID")
    assert out.dtype == dtype
    ref = loop_conv(x, w, (1, 1), ((0, 0), (0, 0)), (1, 1), (1, 1), dn)
    np.testing.assert_allclose(out, ref, rtol=1e-5)


def test_bool_convolution_is_logical():
    x = np.array([[[True, False, False, True, False]]])
    w = np.array([[[True, True]]])
    out = lax.conv(x, w, (1,), "VALID")
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out[0, 0], [True, False, True, True])


def test_preferred_element_type_sets_the_output_dtype():
    x = np.arange(8, dtype=np.int8).reshape(1, 1, 8) * np.int8(15)  # sums overflow int8
    w = np.ones((1, 1, 3), np.int8)
    out = lax.conv(x, w, (1,), "VALID", preferred_element_type=np.int32)
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out[0, 0], [45, 90, 135, 180, 225, 270])


def test_conv_dimension_numbers_from_strings_and_none():
    dn = lax.conv_dimension_numbers((1, 2, 3, 4), (1, 2, 3, 4), TF_DNUMS)
    assert dn == ConvDimensionNumbers((0, 3, 1, 2), (3, 2, 0, 1), (0, 3, 1, 2))
    assert type(dn) is lax.ConvDimensionNumbers
    dn1 = lax.conv_dimension_numbers((1, 200, 2), (3, 2, 2), ("NWC", "WIO", "NWC"))
    assert dn1 == ((0, 2, 1), (2, 1, 0), (0, 2, 1))
    assert lax.conv_dimension_numbers((1,) * 3, (1,) * 3, None) == ((0, 1, 2),) * 3
    # spatial dims follow the order of the kernel string
    dn2 = lax.conv_dimension_numbers((1,) * 4, (1,) * 4, ("NCWH", "OIHW", "NHWC"))
    assert dn2 == ((0, 1, 3, 2), (0, 1, 2, 3), (0, 3, 1, 2))


def test_padtype_to_pads():
    assert lax.padtype_to_pads((5, 6), (3, 4), (1, 2), "SAME") == [(1, 1), (1, 1)]
    assert lax.padtype_to_pads((6,), (4,), (1,), "SAME") == [(1, 2)]
    assert lax.padtype_to_pads((6,), (4,), (1,), "SAME_LOWER") == [(2, 1)]
    assert lax.padtype_to_pads((6,), (4,), (1,), "VALID") == [(0, 0)]
    with pytest.raises(ValueError, match="SAME_LOWER"):
        lax.padtype_to_pads((6,), (4,), (1,), "FULL")


@pytest.mark.parametrize("padding", ["SAME", "SAME_LOWER", "VALID"])
@pytest.mark.parametrize("strides", [(1, 1), (2, 3)])
def test_string_padding_sizes(padding, strides, rng):
    x, w = rng.normal(size=(1, 1, 7, 8)), rng.normal(size=(1, 1, 4, 3))
    out = lax.conv_general_dilated(x, w, strides, padding, rhs_dilation=(1, 2))
    if padding == "VALID":
        expected = tuple(
            (s - k) // st + 1 for s, k, st in zip((7, 8), (4, 5), strides, strict=True)
        )
    else:
        expected = tuple(-(-s // st) for s, st in zip((7, 8), strides, strict=True))
    assert out.shape[2:] == expected
    pads = lax.padtype_to_pads((7, 8), (4, 5), strides, padding)
    ref = lax.conv_general_dilated(x, w, strides, pads, rhs_dilation=(1, 2))
    np.testing.assert_array_equal(out, ref)


def test_conv_with_general_padding_is_nchw_oihw(rng):
    x, w = rng.normal(size=(1, 2, 5, 5)), rng.normal(size=(3, 2, 3, 3))
    out = lax.conv_with_general_padding(x, w, (1, 1), ((2, 2), (2, 2)), (1, 1), (1, 1))
    assert out.shape == (1, 3, 7, 7)
    dn = lax.conv_dimension_numbers(x.shape, w.shape, None)
    np.testing.assert_allclose(
        out, loop_conv(x, w, (1, 1), ((2, 2), (2, 2)), (1, 1), (1, 1), dn), rtol=1e-12
    )


def test_conv_transpose_is_the_lhs_dilated_conv(rng):
    x, w = rng.normal(size=(1, 4, 5, 2)), rng.normal(size=(3, 3, 2, 3))
    out = lax.conv_transpose(x, w, (2, 2), "SAME")  # NHWC / HWIO defaults
    assert out.shape == (1, 8, 10, 3)
    ref = lax.conv_general_dilated(x, w, (1, 1), ((2, 1), (2, 1)), (2, 2), None, TF_DNUMS)
    np.testing.assert_allclose(out, ref, rtol=1e-12)


@pytest.mark.parametrize(("n", "m"), [(6, 3), (3, 6), (4, 4), (5, 1)])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_numpy_convolve_matches_numpy(n, m, mode, rng):
    a, v = rng.normal(size=n), rng.normal(size=m)
    np.testing.assert_allclose(mnp.convolve(a, v, mode), np.convolve(a, v, mode), rtol=1e-12)
    if mode != "same" or n >= m:  # NumPy's 'same' correlate of a shorter a is centred differently
        np.testing.assert_allclose(
            mnp.correlate(a, v, mode), np.correlate(a, v, mode), rtol=1e-12, atol=1e-14
        )


def test_numpy_convolve_promotes_integers_and_checks_inputs():
    out = mnp.convolve(np.array([1, 2, 3]), np.array([0, 1]))
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [0.0, 1.0, 2.0, 3.0])
    with pytest.raises(ValueError, match="1-dimensional"):
        mnp.convolve(np.ones((2, 2)), np.ones(2))
    with pytest.raises(ValueError, match="mode"):
        mnp.correlate(np.ones(3), np.ones(2), "middle")
    with pytest.raises(ValueError, match="empty"):
        mnp.convolve(np.ones(3), np.ones(0))


def _bad_call():
    return lax.conv_general_dilated(np.ones((1, 4, 5, 5)), np.ones((2, 3, 2, 2)), (1, 1), "SAME")


def test_errors_name_the_primitive_the_shapes_and_the_user_line():
    with pytest.raises(TypeError, match=r"conv_general_dilated.*feature.*4.*3") as err:
        _bad_call()
    message = str(err.value)
    assert "f64[1,4,5,5]" in message
    assert "f64[2,3,2,2]" in message
    assert "test_core_prims_convolution.py" in message
    with pytest.raises(TypeError, match="lhs and rhs ndim to be equal, got 3 and 4"):
        lax.conv(np.ones((1, 1, 4)), np.ones((1, 1, 2, 2)), (1,), "SAME")
    with pytest.raises(TypeError, match="size 3 must be a multiple of feature_group_count=2"):
        lax.conv_general_dilated(
            np.ones((1, 4, 5)), np.ones((3, 2, 2)), (1,), "VALID", feature_group_count=2
        )
    with pytest.raises(TypeError, match="at most one"):
        lax.conv_general_dilated(
            np.ones((4, 4, 5)),
            np.ones((4, 2, 2)),
            (1,),
            "VALID",
            feature_group_count=2,
            batch_group_count=2,
        )
    with pytest.raises(TypeError, match="batch_group_count=3 must divide"):
        lax.conv_general_dilated(
            np.ones((4, 2, 5)), np.ones((3, 2, 2)), (1,), "VALID", batch_group_count=3
        )
    with pytest.raises(ValueError, match="window_strides"):  # (JAX's shape rule's error)
        lax.conv(np.ones((1, 1, 4, 4)), np.ones((1, 1, 2, 2)), (1,), "SAME")
    with pytest.raises(TypeError, match="exactly once"):
        lax.conv_general_dilated(
            np.ones((1, 4, 4, 1)),
            np.ones((2, 2, 1, 1)),
            (1, 1),
            "SAME",
            None,
            None,
            ("NHWC", "HWII", "NHWC"),
        )
    with pytest.raises(TypeError, match="must be positive"):
        lax.conv_general_dilated(np.ones((1, 1, 4)), np.ones((1, 1, 2)), (0,), "VALID")
    with pytest.raises(TypeError, match="negative padding"):
        lax.conv_general_dilated(np.ones((1, 1, 4)), np.ones((1, 1, 2)), (1,), [(-3, -2)])
    with pytest.raises(ValueError, match="transposed convolution"):
        lax.conv_general_dilated(np.ones((1, 1, 4)), np.ones((1, 1, 2)), (1,), "SAME", (2,))
    with pytest.raises(ValueError, match="sequence of"):
        lax.conv_general_dilated(np.ones((1, 1, 4)), np.ones((1, 1, 2)), (1,), [1, 2])


def test_empty_and_degenerate_shapes():
    out = lax.conv(np.ones((0, 2, 4)), np.ones((3, 2, 2)), (1,), "VALID")
    assert out.shape == (0, 3, 3)
    out = lax.conv(np.ones((1, 2, 2)), np.ones((3, 2, 4)), (1,), "VALID")
    assert out.shape == (1, 3, 0)
    assert lax.conv_general_dilated_p.name == "conv_general_dilated"

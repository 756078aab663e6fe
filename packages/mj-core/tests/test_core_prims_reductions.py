"""Reductions, arg-reductions, cumulative ops, sort and dot_general vs NumPy."""

import numpy as np
import pytest

from mj_core import bind, bind1, lax
from mj_core.errors import AxisError

NUMERIC = ["int32", "int64", "float32", "float64"]


def _close(out, want):
    out = np.asarray(out)
    assert out.shape == np.shape(want)
    if out.dtype.kind == "f":
        tol = 1e-5 if out.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(out, want, rtol=tol, atol=tol)
    else:
        np.testing.assert_array_equal(out, want)


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("axes", [(), (0,), (1, 2), (0, 1, 2)], ids=str)
@pytest.mark.parametrize(
    ("name", "ref"), [("sum", np.sum), ("prod", np.prod), ("max", np.max), ("min", np.min)]
)
def test_reduce_vs_numpy_keeps_dtype(name, ref, axes, dtype, rand):
    x = rand((2, 3, 4), dtype)
    out = getattr(lax, f"reduce_{name}")(x, axes)
    assert out.dtype == x.dtype  # XLA semantics: no widening of int32 sums
    _close(out, ref(x, axis=axes).astype(dtype))


@pytest.mark.parametrize("dtype", ["bool", "int32", "uint8"])
def test_reduce_and_or(dtype, rand):
    x = rand((3, 4), dtype)
    if dtype == "bool":
        _close(lax.reduce_and(x, (1,)), np.all(x, 1))
        _close(lax.reduce_or(x, (0,)), np.any(x, 0))
    else:
        _close(lax.reduce_and(x, (1,)), np.bitwise_and.reduce(x, 1))
        _close(lax.reduce_or(x, (0,)), np.bitwise_or.reduce(x, 0))


def test_reductions_of_empty_axes_give_identities():
    e = np.zeros((0, 3), np.float32)
    _close(lax.reduce_sum(e, (0,)), np.zeros(3))
    _close(lax.reduce_prod(e, (0,)), np.ones(3))
    _close(lax.reduce_max(e, (0,)), np.full(3, -np.inf))
    _close(lax.reduce_min(np.zeros((0,), np.int32), (0,)), np.iinfo(np.int32).max)
    _close(lax.reduce_and(np.zeros((0,), bool), (0,)), True)


def test_reduction_errors():
    with pytest.raises(TypeError, match=r"reduce_sum.*bool\[3\]"):
        bind1(lax.reduce_sum_p, np.ones(3, bool), axes=(0,))
    with pytest.raises(ValueError, match=r"reduce_max"):
        bind1(lax.reduce_max_p, np.ones(3), axes=(1,))
    with pytest.raises(AxisError, match=r"reduce_min"):
        lax.reduce_min(np.ones(3), (3,))
    with pytest.raises(TypeError, match=r"argmax.*empty"):
        lax.argmax(np.ones((0, 2)), 0, np.int32)


@pytest.mark.parametrize("dtype", ["bool", *NUMERIC])
@pytest.mark.parametrize("axis", [0, 1])
def test_argmax_argmin(dtype, axis, rand):
    x = rand((4, 5), dtype)
    for name, ref in (("argmax", np.argmax), ("argmin", np.argmin)):
        out = getattr(lax, name)(x, axis, np.int32)
        assert out.dtype == np.int32
        _close(out, ref(x, axis=axis))
        with pytest.raises(ValueError, match=r"Invalid axis -1 for operand shape \(4, 5\)"):
            getattr(lax, name)(x, -1, np.int32)  # lax's axis is non-negative, as JAX's


def test_argmax_nan_is_the_maximum():
    x = np.array([1.0, np.nan, 5.0, np.nan])
    assert lax.argmax(x, 0, np.int64) == 1
    assert lax.argmin(x, 0, np.int64) == 1


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize("reverse", [False, True])
def test_cumulative(dtype, reverse, rand):
    x = rand((3, 5), dtype)
    refs = {
        "cumsum": lambda a, ax: np.cumsum(a, ax, dtype=a.dtype),
        "cumprod": lambda a, ax: np.cumprod(a, ax, dtype=a.dtype),
        "cummax": np.maximum.accumulate,
        "cummin": np.minimum.accumulate,
    }
    for name, ref in refs.items():
        for axis in (0, 1):
            out = getattr(lax, name)(x, axis, reverse)
            want = np.flip(ref(np.flip(x, axis), axis), axis) if reverse else ref(x, axis)
            assert out.dtype == x.dtype
            _close(out, want)
    assert lax.cumsum(np.zeros((0,), dtype)).shape == (0,)


@pytest.mark.parametrize("dtype", ["bool", *NUMERIC])
def test_sort_single_and_with_payload(dtype, rand):
    x = rand((4, 6), dtype)
    for dim in (0, 1):
        _close(lax.sort(x, dim), np.sort(x, dim))
    keys, idx = lax.sort_key_val(x, np.broadcast_to(np.arange(6), (4, 6)), 1)
    _close(keys, np.sort(x, 1))
    _close(idx, np.argsort(x, 1, kind="stable"))  # stable: equal keys keep their order


def test_sort_multiple_keys_lexicographic_and_nan_last():
    a = np.array([2, 1, 2, 1, 0])
    b = np.array([1.0, 5.0, 0.0, 3.0, 9.0])
    c = np.arange(5)
    sa, sb, sc = lax.sort((a, b, c), num_keys=2)
    order = np.lexsort((b, a))
    _close(sa, a[order])
    _close(sb, b[order])
    _close(sc, c[order])
    _close(lax.sort(np.array([3.0, np.nan, -np.inf, 1.0])), [-np.inf, 1.0, 3.0, np.nan])


def test_sort_errors():
    with pytest.raises(TypeError, match=r"sort.*same shape.*f64\[3\], f64\[4\]"):
        bind(lax.sort_p, np.ones(3), np.ones(4), dimension=0, is_stable=True, num_keys=1)
    with pytest.raises(TypeError, match=r"sort.*num_keys"):
        lax.sort((np.ones(3),), num_keys=2)


@pytest.mark.parametrize("dtype", NUMERIC)
@pytest.mark.parametrize(
    ("ls", "rs", "dn", "spec"),
    [
        ((3, 4), (4, 5), (((1,), (0,)), ((), ())), "ij,jk->ik"),
        ((4,), (4,), (((0,), (0,)), ((), ())), "i,i->"),
        ((2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,))), "bij,bjk->bik"),
        ((3, 2, 4), (4, 5, 2), (((0, 2), (3, 0)), ((), ())), None),
        ((2, 3, 7, 4), (7, 4, 2, 5), (((3,), (1,)), ((0, 2), (2, 0))), "bits,tsbk->btik"),
        ((3, 0), (0, 2), (((1,), (0,)), ((), ())), "ij,jk->ik"),
        ((2,), (3,), (((), ()), ((), ())), "i,j->ij"),
    ],
)
def test_dot_general_vs_einsum(ls, rs, dn, spec, dtype, rand):
    x, y = rand(ls, dtype), rand(rs if spec else (4, 5, 3), dtype)
    if spec is None:
        dn = (((0, 2), (2, 0)), ((), ()))
        spec = "ijk,kli->jl"
    out = lax.dot_general(x, y, dn)
    assert out.dtype == x.dtype
    _close(out, np.einsum(spec, x, y))


def test_dot_general_preferred_type_and_dot():
    x = np.arange(6, dtype=np.int8).reshape(2, 3) * 40
    out = lax.dot_general(x, x.T, (((1,), (0,)), ((), ())), preferred_element_type=np.int32)
    assert out.dtype == np.int32
    _close(out, x.astype(np.int32) @ x.T.astype(np.int32))
    _close(lax.dot(np.ones((2, 3)), np.ones(3)), np.full(2, 3.0))


def test_dot_general_errors():
    with pytest.raises(TypeError, match=r"dot_general.*contracting.*f64\[2,3\], f64\[4,5\]"):
        lax.dot_general(np.ones((2, 3)), np.ones((4, 5)), (((1,), (0,)), ((), ())))
    with pytest.raises(TypeError, match=r"^`preferred_element_type` must not be narrower"):
        lax.dot(np.ones(3, np.int32), np.ones(3, np.int32), preferred_element_type=np.int8)
    with pytest.raises(TypeError, match=r"dot: operands must have rank 1 or 2"):
        lax.dot(np.ones((2, 2, 2)), np.ones(2))

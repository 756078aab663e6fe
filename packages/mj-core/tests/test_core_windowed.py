"""reduce_window_{sum,max,min}: the NumPy impl against a per-output loop over explicitly
dilated and padded operands, typing errors, and the reduce_window/reduce dispatch."""

import itertools

import numpy as np
import pytest

from mj_core import lax
from mj_core._trace import bind1
from mj_core.lax import reduce, reduce_window
from mj_core.prims.windowed import reduce_window_max_p, reduce_window_min_p, reduce_window_sum_p

rng = np.random.default_rng(0)


def _loop_reference(x, op, identity, dims, strides, padding, base, wdil):
    dilated = np.full(
        [(s - 1) * b + 1 if s else 0 for s, b in zip(x.shape, base, strict=True)], identity
    )
    dilated[tuple(slice(None, None, b) for b in base)] = x
    lo = [max(p, 0) for p, _ in padding]
    hi = [max(p, 0) for _, p in padding]
    padded = np.pad(dilated, list(zip(lo, hi, strict=True)), constant_values=identity)
    padded = padded[
        tuple(
            slice(max(-lo_, 0), n - max(-hi_, 0))
            for (lo_, hi_), n in zip(padding, padded.shape, strict=True)
        )
    ]
    spans = [(w - 1) * d + 1 for w, d in zip(dims, wdil, strict=True)]
    out_shape = [
        max(0, (n - sp) // s + 1) for n, sp, s in zip(padded.shape, spans, strides, strict=True)
    ]
    out = np.full(out_shape, identity, dtype=float)
    for o in itertools.product(*map(range, out_shape)):
        window = padded[
            tuple(
                slice(i * s, i * s + sp, d)
                for i, s, sp, d in zip(o, strides, spans, wdil, strict=True)
            )
        ]
        out[o] = op(window)
    return out


CASES = [
    ((6, 7), (2, 2), (2, 2), ((0, 0), (0, 0)), (1, 1), (1, 1)),
    ((6, 7), (3, 2), (1, 2), ((1, 2), (0, 1)), (1, 1), (1, 1)),
    ((5, 4), (2, 3), (2, 1), ((1, -1), (2, 0)), (2, 1), (1, 2)),
    (
        (2, 5, 6, 3),
        (1, 2, 2, 1),
        (1, 2, 2, 1),
        ((0, 0), (0, 1), (0, 0), (0, 0)),
        (1,) * 4,
        (1,) * 4,
    ),
    ((4,), (5,), (1,), ((0, 0),), (1,), (1,)),  # no window fits: empty output
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize(
    ("prim", "op", "identity"),
    [(reduce_window_sum_p, np.sum, 0.0), (reduce_window_max_p, np.max, -np.inf),
     (reduce_window_min_p, np.min, np.inf)],
)  # fmt: skip
def test_impl_matches_loop(case, prim, op, identity):
    shape, dims, strides, padding, base, wdil = case
    x = rng.normal(size=shape)
    params = dict(window_dimensions=dims, window_strides=strides, padding=padding,
                  base_dilation=base, window_dilation=wdil)  # fmt: skip
    out = bind1(prim, x, **params)
    ref = _loop_reference(x, op, identity, dims, strides, padding, base, wdil)
    assert out.shape == ref.shape
    assert out.dtype == x.dtype
    np.testing.assert_allclose(out, ref, rtol=1e-12)


def test_dtypes_kept_and_integer_max_pads_with_int_min():
    x = np.arange(12, dtype=np.int32).reshape(3, 4) - 20
    out = reduce_window(x, np.iinfo(np.int32).min, lax.max, (2, 2), (1, 1), ((1, 0), (0, 0)))
    assert out.dtype == np.int32
    np.testing.assert_array_equal(out[0], [-19, -18, -17])
    f32 = reduce_window(x.astype(np.float32), 0.0, lax.add, (3, 1), (1, 1), "VALID")
    assert f32.dtype == np.float32
    assert f32.shape == (1, 4)


def test_same_padding_as_jax():
    x = np.arange(25.0).reshape(5, 5)
    out = reduce_window(x, 0.0, lax.add, (2, 2), (2, 2), "SAME")
    assert out.shape == (3, 3)
    assert out[2, 2] == 24.0
    assert out[0, 0] == 0 + 1 + 5 + 6


ONE_D = {
    "window_dimensions": (1,),
    "window_strides": (1,),
    "padding": ((0, 0),),
    "base_dilation": (1,),
    "window_dilation": (1,),
}


def test_typing_errors_name_the_primitive():
    with pytest.raises(TypeError, match=r"reduce_window_sum.*window_dimensions"):
        bind1(reduce_window_sum_p, np.ones((2, 2)), **ONE_D)
    with pytest.raises(TypeError, match="reduce_window_sum: requires"):
        bind1(reduce_window_sum_p, np.ones(2, bool), **ONE_D)
    with pytest.raises(TypeError, match="window_strides must have every element be greater"):
        reduce_window(np.ones(3), 0.0, lax.add, (1,), (0,), "VALID")


def test_generic_computations_are_not_implemented():
    with pytest.raises(NotImplementedError, match=r"reduce_window: .*lax\.add"):
        reduce_window(np.ones(3), 1.0, lax.mul, (2,), (1,), "VALID")
    with pytest.raises(NotImplementedError, match="identity"):
        reduce_window(np.ones(3), 1.0, lax.add, (2,), (1,), "VALID")
    with pytest.raises(NotImplementedError, match="reduce: "):
        reduce(np.ones(3), 0.0, lax.sub, (0,))


def test_reduce_dispatches_to_the_monoid():
    x = rng.normal(size=(3, 4))
    np.testing.assert_allclose(reduce(x, 0.0, lax.add, (1,)), x.sum(1))
    np.testing.assert_allclose(reduce(x, 1.0, lax.mul, (0, 1)), x.prod())
    np.testing.assert_allclose(reduce(x, -np.inf, lax.max, (0,)), x.max(0))
    np.testing.assert_allclose(reduce(x, np.inf, lax.min, [1]), x.min(1))
    b = x > 0
    np.testing.assert_array_equal(reduce(b, True, lax.bitwise_and, (1,)), b.all(1))
    np.testing.assert_array_equal(reduce(b, False, lax.bitwise_or, (0,)), b.any(0))
    ints = np.array([[6, 3], [5, 1]], np.int32)
    np.testing.assert_array_equal(reduce(ints, 0, lax.bitwise_or, (1,)), [7, 5])
    with pytest.raises(NotImplementedError):
        reduce(x, True, lax.bitwise_and, (0,))  # bitwise on floats is no monoid

"""Fixes found by JAX's own ``lax_test.py`` on mj (issue 35), each against JAX 0.10.2 in both
dtype modes (the ``x64`` fixture)."""

import warnings

import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle


def _complex_plane(dtype):
    """A grid over the complex plane as JAX's ``FunctionAccuracyTest`` samples it: signed
    zeros, the smallest normal, powers of ten up to the largest finite value, infinities."""
    finfo = np.finfo(dtype)
    mags = np.logspace(np.log10(finfo.tiny), np.log10(finfo.max), 9, dtype=finfo.dtype)
    mags[0] = finfo.tiny  # (not a subnormal: XLA reads those as zero, NumPy does not)
    axis = np.concatenate([[-np.inf, finfo.min], -mags[::-1], [0.0, 1.0, 2.0], mags])
    axis = np.concatenate([axis, [finfo.max, np.inf]]).astype(finfo.dtype)
    z = np.empty((axis.size, axis.size), dtype)
    z.real, z.imag = axis[None, :], axis[:, None]
    return z


@pytest.mark.parametrize("name", ["exp", "expm1", "cos", "sin", "cosh", "sinh", "tan", "square"])
@pytest.mark.parametrize("jit", [False, True])
def test_complex_special_values_match_xla(x64, name, jit):
    """Eager complex exp/expm1/cos/sin/cosh/sinh/tan/square at infinities, NaN-producing
    points and huge values are XLA's (NumPy's kernels give e.g. ``cos(-inf+infj) = inf+nanj``
    where XLA gives ``nan+nanj``, and ``(inf+1e30j)**2 = nan+infj`` where JAX's square gives
    ``inf+infj``)."""
    for dtype in (np.complex64, np.complex128) if x64 else (np.complex64,):
        z = _complex_plane(dtype)
        f = getattr(mnp, name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            ours = np.asarray(mj.jit(f)(z) if jit else f(z))
            theirs = np.asarray(getattr(jnp, name)(z))
        assert ours.dtype == theirs.dtype
        for part in ("real", "imag"):
            o, t = getattr(ours, part), getattr(theirs, part)
            np.testing.assert_array_equal(np.isnan(o), np.isnan(t), err_msg=f"{name} {part}")
            np.testing.assert_array_equal(np.isposinf(o), np.isposinf(t), err_msg=name)
            np.testing.assert_array_equal(np.isneginf(o), np.isneginf(t), err_msg=name)
            fin = np.isfinite(t)
            rtol = 1e-5 if dtype == np.complex64 else 1e-12
            # atol: XLA flushes subnormal results to zero and computes sinh of tiny values
            # as (e^a - e^-a) / 2 (zero), where NumPy keeps them
            np.testing.assert_allclose(o[fin], t[fin], rtol=rtol, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("make", ["eager", "jit", "device_put"])
def test_array_aval_shape_dtype_and_weak_type(x64, make):
    """``x.aval`` of a concrete array (``jax.Array.aval``): shape, dtype and weak_type as
    JAX's, for eager results, jit outputs and device_put arrays, weak or not."""
    import jax
    from jax import lax as jlax

    from mj import lax as mlax

    cases = [
        (lambda lax, np_: lax.exp(1.0), "exp(py float)"),
        (lambda lax, np_: lax.exp(lax.full((2,), 1.0, np_.float32)), "exp(float32)"),
        (lambda lax, np_: lax.neg(lax.full((3, 1), 2, np_.int32)), "neg(int32)"),
        (lambda lax, np_: lax.neg(3), "neg(py int)"),
    ]
    for build, what in cases:
        theirs = build(jlax, np)
        if make == "eager":
            ours = build(mlax, np)
        elif make == "jit":
            ours = mj.jit(lambda b=build: b(mlax, np))()
            theirs = jax.jit(lambda b=build: b(jlax, np))()
        else:
            ours = mj.device_put(build(mlax, np))
            theirs = jax.device_put(theirs)
        a, b = ours.aval, theirs.aval
        assert (a.shape, a.dtype, a.weak_type) == (b.shape, b.dtype, b.weak_type), what


@pytest.mark.parametrize("jit", [False, True])
def test_bit_counting_and_mulhi(x64, jit):
    """``lax.population_count``, ``lax.clz`` and ``lax.mulhi`` (compositions in mj) over
    every integer dtype of the mode, extremes included, eager and under jit."""
    from jax import lax as jlax

    from mj import lax as mlax

    rng = np.random.default_rng(3)
    dtypes = [np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32]
    dtypes += [np.int64, np.uint64] if x64 else []
    for dtype in dtypes:
        info = np.iinfo(dtype)
        x = rng.integers(info.min, info.max, 64, dtype=dtype, endpoint=True)
        y = rng.integers(info.min, info.max, 64, dtype=dtype, endpoint=True)
        x[:4], y[:4] = [0, 1, info.max, info.min], [info.min, info.max, info.max, info.min]
        for name, args in [("population_count", (x,)), ("clz", (x,)), ("mulhi", (x, y))]:
            f = getattr(mlax, name)
            ours = np.asarray(mj.jit(f)(*args) if jit else f(*args))
            theirs = np.asarray(getattr(jlax, name)(*args))
            assert ours.dtype == theirs.dtype, (name, dtype)
            np.testing.assert_array_equal(ours, theirs, err_msg=f"{name} {dtype}")
    with pytest.raises(TypeError, match="population_count does not accept dtype bool"):
        mlax.population_count(True)


def test_split_pieces_and_errors(x64):
    from jax import lax as jlax

    from mj import lax as mlax

    x = np.arange(24.0).reshape(2, 12)
    for sizes, axis in [([3, 0, 9], 1), ([2], 0), ([1, 1], -2)]:
        ours, theirs = mlax.split(x, sizes, axis=axis), jlax.split(x, sizes, axis=axis)
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs, strict=True):
            np.testing.assert_array_equal(np.asarray(o), np.asarray(t))
            assert np.asarray(o).dtype == np.asarray(t).dtype
    jitted = mj.jit(lambda a: mlax.split(a, [5, 7], axis=1))(x)
    np.testing.assert_array_equal(np.asarray(jitted[1]), x[:, 5:])
    for args, kwargs, msg in [
        ((np.arange(5), [-1]), {}, "Sizes passed to split must be nonnegative"),
        ((np.arange(5), [6]), {}, "Sum of sizes 6 must be equal"),
        ((np.arange(5),), {"sizes": (), "axis": 1}, "axis 1 is out of bounds"),
    ]:
        for lax in (mlax, jlax):
            with pytest.raises(ValueError, match=msg):
                lax.split(*args, **kwargs)


def _raise_alike(call, exc, pattern):
    """JAX's and mj's lax raise ``exc`` with JAX's wording (mj adds its context after)."""
    from jax import lax as jlax

    from mj import lax as mlax

    for lax in (jlax, mlax):
        with pytest.raises(exc, match=pattern):
            call(lax)


@pytest.mark.parametrize(
    ("call", "exc", "pattern"),
    [
        (lambda lax: lax.pad(np.zeros(2), 0.0, [(0, 1, -1)]), ValueError,
         "interior padding in padding_config must be nonnegative"),
        (lambda lax: lax.pad(np.zeros(2), 0.0, [(-3, 0, 0)]), ValueError,
         "Dimension size after padding is not at least 0"),
        (lambda lax: lax.broadcast_in_dim(np.ones((2, 2)), (2,), (0, 1)), TypeError,
         "target broadcast shape must have equal or higher rank to the operand shape"),
        (lambda lax: lax.reduce_sum(np.ones(3), (0, 0)), ValueError,
         "duplicate value in 'axes' .*"),
        (lambda lax: lax.argmax(np.ones((0, 2)), 0, np.int32), ValueError,
         "require non-empty reduced dimension"),
        (lambda lax: lax.argmin(np.ones((2, 2)), 0, np.float32), TypeError,
         "index_dtype must be an integer type"),
        (lambda lax: lax.conv_general_dilated(
            np.ones((1, 1, 1), np.float32), np.ones((1, 1, 1, 1), np.float32), (1,), "SAME"),
         TypeError, "convolution requires lhs and rhs ndim to be equal, got 3 and 4"),
        (lambda lax: lax.conv_general_dilated(
            np.ones((1, 1, 1), np.float32), np.ones((1, 1, 1, 1), np.float32), (1,), ((0, 0),),
            dimension_numbers=lax.ConvDimensionNumbers((0, 1, 2), (0, 1, 2), (0, 1, 2))),
         ValueError, "conv_general_dilated lhs and rhs must have the same number of dimensions"),
        (lambda lax: lax.reduce_window(np.ones((1,)), 0.0, lax.add, (0,), (1,), "VALID"),
         TypeError, "must have every element be"),
        (lambda lax: lax.reduce({"x": np.ones(2)}, {"y": 0.0}, lambda a, b: a, (0,)),
         ValueError, "Operands must have the same tree structure as init_values"),
        (lambda lax: lax.gather(
            np.ones((10, 9, 8, 7, 6), np.int32), np.ones((5, 4, 3, 2, 3), np.int32),
            lax.GatherDimensionNumbers(
                offset_dims=(4, 5, 6), collapsed_slice_dims=(0, 1), start_index_map=(0, 1, 4),
                operand_batching_dims=(3, 2)),
            (10, 9, 8, 7, 6)),
         TypeError, "operand_batching_dims in gather op must be sorted"),
    ],
)  # fmt: skip
def test_shape_errors_use_jax_wording(call, exc, pattern):
    _raise_alike(call, exc, pattern)

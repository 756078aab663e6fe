"""Every ``mj.numpy`` function against NumPy on random inputs, and its gradient against
central finite differences where it is differentiable.

Each case is ``(name, make_args)``: the same arguments go to ``mnp.<name>`` and
``np.<name>``. Differentiable cases also check ``grad(sum(w * f(x)))`` in their first
argument. Inputs are drawn away from kinks and branch cuts so that finite differences are
accurate.
"""

import numpy as np
import pytest

import mj
import mj.numpy as mnp

RNG = np.random.default_rng(1234)


def normal(*shape):
    return RNG.normal(size=shape)


def uniform(lo, hi, *shape):
    return RNG.uniform(lo, hi, size=shape)


def ints(lo, hi, *shape):
    return RNG.integers(lo, hi, size=shape)


X = normal(3, 4)
Y = normal(3, 4)
V = normal(5)
POS = uniform(0.5, 2.0, 3, 4)
UNIT = uniform(-0.9, 0.9, 3, 4)

UNARY_DOMAINS = {
    "arcsin": UNIT,
    "arccos": UNIT,
    "arctanh": UNIT,
    "arccosh": uniform(1.2, 3.0, 3, 4),
    "log": POS,
    "log2": POS,
    "log10": POS,
    "log1p": POS,
    "sqrt": POS,
    "cbrt": POS,
    "reciprocal": POS,
}
SMOOTH_UNARY = [
    "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh", "arcsinh",
    "arccosh", "arctanh", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt",
    "cbrt", "square", "reciprocal", "negative", "positive", "deg2rad", "rad2deg", "degrees",
    "radians", "abs", "absolute", "fabs", "sinc",
]  # fmt: skip
PIECEWISE_UNARY = ["sign", "floor", "ceil", "trunc", "rint", "round", "around", "fix"]
PREDICATES = ["isfinite", "isinf", "isnan", "signbit", "isposinf", "isneginf"]
SMOOTH_BINARY = [
    "add", "subtract", "multiply", "divide", "true_divide", "maximum", "minimum", "fmax",
    "fmin", "arctan2", "hypot", "logaddexp", "logaddexp2",
]  # fmt: skip
COMPARISONS = [
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
    "logical_or", "logical_xor", "isclose",
]  # fmt: skip
INT_BINARY = ["bitwise_and", "bitwise_or", "bitwise_xor", "left_shift", "right_shift"]

CASES = []  # (id, name, args, kwargs, differentiable)


def case(name, *args, diff=False, id=None, **kwargs):
    CASES.append(pytest.param(name, args, kwargs, diff, id=id or name))


for _n in SMOOTH_UNARY:
    case(_n, UNARY_DOMAINS.get(_n, X), diff=True)
for _n in PIECEWISE_UNARY:
    case(_n, X * 3)
for _n in PREDICATES:
    case(_n, np.array([1.0, -np.inf, np.nan, np.inf, -0.0, 2.5]))
for _n in SMOOTH_BINARY:
    case(_n, X, Y + 0.1, diff=True)
case("power", POS, Y, diff=True)
case("float_power", POS, Y, diff=True)
case("copysign", X, Y)
case("heaviside", X, 0.5)
for _n in ("floor_divide", "remainder", "mod", "fmod"):
    case(_n, X * 5, POS)
    case(_n, ints(-20, 20, 6), ints(1, 7, 6), id=f"{_n}-int")
for _n in COMPARISONS:
    case(_n, X > 0 if _n.startswith("logical") else X, Y > 0 if _n.startswith("logical") else Y)
case("logical_not", X > 0)
for _n in INT_BINARY:
    case(_n, ints(0, 100, 6), ints(0, 5, 6))
case("invert", ints(-50, 50, 6))
case("bitwise_not", ints(-50, 50, 6))
case("where", X > 0, X, Y)
case("clip", X, -0.5, 0.5)
case("nan_to_num", np.array([1.0, np.nan, np.inf, -np.inf]))

# reductions, with and without axis/keepdims
for _n in ("sum", "prod", "mean", "var", "std", "max", "min", "amax", "amin", "ptp"):
    case(_n, X, diff=_n not in ("ptp",))
    case(_n, X, axis=1, diff=_n not in ("ptp",), id=f"{_n}-axis1")
    case(_n, X, axis=0, keepdims=True, id=f"{_n}-axis0-keepdims")
case("var", X, axis=1, ddof=1, diff=True, id="var-ddof")
case("std", X, axis=0, ddof=1, diff=True, id="std-ddof")
for _n in ("argmax", "argmin"):
    case(_n, X)
    case(_n, X, axis=1, id=f"{_n}-axis1")
for _n in ("all", "any"):
    case(_n, X > 0)
    case(_n, X > 0, axis=0, id=f"{_n}-axis0")
case("count_nonzero", X > 0)
case("count_nonzero", X > 0, axis=1, id="count_nonzero-axis1")
for _n in ("cumsum", "cumprod"):
    case(_n, X, axis=1, diff=True)
    case(_n, X, id=f"{_n}-flat")
XN = X.copy()
XN[1, 2] = np.nan
for _n in ("nansum", "nanprod", "nanmax", "nanmin", "nanmean"):
    case(_n, XN)
    case(_n, XN, axis=1, id=f"{_n}-axis1")
case("median", X, diff=True)
case("median", X, axis=0, id="median-axis0")
case("quantile", X, 0.3, axis=1, diff=True)
case("quantile", X, np.array([0.1, 0.9]), id="quantile-vector")
case("percentile", X, 75, axis=0, keepdims=True)

# shapes
case("reshape", X, (4, 3), diff=True)
case("ravel", X, diff=True)
case("transpose", X, diff=True)
case("swapaxes", normal(2, 3, 4), 0, 2)
case("moveaxis", normal(2, 3, 4), 0, -1)
case("expand_dims", X, 1)
case("squeeze", normal(3, 1, 4), 1)
case("broadcast_to", V, (3, 5))
case("concatenate", (X, Y), 1)
case("stack", (X, Y), 1)
case("hstack", (X, Y))
case("vstack", (X, Y))
case("column_stack", (V, V))
case("row_stack", (X, Y)) if hasattr(np, "row_stack") else None
case("dstack", (X, Y))
case("append", X, V)
case("flip", X, 1, diff=True)
case("fliplr", X)
case("flipud", X)
case("rot90", X)
case("rot90", X, 3, id="rot90-k3")
case("tile", X, (2, 1), diff=True)
case("repeat", X, 2, axis=1, diff=True)
case("repeat", V, np.array([1, 0, 2, 1, 3]), id="repeat-counts")
case("roll", X, 2, diff=True)
case("roll", X, -1, axis=1, id="roll-axis")
case("pad", X, ((1, 2), (0, 1)), diff=True)
for _mode in ("edge", "wrap", "reflect", "symmetric"):
    case("pad", X, 2, mode=_mode, id=f"pad-{_mode}")
case("atleast_1d", 3.0)
case("atleast_2d", V)
case("atleast_3d", X)

# indexing-like
case("take", V, np.array([4, 0, 2]), diff=True)
case("take", X, np.array([3, 1]), axis=1, id="take-axis")
case("take_along_axis", X, ints(0, 4, 3, 2), 1, diff=True)
case("sort", X, diff=True)
case("sort", X, axis=0, id="sort-axis0")
case("argsort", X)
case("argsort", X, axis=0, id="argsort-axis0")
case("diag", V)
case("diag", V, 2, id="diag-k2")
case("diag", X, id="diag-of-matrix")
case("diagonal", normal(2, 3, 4), 1, 1, 2)
case("trace", X, diff=True)
case("tril", X, diff=True)
case("triu", X, -1, id="triu-k")
case("tri", 3, 4, 1)

# products
case("dot", X, normal(4, 2), diff=True)
case("matmul", normal(2, 3, 4), normal(4, 2), diff=True)
case("vdot", V, V, diff=True)
case("inner", X, Y, diff=True)
case("outer", V, V[:3], diff=True)
case("tensordot", normal(2, 3, 4), normal(3, 4, 2), 2, diff=True)
case("kron", normal(2, 3), normal(3, 2), diff=True)
case("einsum", "ij,kj->ik", X, Y, id="einsum-matmul")
case("einsum", "ii->i", normal(4, 4), id="einsum-diagonal")
case("einsum", "bij,bjk->bik", normal(2, 3, 4), normal(2, 4, 5), id="einsum-batch")
case("einsum", "...i,i", normal(2, 3, 4), normal(4), id="einsum-ellipsis")
case("einsum", "ij", X, id="einsum-implicit")
case("polyval", V, X, diff=True)
case("vander", V[:4])
case("select", [X > 0.5, X < -0.5], [X, -X], 0.0)
case("sinc", np.array([0.0, 0.5, -1.5]), id="sinc-zero")

# creation
case("zeros", (2, 3))
case("ones", 4)
case("full", (2, 2), 7.5)
case("eye", 3, 4, 1)
case("identity", 3)
case("arange", 2, 11, 3)
case("arange", 5.0, id="arange-float")
case("linspace", 0.0, 1.0, 7)
case("logspace", 0.0, 2.0, 5)
case("geomspace", 1.0, 1000.0, 4)
case("zeros_like", X)
case("ones_like", X)
case("full_like", X, 3)


def _compare(ours, theirs):
    if isinstance(theirs, tuple | list):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs, strict=True):
            _compare(o, t)
        return
    ours = np.asarray(ours)
    theirs = np.asarray(theirs)
    assert ours.shape == theirs.shape
    if theirs.dtype.kind in "biu":
        np.testing.assert_array_equal(ours, theirs)
    else:
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize(("name", "args", "kwargs", "diff"), CASES)
def test_matches_numpy(name, args, kwargs, diff):
    theirs = getattr(np, name)(*args, **kwargs)
    ours = getattr(mnp, name)(*args, **kwargs)
    _compare(ours, theirs)
    if isinstance(theirs, np.ndarray) and theirs.dtype.kind != "O":
        assert np.asarray(ours).dtype == theirs.dtype


DIFF_CASES = [p for p in CASES if p.values[3]]


@pytest.mark.parametrize(("name", "args", "kwargs", "diff"), DIFF_CASES)
def test_grad_matches_finite_differences(name, args, kwargs, diff):
    x0 = np.asarray(args[0], np.float64)
    rest = args[1:]
    fn = getattr(mnp, name)
    weights = RNG.normal(size=np.shape(getattr(np, name)(x0, *rest, **kwargs)))

    def objective(x):
        return mnp.sum(fn(x, *rest, **kwargs) * weights)

    g = np.asarray(mj.grad(objective)(x0))
    assert g.shape == x0.shape
    eps = 1e-6
    flat = x0.reshape(-1)
    for i in RNG.choice(flat.size, size=min(flat.size, 5), replace=False):
        e = np.zeros_like(flat)
        e[i] = eps
        plus = float(objective((flat + e).reshape(x0.shape)))
        minus = float(objective((flat - e).reshape(x0.shape)))
        fd = (plus - minus) / (2 * eps)
        np.testing.assert_allclose(g.reshape(-1)[i], fd, rtol=1e-5, atol=1e-6)


def test_functions_also_trace_under_jit():
    spec = "ij,jk->ik"
    _compare(mj.jit(lambda a, b: mnp.einsum(spec, a, b))(X, Y.T), np.einsum(spec, X, Y.T))
    idx = ints(0, 4, 3, 4)
    for fn, args in [
        (mnp.sort, (X,)),
        (mnp.tile, (V, 2)),
        (mnp.take_along_axis, (X, idx, 1)),
        (mnp.median, (X,)),
        (mnp.linalg.norm, (X,)),
        (mnp.triu, (X,)),
        (mnp.pad, (X, 1)),
    ]:
        arrays = [a for a in args if isinstance(a, np.ndarray)]
        statics = args[len(arrays) :]
        jitted = mj.jit(lambda *a, fn=fn, statics=statics: fn(*a, *statics))
        _compare(jitted(*arrays), fn(*args))


def test_linalg_norms_match_numpy():
    m = normal(4, 3)
    for ord_ in (None, "fro", 1, -1, np.inf, -np.inf):
        _compare(mnp.linalg.norm(m, ord_), np.linalg.norm(m, ord_))
    for ord_ in (None, 1, 2, 3, np.inf, -np.inf, 0):
        _compare(mnp.linalg.norm(V, ord_), np.linalg.norm(V, ord_))
    _compare(mnp.linalg.norm(m, axis=0, keepdims=True), np.linalg.norm(m, axis=0, keepdims=True))
    a = normal(3, 3) / 2
    _compare(mnp.linalg.matrix_power(a, 5), np.linalg.matrix_power(a, 5))
    _compare(mnp.linalg.matrix_power(a, 0), np.eye(3))
    g = mj.grad(lambda m: mnp.linalg.norm(m))(m)
    np.testing.assert_allclose(g, m / np.linalg.norm(m), rtol=1e-12)


def test_meshgrid_and_index_helpers_match_numpy():
    a, b = V[:3], V
    for indexing in ("xy", "ij"):
        _compare(mnp.meshgrid(a, b, indexing=indexing), np.meshgrid(a, b, indexing=indexing))
    _compare(mnp.meshgrid(a, b, sparse=True), np.meshgrid(a, b, sparse=True))
    _compare(mnp.tril_indices(4, -1), np.tril_indices(4, -1))
    _compare(mnp.triu_indices(3, 1, 4), np.triu_indices(3, 1, 4))
    _compare(mnp.indices((2, 3)), np.indices((2, 3)))
    _compare(X[mnp.ix_(np.array([0, 2]), np.array([1, 3]))], X[np.ix_([0, 2], [1, 3])])


def test_nonzero_family():
    m = X > 0
    _compare(mnp.nonzero(m), np.nonzero(m))
    _compare(mnp.argwhere(m), np.argwhere(m))
    _compare(mnp.flatnonzero(m), np.flatnonzero(m))
    _compare(mnp.where(m), np.where(m))
    count = int(m.sum())
    padded = mj.jit(lambda m: mnp.nonzero(m, size=count + 2, fill_value=-1))(m)
    expected = [np.concatenate([i, [-1, -1]]) for i in np.nonzero(m)]
    _compare(padded, expected)
    with pytest.raises(mj.errors.ConcretizationError, match="size="):
        mj.jit(mnp.nonzero)(m)


def test_boolean_mask_indexing_eager_and_under_jit():
    _compare(mnp.asarray(X)[X > 0], X[X > 0])
    with pytest.raises(mj.errors.ConcretizationError, match="where"):
        mj.jit(lambda x: x[x > 0])(X)
    with pytest.raises(mj.errors.ConcretizationError):
        mj.vmap(lambda x: x[x > 0])(X)


def test_at_updates_and_integer_indexing():
    x = mj.device_put(np.zeros((3, 3)))
    y = x.at[1, :].set(1.0)
    _compare(y, np.array([[0, 0, 0], [1, 1, 1], [0, 0, 0.0]]))
    _compare(x, np.zeros((3, 3)))
    z = mj.ops.index_add(np.ones((5, 6)), mj.ops.index[::2, 3:], 7.0)
    expected = np.ones((5, 6))
    expected[::2, 3:] += 7
    _compare(z, expected)
    idx = np.array([2, 0, 2])
    _compare(mnp.asarray(V)[idx], V[idx])
    _compare(mj.jit(lambda z: z.at[idx].add(1.0))(np.zeros(4)), np.bincount(idx, minlength=4) * 1.0)
    _compare(mnp.asarray(X)[1:, ::-2], X[1:, ::-2])


def test_dtype_objects_and_astype():
    # JAX-style scalar types (issue 23): equal to NumPy's and usable as dtypes; calling one casts
    assert mnp.float32 == np.float32
    assert np.dtype(mnp.int64) == np.int64
    assert mnp.astype(X, mnp.float32).dtype == np.float32
    assert mnp.asarray(X).astype(mnp.int32).dtype == np.int32
    assert mnp.result_type(mnp.float32, 1.0) == np.float32
    assert mnp.isscalar(1.0)
    assert not mnp.isscalar(X)


@pytest.mark.parametrize(
    ("call", "api"),
    [
        (lambda: mnp.roll(np.ones(3), 1, axis=3), "roll"),
        (lambda: mnp.repeat(np.ones(3), 2, axis=-2), "repeat"),
        (lambda: mnp.sort(np.ones(3), axis=2), "sort"),
        (lambda: mnp.argsort(np.ones(3), axis=1), "argsort"),
        (lambda: mnp.median(np.ones(3), axis=1), "quantile"),
    ],
)
def test_axis_out_of_range_names_the_api_and_the_user_line(call, api):
    with pytest.raises(ValueError, match=f"^{api}: axis .* out of bounds for array") as info:
        call()
    assert "test_mj_numpy_api.py" in str(info.value)


def test_non_integer_axis_is_a_type_error():
    # regression: axis=1.5 used to be reported as out of bounds
    want = r"repeat: 'float' object cannot be interpreted as an integer \(axis .* 1\.5"
    with pytest.raises(TypeError, match=want):
        mnp.repeat(np.ones(3), 2, axis=1.5)

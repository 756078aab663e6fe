"""Silent wrong answers found by running JAX's own test files on mj, each compared with JAX
0.10.2 in both dtype modes (the ``x64`` fixture), eagerly and under ``jit``.

bfloat16 (and the float8 types) have NumPy kind ``"V"``, not ``"f"``: code that asked
``dtype.kind == "f"`` treated them as non-floats (``isnan`` always False, NaN not sorted last,
``nanmax`` keeping NaN, ...).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import mj
import mj.lax as mlax
import mj.numpy as mnp

pytestmark = pytest.mark.oracle

BF16 = ml_dtypes.bfloat16
FLOATS = [BF16, np.float16, np.float32, np.float64]
# JAX's testSearchsortedNans / testSortFloatSpecialValues values: the sign of 0.0 and of NaN
# does not matter to the order
SPECIAL = [-np.inf, -1.0, 0.0, -0.0, 1.0, np.inf, np.nan, -np.nan]
SHUFFLED = [np.nan, 0.0, -np.inf, -0.0, 1.5, -np.nan, np.inf, -1.0, 0.0, -0.0, np.nan]


def _assert_same(mine: Any, theirs: Any) -> None:
    """Same leaves: dtype, shape, values (NaN equal to NaN) and the sign of every zero (not
    of NaNs: arithmetic leaves their sign unspecified)."""
    m_leaves, j_leaves = jax.tree_util.tree_leaves(mine), jax.tree_util.tree_leaves(theirs)
    assert len(m_leaves) == len(j_leaves)
    for m, j in zip(m_leaves, j_leaves, strict=True):
        m, j = np.asarray(m), np.asarray(j)
        assert m.dtype == j.dtype, (m.dtype, j.dtype)
        assert m.shape == j.shape, (m.shape, j.shape)
        if m.dtype.kind in "biu":
            np.testing.assert_array_equal(m, j)
            continue
        wide = np.complex128 if m.dtype.kind == "c" else np.float64
        mw, jw = m.astype(wide), j.astype(wide)
        np.testing.assert_array_equal(mw, jw)
        if m.dtype.kind != "c":
            numbers = ~np.isnan(jw)
            np.testing.assert_array_equal(np.signbit(mw[numbers]), np.signbit(jw[numbers]))


def _both(
    f_mj: Callable[..., Any], f_jax: Callable[..., Any], *args: Any, jit: bool = True
) -> None:
    """``f_mj`` eagerly (and under ``mj.jit``) gives what ``f_jax`` gives."""
    want = f_jax(*args)
    _assert_same(f_mj(*args), want)
    if jit:
        _assert_same(mj.jit(f_mj)(*args), want)


# --- 1. searchsorted with NaNs (bfloat16's NaNs were not sorted last) ---------------------------
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("method", ["scan", "scan_unrolled", "sort", "compare_all"])
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_nans(x64: bool, dtype: Any, method: str, side: str) -> None:
    x = np.array(SPECIAL, dtype)
    q = np.array(SHUFFLED, dtype)
    _both(
        lambda a, v: mnp.searchsorted(a, v, side=side, method=method),
        lambda a, v: jnp.searchsorted(a, v, side=side, method=method),
        x,
        q,
    )


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_digitize_nans(x64: bool, dtype: Any) -> None:
    bins = np.array([-1.0, 0.0, 1.0, np.inf], dtype)
    _both(mnp.digitize, jnp.digitize, np.array(SHUFFLED, dtype), bins)


# --- 2. sort order of -0.0 / 0.0 / NaN, and stability ------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_sort_float_special_values(x64: bool, dtype: Any) -> None:
    x = np.array(SHUFFLED, dtype)

    def kv(lax: Any) -> Callable[[Any], Any]:
        return lambda x: lax.sort_key_val(x, lax.iota(np.int32, x.size), is_stable=True)

    _both(kv(mlax), kv(jax.lax), x)
    _both(mnp.sort, jnp.sort, x)
    _both(lambda x: mnp.sort(x, descending=True), lambda x: jnp.sort(x, descending=True), x)
    _both(lambda x: mnp.argsort(x, stable=True), lambda x: jnp.argsort(x, stable=True), x)
    _both(
        lambda x: mnp.argsort(x, stable=True, descending=True),
        lambda x: jnp.argsort(x, stable=True, descending=True),
        x,
    )
    _both(lambda x: mnp.lexsort([x]), lambda x: jnp.lexsort([x]), x)
    _both(lambda x: mnp.unique(x), lambda x: jnp.unique(x), x, jit=False)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_sort_two_keys_special_values(x64: bool, dtype: Any) -> None:
    a = np.array(SHUFFLED, dtype)
    b = np.array(SHUFFLED[::-1], dtype)
    _both(
        lambda a, b: mlax.sort((a, b), num_keys=2),
        lambda a, b: jax.lax.sort((a, b), num_keys=2),
        a,
        b,
    )


# --- siblings: every float test that asked dtype.kind == "f" missed bfloat16 --------------------
@pytest.mark.parametrize(
    "name",
    [
        "isnan",
        "isinf",
        "isfinite",
        "isposinf",
        "isneginf",
        "nan_to_num",
        "argmax",
        "argmin",
        "nanargmax",
        "nanargmin",
        "nanmax",
        "nanmin",
        "nansum",
        "median",
        "nanmedian",
        "sign",
        "cumsum",
        "nancumsum",
        "signbit",
        "sinc",
        "angle",
    ],
)
def test_bfloat16_special_values(x64: bool, name: str) -> None:
    x = np.array([*SHUFFLED, -2.5e3, 3.0], BF16)
    _both(getattr(mnp, name), getattr(jnp, name), x)


@pytest.mark.parametrize("dtype", FLOATS, ids=lambda d: np.dtype(d).name)
def test_signbit_of_negative_nan(x64: bool, dtype: Any) -> None:
    """The sign bit itself: set for -NaN as for -0.0 (``x < 0 or 1/x < 0`` misses -NaN)."""
    x = np.array([-np.nan, np.nan, -0.0, 0.0, -np.inf, 2.0, -3.0], dtype)
    _both(mnp.signbit, jnp.signbit, x)
    _both(lambda x: mnp.copysign(2.0, x), lambda x: jnp.copysign(2.0, x), x)


def test_bfloat16_to_int_saturates(x64: bool) -> None:
    x = np.array([np.nan, np.inf, -np.inf, 3.5e9, -3.5e9, 2.75, -2.75], BF16)
    for dtype in (np.int8, np.int32, np.uint8, np.uint32):
        _both(
            lambda x, d=dtype: mnp.asarray(x).astype(d),
            lambda x, d=dtype: jnp.asarray(x).astype(d),
            x,
        )


def test_bitcast_of_float64_data_without_x64(x64: bool) -> None:
    """A float64 NumPy array is float32 in mj without x64: bitcast its float32 bits."""
    x = np.array([1.0, -0.0, 2.5])
    _both(
        lambda x: mlax.bitcast_convert_type(x, np.int32),
        lambda x: jax.lax.bitcast_convert_type(x, np.int32),
        x,
    )


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_nan_to_num_complex_parts(x64: bool, dtype: Any) -> None:
    """Each part replaced on its own (a complex infinity does not compare equal to inf)."""
    x = np.array(
        [
            complex(np.nan, np.inf),
            complex(1, -np.inf),
            complex(np.inf, 2),
            complex(-np.inf, np.nan),
        ],
        dtype,
    )
    _both(mnp.nan_to_num, jnp.nan_to_num, x)
    _both(
        lambda x: mnp.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0),
        lambda x: jnp.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-2.0),
        x,
    )


def _derivatives(grad: Callable[..., Any], f: Callable[..., Any], order: int) -> list[Any]:
    out = []
    for _ in range(order):
        f = grad(f)
        out.append(f)
    return out


def _same_derivatives(f_mj: Any, f_jax: Any, x: Any, order: int, jit: bool = True) -> None:
    mine = _derivatives(mj.grad, f_mj, order)
    theirs = _derivatives(jax.grad, f_jax, order)
    for m, j in zip(mine, theirs, strict=True):
        want = np.asarray(j(x))
        for g in (m, mj.jit(m)) if jit else (m,):
            got = np.asarray(g(x))
            assert got.dtype == want.dtype
            np.testing.assert_allclose(got, want, rtol=2e-6, equal_nan=True)


# --- 3. sinc: every derivative at 0 (the second is -pi**2 / 3, not 0) ------------------------
def test_sinc_derivatives_at_zero(x64: bool) -> None:
    _same_derivatives(mnp.sinc, jnp.sinc, 0.0, 4)
    x = np.array([0.0, 0.5, -1.0, 0.0, 2.25])
    want = jax.vmap(jax.hessian(jnp.sinc))(x)
    _assert_allclose(mj.vmap(mj.hessian(mnp.sinc))(x), want)
    _assert_allclose(mj.jit(mj.vmap(mj.hessian(mnp.sinc)))(x), want)


def _assert_allclose(mine: Any, theirs: Any) -> None:
    mine, theirs = np.asarray(mine), np.asarray(theirs)
    assert mine.dtype == theirs.dtype
    np.testing.assert_allclose(mine, theirs, rtol=1e-5, atol=1e-7, equal_nan=True)


# --- 4. softplus / logaddexp: JAX's custom JVP (NaN in, NaN tangent out) ----------------------
SPECIALS = [np.nan, np.inf, -np.inf, 0.0, 5.0, -3.0]


def test_softplus_jvp_at_special_values(x64: bool) -> None:
    x = np.array(SPECIALS)
    t = np.ones_like(x)
    want = jax.jvp(jax.nn.softplus, (x,), (t,))
    for f in (mj.nn.softplus, mj.jit(mj.nn.softplus)):
        got = mj.jvp(f, (x,), (t,))
        _assert_allclose(got[0], want[0])
        _assert_allclose(got[1], want[1])
    _assert_allclose(mj.vmap(mj.grad(mj.nn.softplus))(x), jax.vmap(jax.grad(jax.nn.softplus))(x))


@pytest.mark.parametrize("name", ["logaddexp", "logaddexp2"])
def test_logaddexp_derivatives_at_special_values(x64: bool, name: str) -> None:
    a, b = (np.array(v) for v in zip(*[(p, q) for p in SPECIALS for q in SPECIALS], strict=True))
    f_mj, f_jax = getattr(mnp, name), getattr(jnp, name)
    for t in ((np.ones_like(a), np.zeros_like(b)), (np.zeros_like(a), np.ones_like(b))):
        want = jax.jvp(f_jax, (a, b), t)
        for f in (f_mj, mj.jit(f_mj)):
            got = mj.jvp(f, (a, b), t)
            _assert_allclose(got[0], want[0])
            _assert_allclose(got[1], want[1])
    hess_j = jax.vmap(jax.hessian(f_jax, (0, 1)))(a, b)
    hess_m = mj.vmap(mj.hessian(f_mj, (0, 1)))(a, b)
    for m_row, j_row in zip(hess_m, hess_j, strict=True):
        for m, j in zip(m_row, j_row, strict=True):
            np.testing.assert_allclose(np.asarray(m), np.asarray(j), rtol=1e-3, equal_nan=True)


# --- 5. x ** y: JAX's JVP term for term (NaNs of 0 * inf at x == 0 included) -----------------
@pytest.mark.parametrize("y", [0.0, 1.0, 2.0, 3.0, 2.5, -1.0])
@pytest.mark.parametrize("x0", [0.0, 2.0, -1.5])
def test_pow_float_exponent_derivatives(x64: bool, y: float, x0: float) -> None:
    _same_derivatives(lambda x: mlax.pow(x, y), lambda x: jax.lax.pow(x, y), x0, 4)
    _same_derivatives(lambda x: mnp.power(x, y), lambda x: jnp.power(x, y), x0, 3)
    _same_derivatives(lambda e: mlax.pow(x0, e), lambda e: jax.lax.pow(x0, e), y, 3)
    mixed_m = mj.grad(mj.grad(lambda a, b: mlax.pow(a, b)), 1)
    mixed_j = jax.grad(jax.grad(lambda a, b: jax.lax.pow(a, b)), 1)
    _assert_allclose(mixed_m(x0, y), mixed_j(x0, y))


@pytest.mark.parametrize("x0", [0.0, 2.0, -1.5])
def test_pow_integer_exponent_derivatives(x64: bool, x0: float) -> None:
    for n in (0, 1, 2, 3, -2):
        _same_derivatives(lambda x, n=n: mlax.pow(x, n), lambda x, n=n: jax.lax.pow(x, n), x0, 3)
    exps = np.array([0, 1, 2, 3, -1], np.int32)
    xs = np.full(5, x0)

    def second(grad: Any, np_: Any, lax: Any) -> Any:
        first = grad(lambda x: np_.sum(lax.pow(x, exps)))
        return grad(lambda x: np_.sum(first(x)))

    want = second(jax.grad, jnp, jax.lax)(xs)
    _assert_allclose(second(mj.grad, mnp, mlax)(xs), want)
    _assert_allclose(mj.jit(second(mj.grad, mnp, mlax))(xs), want)


# --- 7. xlogy / xlog1py: a NaN y propagates even where x == 0 ------------------------------
@pytest.mark.parametrize("name", ["xlogy", "xlog1py"])
def test_xlogy_nan_y(x64: bool, name: str) -> None:
    import jax.scipy.special as jss

    import mj.scipy.special as mss

    x = np.array([0.0, 0.0, 1.0, 0.0, np.nan, 2.0, 0.0])
    y = np.array([np.nan, 0.0, np.nan, -1.0, 1.0, 0.0, -np.nan])
    f_mj, f_jax = getattr(mss, name), getattr(jss, name)
    _both(f_mj, f_jax, x, y)
    grads_j = jax.vmap(jax.grad(f_jax, argnums=(0, 1)))(x, y)
    grads_m = mj.vmap(mj.grad(f_mj, argnums=(0, 1)))(x, y)
    for m, j in zip(grads_m, grads_j, strict=True):
        _assert_allclose(m, j)


# --- stop_gradient blocks every level of differentiation, not only the innermost ----------------
def _sg_cases(lax: Any, np_: Any) -> list[Callable[..., Any]]:
    sg = lax.stop_gradient
    return [
        lambda x: x * sg(x),
        lambda x: x * sg(x * x),
        lambda x: np_.sin(x) * sg(np_.cos(x)) + sg(x) ** 2 * x,
        lambda x: sg(x * sg(x)) * x**3,
        lambda x: np_.sum(sg(np_.stack([x, 2.0 * x])) * x),
    ]


ONE = np.float32(1.0)


def _higher_orders(jax_: Any, f: Callable[..., Any]) -> list[Callable[..., Any]]:
    g = jax_.grad(f)
    return [
        jax_.hessian(f),
        jax_.grad(g),
        jax_.jacfwd(jax_.jacrev(f)),
        jax_.jacrev(jax_.jacfwd(f)),
        lambda x: jax_.jvp(g, (x,), (ONE,))[1],
        lambda x: jax_.linearize(g, x)[1](ONE),
        lambda x: jax_.vjp(g, x)[1](ONE)[0],
        jax_.grad(jax_.jit(g)),
        jax_.grad(jax_.grad(g)),
    ]


@pytest.mark.parametrize("case", range(5))
def test_stop_gradient_higher_order(x64: bool, case: int) -> None:
    x = np.float32(1.5)
    f_m, f_j = _sg_cases(mlax, mnp)[case], _sg_cases(jax.lax, jnp)[case]
    for m, j in zip(_higher_orders(mj, f_m), _higher_orders(jax, f_j), strict=True):
        want = j(x)
        _assert_allclose(m(x), want)
        _assert_allclose(mj.jit(m)(x), want)
    xs = np.array([0.5, -2.0, 3.0], np.float32)
    want = jax.vmap(jax.hessian(f_j))(xs)
    _assert_allclose(mj.vmap(mj.hessian(f_m))(xs), want)
    _assert_allclose(mj.jit(mj.vmap(mj.hessian(f_m)))(xs), want)


def test_stop_gradient_in_library_functions_higher_order(x64: bool) -> None:
    # logsumexp and softmax stop the gradient of their shift internally
    import jax.scipy.special as jss

    import mj.scipy.special as mss

    x = np.array([0.5, -2.0, 3.0, 1.0], np.float32)
    _assert_allclose(mj.hessian(mss.logsumexp)(x), jax.hessian(jss.logsumexp)(x))
    soft_m = mj.jacfwd(mj.jacrev(lambda v: mj.nn.softmax(v)[1]))
    soft_j = jax.jacfwd(jax.jacrev(lambda v: jax.nn.softmax(v)[1]))
    _assert_allclose(soft_m(x), soft_j(x))
    _assert_allclose(mj.jit(soft_m)(x), soft_j(x))


# --- grad's seed: an array, weakly typed for a weak output (was a Python float) -----------------
def _grad_cases(lax: Any, np_: Any, total: bool) -> list[Callable[..., Any]]:
    sg = lax.stop_gradient
    fs: list[Callable[..., Any]] = [
        lambda x: x,
        lambda x: sg(x) ** 2 + x,
        lambda x: x * 2,
        lambda x: x * x,
        lambda x: sg(x),
        lambda x: 2.0,
    ]
    return [(lambda g: lambda x: np_.sum(g(x)))(f) for f in fs] if total else fs


def _same_kind(mine: Any, theirs: Any) -> None:
    """An mj array (not a Python or NumPy scalar) of JAX's dtype, weak type and value."""
    assert isinstance(mine, mj.Array), type(mine)
    assert mine.dtype == theirs.dtype, (mine.dtype, theirs.dtype)
    assert mine.weak_type == theirs.weak_type
    np.testing.assert_array_equal(np.asarray(mine), np.asarray(theirs))


@pytest.mark.parametrize(
    "x",
    [0.0, np.float32(1.5), np.float16(1.5), BF16(1.5), np.float64(1.5), np.ones(2, np.float32)],
    ids=["py", "f32", "f16", "bf16", "f64", "array"],
)
def test_grad_output_types(x64: bool, x: Any) -> None:
    total = bool(np.ndim(x))
    cases = zip(_grad_cases(mlax, mnp, total), _grad_cases(jax.lax, jnp, total), strict=True)
    for f_m, f_j in cases:
        want = jax.grad(f_j)(x)
        _same_kind(mj.grad(f_m)(x), want)
        _same_kind(mj.jit(mj.grad(f_m))(x), want)
        _same_kind(mj.value_and_grad(f_m)(x)[1], want)


# --- gammainc / gammaincc on JAX's boundary grid (a = 0 < x gave NaN) ----------------------------
@pytest.mark.parametrize("name", ["gammainc", "gammaincc"])
def test_incomplete_gamma_boundaries(x64: bool, name: str) -> None:
    import jax.scipy.special as jss

    import mj.scipy.special as mss

    grid_a = [0.0, 1e-30, 1.0, np.inf, np.nan, -1.0]
    grid_x = [0.0, 1e-10, 0.5, 1.0, 2.0, 100.0, np.inf, np.nan, -1.0]
    a = np.array([p for p in grid_a for _ in grid_x])
    x = np.array([q for _ in grid_a for q in grid_x])
    f_mj, f_jax = getattr(mss, name), getattr(jss, name)
    want = f_jax(a, x)
    _assert_allclose(f_mj(a, x), want)
    _assert_allclose(mj.jit(f_mj)(a, x), want)


# --- logsumexp: shifted by the real parts' maximum (a complex phase in (-pi, pi]) -------------
LSE_KWARGS: list[dict[str, Any]] = [
    {},
    {"axis": 1},
    {"axis": 0, "keepdims": True},
    {"return_sign": True},
    {"axis": (0, 1), "return_sign": True, "keepdims": True},
    {"axis": -1, "use_b": True},
    {"use_b": True, "return_sign": True},
    {"axis": 1, "use_where": True},
]


@pytest.mark.parametrize("module", ["scipy", "nn"])
@pytest.mark.parametrize("kind", ["complex", "real", "infinite"])
@pytest.mark.parametrize("kw", LSE_KWARGS, ids=lambda k: "-".join(k) or "plain")
def test_logsumexp_as_jax(x64: bool, module: str, kind: str, kw: dict[str, Any]) -> None:
    import jax.scipy.special as jss

    import mj.scipy.special as mss

    rng = np.random.default_rng(0)
    if kind == "complex":
        a = (rng.normal(size=(3, 4)) + 3j * rng.normal(size=(3, 4))).astype(np.complex64)
    elif kind == "real":
        a = rng.normal(size=(3, 4)).astype(np.float32)
    else:
        a = np.array([[-np.inf, -np.inf, 1.0], [np.inf, 1.0, 0.0]], np.float32)
    kw = dict(kw)
    if kw.pop("use_b", False):
        b = rng.normal(size=a.shape).astype(np.float32)
        b.flat[1] = 0.0
        kw["b"] = b
    if kw.pop("use_where", False):
        kw["where"] = np.abs(a) < 1.0
    f_mj = mss.logsumexp if module == "scipy" else mj.nn.logsumexp
    f_jax = jss.logsumexp if module == "scipy" else jax.nn.logsumexp
    want = f_jax(a, **kw)
    for got in (f_mj(a, **kw), mj.jit(lambda v: f_mj(v, **kw))(a)):
        for m, j in zip(
            jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want), strict=True
        ):
            _assert_allclose(m, j)


# --- slogdet: JAX's custom JVP (a complex sign's tangent was 0) ----------------------------------
@pytest.mark.parametrize("n", [1, 2, 3, 4])
@pytest.mark.parametrize("dtype", [np.float32, np.complex64])
def test_slogdet_jvp(x64: bool, n: int, dtype: Any) -> None:
    rng = np.random.default_rng(n)

    def sample(*shape: int) -> Any:
        x = rng.normal(size=shape)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * rng.normal(size=shape)
        return x.astype(dtype)

    a, t = sample(2, n, n), sample(2, n, n)
    want = jax.jvp(jnp.linalg.slogdet, (a,), (t,))
    for f in (mnp.linalg.slogdet, mj.jit(mnp.linalg.slogdet)):
        got = mj.jvp(f, (a,), (t,))
        for m, j in zip(
            jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want), strict=True
        ):
            np.testing.assert_allclose(np.asarray(m), np.asarray(j), rtol=2e-4, atol=1e-5)
            assert np.asarray(m).dtype == np.asarray(j).dtype
    parts = [lambda s: s[1], lambda s: s[0].real, lambda s: s[0].imag]
    for part in parts if np.dtype(dtype).kind == "c" else parts[:2]:
        g_j = jax.grad(lambda x, p=part: jnp.sum(p(jnp.linalg.slogdet(x))))(a)
        g_m = mj.grad(lambda x, p=part: mnp.sum(p(mnp.linalg.slogdet(x))))(a)
        np.testing.assert_allclose(np.asarray(g_m), np.asarray(g_j), rtol=2e-4, atol=1e-5)


# --- gelu: 0.5 x erfc(-x / sqrt 2) keeps the negative tail (1 + erf(.) cancelled to 0) -----------
GELU_X = [-40.0, -30.0, -20.0, -15.0, -10.0, -8.0, -5.0, -3.0, -1e-3, 0.0, 1e-3, 3.0, 10.0, 40.0]


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_gelu_exact_negative_tail(x64: bool, dtype: Any) -> None:
    x = np.array(GELU_X, dtype)
    want = jax.nn.gelu(x, approximate=False)
    for f in (mj.nn.gelu, mj.jit(mj.nn.gelu, static_argnames="approximate")):
        got = np.asarray(f(x, approximate=False))
        assert got.dtype == np.asarray(want).dtype
        np.testing.assert_allclose(
            got, np.asarray(want), rtol=2e-3 if dtype == np.float16 else 1e-5
        )
    d_j = jax.vmap(jax.grad(lambda v: jax.nn.gelu(v, approximate=False)))(x)
    d_m = mj.vmap(mj.grad(lambda v: mj.nn.gelu(v, approximate=False)))(x)
    np.testing.assert_allclose(
        np.asarray(d_m), np.asarray(d_j), rtol=2e-3 if dtype == np.float16 else 1e-5
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gelu_approximate_tail(x64: bool, dtype: Any) -> None:
    x = np.array(GELU_X, dtype)
    want = np.asarray(jax.nn.gelu(x, approximate=True))
    got = np.asarray(mj.jit(mj.nn.gelu)(x))
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=0)
    if np.dtype(dtype) == np.float64 and x64:
        # eagerly mj's float32 tanh is NumPy's (correctly rounded), XLA's saturates to -1 from
        # about -7.9 on: only the float64 program is compared eagerly
        np.testing.assert_allclose(np.asarray(mj.nn.gelu(x)), want, rtol=1e-8, atol=0)


# --- PRNGKey of negative and large seeds (the high word of a 64-bit seed) ----------------------
SEEDS = [0, 1, -1, -5, 2**31 - 1, -(2**31), 2**31, 2**32 - 1, 2**32, 2**63 - 1, -(2**63)]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("kind", ["python", "int64", "uint64"])
def test_prng_key_seeds(x64: bool, seed: int, kind: str) -> None:
    if kind == "uint64" and seed < 0:
        return
    s = {"python": int, "int64": np.int64, "uint64": np.uint64}[kind](seed)
    want = np.asarray(jax.random.PRNGKey(s))
    got = np.asarray(mj.random.PRNGKey(s))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    try:
        want = np.asarray(jax.jit(jax.random.PRNGKey)(s))
    except OverflowError:  # a Python int argument beyond the mode's int type, as JAX's
        with pytest.raises(OverflowError):
            mj.jit(mj.random.PRNGKey)(s)
    else:
        np.testing.assert_array_equal(np.asarray(mj.jit(mj.random.PRNGKey)(s)), want)
    np.testing.assert_array_equal(
        np.asarray(mj.random.key_data(mj.random.key(s))),
        np.asarray(jax.random.key_data(jax.random.key(s))),
    )


# --- bfloat16 contractions: eagerly the result was float32 (NumPy's bfloat16 matmul) -------------
def _contractions(np_: Any, lax: Any) -> dict[str, Callable[..., Any]]:
    return {
        "matmul": lambda a, b, v, img, k: np_.matmul(a, b),
        "matvec": lambda a, b, v, img, k: np_.asarray(a) @ v,
        "einsum": lambda a, b, v, img, k: np_.einsum("ij,jk->ik", a, b),
        "vdot": lambda a, b, v, img, k: np_.vdot(v, v),
        "outer": lambda a, b, v, img, k: np_.outer(v, v),
        "convolve": lambda a, b, v, img, k: np_.convolve(v, v),
        "conv": lambda a, b, v, img, k: lax.conv_general_dilated(img, k, (1, 1), "SAME"),
        "grad": lambda a, b, v, img, k: (jax if np_ is jnp else mj).grad(
            lambda w: np_.sum(np_.tanh(np_.matmul(a, w)))
        )(v),
    }


@pytest.mark.parametrize("dtype", [BF16, np.float16])
@pytest.mark.parametrize("name", list(_contractions(jnp, jax.lax)))
def test_low_precision_contractions(x64: bool, dtype: Any, name: str) -> None:
    args = [
        (np.arange(12).reshape(3, 4) / 7).astype(dtype),
        (np.arange(12).reshape(4, 3) / 5).astype(dtype),
        (np.arange(4) / 3).astype(dtype),
        (np.arange(150).reshape(2, 3, 5, 5) / 50).astype(dtype),
        (np.arange(48).reshape(4, 3, 2, 2) / 20).astype(dtype),
    ]
    f_mj, f_jax = _contractions(mnp, mlax)[name], _contractions(jnp, jax.lax)[name]
    want = np.asarray(f_jax(*args))
    for f in (f_mj, mj.jit(f_mj)):
        got = np.asarray(f(*args))
        assert got.dtype == want.dtype, (got.dtype, want.dtype)
        np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), rtol=1e-2)


def _custom_vjp_sin_times(lib: Any, np_: Any, seen: dict[str, Any]) -> Any:
    @lib.custom_vjp
    def f(x, y):
        return np_.sin(x) * y

    def fwd(x, y):
        return f(x, y), (np_.cos(x), np_.sin(x), y)

    def bwd(res, g):
        cos_x, sin_x, y = res
        seen["g"], seen["res"] = g, cos_x
        return (cos_x * g * y, sin_x * g)

    f.defvjp(fwd, bwd)
    return f


def _weak(x: Any) -> tuple[str, bool]:
    return np.dtype(x.dtype).name, bool(getattr(x, "weak_type", False))


@pytest.mark.parametrize("argnum", [0, 1])
@pytest.mark.parametrize("args", [(2.0, 3.0), (np.float32(2.0), 3.0), (2.0, np.float32(3.0))])
def test_custom_vjp_keeps_weak_types(x64: bool, argnum: int, args: tuple[Any, Any]) -> None:
    """issue 35: grad of a custom_vjp function of Python floats was strongly typed (JAX's is
    weak), and so were the cotangent and residuals its bwd rule saw."""
    seen_jax: dict[str, Any] = {}
    seen_mj: dict[str, Any] = {}
    f_jax = _custom_vjp_sin_times(jax, jnp, seen_jax)
    f_mj = _custom_vjp_sin_times(mj, mnp, seen_mj)
    want = jax.grad(f_jax, argnum)(*args)
    got = mj.grad(f_mj, argnum)(*args)
    assert _weak(got) == _weak(want)
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6)
    assert _weak(seen_mj["g"]) == _weak(seen_jax["g"])
    assert _weak(seen_mj["res"]) == _weak(seen_jax["res"])
    value = mj.value_and_grad(f_mj, argnum)(*args)
    assert [_weak(v) for v in value] == [_weak(v) for v in jax.value_and_grad(f_jax, argnum)(*args)]

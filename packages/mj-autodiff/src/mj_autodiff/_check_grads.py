"""Numerical derivative checks (JAX's ``jax.test_util.check_grads``), exported for users.

Forward mode is compared against central finite differences; reverse mode through the
identity ``<J v, ct> == <v, J^T ct>`` with random ``v`` and ``ct``. Higher orders check the
derivatives of the JVP and VJP functions themselves, recursively.

Test suites written against JAX call these with JAX's expectations, so every choice follows
``jax.test_util``: the random directions (``RandomState(0)``), Python scalars kept as Python
scalars, tolerances per dtype scaled by the array's size, ``inf - inf`` counting as no
change, and complex outputs checked through ``conj(vjp(conj(ct)))``.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_autodiff._jvp import jvp
from mj_autodiff._linearize import linearize
from mj_autodiff._vjp import vjp
from mj_core.dtypes import canonical_dtype
from mj_core.tree_util import tree_map, tree_reduce

__all__ = ["check_grads", "check_jvp", "check_vjp", "numerical_jvp"]

EPS = 1e-4

#: Gradient tolerances by dtype (JAX's ``default_gradient_tolerance``); other dtypes (integers,
#: bool) must match exactly.
_GRADIENT_TOL: dict[str, float] = {
    "bfloat16": 1e-1,
    "float16": 1e-2,
    "float32": 2e-3,
    "float64": 1e-5,
    "complex64": 1e-3,
    "complex128": 1e-5,
}
_FLOAT8_TOL = 1e-1  # float8 types (float4/e8m0: 1.0 in JAX)

#: The dtype of a Python scalar as JAX's tests read it (64-bit; narrowed unless x64).
_PY_SCALAR_DTYPES: dict[type, np.dtype[Any]] = {
    bool: np.dtype(bool),
    int: np.dtype(np.int64),
    float: np.dtype(np.float64),
    complex: np.dtype(np.complex128),
}

Tol = float | dict[Any, float] | None


def _is_python_scalar(x: Any) -> bool:
    return not isinstance(x, np.generic) and isinstance(x, bool | int | float | complex)


def _dtype(x: Any) -> np.dtype[Any]:
    dt: np.dtype[Any] | None = _PY_SCALAR_DTYPES.get(type(x))
    if hasattr(x, "dtype"):
        dt = np.dtype(x.dtype)
    elif dt is None:
        dt = np.asarray(x).dtype
    return dt


def _default_tol(dtype: np.dtype[Any]) -> float:
    name = dtype.name
    if name in _GRADIENT_TOL:
        return _GRADIENT_TOL[name]
    if name.startswith("float8"):
        return _FLOAT8_TOL
    if name.startswith("float4") or name == "float8_e8m0fnu":
        return 1.0
    return 0.0


def _tolerance(dtype: np.dtype[Any], tol: Tol) -> float:
    """``tol`` for values of ``dtype``: a number applies to every dtype, a dict overrides the
    defaults per dtype (read after narrowing to the dtype computed in)."""
    if tol is not None and not isinstance(tol, dict):
        return float(tol)
    dtype = canonical_dtype(dtype)
    given = {np.dtype(k): v for k, v in (tol or {}).items()}
    return float(given.get(dtype, _default_tol(dtype)))


def _upcast(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """ml_dtypes' narrow floats (bfloat16, float8) compared in float32: NumPy's
    ``assert_allclose`` cannot subtract them."""
    if x.dtype.kind == "V" or (x.dtype.kind == "f" and x.dtype.type.__module__ != "numpy"):
        return x.astype(np.float32)
    return x


def _assert_close(a: Any, b: Any, atol: Tol, rtol: Tol, err_msg: str) -> None:
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        raise AssertionError(f"{err_msg}: shapes differ: {a.shape} vs {b.shape}")
    if a.dtype.name == "float0" or b.dtype.name == "float0":
        np.testing.assert_array_equal(a, b, err_msg=err_msg)
        return
    atol_ = max(_tolerance(a.dtype, atol), _tolerance(b.dtype, atol)) * a.size
    rtol_ = max(_tolerance(a.dtype, rtol), _tolerance(b.dtype, rtol)) * b.size
    kw = {}
    if atol_:
        kw["atol"] = atol_
    if rtol_:
        kw["rtol"] = rtol_
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(_upcast(a), _upcast(b), err_msg=err_msg, **kw)


def check_close(xs: Any, ys: Any, atol: Tol = None, rtol: Tol = None, err_msg: str = "") -> None:
    """Leafwise ``assert_allclose`` with tolerances per dtype, times each leaf's size."""
    tree_map(lambda x, y: _assert_close(x, y, atol, rtol, err_msg), xs, ys)


def _same_type(f: Callable[..., Any]) -> Callable[..., Any]:
    """``f`` leafwise, its result in the first operand's dtype and a Python scalar when every
    operand is one (a Python float argument stays weakly typed)."""

    def leaf(*xs: Any) -> Any:
        out = np.array(f(*(np.asarray(x) for x in xs)), dtype=_dtype(xs[0]))
        return out.item() if all(_is_python_scalar(x) for x in xs) else out

    return lambda *trees: tree_map(leaf, *trees)


_add = _same_type(operator.add)
_sub = _same_type(operator.sub)
_conj = _same_type(np.conj)


def _scalar_mul(xs: Any, a: float) -> Any:
    def leaf(x: Any) -> Any:
        dtype = _dtype(x)
        out = np.multiply(np.asarray(x), np.array(a, dtype=dtype), dtype=dtype)
        return out.item() if _is_python_scalar(x) else out

    return tree_map(leaf, xs)


def _safe_sub(xs: Any, ys: Any) -> Any:
    """``x - y`` with ``inf - inf == 0``: an infinite output that stays so has no change."""

    def leaf(x: Any, y: Any) -> Any:
        dtype = _dtype(x)
        x, y = np.asarray(x), np.asarray(y)
        with np.errstate(invalid="ignore"):
            return np.where(np.equal(x, y), np.array(0, dtype), np.subtract(x, y, dtype=dtype))

    return tree_map(leaf, xs, ys)


def _rand_like(rng: np.random.RandomState, x: Any) -> Any:
    """A standard-normal value shaped and typed like ``x`` (a Python scalar for one)."""
    shape = np.shape(x)
    dtype = _dtype(x)
    out = np.asarray(rng.randn(*shape), dtype=dtype)
    if dtype.kind == "c":
        out = out + dtype.type(1j) * np.asarray(rng.randn(*shape), dtype=dtype)
    return out.item() if _is_python_scalar(x) else out


def _inner_prod(xs: Any, ys: Any) -> Any:
    def contract(x: Any, y: Any) -> Any:
        x, y = np.asarray(x), np.asarray(y)
        return np.real(np.dot(np.conj(x).reshape(-1), y.reshape(-1)))

    return tree_reduce(np.add, tree_map(contract, xs, ys))


def numerical_jvp(
    f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any], eps: float = EPS
) -> Any:
    """Central finite difference ``(f(x + eps v) - f(x - eps v)) / (2 eps)``."""
    delta = _scalar_mul(tangents, eps)
    f_pos = f(*_add(primals, delta))
    f_neg = f(*_sub(primals, delta))
    return _scalar_mul(_safe_sub(f_pos, f_neg), 0.5 / eps)


def _check_dtypes_match(xs: Any, ys: Any) -> None:
    def leaf(x: Any, y: Any) -> None:
        dx, dy = canonical_dtype(_dtype(x)), canonical_dtype(_dtype(y))
        if dx != dy:
            raise AssertionError(f"dtypes differ: {dx} vs {dy}")

    tree_map(leaf, xs, ys)


def check_jvp(
    f: Callable[..., Any],
    f_jvp: Callable[..., Any],
    args: Sequence[Any],
    atol: Tol = None,
    rtol: Tol = None,
    eps: float = EPS,
    err_msg: str = "",
) -> None:
    """``f_jvp(args, tangents) -> (out, tangent_out)`` against central differences of ``f``
    in one random direction."""
    rng = np.random.RandomState(0)
    tangent = tree_map(lambda x: _rand_like(rng, x), tuple(args))
    v_out, t_out = f_jvp(tuple(args), tangent)
    _check_dtypes_match(v_out, t_out)
    v_out_expected = f(*args)
    _check_dtypes_match(v_out, v_out_expected)
    t_out_expected = numerical_jvp(f, args, tangent, eps)
    check_close(v_out, v_out_expected, atol, rtol, f"{err_msg} primal" if err_msg else "primal")
    check_close(t_out, t_out_expected, atol, rtol, f"{err_msg} tangent" if err_msg else "tangent")


def check_vjp(
    f: Callable[..., Any],
    f_vjp: Callable[..., Any],
    args: Sequence[Any],
    atol: Tol = None,
    rtol: Tol = None,
    eps: float = EPS,
    err_msg: str = "",
) -> None:
    """``<J v, ct> == <v, J^T ct>`` with ``J v`` from central differences and ``J^T ct`` from
    ``f_vjp(*args) -> (out, pullback)``, in one random direction ``v`` and cotangent ``ct``."""
    rng = np.random.RandomState(0)
    v_out, pullback = f_vjp(*args)
    v_out_expected = f(*args)
    check_close(v_out, v_out_expected, atol, rtol, f"{err_msg} primal" if err_msg else "primal")
    tangent = tree_map(lambda x: _rand_like(rng, x), tuple(args))
    tangent_out = numerical_jvp(f, args, tangent, eps)
    cotangent = tree_map(lambda x: _rand_like(rng, x), v_out)
    cotangent_out = _conj(pullback(_conj(cotangent)))
    ip = _inner_prod(tangent, cotangent_out)
    ip_expected = _inner_prod(tangent_out, cotangent)
    msg = f"{err_msg} cotangent projection" if err_msg else "cotangent projection"
    check_close(ip, ip_expected, atol, rtol, msg)


def _jvp_from_linearize(f: Callable[..., Any], primals: Any, tangents: Any) -> Any:
    out, f_lin = linearize(f, *primals)
    return out, f_lin(*tangents)


_MODES = ("fwd", "rev", "lin")


def check_grads(
    f: Callable[..., Any],
    args: Sequence[Any],
    order: int,
    modes: Sequence[str] = ("fwd", "rev"),
    atol: Tol = None,
    rtol: Tol = None,
    eps: float | None = None,
) -> None:
    """Check ``f``'s derivatives at ``args`` up to ``order`` against finite differences.

    ``modes``: ``"fwd"`` checks ``jvp``, ``"rev"`` checks ``vjp``, ``"lin"`` checks
    ``linearize``. ``atol``/``rtol``: a number, or a dict of tolerances per dtype. Raises
    ``AssertionError`` with the mismatching values. Use float64 inputs for tight tolerances.
    """
    for mode in modes:
        if mode not in _MODES:
            raise ValueError(f"check_grads: unknown mode {mode!r}; expected one of {_MODES}.")
    step = eps or EPS

    def _check(fun: Callable[..., Any], fargs: tuple[Any, ...], n: int, msg: str) -> None:
        def forward(name: str, f_jvp: Callable[..., Any]) -> None:
            """A JVP-shaped mode (``jvp`` itself, or through ``linearize``), recursively."""
            label = f"{name} of {msg}" if msg else name
            check_jvp(fun, f_jvp, fargs, atol, rtol, step, label)
            if n > 1:
                _check(f_jvp, (fargs, fargs), n - 1, label)

        if "fwd" in modes:
            forward("JVP", lambda p, t: jvp(fun, p, t))
        if "rev" in modes:
            rev_msg = f"VJP of {msg}" if msg else "VJP"
            check_vjp(fun, lambda *a: vjp(fun, *a), fargs, atol, rtol, step, rev_msg)
            if n > 1:

                def f_vjp(*a: Any) -> Any:
                    out, pullback = vjp(fun, *a)
                    return pullback(out)

                _check(f_vjp, fargs, n - 1, rev_msg)
        if "lin" in modes:
            forward("LIN", lambda p, t: _jvp_from_linearize(fun, p, t))

    _check(f, tuple(args), order, "")

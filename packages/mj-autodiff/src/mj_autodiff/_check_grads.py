"""Numerical derivative checks (JAX's ``jax.test_util.check_grads``), exported for users.

Forward mode is compared against central finite differences; reverse mode through the
identity ``<J v, ct> == <v, J^T ct>`` with random ``v`` and ``ct``. Higher orders check the
derivatives of the JVP and VJP functions themselves, recursively.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_autodiff._jvp import jvp
from mj_autodiff._vjp import vjp
from mj_core.tree_util import tree_flatten, tree_map, tree_unflatten

__all__ = ["check_grads", "check_jvp", "check_vjp", "numerical_jvp"]

EPS = 1e-4

_DEFAULT_TOL: dict[str, float] = {
    "float16": 1e-2,
    "float32": 2e-3,
    "float64": 1e-5,
    "complex64": 1e-3,
    "complex128": 1e-5,
}


def _tol(leaves: Sequence[Any], given: float | None) -> float:
    if given is not None:
        return given
    tols = [_DEFAULT_TOL.get(np.result_type(x).name, 1e-5) for x in leaves]
    return max(tols, default=1e-5)


def _is_inexact(x: Any) -> bool:
    return np.result_type(x).kind in "fc"


def _rand_like(rng: np.random.Generator, x: Any) -> Any:
    """A standard-normal array shaped like ``x`` (no tangent for integer/bool values)."""
    arr = np.asarray(x)
    if arr.dtype.kind == "c":
        re = rng.standard_normal(arr.shape)
        im = rng.standard_normal(arr.shape)
        return (re + 1j * im).astype(arr.dtype)
    if arr.dtype.kind == "f":
        return rng.standard_normal(arr.shape).astype(arr.dtype)
    return np.zeros(arr.shape, arr.dtype)


def _axpy(a: float, xs: Any, ys: Any) -> Any:
    """``a * x + y`` leafwise (integer leaves are left as they are)."""

    def leaf(x: Any, y: Any) -> Any:
        y = np.asarray(y)
        if y.dtype.kind not in "fc":
            return y
        return (np.asarray(x) * a + y).astype(y.dtype)

    return tree_map(leaf, xs, ys)


def _inner(xs: Any, ys: Any) -> float:
    total = 0.0
    for x, y in zip(tree_flatten(xs)[0], tree_flatten(ys)[0], strict=True):
        x, y = np.asarray(x), np.asarray(y)
        if x.dtype.kind not in "fc" or y.dtype.kind not in "fc":
            continue
        total += float(np.real(np.vdot(x.reshape(-1), y.reshape(-1))))
    return total


def numerical_jvp(
    f: Callable[..., Any], primals: Sequence[Any], tangents: Sequence[Any], eps: float = EPS
) -> Any:
    """Central finite difference ``(f(x + eps v) - f(x - eps v)) / (2 eps)``."""
    f_pos = f(*_axpy(eps, tangents, primals))
    f_neg = f(*_axpy(-eps, tangents, primals))

    def diff(p: Any, n: Any) -> Any:
        p = np.asarray(p)
        if p.dtype.kind not in "fc":
            return np.zeros(p.shape)
        return (p - np.asarray(n)) / (2 * eps)

    return tree_map(diff, f_pos, f_neg)


def _check_close(x: Any, y: Any, atol: float, rtol: float, err_msg: str) -> None:
    xs, x_tree = tree_flatten(x)
    ys, y_tree = tree_flatten(y)
    if x_tree != y_tree:
        raise AssertionError(f"{err_msg}: tree structures differ: {x_tree} vs {y_tree}")
    for a, b in zip(xs, ys, strict=True):
        a, b = np.asarray(a), np.asarray(b)
        if a.dtype.kind not in "fc" and b.dtype.kind not in "fc":
            continue
        np.testing.assert_allclose(
            a.astype(np.complex128 if a.dtype.kind == "c" else np.float64),
            b.astype(np.complex128 if b.dtype.kind == "c" else np.float64),
            atol=atol,
            rtol=rtol,
            err_msg=err_msg,
        )


def check_jvp(
    f: Callable[..., Any],
    f_jvp: Callable[..., Any],
    args: Sequence[Any],
    atol: float | None = None,
    rtol: float | None = None,
    eps: float = EPS,
    err_msg: str = "",
    rng: np.random.Generator | None = None,
) -> None:
    """``f_jvp(args, tangents)`` against central differences of ``f`` at random tangents."""
    rng = np.random.default_rng(0) if rng is None else rng
    tangents = tree_map(lambda x: _rand_like(rng, x), args)
    v_out, t_out = f_jvp(tuple(args), tangents)
    leaves = tree_flatten(args)[0]
    atol_, rtol_ = _tol(leaves, atol), _tol(leaves, rtol)
    v_expected = f(*args)
    t_expected = numerical_jvp(f, args, tangents, eps)
    _check_close(v_out, v_expected, atol_, rtol_, f"{err_msg} primal" if err_msg else "primal")
    _check_close(t_out, t_expected, atol_, rtol_, f"{err_msg} tangent" if err_msg else "tangent")


def check_vjp(
    f: Callable[..., Any],
    f_vjp: Callable[..., Any],
    args: Sequence[Any],
    atol: float | None = None,
    rtol: float | None = None,
    eps: float = EPS,
    err_msg: str = "",
    rng: np.random.Generator | None = None,
) -> None:
    """``<J v, ct> == <v, J^T ct>`` with ``J v`` from central differences and ``J^T ct`` from
    ``f_vjp(*args) -> (out, pullback)``, at random ``v`` and ``ct``."""
    rng = np.random.default_rng(1) if rng is None else rng
    v_out, pullback = f_vjp(*args)
    leaves = tree_flatten(args)[0]
    atol_, rtol_ = _tol(leaves, atol), _tol(leaves, rtol)
    _check_close(v_out, f(*args), atol_, rtol_, f"{err_msg} primal" if err_msg else "primal")
    tangent = tree_map(lambda x: _rand_like(rng, x), tuple(args))
    tangent_out = numerical_jvp(f, args, tangent, eps)
    out_leaves, out_tree = tree_flatten(v_out)
    ct = tree_unflatten(out_tree, [_rand_like(rng, x) for x in out_leaves])
    ct_out = pullback(ct)
    ip = _inner(tangent, ct_out)
    ip_expected = _inner(tangent_out, ct)
    scale = max(1.0, abs(ip_expected))
    if not abs(ip - ip_expected) <= atol_ * scale + rtol_ * abs(ip_expected):
        raise AssertionError(
            f"{err_msg or 'VJP'}: <v, J^T ct> = {ip} but <J v, ct> = {ip_expected} "
            f"(finite differences); atol={atol_}, rtol={rtol_}"
        )


def check_grads(
    f: Callable[..., Any],
    args: Sequence[Any],
    order: int,
    modes: Sequence[str] = ("fwd", "rev"),
    atol: float | None = None,
    rtol: float | None = None,
    eps: float | None = None,
) -> None:
    """Check ``f``'s derivatives at ``args`` up to ``order`` against finite differences.

    ``modes``: ``"fwd"`` checks jvp, ``"rev"`` checks vjp. Raises ``AssertionError`` with the
    mismatching values. Use float64 inputs for tight tolerances.
    """
    step = EPS if eps is None else eps
    for mode in modes:
        if mode not in ("fwd", "rev"):
            raise ValueError(f"check_grads: unknown mode {mode!r}; expected 'fwd' or 'rev'.")

    def _check(fun: Callable[..., Any], fargs: Sequence[Any], n: int, msg: str) -> None:
        if "fwd" in modes:
            fwd_msg = f"JVP of {msg}" if msg else "JVP"
            check_jvp(fun, lambda p, t: jvp(fun, p, t), fargs, atol, rtol, step, fwd_msg)
            if n > 1:
                _check(lambda p, t: jvp(fun, p, t), (tuple(fargs), tuple(fargs)), n - 1, fwd_msg)
        if "rev" in modes:
            rev_msg = f"VJP of {msg}" if msg else "VJP"
            check_vjp(fun, lambda *a: vjp(fun, *a), fargs, atol, rtol, step, rev_msg)
            if n > 1:

                def f_vjp(*a: Any) -> Any:
                    out, pullback = vjp(fun, *a)
                    return pullback(out)

                _check(f_vjp, fargs, n - 1, rev_msg)

    _check(f, tuple(args), order, "")

"""Eager values that are the compiled kernel's to define: the primitives whose eager evaluation
runs their XLA computation (:func:`~mj_xla._executable.compiled_impl`), as JAX's eager does.

DESIGN §2 asks eager, ``make_jaxpr`` + ``eval_jaxpr`` and ``jit`` to give the same values.
mj-core's impl rules are NumPy code and ``jit`` lowers to XLA and jaxlib's LAPACK kernels; for
most primitives the two agree to rounding. For the primitives listed here they do not: the
value is defined by a convention the kernel picks (a decomposition unique only up to phases or
unitary factors) or by XLA's own approximation (a special function's float32 algorithm), so
the NumPy rule and the kernel give different, equally valid answers. With mj-xla installed,
eager evaluation of these runs the primitive compiled alone (once per operand types and
params, then cached), so eager equals ``jit`` (and JAX, whose eager is ``jit``); mj-core alone
keeps its NumPy rules. Most of them do so only below 64 bits (:data:`NARROW_ONLY`). Outputs
come back as host arrays, as every eager mj result.

This module is the one place that decides which primitives do so, and why (:data:`REASONS`).
Not here, on purpose (their eager and ``jit`` values differ only by the rounding of the same
LAPACK routine or of the same approximation, a few units in the last place, and compiling
each shape would cost test and user time for nothing): ``cholesky``, ``lu``,
``triangular_solve``, ``qr``/``geqrf``, ``tridiagonal_solve`` (float32: NumPy's LAPACK in
double precision, rounded, against jaxlib's in single: ~1e-7 relative, same conventions),
``erf``, ``erf_inv``, ``bessel_i0e``/``bessel_i1e`` (at most ~10 ulp). Nor, for their cost
against their gain: ``tridiagonal``, ``householder_product`` and ``geqp3`` (mj-core's NumPy
ports of LAPACK's unblocked routines: float32 ~1e-6 relative from jaxlib's, no convention
apart; ~17 shapes each in the tests, ~1-3 s), ``igamma_grad_a`` (~100 ulp in float32, but a
compile of XLA's series takes ~1 s per shape) and ``igamma``/``igammac`` (their lowering is not
JAX's: ``jit`` differs from JAX by ~100 ulp as eager does; ~1 s per compile).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mj_core import Primitive, get_aval, impl_rules, raise_to_shaped
from mj_core.extend import abstract_eval_rules
from mj_core.prims.linalg import (
    eig_p,
    eigh_p,
    hessenberg_p,
    schur_p,
    svd_p,
)
from mj_core.prims.special import (
    digamma_p,
    erfc_p,
    lgamma_p,
    regularized_incomplete_beta_p,
)
from mj_xla._executable import compiled_impl

__all__ = ["NARROW_ONLY", "REASONS"]

#: Each primitive whose eager value is its compiled kernel's, with the reason.
REASONS: dict[Primitive, str] = {
    schur_p: (
        "LAPACK gees picks the Schur form (complex T and Z unique only up to unitary diagonal "
        "factors and the eigenvalues' order); mj-core's NumPy QR algorithm picks another: "
        "entirely different complex T (and real float32 T) than jit's; sqrtm, funm, rsf2csf "
        "and solve_sylvester follow it"
    ),
    eig_p: (
        "eigenvector normalisation: LAPACK geev's left eigenvectors (mj-core derives them "
        "from inv(vr), another sign/phase), and in float32/complex64 NumPy runs geev in double "
        "precision, whose vectors' signs and phases differ from sgeev's/cgeev's"
    ),
    eigh_p: (
        "NumPy runs a float32/complex64 matrix through syevd/heevd in double precision, "
        "whose eigenvectors' signs differ from ssyevd's/cheevd's (64 bits: the same routine)"
    ),
    svd_p: (
        "NumPy runs a float32/complex64 matrix through gesdd in double precision, whose "
        "singular vectors' signs differ from sgesdd's/cgesdd's (64 bits: the same routine)"
    ),
    hessenberg_p: (
        "mj-core's NumPy port of gehd2 against jaxlib's gehrd: the same reflectors up to "
        "rounding, but float32 entries differ by up to ~1e-5 relative (float64: ~1e-14; "
        "JAX's linalg_test testHessenberg5)"
    ),
    lgamma_p: (
        "XLA's Lanczos approximation in float32; mj-core computes in float64 and rounds: "
        "up to ~2000 ulp apart (relative 2e-4 next to the zeros at 1 and 2)"
    ),
    digamma_p: "XLA's own float32 approximation (as lgamma): up to ~600 ulp apart",
    regularized_incomplete_beta_p: (
        "XLA's continued fraction in float32; mj-core's in float64: up to ~400 ulp apart"
    ),
    erfc_p: "XLA's float32 rational approximation; mj-core's is math.erfc: ~30 ulp apart",
}

#: The primitives whose eager value is the kernel's only below 64 bits: in float64/complex128
#: mj-core's NumPy rule and the kernel agree to float tolerance (the same routine, or an
#: approximation within ~1e-12 relative, mj-core's being the more accurate), and compiling
#: each shape would buy nothing; in float32 (and narrower) their differences exceed it.
NARROW_ONLY: frozenset[Primitive] = frozenset(
    {
        eigh_p,
        svd_p,
        hessenberg_p,
        lgamma_p,
        digamma_p,
        regularized_incomplete_beta_p,
        erfc_p,
    }
)

_WIDE = frozenset({np.dtype(np.float64), np.dtype(np.complex128)})


def _host_compiled(primitive: Primitive) -> Callable[..., list[Any]]:
    """``compiled_impl(primitive)`` with its outputs as host NumPy arrays; operands its typing
    rule refuses go to mj-core's rule, which raises its error for them (the eager error stays
    what it was: JAX's message with the user's line, or mj's invalid-operands one)."""
    run = compiled_impl(primitive)
    numpy_rule = impl_rules[primitive]
    typing = abstract_eval_rules[primitive]

    def impl(*args: Any, **params: Any) -> list[Any]:
        try:
            typing(*(raise_to_shaped(get_aval(a)) for a in args), **params)
        except (TypeError, ValueError):
            return list(numpy_rule(*args, **params))
        return [np.asarray(out) for out in run(*args, **params)]

    impl.__name__ = f"{primitive.name}_compiled_impl"
    return impl


def _narrow_compiled(primitive: Primitive) -> Callable[..., list[Any]]:
    """The compiled kernel for operands narrower than 64 bits, mj-core's rule for the others
    (the operands of these primitives share one dtype)."""
    compiled = _host_compiled(primitive)
    numpy_rule = impl_rules[primitive]

    def impl(*args: Any, **params: Any) -> list[Any]:
        if get_aval(args[0]).dtype in _WIDE:  # (a Python float: float32 unless x64)
            return list(numpy_rule(*(np.asarray(a) for a in args), **params))
        return compiled(*args, **params)

    impl.__name__ = f"{primitive.name}_compiled_impl"
    return impl


for _p in REASONS:
    impl_rules[_p] = _narrow_compiled(_p) if _p in NARROW_ONLY else _host_compiled(_p)

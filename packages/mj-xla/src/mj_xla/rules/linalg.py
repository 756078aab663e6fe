"""Lowering of the linear-algebra primitives to jaxlib's LAPACK FFI kernels (CPU) and the
CUDA plugin's cuSOLVER kernels (GPU): platform-dependent rules, as JAX registers them.

StableHLO has no Cholesky, LU, eig, eigh, SVD or QR op; like JAX we emit
``stablehlo.custom_call`` to the typed-FFI LAPACK targets jaxlib ships, one per type
(``lapack_{s,d,c,z}potrf_ffi``...; the Hermitian routines of complex types are ``heevd`` and
``ungqr`` where real types have ``syevd`` and ``orgqr``). Their conventions: matrices in
column-major layout (``operand_layouts``), leading axes a batch the kernel loops over,
character (or enum) options as ``ui8`` entries of ``mhlo.backend_config``, and an ``info``
output per matrix; where ``info`` reports failure the results become NaN, as in JAX (and as
the eager impl rules do).

On CUDA the same factorizations call the typed-FFI cuSOLVER targets the plugin registers
(``cusolver_potrf_ffi``, ``cusolver_getrf_ffi`` with ``cu_lu_pivots_to_permutation``,
``cusolver_geqrf_ffi``/``cusolver_orgqr_ffi``, ``cusolver_syevd_ffi``: one name for every
dtype, boolean options), and ``triangular_solve`` is StableHLO's own op (cuBLAS in XLA), as in
JAX; ``svd`` is cuSOLVER's Jacobi kernel (``cusolver_gesvdj_ffi``, matrices up to 1024x1024).
``eig`` is cuSOLVER's ``geev`` (11.7.1 or newer) where no left eigenvectors are asked for,
else the plugin's hybrid kernel (LAPACK on the host, or MAGMA), as JAX chooses. ``schur``
lowers only for the CPU, as in JAX: for another platform lowering stops with an error naming
the primitive and the platform.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_core import MissingRuleError, Primitive, ShapedArray, lax
from mj_core.prims.linalg import (
    cholesky_p,
    eig_p,
    eigh_p,
    geqp3_p,
    geqrf_p,
    hessenberg_p,
    householder_product_p,
    lu_p,
    qr_p,
    schur_p,
    svd_p,
    triangular_solve_p,
    tridiagonal_p,
    tridiagonal_solve_p,
)
from mj_ir.extend import trace_to_closed_jaxpr
from mj_xla._jaxlib import (
    Value,
    cusolver_version,
    hlo,
    initialize_hybrid_kernels,
    ir,
    lapack_target,
)
from mj_xla._lowering import (
    Avals,
    LoweringContext,
    LoweringRule,
    Values,
    aval_to_ir_type,
    ir_constant,
    register_lowering,
)
from mj_xla._monoids import reduce_op

__all__: list[str] = []

_INT32 = np.dtype(np.int32)


def _register(prim: Primitive, *platforms: str) -> Callable[[LoweringRule], LoweringRule]:
    """Decorator: ``rule`` is the lowering of ``prim`` for each of ``platforms``."""

    def decorate(rule: LoweringRule) -> LoweringRule:
        for platform in platforms:
            register_lowering(prim, rule, platform)
        return rule

    return decorate


def _solver_target(ctx: LoweringContext, routine: str, dtype: np.dtype[Any]) -> str:
    """The custom-call target of solver ``routine`` (``"potrf"``) for the module's platform:
    jaxlib's per-dtype LAPACK kernel on the CPU, the plugin's cuSOLVER kernel on CUDA."""
    if ctx.platform == "cuda":
        return f"cusolver_{routine}_ffi"
    return lapack_target(f"{routine}_ffi", dtype)


def _layout(rank: int, column_major: bool) -> list[int]:
    """Minor-to-major dims: the last two axes column-major (Fortran), batch axes outermost."""
    if column_major:
        return [rank - 2, rank - 1, *range(rank - 3, -1, -1)]
    return list(range(rank - 1, -1, -1))


def _layouts_attr(ranks: Sequence[int], matrix_rank: int) -> ir.ArrayAttr:
    index = ir.IndexType.get()
    return ir.ArrayAttr.get(
        [
            ir.DenseElementsAttr.get(  # type: ignore[call-overload]
                np.asarray(_layout(r, r == matrix_rank), np.int64), type=index
            )
            for r in ranks
        ]
    )


def _lapack_call(
    target: str,
    operands: Sequence[Value],
    avals_in: Sequence[ShapedArray],
    avals_out: Sequence[ShapedArray],
    aliases: dict[int, int],
    *,
    core_rank: int = 2,
    **options: str | int | bool | np.int32 | ir.Attribute,
) -> list[Value]:
    """One ``stablehlo.custom_call`` to a LAPACK (or cuSOLVER) FFI kernel. ``aliases`` maps
    operand index to the output that reuses its buffer; ``options`` are single-character
    LAPACK flags, the ``ui8`` value of a jaxlib enum, ``np.int32`` integers (``i32``),
    booleans (cuSOLVER's flags) or attributes as they are. The
    kernel works on the last ``core_rank`` axes (matrices, column-major; 1: vectors), the
    others being a batch."""
    rank = max(a.ndim for a in avals_in)
    matrix_rank = rank if core_rank == 2 else -1  # no operand is a column-major matrix
    u8 = ir.IntegerType.get_unsigned(8)
    multiple = len(avals_out) > 1
    attributes = {
        "call_target_name": ir.StringAttr.get(target),
        "has_side_effect": ir.BoolAttr.get(False),
        "backend_config": ir.StringAttr.get(""),
        "api_version": ir.IntegerAttr.get(ir.IntegerType.get_signless(32), 1),
        "operand_layouts": _layouts_attr([a.ndim for a in avals_in], matrix_rank),
        "result_layouts": _layouts_attr([a.ndim for a in avals_out], matrix_rank),
        "output_operand_aliases": ir.ArrayAttr.get(
            [
                hlo.OutputOperandAlias.get(
                    output_tuple_indices=[out] if multiple else [],
                    operand_index=operand,
                    operand_tuple_indices=[],
                )
                for operand, out in aliases.items()
            ]
        ),
        "mhlo.frontend_attributes": ir.DictAttr.get(
            {"num_batch_dims": ir.StringAttr.get(str(rank - core_rank))}
        ),
    }
    op = hlo.CustomCallOp.build_generic(
        results=[aval_to_ir_type(a) for a in avals_out],
        operands=list(operands),
        attributes=attributes,
    )
    op.operation.attributes["mhlo.backend_config"] = ir.DictAttr.get(
        {
            k: v
            if isinstance(v, ir.Attribute)
            else ir.BoolAttr.get(v)
            if isinstance(v, bool)
            else ir.IntegerAttr.get(ir.IntegerType.get_signless(32), int(v))
            if isinstance(v, np.int32)
            else ir.IntegerAttr.get(u8, ord(v) if isinstance(v, str) else v)
            for k, v in options.items()
        }
    )
    return list(op.results)


def _compare(x: Value, y: Value, direction: str) -> Value:
    return hlo.compare(
        x,
        y,
        hlo.ComparisonDirectionAttr.get(direction),
        compare_type=hlo.ComparisonTypeAttr.get("SIGNED"),
    )


def _full(value: Any, aval: ShapedArray) -> Value:
    return hlo.broadcast_in_dim(aval_to_ir_type(aval), ir_constant(value, aval.dtype), [])


def _info_ok(info: Value, batch: tuple[int, ...], direction: str = "EQ") -> Value:
    """``info == 0`` (or ``>= 0``) per matrix: LAPACK's success flag."""
    return _compare(info, _full(0, ShapedArray(batch, _INT32)), direction)


def _nan_where_not_ok(ok: Value, batch: tuple[int, ...], x: Value, aval: ShapedArray) -> Value:
    mask = hlo.broadcast_in_dim(
        aval_to_ir_type(ShapedArray(aval.shape, np.dtype(np.bool_))), ok, list(range(len(batch)))
    )
    return hlo.select(mask, x, _full(np.nan, aval))


def _band(x: Value, aval: ShapedArray, lower: bool, k: int = 0) -> Value:
    """Zero the entries of each matrix above (``lower``) or below its ``k``-th diagonal."""
    nd = aval.ndim
    idx = ShapedArray(aval.shape, np.dtype(np.int64))
    rows = hlo.iota(aval_to_ir_type(idx), nd - 2)
    cols = hlo.iota(aval_to_ir_type(idx), nd - 1)
    diff = hlo.subtract(cols, rows)
    keep = _compare(diff, _full(k, idx), "LE" if lower else "GE")
    return hlo.select(keep, x, _full(0, aval))


# --- cholesky ---------------------------------------------------------------------------------
@_register(cholesky_p, "cpu", "cuda")
def _cholesky_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    (aval,) = avals_in
    batch = aval.shape[:-2]
    info_aval = ShapedArray(batch, _INT32)
    target = _solver_target(ctx, "potrf", aval.dtype)
    flags: dict[str, Any] = {"lower": True} if ctx.platform == "cuda" else {"uplo": "L"}
    factor, info = _lapack_call(target, in_vals, avals_in, [aval, info_aval], {0: 0}, **flags)
    factor = _nan_where_not_ok(_info_ok(info, batch), batch, factor, aval)
    return [_band(factor, aval, lower=True)]  # potrf leaves the upper triangle as it was


# --- triangular_solve -------------------------------------------------------------------------
def _conjugate_unless_transposed(
    a: Value, aval: ShapedArray, conjugate_a: bool, transpose_a: bool
) -> tuple[Value, bool]:
    """``a`` conjugated up front when no transpose goes with it: LAPACK's trsm and StableHLO's
    ``triangular_solve`` conjugate only together with a transpose. Returns the flag left."""
    if conjugate_a and not transpose_a:
        if aval.dtype.kind == "c":
            a = hlo.complex(hlo.real(a), hlo.negate(hlo.imag(a)))
        return a, False
    return a, conjugate_a


@_register(triangular_solve_p, "cpu")
def _triangular_solve_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    left_side: bool,
    lower: bool,
    transpose_a: bool,
    conjugate_a: bool,
    unit_diagonal: bool,
) -> list[Value]:
    a, conjugate_a = _conjugate_unless_transposed(in_vals[0], avals_in[0], conjugate_a, transpose_a)
    b = in_vals[1]
    target = lapack_target("trsm_ffi", avals_in[0].dtype)
    return _lapack_call(
        target,
        [a, b],
        avals_in,
        avals_out,
        {1: 0},
        side="L" if left_side else "R",
        uplo="L" if lower else "U",
        trans_x=("C" if conjugate_a else "T") if transpose_a else "N",
        diag="U" if unit_diagonal else "N",
    )


@_register(triangular_solve_p, "cuda")
def _triangular_solve_hlo_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    left_side: bool,
    lower: bool,
    transpose_a: bool,
    conjugate_a: bool,
    unit_diagonal: bool,
) -> list[Value]:
    """StableHLO's ``triangular_solve`` (XLA:GPU calls cuBLAS's trsm), as JAX on GPUs."""
    a, conjugate_a = _conjugate_unless_transposed(in_vals[0], avals_in[0], conjugate_a, transpose_a)
    b = in_vals[1]
    transpose = ("ADJOINT" if conjugate_a else "TRANSPOSE") if transpose_a else "NO_TRANSPOSE"
    return [
        hlo.triangular_solve(
            a,
            b,
            ir.BoolAttr.get(left_side),
            ir.BoolAttr.get(lower),
            ir.BoolAttr.get(unit_diagonal),
            hlo.TransposeAttr.get(transpose),
        )
    ]


# --- lu ---------------------------------------------------------------------------------------
def _pivots_to_permutation(pivots: Value, piv_aval: ShapedArray, m: int) -> Value:
    """Apply LAPACK's row swaps (``i <-> pivots[i]`` in turn) to ``iota(m)``: a while loop
    over ``i`` whose body swaps two entries of every batch element with one-hot selects."""
    *batch, k = piv_aval.shape
    perm_aval = ShapedArray((*batch, m), _INT32)
    perm_type = aval_to_ir_type(perm_aval)
    i0 = ir_constant(0, _INT32)
    perm0 = hlo.iota(perm_type, len(batch))
    loop = hlo.WhileOp([i0.type, perm_type], [i0, perm0])
    cond = loop.cond.blocks.append(i0.type, perm_type)
    with ir.InsertionPoint(cond):
        hlo.return_([_compare(cond.arguments[0], ir_constant(k, _INT32), "LT")])
    body = loop.body.blocks.append(i0.type, perm_type)
    with ir.InsertionPoint(body):
        i, perm = body.arguments
        zero = ir_constant(0, _INT32)
        piv_i = hlo.dynamic_slice(pivots, [*([zero] * len(batch)), i], [*batch, 1])
        piv_i = hlo.broadcast_in_dim(perm_type, piv_i, list(range(len(batch) + 1)))
        positions = hlo.iota(perm_type, len(batch))
        at_i = _compare(positions, hlo.broadcast_in_dim(perm_type, i, []), "EQ")
        at_p = _compare(positions, piv_i, "EQ")
        zeros = _full(0, perm_aval)

        def value_at(mask: Value) -> Value:
            picked = reduce_op(hlo.select(mask, perm, zeros), perm_aval, [len(batch)], "sum")
            return hlo.broadcast_in_dim(perm_type, picked, list(range(len(batch))))

        val_i, val_p = value_at(at_i), value_at(at_p)
        new_perm = hlo.select(at_i, val_p, hlo.select(at_p, val_i, perm))
        hlo.return_([hlo.add(i, ir_constant(1, _INT32)), new_perm])
    perm_out: Value = loop.results[1]
    return perm_out


@_register(lu_p, "cpu", "cuda")
def _lu_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    lu_aval, piv_aval, perm_aval = avals_out
    batch = lu_aval.shape[:-2]
    if 0 in lu_aval.shape[-2:]:  # nothing to factor (LAPACK is not called): P = I, L U = a
        perm = hlo.iota(aval_to_ir_type(perm_aval), len(batch))
        return [in_vals[0], _full(0, piv_aval), perm]
    info_aval = ShapedArray(batch, _INT32)
    target = _solver_target(ctx, "getrf", lu_aval.dtype)
    lu, pivots, info = _lapack_call(
        target, in_vals, avals_in, [lu_aval, piv_aval, info_aval], {0: 0}
    )
    pivots = hlo.subtract(pivots, _full(1, piv_aval))  # LAPACK counts from 1
    lu = _nan_where_not_ok(_info_ok(info, batch, "GE"), batch, lu, lu_aval)
    if ctx.platform == "cuda":  # the plugin's kernel, as JAX
        (permutation,) = _lapack_call(
            "cu_lu_pivots_to_permutation", [pivots], [piv_aval], [perm_aval], {}, core_rank=1
        )
        return [lu, pivots, permutation]
    return [lu, pivots, _pivots_to_permutation(pivots, piv_aval, lu_aval.shape[-2])]


# --- eigh -------------------------------------------------------------------------------------
@_register(eigh_p, "cpu", "cuda")
def _eigh_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    lower: bool,
    sort_eigenvalues: bool,
) -> list[Value]:
    v_aval, w_aval = avals_out
    batch = v_aval.shape[:-2]
    info_aval = ShapedArray(batch, _INT32)
    prefix = "he" if v_aval.dtype.kind == "c" and ctx.platform == "cpu" else "sy"
    target = _solver_target(ctx, f"{prefix}evd", v_aval.dtype)  # ?evd sorts ascending
    flags: dict[str, Any] = (
        {"algorithm": 0, "lower": lower}  # cuSOLVER's default (QR-based) algorithm
        if ctx.platform == "cuda"
        else {"mode": "V", "uplo": "L" if lower else "U"}
    )
    v, w, info = _lapack_call(
        target, in_vals, avals_in, [v_aval, w_aval, info_aval], {0: 0}, **flags
    )
    ok = _info_ok(info, batch)
    return [_nan_where_not_ok(ok, batch, v, v_aval), _nan_where_not_ok(ok, batch, w, w_aval)]


# --- eig --------------------------------------------------------------------------------------
_GEEV_COMPUTE, _GEEV_SKIP = 86, 78  # jaxlib's eig.ComputationMode: ord("V"), ord("N")


@_register(eig_p, "cpu")
def _eig_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    compute_left_eigenvectors: bool,
    compute_right_eigenvectors: bool,
    enable_eigvec_derivs: bool,
) -> list[Value]:
    """LAPACK's ``geev``."""
    (aval,) = avals_in
    w, vl, vr, info = _geev_unpacked(
        lapack_target("geev_ffi", aval.dtype),
        in_vals,
        avals_in,
        avals_out,
        compute_left=_GEEV_COMPUTE if compute_left_eigenvectors else _GEEV_SKIP,
        compute_right=_GEEV_COMPUTE if compute_right_eigenvectors else _GEEV_SKIP,
    )
    return _eig_results(
        avals_in, avals_out, w, vl, vr, info, compute_left_eigenvectors, compute_right_eigenvectors
    )


_CUSOLVER_GEEV = 11701  # the first cuSOLVER with ``Xgeev``


@_register(eig_p, "cuda")
def _eig_cuda_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    compute_left_eigenvectors: bool,
    compute_right_eigenvectors: bool,
    enable_eigvec_derivs: bool,
) -> list[Value]:
    """cuSOLVER's ``geev`` (right eigenvectors only; a real matrix's come packed as LAPACK
    packs them: a conjugate pair shares two real columns), else the plugin's hybrid kernel,
    which returns them as the CPU's ``geev`` does."""
    (aval,) = avals_in
    w_aval = avals_out[0]
    if not compute_left_eigenvectors and cusolver_version() >= _CUSOLVER_GEEV:
        _, w, _, vr, info = _lapack_call(
            "cusolver_geev_ffi",
            in_vals,
            avals_in,
            [aval, w_aval, aval, aval, _info_aval(aval)],
            {},
            left=False,
            right=compute_right_eigenvectors,
        )
        if aval.dtype.kind != "c" and compute_right_eigenvectors:
            unpack = trace_to_closed_jaxpr(
                lambda w_, v_: [_unpack_conjugate_pairs(w_, v_)], [w_aval, aval]
            )
            (vr,) = ctx.lower_jaxpr(unpack, [w, vr])
        vl = vr  # not asked for (left=False)
    else:
        initialize_hybrid_kernels()
        w, vl, vr, info = _geev_unpacked(
            f"cuhybrid_eig_{'comp' if aval.dtype.kind == 'c' else 'real'}",
            in_vals,
            avals_in,
            avals_out,
            magma=ir.StringAttr.get("auto"),
            left=compute_left_eigenvectors,
            right=compute_right_eigenvectors,
        )
    return _eig_results(
        avals_in, avals_out, w, vl, vr, info, compute_left_eigenvectors, compute_right_eigenvectors
    )


def _info_aval(aval: ShapedArray) -> ShapedArray:
    """The ``info`` output of a kernel over ``aval``'s batch of matrices."""
    return ShapedArray(aval.shape[:-2], _INT32)


def _geev_unpacked(
    target: str,
    in_vals: Values,
    avals_in: Avals,
    avals_out: Avals,
    **options: str | int | bool | ir.Attribute,
) -> tuple[Value, Value, Value, Value]:
    """``(w, vl, vr, info)`` of a ``geev`` kernel that returns complex eigenvectors (LAPACK's
    on the CPU, the CUDA plugin's hybrid one): a real matrix's eigenvalues come as (re, im)
    parts, a complex matrix's as they are."""
    (aval,) = avals_in
    vectors = ShapedArray(aval.shape, avals_out[0].dtype)
    real = aval.dtype.kind != "c"
    parts = ShapedArray(aval.shape[:-1], aval.dtype)
    *w_parts, vl, vr, info = _lapack_call(
        target,
        in_vals,
        avals_in,
        [*([parts] * (2 if real else 1)), vectors, vectors, _info_aval(aval)],
        {},
        core_rank=2,
        **options,
    )
    return (hlo.complex(*w_parts) if real else w_parts[0]), vl, vr, info


def _eig_results(
    avals_in: Avals,
    avals_out: Avals,
    w: Value,
    vl: Value,
    vr: Value,
    info: Value,
    left: bool,
    right: bool,
) -> list[Value]:
    """``eig``'s outputs, NaN for each matrix whose ``info`` reports a failure (JAX's)."""
    batch = avals_in[0].shape[:-2]
    w_aval = avals_out[0]
    vectors = ShapedArray(avals_in[0].shape, w_aval.dtype)
    ok = _info_ok(info, batch)
    result = [_nan_where_not_ok(ok, batch, w, w_aval)]
    if left:
        result.append(_nan_where_not_ok(ok, batch, vl, vectors))
    if right:
        result.append(_nan_where_not_ok(ok, batch, vr, vectors))
    return result


def _unpack_conjugate_pairs(w: Any, v: Any) -> Any:
    """Complex eigenvectors from LAPACK's packing of a real matrix's: for a pair of
    conjugate eigenvalues at columns ``j, j + 1``, ``v[:, j] +- i v[:, j + 1]``."""
    if w.size == 0:
        return lax.complex(v, lax.full_like(v, 0))
    is_real = lax.eq(lax.imag(w), lax.full_like(lax.imag(w), 0))
    seen = lax.cumsum(lax.convert_element_type(lax.bitwise_not(is_real), np.int32), axis=w.ndim - 1)
    starts = lax.eq(lax.rem(seen, lax.full_like(seen, 2)), lax.full_like(seen, 1))
    last = v.ndim - 1
    zero = lax.full((), 0, v.dtype)
    left = lax.pad(v, zero, [(0, 0, 0)] * last + [(-1, 1, 0)])  # column j + 1 at j
    right = lax.pad(v, zero, [(0, 0, 0)] * last + [(1, -1, 0)])  # column j - 1 at j
    dims = [*range(w.ndim - 1), last]
    is_real = lax.broadcast_in_dim(is_real, v.shape, dims)
    starts = lax.broadcast_in_dim(starts, v.shape, dims)
    re = lax.select(lax.bitwise_or(is_real, starts), v, right)
    im = lax.select(starts, left, lax.neg(v))
    im = lax.select(is_real, lax.full_like(v, 0), im)
    return lax.complex(re, im)


# --- schur ------------------------------------------------------------------------------------
_GEES_COMPUTE, _GEES_SKIP, _GEES_NO_SORT = 86, 78, 78  # jaxlib's schur enums: "V", "N", "N"


@_register(schur_p, "cpu")
def _schur_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    compute_schur_vectors: bool,
    sort_eig_vals: bool,
    select_callable: Any,
) -> list[Value]:
    """``gees`` as JAX calls it: outputs ``T``, the Schur vectors, the eigenvalues (real types:
    as re and im parts), ``sdim`` and ``info``; NaNs where ``info`` reports failure."""
    if sort_eig_vals:
        raise NotImplementedError("The sort feature of LAPACK's gees routine is not implemented.")
    (aval,) = avals_in
    batch = aval.shape[:-2]
    info_aval = ShapedArray(batch, _INT32)
    eigvals = ShapedArray(aval.shape[:-1], aval.dtype)
    real = aval.dtype.kind != "c"
    outs = _lapack_call(
        lapack_target("gees_ffi", aval.dtype),
        in_vals,
        avals_in,
        [aval, aval, *([eigvals] * (2 if real else 1)), info_aval, info_aval],
        {0: 0},
        mode=_GEES_COMPUTE if compute_schur_vectors else _GEES_SKIP,
        sort=_GEES_NO_SORT,
    )
    t, vectors, info = outs[0], outs[1], outs[-1]
    ok = _info_ok(info, batch)
    result = [_nan_where_not_ok(ok, batch, t, aval)]
    if compute_schur_vectors:
        result.append(_nan_where_not_ok(ok, batch, vectors, aval))
    return result


# --- svd --------------------------------------------------------------------------------------
@_register(svd_p, "cpu")
def _svd_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    full_matrices: bool,
    compute_uv: bool,
) -> list[Value]:
    (aval,) = avals_in
    *batch_list, m, n = aval.shape
    batch = tuple(batch_list)
    k = min(m, n)
    s_aval = avals_out[0]
    u_aval = ShapedArray((*batch, m, m if full_matrices else k), aval.dtype)
    vt_aval = ShapedArray((*batch, n if full_matrices else k, n), aval.dtype)
    info_aval = ShapedArray(batch, _INT32)
    mode = "N" if not compute_uv else ("A" if full_matrices else "S")
    target = lapack_target("gesdd_ffi", aval.dtype)
    _, s, u, vt, info = _lapack_call(
        target, in_vals, avals_in, [aval, s_aval, u_aval, vt_aval, info_aval], {0: 0}, mode=mode
    )
    ok = _info_ok(info, batch)
    outs = [_nan_where_not_ok(ok, batch, s, s_aval)]
    if compute_uv:
        outs += [_nan_where_not_ok(ok, batch, u, u_aval), _nan_where_not_ok(ok, batch, vt, vt_aval)]
    return outs


#: cuSOLVER's Jacobi SVD (``gesvdj``), JAX's choice on CUDA for matrices up to this size.
_GESVDJ_MAX = 1024


@_register(svd_p, "cuda")
def _svd_cuda_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    full_matrices: bool,
    compute_uv: bool,
) -> list[Value]:
    """``cusolver_gesvdj_ffi`` as JAX calls it: ``V`` (not ``V^H``) comes back, and the
    batched kernel has no economy mode up to 32x32 (full factors are sliced)."""
    (aval,) = avals_in
    *batch_list, m, n = aval.shape
    batch = tuple(batch_list)
    if max(m, n) > _GESVDJ_MAX:
        raise MissingRuleError(
            f"Primitive 'svd' has no XLA lowering rule for platform 'cuda' for a {m}x{n} "
            f"matrix: mj lowers it to cuSOLVER's Jacobi kernel (gesvdj), for matrices up to "
            f"{_GESVDJ_MAX}x{_GESVDJ_MAX} (JAX switches to gesvd beyond)"
        )
    k = min(m, n)
    econ = not full_matrices and m > 32 and n > 32
    s_aval = avals_out[0]
    u_aval = ShapedArray((*batch, m, k if econ else m), aval.dtype)
    v_aval = ShapedArray((*batch, n, k if econ else n), aval.dtype)
    info_aval = ShapedArray(batch, _INT32)
    _, s, u, v, info = _lapack_call(
        "cusolver_gesvdj_ffi",
        in_vals,
        avals_in,
        [aval, s_aval, u_aval, v_aval, info_aval],
        {0: 0},
        full_matrices=not econ,
        compute_uv=compute_uv,
    )
    ok = _info_ok(info, batch)
    outs = [_nan_where_not_ok(ok, batch, s, s_aval)]
    if not compute_uv:
        return outs
    nb = len(batch)
    vt: Value = hlo.transpose(v, [*range(nb), nb + 1, nb])
    if aval.dtype.kind == "c":
        vt = hlo.complex(hlo.real(vt), hlo.negate(hlo.imag(vt)))
    vt_aval = ShapedArray((*batch, v_aval.shape[-1], n), aval.dtype)
    if not full_matrices and not econ:
        u, u_aval = _slice_matrix(u, u_aval, m, k)
        vt, vt_aval = _slice_matrix(vt, vt_aval, k, n)
    return [
        *outs,
        _nan_where_not_ok(ok, batch, u, u_aval),
        _nan_where_not_ok(ok, batch, vt, vt_aval),
    ]


# --- qr ---------------------------------------------------------------------------------------
def _slice_matrix(x: Value, aval: ShapedArray, rows: int, cols: int) -> tuple[Value, ShapedArray]:
    out = ShapedArray((*aval.shape[:-2], rows, cols), aval.dtype)
    if out.shape == aval.shape:
        return x, aval
    nd = aval.ndim
    return hlo.slice(x, [0] * nd, list(out.shape), [1] * nd), out


@_register(qr_p, "cpu", "cuda")
def _qr_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values, *, full_matrices: bool
) -> list[Value]:
    (aval,) = avals_in
    *batch, m, n = aval.shape
    k = min(m, n)
    taus_aval = ShapedArray((*batch, k), aval.dtype)
    geqrf = _solver_target(ctx, "geqrf", aval.dtype)
    r, taus = _lapack_call(geqrf, in_vals, avals_in, [aval, taus_aval], {0: 0})
    if m < n:
        reflectors, refl_aval = _slice_matrix(r, aval, m, m)
    elif full_matrices and m > n:
        refl_aval = ShapedArray((*batch, m, m), aval.dtype)
        zero = ir_constant(0, aval.dtype)
        nd = aval.ndim
        reflectors = hlo.pad(r, zero, [0] * nd, [0] * (nd - 1) + [m - n], [0] * nd)
    else:
        reflectors, refl_aval = r, aval
    complex_cpu = aval.dtype.kind == "c" and ctx.platform == "cpu"
    orgqr = _solver_target(ctx, "ungqr" if complex_cpu else "orgqr", aval.dtype)
    (q,) = _lapack_call(orgqr, [reflectors, taus], [refl_aval, taus_aval], [refl_aval], {0: 0})
    r_aval = avals_out[1]
    r, sliced = _slice_matrix(r, aval, *r_aval.shape[-2:])
    return [q, _band(r, sliced, lower=False)]


@_register(geqrf_p, "cpu", "cuda")
def _geqrf_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    """LAPACK's (cuSOLVER's) ``geqrf``, as JAX lowers it."""
    target = _solver_target(ctx, "geqrf", avals_in[0].dtype)
    return _lapack_call(target, in_vals, avals_in, avals_out, {0: 0})


@_register(geqp3_p, "cpu")
def _geqp3_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    """LAPACK's ``geqp3``, as JAX lowers it for the CPU."""
    target = lapack_target("geqp3_ffi", avals_in[0].dtype)
    return _lapack_call(target, in_vals, avals_in, avals_out, {0: 0, 1: 1})


# --- tridiagonal_solve ------------------------------------------------------------------------
@_register(tridiagonal_solve_p, "cpu")
def _tridiagonal_solve_lowering(
    ctx: LoweringContext,
    avals_in: Avals,
    avals_out: Avals,
    in_vals: Values,
    *,
    perturb_singular: bool,
) -> list[Value]:
    """LAPACK's ``gtsv`` (NaN where a pivot is zero), or with ``perturb_singular`` jaxlib's
    ``tridiagonal_solve_perturbed_ffi`` kernel, as JAX lowers it for the CPU."""
    b_aval = avals_in[3]
    if perturb_singular:
        return _lapack_call("tridiagonal_solve_perturbed_ffi", in_vals, avals_in, [b_aval], {})
    batch = b_aval.shape[:-2]
    info_aval = ShapedArray(batch, _INT32)
    target = lapack_target("gtsv_ffi", b_aval.dtype)
    *_, x, info = _lapack_call(
        target, in_vals, avals_in, [*avals_in, info_aval], {0: 0, 1: 1, 2: 2, 3: 3}
    )
    return [_nan_where_not_ok(_info_ok(info, batch), batch, x, b_aval)]


# --- hessenberg, householder_product, tridiagonal ----------------------------------------------
@_register(hessenberg_p, "cpu")
def _hessenberg_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    """LAPACK's ``gehrd`` on the whole matrix (``ilo = 1``, ``ihi = n``), as JAX lowers it for
    the CPU; NaNs where ``info`` reports failure."""
    a_aval, taus_aval = avals_out
    batch = a_aval.shape[:-2]
    info_aval = ShapedArray(batch, _INT32)
    a, taus, info = _lapack_call(
        lapack_target("gehrd_ffi", a_aval.dtype),
        in_vals,
        avals_in,
        [a_aval, taus_aval, info_aval],
        {0: 0},
        low=np.int32(1),
        high=np.int32(a_aval.shape[-1]),
    )
    ok = _info_ok(info, batch)
    return [
        _nan_where_not_ok(ok, batch, a, a_aval),
        _nan_where_not_ok(ok, batch, taus, taus_aval),
    ]


@_register(householder_product_p, "cpu", "cuda")
def _householder_product_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    """LAPACK's ``orgqr``/``ungqr`` (cuSOLVER's ``orgqr`` on CUDA), as JAX lowers it."""
    dtype = avals_in[0].dtype
    complex_cpu = dtype.kind == "c" and ctx.platform == "cpu"
    target = _solver_target(ctx, "ungqr" if complex_cpu else "orgqr", dtype)
    return _lapack_call(target, in_vals, avals_in, avals_out, {0: 0})


@_register(tridiagonal_p, "cpu", "cuda")
def _tridiagonal_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values, *, lower: bool
) -> list[Value]:
    """LAPACK's ``sytrd``/``hetrd`` (cuSOLVER's ``sytrd`` on CUDA), as JAX lowers it; NaNs
    where ``info`` reports failure."""
    a_aval = avals_in[0]
    batch = a_aval.shape[:-2]
    info_aval = ShapedArray(batch, _INT32)
    flags: dict[str, Any]
    if ctx.platform == "cuda":
        target, flags = "cusolver_sytrd_ffi", {"lower": lower}
    else:
        prefix = "he" if a_aval.dtype.kind == "c" else "sy"
        target = lapack_target(f"{prefix}trd_ffi", a_aval.dtype)
        flags = {"uplo": "L" if lower else "U"}
    *outs, info = _lapack_call(target, in_vals, avals_in, [*avals_out, info_aval], {0: 0}, **flags)
    ok = _info_ok(info, batch)
    return [_nan_where_not_ok(ok, batch, x, av) for x, av in zip(outs, avals_out, strict=True)]

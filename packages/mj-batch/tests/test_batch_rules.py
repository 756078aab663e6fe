"""Every core primitive: vmap(f) equals stacking f over the batch.

For each case of the catalogue below and each operand, the operand is mapped along axis 0, 1
and -1 while the others are mapped along 0, or unmapped (None); batch sizes 1 and 3. The
reference is a Python loop over the examples, stacked with NumPy.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest

from mj_batch import vmap
from mj_batch.extend import vmap_rules
from mj_core import Primitive, bind
from mj_core.extend import (
    FAMILIES,
    collective_prims,
    elementwise_specs,
    family_of,
    family_primitives,
)
from mj_core.prims.callback import debug_callback_p, pure_callback_p
from mj_core.prims.complex import complex_p, conj_p, imag_p, real_p
from mj_core.prims.contractions import dot_general_p
from mj_core.prims.conversions import (
    bitcast_convert_type_p,
    convert_element_type_p,
    copy_p,
    dce_sink_p,
    reduce_precision_p,
)
from mj_core.prims.convolution import ConvDimensionNumbers, conv_general_dilated_p
from mj_core.prims.elementwise import add_p, clamp_p, mul_p, select_n_p, sub_p, threefry2x32_p
from mj_core.prims.fft import FftType, fft_p
from mj_core.prims.indexing import (
    GatherDimensionNumbers,
    ScatterDimensionNumbers,
    gather_p,
    scatter_add_p,
    scatter_max_p,
    scatter_min_p,
    scatter_mul_p,
    scatter_p,
)
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
from mj_core.prims.reductions import (
    argmax_p,
    argmin_p,
    cummax_p,
    cummin_p,
    cumprod_p,
    cumsum_p,
    reduce_and_p,
    reduce_max_p,
    reduce_min_p,
    reduce_or_p,
    reduce_prod_p,
    reduce_sum_p,
)
from mj_core.prims.sorting import sort_p
from mj_core.prims.structural import (
    broadcast_p,
    concatenate_p,
    dynamic_slice_p,
    dynamic_update_slice_p,
    iota_p,
    optimization_barrier_p,
    pad_p,
    reshape_p,
    rev_p,
    slice_p,
    squeeze_p,
    transpose_p,
)
from mj_core.prims.windowed import reduce_window_max_p, reduce_window_min_p, reduce_window_sum_p

RNG = np.random.default_rng(0)


class Operand(NamedTuple):
    """A per-example operand: its shape and how to draw random values of it."""

    shape: tuple[int, ...]
    draw: Callable[[tuple[int, ...]], np.ndarray]


def floats(lo: float = -2.0, hi: float = 2.0, dtype: Any = np.float64) -> Callable[..., Any]:
    return lambda shape: RNG.uniform(lo, hi, shape).astype(dtype)


def ints(lo: int = -5, hi: int = 6, dtype: Any = np.int64) -> Callable[..., Any]:
    return lambda shape: RNG.integers(lo, hi, shape).astype(dtype)


def bools(shape: tuple[int, ...]) -> np.ndarray:
    return RNG.random(shape) < 0.5


def f(*shape: int, lo: float = -2.0, hi: float = 2.0, dtype: Any = np.float64) -> Operand:
    return Operand(shape, floats(lo, hi, dtype))


def i(*shape: int, lo: int = -5, hi: int = 6, dtype: Any = np.int64) -> Operand:
    return Operand(shape, ints(lo, hi, dtype))


def u32(*shape: int) -> Operand:
    return Operand(shape, ints(0, 2**32, np.uint32))


def b(*shape: int) -> Operand:
    return Operand(shape, bools)


class Case(NamedTuple):
    prim: Primitive
    operands: tuple[Operand, ...]
    params: dict[str, Any]
    label: str = ""


# --- elementwise: one case per primitive, with operands in its domain -----------------------
POSITIVE = {"log", "sqrt", "rsqrt", "log1p"}
UNIT = {"asin", "acos", "erf_inv"}
INT_ONLY = {"shift_left", "shift_right_logical", "shift_right_arithmetic"}
BITWISE = {"and", "or", "xor", "not"}


def _elementwise_operand(prim: Primitive, shape: tuple[int, ...]) -> Operand:
    name = prim.name
    if name in POSITIVE:
        return f(*shape, lo=0.1, hi=3.0)
    if name in UNIT:
        return f(*shape, lo=-0.9, hi=0.9)
    if name in INT_ONLY:
        return i(*shape, lo=0, hi=8)
    if name in BITWISE:
        return i(*shape)
    if name in {"rem", "div", "pow"}:
        return f(*shape, lo=0.5, hi=2.0)
    if name in {"floor", "ceil", "round"}:
        return f(*shape, lo=-3.0, hi=3.0)
    return f(*shape)


def _elementwise_cases() -> list[Case]:
    cases = []
    for prim, spec in elementwise_specs.items():
        if prim.name in {"select_n", "clamp"}:
            continue
        params: dict[str, Any] = {}
        if prim.name == "integer_pow":
            params = {"y": 3}
        if prim.name == "round":
            params = {"rounding_method": 1}
        nin = spec.nin
        cases.append(
            Case(prim, tuple(_elementwise_operand(prim, (2, 3)) for _ in range(nin)), params)
        )
    cases += [
        # NumPy broadcasting between operands of different per-example ranks
        Case(add_p, (f(2, 3), f(3)), {}, "rank2+rank1"),
        Case(mul_p, (f(), f(2, 3)), {}, "scalar*rank2"),
        Case(sub_p, (f(4, 1), f(1, 3)), {}, "outer"),
        Case(select_n_p, (b(2, 3), f(2, 3), f(2, 3)), {}, "bool"),
        Case(select_n_p, (b(), f(3), f(3)), {}, "scalar-pred"),
        Case(select_n_p, (i(3, lo=0, hi=3), f(3), f(3), f(3)), {}, "int-which"),
        Case(clamp_p, (f(), f(4), f(lo=2.0, hi=3.0)), {}, "scalar-bounds"),
        Case(clamp_p, (f(4, lo=-2.0, hi=0.0), f(4), f(4, lo=0.0, hi=2.0)), {}, "arrays"),
        # two outputs, both batched; scalar keys (the PRNG's use) and one key per counter
        Case(threefry2x32_p, (u32(), u32(), u32(), u32(5)), {}, "scalar-keys"),
        Case(threefry2x32_p, (u32(2, 3), u32(2, 3), u32(3), u32(2, 3)), {}, "per-element-keys"),
    ]
    return cases


def _structural_cases() -> list[Case]:
    return [
        Case(broadcast_p, (f(3),), {"shape": (2, 3), "broadcast_dimensions": (1,)}),
        Case(broadcast_p, (f(3, 1),), {"shape": (3, 4), "broadcast_dimensions": (0, 1)}),
        Case(broadcast_p, (f(3, 2),), {"shape": (3, 4, 2), "broadcast_dimensions": (0, 2)}),
        Case(broadcast_p, (f(),), {"shape": (2,), "broadcast_dimensions": ()}),
        Case(reshape_p, (f(2, 3),), {"new_sizes": (3, 2)}),
        Case(reshape_p, (f(6),), {"new_sizes": (2, 1, 3)}),
        Case(transpose_p, (f(2, 3, 4),), {"permutation": (2, 0, 1)}),
        Case(squeeze_p, (f(2, 1, 3),), {"dimensions": (1,)}),
        Case(squeeze_p, (f(1, 3, 1),), {"dimensions": (0, 2)}),
        Case(rev_p, (f(2, 3),), {"dimensions": (0,)}),
        Case(rev_p, (f(2, 3),), {"dimensions": (0, 1)}),
        Case(concatenate_p, (f(2, 3), f(4, 3)), {"dimension": 0}),
        Case(concatenate_p, (f(2, 3), f(2, 1), f(2, 2)), {"dimension": 1}),
        Case(pad_p, (f(3), f()), {"padding_config": ((1, 2, 1),)}),
        Case(pad_p, (f(2, 3), f()), {"padding_config": ((0, 1, 0), (-1, 1, 1))}),
        Case(
            slice_p,
            (f(5, 6),),
            {"start_indices": (1, 0), "limit_indices": (4, 6), "strides": (2, 1)},
        ),
        Case(
            slice_p,
            (f(5, 6),),
            {"start_indices": (1, 2), "limit_indices": (3, 5), "strides": None},
        ),
        Case(dynamic_slice_p, (f(5, 6), i(lo=-2, hi=7), i(lo=0, hi=6)), {"slice_sizes": (2, 3)}),
        Case(
            dynamic_slice_p,
            (f(5, 6), i(lo=0, hi=5, dtype=np.int32), i(lo=0, hi=6)),
            {"slice_sizes": (1, 6)},
            "mixed-index-dtypes",
        ),
        Case(dynamic_update_slice_p, (f(5, 6), f(2, 3), i(lo=-2, hi=7), i(lo=0, hi=6)), {}),
        Case(
            convert_element_type_p,
            (f(2, 3),),
            {"new_dtype": np.dtype(np.float32), "weak_type": False},
        ),
        Case(
            convert_element_type_p,
            (i(3),),
            {"new_dtype": np.dtype(np.float64), "weak_type": False},
        ),
        Case(bitcast_convert_type_p, (f(3),), {"new_dtype": np.dtype(np.int64)}),
        Case(
            bitcast_convert_type_p,
            (f(3, dtype=np.float32),),
            {"new_dtype": np.dtype(np.int16)},
        ),
        Case(
            bitcast_convert_type_p,
            (i(3, 2, dtype=np.int16),),
            {"new_dtype": np.dtype(np.float32)},
        ),
        Case(reduce_precision_p, (f(2, 3),), {"exponent_bits": 5, "mantissa_bits": 2}),
        Case(copy_p, (i(2, 3, dtype=np.int16),), {}),
        Case(dce_sink_p, (f(2, 3),), {"prevent_mlir_dce": False}),
        Case(optimization_barrier_p, (f(2, 3), i(4, dtype=np.int32)), {}),
    ]


def _reduction_cases() -> list[Case]:
    cases = []
    for prim in (reduce_sum_p, reduce_max_p, reduce_min_p, reduce_prod_p):
        cases += [
            Case(prim, (f(3, 4),), {"axes": (1,)}),
            Case(prim, (f(3, 4),), {"axes": (0,)}),
            Case(prim, (f(2, 3, 4),), {"axes": (0, 2)}),
            Case(prim, (f(3, 4),), {"axes": ()}),
        ]
    for prim in (reduce_and_p, reduce_or_p):
        cases += [Case(prim, (b(3, 4),), {"axes": (1,)}), Case(prim, (b(3, 4),), {"axes": (0, 1)})]
    for prim in (argmax_p, argmin_p):
        cases += [
            Case(prim, (f(3, 4),), {"axes": (1,), "index_dtype": np.dtype(np.int32)}),
            Case(prim, (f(3, 4),), {"axes": (0,), "index_dtype": np.dtype(np.int64)}),
        ]
    for prim in (cumsum_p, cumprod_p, cummax_p, cummin_p):
        cases += [
            Case(prim, (f(3, 4),), {"axis": 1, "reverse": False}),
            Case(prim, (f(3, 4),), {"axis": 0, "reverse": True}),
        ]
    cases += [
        Case(sort_p, (f(3, 4),), {"dimension": 1, "is_stable": True, "num_keys": 1}),
        Case(sort_p, (f(3, 4),), {"dimension": 0, "is_stable": False, "num_keys": 1}),
        Case(
            sort_p,
            (i(5, lo=0, hi=3), f(5)),
            {"dimension": 0, "is_stable": True, "num_keys": 1},
            "payload",
        ),
        Case(
            sort_p,
            (i(5, lo=0, hi=2), i(5, lo=0, hi=3), f(5)),
            {"dimension": 0, "is_stable": True, "num_keys": 2},
            "two-keys",
        ),
    ]
    return cases


def _dot(lc: tuple[int, ...], rc: tuple[int, ...], lb=(), rb=()) -> dict[str, Any]:
    return {
        "dimension_numbers": ((lc, rc), (lb, rb)),
        "precision": None,
        "preferred_element_type": None,
    }


def _contraction_cases() -> list[Case]:
    return [
        Case(dot_general_p, (f(2, 3), f(3, 4)), _dot((1,), (0,)), "matmul"),
        Case(dot_general_p, (f(3), f(3)), _dot((0,), (0,)), "vdot"),
        Case(dot_general_p, (f(3), f(2)), _dot((), ()), "outer"),
        Case(dot_general_p, (f(5, 2, 3), f(5, 3, 4)), _dot((2,), (1,), (0,), (0,)), "bmm"),
        Case(dot_general_p, (f(3, 2), f(4, 3)), _dot((0,), (1,)), "transposed"),
        Case(
            conv_general_dilated_p,
            (f(2, 4, 5, 4), f(6, 2, 2, 3)),
            {
                "window_strides": (2, 1),
                "padding": ((1, 0), (0, 1)),
                "lhs_dilation": (1, 2),
                "rhs_dilation": (2, 1),
                "dimension_numbers": ConvDimensionNumbers(*[(0, 1, 2, 3)] * 3),
                "feature_group_count": 2,
                "batch_group_count": 1,
                "precision": None,
                "preferred_element_type": None,
            },
            "grouped conv",
        ),
    ]


def _gather(offset, collapsed, index_map, sizes, obd=(), ibd=(), mode="clip") -> dict[str, Any]:
    return {
        "dimension_numbers": GatherDimensionNumbers(offset, collapsed, index_map, obd, ibd),
        "slice_sizes": sizes,
        "mode": mode,
        "fill_value": None,
    }


def _scatter(window, inserted, index_map, obd=(), ibd=(), mode="clip") -> dict[str, Any]:
    return {
        "dimension_numbers": ScatterDimensionNumbers(window, inserted, index_map, obd, ibd),
        "indices_are_sorted": False,
        "unique_indices": False,
        "mode": mode,
    }


def _unique_rows(shape: tuple[int, ...]) -> np.ndarray:
    """Distinct row indices per example (a scatter with duplicates has no defined result)."""
    perms = np.argsort(RNG.random((*shape[:-2], 5)), axis=-1)
    return perms[..., : shape[-2], None]


def _indexing_cases() -> list[Case]:
    rows = i(4, 1, lo=0, hi=5)
    cases = [
        Case(gather_p, (f(5, 3), rows), _gather((1,), (0,), (0,), (1, 3)), "take-rows"),
        Case(
            gather_p,
            (f(4, 5), i(3, 2, lo=0, hi=4)),
            _gather((), (0, 1), (0, 1), (1, 1)),
            "points",
        ),
        Case(
            gather_p,
            (f(5, 6), i(2, lo=-1, hi=6)),
            _gather((0, 1), (), (0, 1), (2, 3)),
            "window",
        ),
        Case(
            gather_p,
            (f(5, 3), i(4, 1, lo=-2, hi=7)),
            _gather((1,), (0,), (0,), (1, 3), mode="fill"),
            "fill",
        ),
        Case(
            gather_p,
            (f(3, 4), i(3, 1, lo=0, hi=4)),
            _gather((), (1,), (1,), (1, 1), (0,), (0,)),
            "batching-dims",
        ),
        Case(
            gather_p,
            (f(5, 3), i(2, 4, 1, lo=0, hi=5)),
            _gather((2,), (0,), (0,), (1, 3)),
            "2d-indices",
        ),
    ]
    for prim in (
        scatter_p,
        scatter_add_p,
        scatter_mul_p,
        scatter_min_p,
        scatter_max_p,
    ):
        unique_rows = Operand((3, 1), _unique_rows)
        idx = unique_rows if prim is scatter_p else rows
        n = 3 if prim is scatter_p else 4
        cases += [
            Case(prim, (f(5, 3), idx, f(n, 3)), _scatter((1,), (0,), (0,)), "rows"),
            Case(
                prim,
                (f(5, 3), i(n, 1, lo=-2, hi=7) if prim is not scatter_p else idx, f(n, 3)),
                _scatter((1,), (0,), (0,), mode="fill"),
                "fill",
            ),
        ]
    cases.append(
        Case(
            scatter_add_p,
            (f(3, 4), i(3, 2, 1, lo=0, hi=4), f(3, 2)),
            _scatter((), (1,), (1,), (0,), (0,)),
            "batching-dims",
        )
    )
    return cases


def _complex_fft_cases() -> list[Case]:
    def c(*shape: int) -> Operand:
        return Operand(shape, lambda sh: RNG.normal(size=sh) + 1j * RNG.normal(size=sh))

    fft = FftType
    return [
        Case(real_p, (c(3, 4),), {}),
        Case(imag_p, (c(3, 4),), {}),
        Case(conj_p, (c(3, 4),), {"input_dtype": np.dtype(np.complex128)}),
        Case(complex_p, (f(3, 4), f(4)), {}),
        Case(fft_p, (c(3, 4),), {"fft_type": fft.FFT, "fft_lengths": (3, 4)}),
        Case(fft_p, (f(3, 6),), {"fft_type": fft.RFFT, "fft_lengths": (6,)}),
        Case(fft_p, (c(3, 4),), {"fft_type": fft.IRFFT, "fft_lengths": (6,)}),
    ]


def _linalg_cases() -> list[Case]:
    def spd(n: int) -> Operand:
        """Symmetric positive definite (well-conditioned) matrices, for cholesky and eigh."""

        def draw(shape: tuple[int, ...]) -> np.ndarray:
            a = RNG.uniform(-1.0, 1.0, shape)
            return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)

        return Operand((n, n), draw)

    def lower_tri(n: int) -> Operand:
        return Operand((n, n), lambda sh: np.tril(RNG.uniform(-1.0, 1.0, sh)) + 3 * np.eye(n))

    solve = {"lower": True, "transpose_a": False, "conjugate_a": False, "unit_diagonal": False}
    return [
        Case(cholesky_p, (spd(3),), {}),
        Case(eigh_p, (spd(3),), {"lower": True, "sort_eigenvalues": True}),
        Case(  # eigenvalues only: eigenvectors are defined up to a phase
            eig_p,
            (f(3, 3),),
            {
                "compute_left_eigenvectors": False,
                "compute_right_eigenvectors": False,
                "enable_eigvec_derivs": False,
            },
        ),
        Case(lu_p, (f(3, 3),), {}),
        Case(qr_p, (f(4, 3),), {"full_matrices": False}),
        Case(svd_p, (f(4, 3),), {"full_matrices": False, "compute_uv": True}),
        Case(triangular_solve_p, (lower_tri(3), f(3, 2)), {"left_side": True, **solve}),
        Case(triangular_solve_p, (lower_tri(3), f(2, 3)), {"left_side": False, **solve}),
        Case(  # the Schur form of a symmetric matrix: T diagonal, Z up to signs (not asked)
            schur_p,
            (spd(3),),
            {"compute_schur_vectors": False, "sort_eig_vals": False, "select_callable": None},
        ),
        Case(
            tridiagonal_solve_p,
            (f(4), f(4, lo=3.0, hi=5.0), f(4), f(4, 2)),
            {"perturb_singular": False},
        ),
        Case(hessenberg_p, (f(4, 4),), {}),
        Case(householder_product_p, (f(4, 3), f(2)), {}),
        Case(geqrf_p, (f(4, 3),), {}),
        Case(geqp3_p, (f(4, 3), i(3, lo=0, hi=1, dtype=np.int32)), {}),
        Case(tridiagonal_p, (spd(3),), {"lower": True}),
    ]


def _windowed_cases() -> list[Case]:
    window = {
        "window_dimensions": (2, 2),
        "window_strides": (1, 2),
        "padding": ((1, 0), (0, 1)),
        "base_dilation": (1, 2),
        "window_dilation": (2, 1),
    }
    prims_ = (reduce_window_sum_p, reduce_window_max_p, reduce_window_min_p)
    return [Case(prim, (f(4, 3),), window) for prim in prims_]


def _callback_cases() -> list[Case]:
    from mj_core import ShapedArray
    from mj_core.prims.callback import HostCallback

    seen: list[Any] = []
    log = HostCallback(lambda x: seen.append(x), "debug.callback")
    sin = HostCallback(lambda x: (np.sin(x),), "pure_callback")
    out = (ShapedArray((4, 3), np.dtype(np.float64)),)
    return [Case(debug_callback_p, (f(4, 3),), {"callback": log})] + [
        Case(
            pure_callback_p,
            (f(4, 3),),
            {"callback": sin, "result_avals": out, "vmap_method": method},
            method,
        )
        for method in ("sequential", "expand_dims", "broadcast_all")
    ]


CASES = (
    _callback_cases()
    + _windowed_cases()
    + _complex_fft_cases()
    + _linalg_cases()
    + _elementwise_cases()
    + _structural_cases()
    + _reduction_cases()
    + _contraction_cases()
    + _indexing_cases()
)


def _case_id(case: Case) -> str:
    shapes = "x".join(str(list(op.shape)).replace(" ", "") for op in case.operands)
    return f"{case.prim.name}-{case.label or shapes}"


def _apply(case: Case) -> Callable[..., Any]:
    def fun(*ops: Any) -> Any:
        outs = bind(case.prim, *ops, **case.params)
        return tuple(outs) if case.prim.multiple_results else outs[0]

    return fun


def _axis_configs(case: Case) -> list[tuple[Any, ...]]:
    """in_axes tuples: each operand at 0, 1 (if it has a per-example axis) and -1, with the
    others at 0 or None."""
    n = len(case.operands)
    configs = []
    for k, op in enumerate(case.operands):
        for axis in (0, 1, -1):
            if axis == 1 and not op.shape:
                continue
            for rest in (0, None):
                configs.append(tuple(axis if j == k else rest for j in range(n)))
    return list(dict.fromkeys(configs))


def _batched(op: Operand, axis: int | None, size: int) -> np.ndarray:
    if axis is None:
        return op.draw(op.shape)
    full = np.moveaxis(op.draw((size, *op.shape)), 0, axis)
    return np.ascontiguousarray(full)


def _stacked_reference(fun: Callable[..., Any], args, in_axes, size: int) -> Any:
    results = []
    for k in range(size):
        ex = [
            a if ax is None else np.take(a, k, axis=ax) for a, ax in zip(args, in_axes, strict=True)
        ]
        results.append(fun(*ex))
    if isinstance(results[0], tuple):
        return tuple(np.stack([r[j] for r in results]) for j in range(len(results[0])))
    return np.stack(results)


def _assert_same(out: Any, ref: Any) -> None:
    if isinstance(ref, tuple):
        assert isinstance(out, (tuple, list))
        assert len(out) == len(ref)
        for o, r in zip(out, ref, strict=True):
            _assert_same(o, r)
        return
    out = np.asarray(out)
    assert out.shape == ref.shape
    assert out.dtype == ref.dtype
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=0, equal_nan=True)


@pytest.mark.parametrize("size", [1, 3])
@pytest.mark.parametrize("case", CASES, ids=_case_id)
def test_vmap_equals_stacked_loop(case: Case, size: int) -> None:
    fun = _apply(case)
    for in_axes in _axis_configs(case):
        if all(ax is None for ax in in_axes):
            continue
        args = [_batched(op, ax, size) for op, ax in zip(case.operands, in_axes, strict=True)]
        ref = _stacked_reference(fun, args, in_axes, size)
        out = vmap(fun, in_axes=in_axes)(*args)
        _assert_same(out, ref)


def _catalogue() -> list[Primitive]:
    return [p for family in FAMILIES for p in family_primitives(family)]


def test_every_core_primitive_has_a_rule_and_a_case() -> None:
    covered = {case.prim for case in CASES}
    for prim in _catalogue():
        if prim is iota_p:
            continue  # no operands: it can never see a batched value
        if family_of(prim) == "tokens":
            assert prim in vmap_rules, prim
            continue  # tokens are never batched (test_batch_tokens.py)
        assert prim in vmap_rules, prim
        if prim in collective_prims:
            continue  # cases need a named axis: test_batch_parallel.py has them
        assert prim in covered, prim


def test_iota_inside_vmap_is_shared_by_every_example() -> None:
    def fun(x):
        return x + bind(iota_p, dtype=np.dtype(np.float64), shape=(3,), dimension=0)[0]

    out = vmap(fun)(np.arange(2.0)[:, None] * np.ones((2, 3)))
    np.testing.assert_array_equal(out, [[0, 1, 2], [1, 2, 3]])

"""``dot_general``: XLA's general tensor contraction. Output dimensions are the batch
dimensions, then the lhs free dimensions, then the rhs free dimensions.

The lax wrappers ``dot_general`` (dimension numbers canonicalised, cached) and ``dot`` follow
the rules; ``__all__`` is the family's primitives and lax API."""

from __future__ import annotations

import enum
import functools
import math
from collections.abc import Sequence
from typing import Any, NamedTuple, TypeAlias

import ml_dtypes
import numpy as np

from mj_core._avals import ShapedArray
from mj_core._config import DOT_ALGORITHM_PRESETS, MATMUL_PRECISIONS, config
from mj_core._primitive import Primitive, abstract_eval_rules, impl_rules
from mj_core._shapes import _where, aval_error, canonicalize_axes, jax_worded_error, shape_of
from mj_core._typing import Array, ArrayLike, DTypeLike
from mj_core.dtypes import all_weak, canonical_dtype, check_user_dtype, dtype_of, float_info
from mj_core.errors import ShapeDtypeError
from mj_core.prims._operands import bind1, check_axes, check_operands
from mj_core.prims.conversions import convert_element_type_p
from mj_core.prims.elementwise import category_kind

__all__ = [
    "DotAlgorithm",
    "DotAlgorithmPreset",
    "DotDimensionNumbers",
    "Precision",
    "PrecisionLike",
    "dot",
    "dot_general",
    "dot_general_p",
]


# --- precision: how much of the operands' precision a contraction may trade for speed --------
# dot_general and the convolutions canonicalize their ``precision`` argument to None or one
# Precision per operand before binding, so the parameter is hashable and the lowering emits
# it as StableHLO's precision_config. NumPy and XLA's CPU backend always compute at full
# precision, so on CPU the values do not change.


class Precision(enum.Enum):
    """``DEFAULT`` (fastest: one bfloat16 pass on TPU), ``HIGH`` (three passes, about
    float32's mantissa as tensorfloat32) and ``HIGHEST`` (full float32)."""

    DEFAULT = 0
    HIGH = 1
    HIGHEST = 2

    @classmethod
    def _missing_(cls, value: object) -> Precision | None:
        if isinstance(value, str):
            return _ALIASES.get(value.lower())
        return None

    def __str__(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return f"Precision.{self.name}"


_ALIASES = {
    "default": Precision.DEFAULT,
    "fastest": Precision.DEFAULT,
    "bfloat16": Precision.DEFAULT,
    "high": Precision.HIGH,
    "bfloat16_3x": Precision.HIGH,
    "tensorfloat32": Precision.HIGH,
    "highest": Precision.HIGHEST,
    "float32": Precision.HIGHEST,
}


# --- dot algorithms: the operand and accumulation types a contraction computes in -----------
_BF16 = np.dtype(ml_dtypes.bfloat16)
_F16, _F32, _F64 = np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64)
_FLOAT8 = tuple(
    np.dtype(getattr(ml_dtypes, name))
    for name in (
        "float8_e4m3b11fnuz", "float8_e4m3fn", "float8_e4m3fnuz", "float8_e5m2",
        "float8_e5m2fnuz", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu",
    )
    if hasattr(ml_dtypes, name)
)  # fmt: skip


class DotAlgorithm(NamedTuple):
    """Specify the algorithm used for computing dot products (``jax.lax.DotAlgorithm``): the
    types the operands are rounded to, the accumulation type, and how many components and
    operations emulate a higher precision. Passed as ``precision=`` to ``dot_general``."""

    lhs_precision_type: Any
    rhs_precision_type: Any
    accumulation_type: Any
    lhs_component_count: int = 1
    rhs_component_count: int = 1
    num_primitive_operations: int = 1
    allow_imprecise_accumulation: bool = False


class DotAlgorithmPreset(enum.Enum):
    """An enum of known algorithms for computing dot products (``jax.lax.DotAlgorithmPreset``);
    the names are ``LHS_RHS_ACCUM`` (``_X3``: three operations emulate a higher precision).
    ``DEFAULT`` lets the backend choose by the operand and output types."""

    DEFAULT = enum.auto()
    ANY_F8_ANY_F8_F32 = enum.auto()
    ANY_F8_ANY_F8_F32_FAST_ACCUM = enum.auto()
    ANY_F8_ANY_F8_ANY = enum.auto()
    ANY_F8_ANY_F8_ANY_FAST_ACCUM = enum.auto()
    F16_F16_F16 = enum.auto()
    F16_F16_F32 = enum.auto()
    BF16_BF16_BF16 = enum.auto()
    BF16_BF16_F32 = enum.auto()
    BF16_BF16_F32_X3 = enum.auto()
    BF16_BF16_F32_X6 = enum.auto()
    BF16_BF16_F32_X9 = enum.auto()
    TF32_TF32_F32 = enum.auto()
    TF32_TF32_F32_X3 = enum.auto()
    F32_F32_F32 = enum.auto()
    F64_F64_F64 = enum.auto()

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}.{self.name}"

    def __str__(self) -> str:
        return self.name

    @property
    def supported_lhs_types(self) -> tuple[np.dtype[Any], ...] | None:
        """The operand types the algorithm takes as they are (another is cast to the first);
        ``None``: any."""
        name = self.name
        if name == "DEFAULT" or name.startswith("ANY_F8"):
            return None
        if name.startswith("F16"):
            return (_F16,)
        if name in ("BF16_BF16_BF16", "BF16_BF16_F32"):
            return (_BF16, _F32)
        if name == "F64_F64_F64":
            return (_F64,)
        return (_F32,)

    @property
    def supported_rhs_types(self) -> tuple[np.dtype[Any], ...] | None:
        return self.supported_lhs_types

    @property
    def accumulation_type(self) -> np.dtype[Any] | None:
        """The type the products are accumulated in (``None``: the output type)."""
        name = self.name
        if name in ("DEFAULT", "ANY_F8_ANY_F8_ANY", "ANY_F8_ANY_F8_ANY_FAST_ACCUM"):
            return None
        narrow: dict[str, np.dtype[Any]] = {"F16_F16_F16": _F16, "BF16_BF16_BF16": _BF16}
        narrow["F64_F64_F64"] = _F64
        return narrow.get(name, _F32)

    def supported_output_types(
        self, lhs_dtype: Any, rhs_dtype: Any
    ) -> tuple[np.dtype[Any], ...] | None:
        """The output (accumulator storage) types the algorithm can produce."""
        if self.name in ("ANY_F8_ANY_F8_F32", "ANY_F8_ANY_F8_F32_FAST_ACCUM"):
            return (_F32, _F16, _BF16, *_FLOAT8)
        both = np.promote_types(np.dtype(lhs_dtype), np.dtype(rhs_dtype))
        if self is DotAlgorithmPreset.F16_F16_F32:
            return (_F32, _F16) if both == _F16 else (_F32,)
        if self is DotAlgorithmPreset.BF16_BF16_F32:
            return (_F32, _BF16) if both == _BF16 else (_F32,)
        acc = self.accumulation_type
        return None if acc is None else (acc,)


#: The presets XLA's CPU backend computes (it silently ignores any other algorithm, so JAX
#: refuses them for the CPU, and so does mj's eager evaluation, which is the CPU's).
CPU_ALGORITHMS = frozenset(
    DotAlgorithmPreset[name]
    for name in (
        "DEFAULT", "F16_F16_F16", "F32_F32_F32", "F64_F64_F64", "BF16_BF16_F32",
        "BF16_BF16_F32_X3", "BF16_BF16_F32_X6",
    )
)  # fmt: skip


def check_cpu_algorithm(algorithm: DotAlgorithm | DotAlgorithmPreset) -> None:
    """JAX's error for a dot algorithm the CPU does not compute."""
    if algorithm not in CPU_ALGORITHMS:
        raise ValueError(f"The precision '{algorithm}' is not supported by dot_general on CPU")


assert tuple(DotAlgorithmPreset.__members__) == DOT_ALGORITHM_PRESETS  # config's copy


def algorithm_compute_types(
    algorithm: DotAlgorithm | DotAlgorithmPreset,
    lhs_dtype: np.dtype[Any],
    rhs_dtype: np.dtype[Any],
    out_dtype: np.dtype[Any],
) -> tuple[np.dtype[Any], np.dtype[Any], np.dtype[Any]]:
    """The lhs, rhs and accumulation types ``algorithm`` computes a contraction of these
    operand and output types in (JAX's ``get_algorithm_compute_types``)."""
    if isinstance(algorithm, DotAlgorithm):
        return (
            np.dtype(algorithm.lhs_precision_type),
            np.dtype(algorithm.rhs_precision_type),
            np.dtype(algorithm.accumulation_type),
        )

    def pick(dtype: np.dtype[Any], supported: tuple[np.dtype[Any], ...] | None) -> np.dtype[Any]:
        return dtype if supported is None or dtype in supported else supported[0]

    lhs = pick(lhs_dtype, algorithm.supported_lhs_types)
    rhs = pick(rhs_dtype, algorithm.supported_rhs_types)
    return lhs, rhs, pick(out_dtype, algorithm.supported_output_types(lhs, rhs))


#: A ``precision=`` argument (``jax.lax.PrecisionLike``): ``None``, a :class:`Precision` or
#: one of its names, or a pair of these (one per operand), or a dot algorithm
#: (:class:`DotAlgorithm`, a :class:`DotAlgorithmPreset` or its name).
PrecisionLike: TypeAlias = (
    str
    | Precision
    | tuple[str | Precision | None, str | Precision | None]
    | list[str | Precision | None]
    | DotAlgorithm
    | DotAlgorithmPreset
    | None
)
#: A canonical ``precision`` parameter.
CanonicalPrecision: TypeAlias = (
    tuple[Precision, Precision] | DotAlgorithm | DotAlgorithmPreset | None
)


def _one(p: object, precision: object) -> Precision:
    try:
        return p if isinstance(p, Precision) else Precision(p)
    except ValueError:
        raise ValueError(
            "Precision argument must be one of:\n- None,\n"
            f"- a string in {sorted(_ALIASES)},\n- a lax.Precision value,\n"
            "- a tuple of two lax.Precision values or strings,\n"
            "- a lax.DotAlgorithmPreset or the name of one of these presets, or\n"
            f"- a lax.DotAlgorithm value;\nbut got {precision}."
        ) from None


def canonicalize_precision(precision: PrecisionLike) -> CanonicalPrecision:
    """``None``, the precision of each operand as a pair of :class:`Precision`, or a dot
    algorithm. ``None`` is ``config.default_matmul_precision`` read now, as JAX reads it
    when it stages the operation (a jaxpr traced under ``default_matmul_precision("float32")``
    holds ``Precision.HIGHEST``): a precision name (``"bfloat16"``, ``"tensorfloat32"``,
    ``"highest"``, ...) is its pair, any other a :class:`DotAlgorithmPreset` name."""
    if precision is None:
        default = config.default_matmul_precision
        if default is None:
            return None
        if default.lower() in MATMUL_PRECISIONS:  # (first: "default" also names a preset)
            p = _one(default.lower(), default)
            return p, p
        return DotAlgorithmPreset[default.upper()]
    if isinstance(precision, DotAlgorithm | DotAlgorithmPreset):
        return precision
    if isinstance(precision, str) and precision in DotAlgorithmPreset.__members__:
        return DotAlgorithmPreset[precision]
    if isinstance(precision, str | Precision):
        p = _one(precision, precision)
        return p, p
    if isinstance(precision, tuple | list) and len(precision) == 2:
        return _one(precision[0], precision), _one(precision[1], precision)
    return (_one(precision, precision),) * 2  # raises the message above


#: ``((lhs_contracting, rhs_contracting), (lhs_batch, rhs_batch))``
DotDimensionNumbers = tuple[
    tuple[Sequence[int], Sequence[int]], tuple[Sequence[int], Sequence[int]]
]

dot_general_p = Primitive("dot_general")

#: the float8 types XLA multiplies with each other without converting them (JAX's list)
_FP8 = frozenset(
    np.dtype(getattr(ml_dtypes, name))
    for name in (
        "float8_e4m3fn", "float8_e5m2", "float8_e5m2fnuz", "float8_e4m3fnuz", "float8_e3m4",
        "float8_e4m3", "float8_e8m0fnu",
    )
    if hasattr(ml_dtypes, name)
)  # fmt: skip


def _bit_width(dtype: np.dtype[Any]) -> int:
    if dtype.kind == "b":
        return 1
    if category_kind(dtype) in "fc":
        return int(float_info(dtype).bits)
    iinfo: Any = ml_dtypes.iinfo  # (untyped)
    return int(iinfo(dtype).bits)


def _type_properties(dtype: np.dtype[Any]) -> tuple[bool, int, int, int, bool]:
    """XLA's order of element types (``primitive_util::HigherPrecisionType``, as JAX's
    ``_dot_general_dtype_rule`` reads it): complex first, then exponent range, mantissa, bit
    width, signed before unsigned."""
    kind = category_kind(dtype)
    real = np.dtype(np.float32 if dtype == np.complex64 else np.float64) if kind == "c" else dtype
    floating = kind in "fc"
    info = float_info(real) if floating else None
    return (
        kind == "c",
        int(info.maxexp) if info is not None else -1,
        int(info.nmant) if info is not None else -1,
        _bit_width(real),
        kind != "u",
    )


def dot_result_dtype(
    lhs_dtype: np.dtype[Any],
    rhs_dtype: np.dtype[Any],
    preferred_element_type: np.dtype[Any] | None,
    *,
    has_algorithm: bool = False,
    name: str = "lax.dot_general",
) -> np.dtype[Any]:
    """JAX's (XLA's) result dtype of a contraction of ``lhs_dtype`` by ``rhs_dtype``: the
    operand type higher in XLA's order (two different types of one rank are an error), or
    ``preferred_element_type``, which must not narrow a non-float result (unless a dot
    algorithm is given)."""
    lp, rp = _type_properties(lhs_dtype), _type_properties(rhs_dtype)
    if lp > rp:
        result = lhs_dtype
    elif rp > lp:
        result = rhs_dtype
    elif lhs_dtype != rhs_dtype:
        raise TypeError(f"{name} argument type error: {lhs_dtype}, {rhs_dtype}")
    else:
        result = lhs_dtype
    if preferred_element_type is None or preferred_element_type == result:
        return result
    if (
        not has_algorithm
        and category_kind(result) != "f"
        and _bit_width(preferred_element_type) < _bit_width(result)
    ):
        raise TypeError(
            "`preferred_element_type` must not be narrower than the original type, got "
            f"preferred_element_type of {preferred_element_type} for result type of {result}."
        )
    return preferred_element_type


def dot_operand_dtypes(
    lhs_dtype: np.dtype[Any], rhs_dtype: np.dtype[Any], out_dtype: np.dtype[Any]
) -> tuple[np.dtype[Any], np.dtype[Any]]:
    """The operand types JAX's CPU/GPU lowering hands XLA (no dot algorithm): operands of
    two different types are converted to the output type first, unless both are float8
    types (XLA's mixed fp8 matmul)."""
    if lhs_dtype != rhs_dtype and not (lhs_dtype in _FP8 and rhs_dtype in _FP8):
        return out_dtype, out_dtype
    return lhs_dtype, rhs_dtype


@abstract_eval_rules.register(dot_general_p)
def _dot_general_avals(
    lhs: ShapedArray,
    rhs: ShapedArray,
    *,
    dimension_numbers: DotDimensionNumbers,
    precision: CanonicalPrecision = None,
    preferred_element_type: np.dtype[Any] | None = None,
) -> list[ShapedArray]:
    avals = (lhs, rhs)
    (lc, rc), (lb, rb) = dimension_numbers
    if len(lc) != len(rc) or len(lb) != len(rb):
        raise aval_error(
            "dot_general",
            f"dimension_numbers {dimension_numbers} must pair lhs and rhs dimensions",
            avals,
        )
    lhs_used = check_axes("dot_general", (*lc, *lb), lhs.ndim, avals)
    rhs_used = check_axes("dot_general", (*rc, *rb), rhs.ndim, avals)
    # JAX's order and wording (lax._dot_general_shape_rule)
    for what, ld, rd in (("lhs batch dimensions and rhs batch", lb, rb), ("contracting", lc, rc)):
        lshape, rshape = tuple(lhs.shape[i] for i in ld), tuple(rhs.shape[j] for j in rd)
        if lshape != rshape:
            raise jax_worded_error(
                f"dot_general requires {what} dimensions to have the same shape, got {lshape} "
                f"and {rshape}.",
                avals,
            )
    pet = None if preferred_element_type is None else np.dtype(preferred_element_type)
    try:
        dtype = dot_result_dtype(
            lhs.dtype,
            rhs.dtype,
            pet,
            has_algorithm=isinstance(precision, DotAlgorithm | DotAlgorithmPreset),
        )
    except TypeError as err:  # JAX's wording first, then the operands and the user's line
        shown = ", ".join(a.str_short() for a in avals)
        raise ShapeDtypeError(f"{err} (operands: {shown}){_where()}") from None
    weak = all_weak((lhs.weak_type, rhs.weak_type))
    shape = (
        *(lhs.shape[i] for i in lb),
        *(s for i, s in enumerate(lhs.shape) if i not in lhs_used),
        *(s for i, s in enumerate(rhs.shape) if i not in rhs_used),
    )
    return [ShapedArray(shape, dtype, weak)]


@functools.lru_cache(maxsize=512)
def _matmul_plan(
    dimension_numbers: DotDimensionNumbers, x_shape: tuple[int, ...], y_shape: tuple[int, ...]
) -> tuple[tuple[int, ...] | None, tuple[int, ...] | None, tuple[int, ...], tuple[int, ...], bool]:
    """How ``dot_general`` of operands of these shapes maps onto ``matmul``: the permutations
    putting each operand in ``(batch, free, contracting)`` / ``(batch, contracting, free)``
    order (``None`` when it already is), the ``(*batch, m, k)`` and ``(*batch, k, n)`` shapes
    to reshape them to, and whether ``k == 1``. Cached: a loop repeats a few contractions."""
    (lc, rc), (lb, rb) = dimension_numbers
    x_ndim, y_ndim = len(x_shape), len(y_shape)
    lf = tuple(i for i in range(x_ndim) if i not in lc and i not in lb)
    rf = tuple(i for i in range(y_ndim) if i not in rc and i not in rb)
    x_perm = (*lb, *lf, *lc)
    y_perm = (*rb, *rc, *rf)
    batch = tuple(x_shape[i] for i in lb)
    k = math.prod(x_shape[i] for i in lc)
    m = math.prod(x_shape[i] for i in lf)
    n = math.prod(y_shape[i] for i in rf)
    return (
        None if x_perm == tuple(range(x_ndim)) else x_perm,
        None if y_perm == tuple(range(y_ndim)) else y_perm,
        (*batch, m, k),
        (*batch, k, n),
        k == 1,
    )


@impl_rules.register(dot_general_p)
def _dot_general_impl(
    lhs: object,
    rhs: object,
    *,
    dimension_numbers: DotDimensionNumbers,
    precision: CanonicalPrecision = None,
    preferred_element_type: np.dtype[Any] | None = None,
) -> list[Any]:
    params = {
        "dimension_numbers": dimension_numbers,
        "precision": precision,
        "preferred_element_type": preferred_element_type,
    }
    (out,) = check_operands(dot_general_p, (lhs, rhs), params)
    if isinstance(precision, DotAlgorithm | DotAlgorithmPreset):  # round to the algorithm's
        check_cpu_algorithm(precision)
        lt, rt, acc = algorithm_compute_types(
            precision, np.asarray(lhs).dtype, np.asarray(rhs).dtype, out.dtype
        )  # operand types, accumulate in its type
        x = np.asarray(np.asarray(lhs, lt), acc)
        y = np.asarray(np.asarray(rhs, rt), acc)
    else:
        ld, rd = canonical_dtype(dtype_of(lhs)), canonical_dtype(dtype_of(rhs))
        lt, rt = dot_operand_dtypes(ld, rd, out.dtype)
        # mixed float8 types: XLA computes in float32; else in the wider of the operand and
        # the output type
        acc = _F32 if lt != rt else max(lt, out.dtype, key=_type_properties)
        x = _convert(_convert(lhs, lt), acc)
        y = _convert(_convert(rhs, rt), acc)
    try:
        x_perm, y_perm, x_to, y_to, outer = _matmul_plan(dimension_numbers, x.shape, y.shape)
    except TypeError:  # dimension numbers given as lists (unhashable): plan uncached
        plan = _matmul_plan.__wrapped__(dimension_numbers, x.shape, y.shape)
        x_perm, y_perm, x_to, y_to, outer = plan
    # ndarray methods, not np.transpose/np.reshape: those wrappers cost more than the small
    # products of eager per-example work
    x3 = (x if x_perm is None else x.transpose(x_perm)).reshape(x_to)
    y3 = (y if y_perm is None else y.transpose(y_perm)).reshape(y_to)
    # outer products (per-example weight gradients under vmap): a broadcast multiply avoids
    # matmul's dispatch of one 1-deep product per batch element
    product = np.multiply(x3, y3) if outer else np.matmul(x3, y3)
    # bfloat16's matmul accumulates (and answers) in float32
    return [_convert(product, out.dtype).reshape(out.shape)]


def _convert(x: Any, dtype: np.dtype[Any]) -> np.ndarray[Any, Any]:
    """``x`` as an array of ``dtype``, converted as XLA converts (float to int saturating,
    complex to real dropping the imaginary part)."""
    arr = np.asarray(x)
    if arr.dtype == dtype:
        return arr
    out: np.ndarray[Any, Any] = impl_rules[convert_element_type_p](
        arr, new_dtype=dtype, weak_type=False
    )[0]
    return out


# --- lax wrappers ----------------------------------------------------------------------------
@functools.lru_cache(maxsize=512)
def _canonical_dot_dims(dimension_numbers: Any, lhs_nd: int, rhs_nd: int) -> Any:
    """``dimension_numbers`` with every axis a non-negative int (cached: eager loops and
    traces repeat the same few contractions; errors are raised, never cached)."""
    (lc, rc), (lb, rb) = dimension_numbers
    return (
        (
            canonicalize_axes("dot_general", lc, lhs_nd),
            canonicalize_axes("dot_general", rc, rhs_nd),
        ),
        (
            canonicalize_axes("dot_general", lb, lhs_nd),
            canonicalize_axes("dot_general", rb, rhs_nd),
        ),
    )


def dot_general(
    lhs: ArrayLike,
    rhs: ArrayLike,
    dimension_numbers: object,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """General contraction; ``dimension_numbers = ((lhs_contract, rhs_contract), (lhs_batch,
    rhs_batch))``. Output dims: batch, lhs free, rhs free."""
    lhs_nd, rhs_nd = len(shape_of(lhs)), len(shape_of(rhs))
    try:
        dn = _canonical_dot_dims(dimension_numbers, lhs_nd, rhs_nd)
    except TypeError:  # unhashable (lists): canonicalize without the cache
        dn = _canonical_dot_dims.__wrapped__(dimension_numbers, lhs_nd, rhs_nd)
    pet = check_user_dtype(preferred_element_type, "dot")
    return bind1(
        dot_general_p,
        lhs,
        rhs,
        dimension_numbers=dn,
        precision=canonicalize_precision(precision),
        preferred_element_type=pet,
    )


def dot(
    lhs: ArrayLike,
    rhs: ArrayLike,
    *,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """Vector/matrix product: contracts the last dim of ``lhs`` with the first of ``rhs``
    (ranks 1 or 2, like ``jax.lax.dot``, whose options are keyword-only)."""
    lhs_nd, rhs_nd = len(shape_of(lhs)), len(shape_of(rhs))
    if lhs_nd not in (1, 2) or rhs_nd not in (1, 2):
        raise TypeError(
            f"dot: operands must have rank 1 or 2, got shapes {shape_of(lhs)} and {shape_of(rhs)}"
        )
    dn = (((lhs_nd - 1,), (0,)), ((), ()))
    return dot_general(lhs, rhs, dn, precision, preferred_element_type)

"""The elementwise family: unary and n-ary operations with NumPy broadcasting.

Operands broadcast like NumPy and promote with :func:`mj_core.dtypes.result_type` (NEP 50,
weak Python scalars). Each primitive has an :class:`ElementwiseSpec` saying which dtype kinds
it accepts and how its output dtype follows from the promoted input dtype; its impl rule and
its typing rule (one memoising rule per primitive, :func:`_typing_rule`) both derive results
from that one spec through :func:`elementwise_out_aval`. The special family defines its
primitives with the same :func:`define_elementwise`.

Most impl rules only apply a NumPy ufunc: it is registered as the primitive's eager shortcut
(``impl_rules.register_ufunc``), which the one-line lax wrappers made by
:func:`mj_core._eager.wrappers.binds` call directly. ``__all__`` is the family's primitives and
lax API.
The module is over 600 lines because the family is 50 primitives, each with a lax wrapper of
its own (most of them a signature and a docstring); the special family's numerics, the only
bulky code, are in :mod:`mj_core.prims._special_math`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import ml_dtypes
import numpy as np

from mj_core._avals import ShapedArray
from mj_core._config import on_change, on_x64_change
from mj_core._eager_array import EagerArray
from mj_core._lattice import FLOAT0_REFUSAL, SIGNED_SUBBYTE, UNSIGNED_SUBBYTE, kind
from mj_core._primitive import Primitive, RuleTable, abstract_eval_rules, impl_rules
from mj_core._shapes import broadcast_shapes
from mj_core._trace import bind, binds
from mj_core._typing import Array, ArrayLike, DType
from mj_core.dtypes import all_weak, float_info, result_type
from mj_core.errors import MJError, ShapeDtypeError, user_line_suffix
from mj_core.prims._operands import bind1, check_operands, shaped_aval

__all__ = [
    "abs",
    "abs_p",
    "acos",
    "acos_p",
    "add",
    "add_p",
    "and_p",
    "asin",
    "asin_p",
    "atan",
    "atan2",
    "atan2_p",
    "atan_p",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "ceil",
    "ceil_p",
    "clamp",
    "clamp_p",
    "cos",
    "cos_p",
    "cosh",
    "cosh_p",
    "div",
    "div_p",
    "eq",
    "eq_p",
    "erf",
    "erf_p",
    "exp",
    "exp_p",
    "expm1",
    "expm1_p",
    "floor",
    "floor_p",
    "ge",
    "greater",
    "greater_equal",
    "greater_equal_p",
    "greater_p",
    "gt",
    "integer_pow",
    "integer_pow_p",
    "is_finite",
    "is_finite_p",
    "le",
    "less",
    "less_equal",
    "less_equal_p",
    "less_p",
    "log",
    "log1p",
    "log1p_p",
    "log_p",
    "logistic",
    "logistic_p",
    "lt",
    "max",
    "max_p",
    "min",
    "min_p",
    "mul",
    "mul_p",
    "ne",
    "ne_p",
    "neg",
    "neg_p",
    "nextafter",
    "nextafter_p",
    "not_p",
    "or_p",
    "pow",
    "pow_p",
    "rem",
    "rem_p",
    "round",
    "round_p",
    "rsqrt",
    "rsqrt_p",
    "select",
    "select_n",
    "select_n_p",
    "shift_left",
    "shift_left_p",
    "shift_right_arithmetic",
    "shift_right_arithmetic_p",
    "shift_right_logical",
    "shift_right_logical_p",
    "sign",
    "sign_p",
    "sin",
    "sin_p",
    "sinh",
    "sinh_p",
    "sqrt",
    "sqrt_p",
    "sub",
    "sub_p",
    "tan",
    "tan_p",
    "tanh",
    "tanh_p",
    "threefry2x32",
    "threefry2x32_p",
    "xor_p",
]


_TO_INEXACT = {
    np.dtype(k): np.dtype("float64" if k.endswith("64") else "float32")
    for k in ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")
}


def to_inexact_dtype(dtype: DType) -> DType:
    """The float dtype a float-valued operation computes a bool or integer input in: JAX's
    table (float32 up to 32-bit integers, float64 for 64-bit ones), not NumPy's (which picks
    float16 for int8 and float64 for int32); inexact dtypes are kept."""
    return _TO_INEXACT.get(dtype, dtype)


def _same(dtype: DType) -> DType:
    return dtype


def _boolean(dtype: DType) -> DType:
    return np.dtype(np.bool_)


class ElementwiseSpec(NamedTuple):
    """What an elementwise primitive accepts and returns.

    ``kinds``: the NumPy dtype kinds each operand accepts (``"biufc"`` = all; ``"iu"`` is JAX's
    ``integer`` category, ``"i"`` without ``"u"`` its ``signedinteger``): the one home of the
    primitive's accepted dtypes, which its typing rule checks (:func:`accepted_error`), eager
    evaluation too. ``operand_kinds``: per-operand kinds where they differ (``pow``'s float or
    complex base, numeric exponent). ``out_dtype``: maps the promoted input dtype to the output
    dtype. ``first_operand_is_selector``: the first operand (e.g. ``select_n``'s predicate) is
    excluded from promotion. The kinds are exactly JAX's primitive's: a float-valued primitive
    (``sin``) refuses integers and bools as ``jax.lax.sin`` does, and the NumPy-level functions
    (``mnp.sin``) convert those to JAX's float for them before they bind it, as ``jax.numpy``
    does (``promote_inexact``).
    """

    nin: int  # -1: variadic
    kinds: str
    out_dtype: Callable[[DType], DType]
    first_operand_is_selector: bool = False
    operand_kinds: tuple[str, ...] = ()

    def operand_kind(self, i: int) -> str:
        """The kinds operand ``i`` (counted after a selector) accepts: JAX's primitive's."""
        return self.operand_kinds[i] if self.operand_kinds else self.kinds

    def accepts(self, kind: str) -> bool:
        """Whether every operand accepts dtype kind ``kind``: the primitive computes on
        operands all of that kind."""
        n = len(self.operand_kinds) or 1
        return all(kind in self.operand_kind(i) for i in range(n))


#: The elementwise primitives (core and special families, and users' own): an optional hook
#: whose entries the elementwise typing (:func:`elementwise_out_aval`), impl and autodiff
#: helpers read; a primitive without one is no elementwise primitive.
elementwise_specs: RuleTable[ElementwiseSpec] = RuleTable(
    "elementwise_specs",
    "elementwise spec",
    "mj_core.extend",
    default="the primitive is not elementwise (its own typing rule; no broadcasting, "
    "promotion or tangent-function derivative)",
)


#: JAX's dtype categories, in the order its messages name them, by the kinds they hold.
_CATEGORIES = (
    ("integer", "iu"),
    ("floating", "f"),
    ("complexfloating", "c"),
    ("signedinteger", "i"),
    ("bool", "b"),
)

#: ml_dtypes' narrow integers, whose NumPy kind is "V".
_NARROW_INT_KINDS = {"int2": "i", "int4": "i", "uint2": "u", "uint4": "u"}


_iinfo: Any = ml_dtypes.iinfo  # (NumPy's iinfo does not know int4; ml_dtypes' is untyped)

#: ml_dtypes' narrow integers: the NumPy integer dtype computing their values, their width.
_NARROW_INTS: dict[np.dtype[Any], tuple[np.dtype[Any], int]] = {
    **{dt: (np.dtype(np.int8), int(_iinfo(dt).bits)) for dt in SIGNED_SUBBYTE},
    **{dt: (np.dtype(np.uint8), int(_iinfo(dt).bits)) for dt in UNSIGNED_SUBBYTE},
}


def category_kind(dtype: DType) -> str:
    """``dtype``'s kind as the accepted-dtype check reads it: NumPy's, with bfloat16 and the
    float8 types floats and the narrow integers integers."""
    return _NARROW_INT_KINDS.get(dtype.name) or kind(dtype)


def accepted_categories(kinds: str) -> tuple[str, ...]:
    """JAX's names of the dtype categories ``kinds`` accepts (``"fc"``: floating,
    complexfloating; ``"ifc"``: floating, complexfloating, signedinteger)."""
    names: list[str] = []
    covered = ""
    for name, held in _CATEGORIES:
        if all(k in kinds for k in held) and not all(k in covered for k in held):
            names.append(name)
            covered += held
    return tuple(names)


def accepted_error(name: str, dtype: DType, kinds: str, position: int | None) -> TypeError:
    """JAX's error for an operand of dtype ``dtype`` that primitive ``name`` does not accept
    (``kinds``: what it accepts; ``position``: the operand's, ``None`` for a unary one)."""
    if dtype == np.dtype([("float0", "V")]):
        return TypeError(f"Called {name} with a float0 array. {FLOAT0_REFUSAL}")
    shown = ", ".join(accepted_categories(kinds))
    if position is None:
        return TypeError(
            f"{name} does not accept dtype {dtype.name}. Accepted dtypes are subtypes of {shown}."
        )
    return TypeError(
        f"{name} does not accept dtype {dtype.name} at position {position}. Accepted dtypes at "
        f"position {position} are subtypes of {shown}."
    )


def check_accepted(prim: Primitive, operands: Sequence[ShapedArray]) -> tuple[DType, bool]:
    """The dtype elementwise ``prim`` computes ``operands`` in (:func:`_compute_dtype`), after
    checking each operand is of a dtype ``prim`` accepts (its spec's kinds), as JAX's typing
    rules do: a strong operand's own dtype, a weak one's as it is computed (a Python scalar
    takes the array's dtype)."""
    spec = elementwise_specs[prim]
    unary = len(operands) == 1
    for i, a in enumerate(operands):
        ok = spec.operand_kind(i)
        if not a.weak_type and category_kind(a.dtype) not in ok:
            raise accepted_error(prim.name, a.dtype, ok, None if unary else i)
    dtype, weak = _compute_dtype(prim, operands)
    for i, a in enumerate(operands):  # (a weak operand that does not fit was refused above)
        ok = spec.operand_kind(i)
        if a.weak_type and category_kind(dtype) not in ok:
            raise accepted_error(prim.name, dtype, ok, None if unary else i)
    return dtype, weak


def elementwise_out_aval(prim: Primitive, avals: Sequence[ShapedArray]) -> ShapedArray:
    """Output aval of elementwise ``prim`` on ``avals``: the single source of truth."""
    spec = elementwise_specs[prim]
    shape = broadcast_shapes(prim.name, *(a.shape for a in avals))
    operands = avals[1:] if spec.first_operand_is_selector else avals
    dtype, weak = check_accepted(prim, operands)
    if spec.first_operand_is_selector:
        which = avals[0].dtype
        if which.kind not in "biu":
            raise TypeError(f"{prim.name}: selector must be bool or integer, got {which.name}")
    out = spec.out_dtype(dtype)
    # JAX: the output is weak when every operand is (a weak int made float by a float-valued
    # function stays weak, ``exp(2)``; so does ``imag(0.5)``; a comparison is a weak bool),
    # but a weak bool made a number is promoted first, and promotion makes no weak bool
    # (``exp(isnan(0.5))`` is strong: jnp's promote_args_inexact)
    return ShapedArray(shape, out, weak and (out.kind == "b" or dtype.kind != "b"))


#: Kinds ordered as the lattice orders them: a weak operand fits a strong one of its rank or above.
_KIND_RANK = {"b": 0, "i": 1, "u": 1, "f": 2, "c": 3}


def lax_operand_dtype(name: str, operands: Sequence[ShapedArray]) -> tuple[DType, bool]:
    """The one dtype lax operation ``name`` computes ``operands`` in: lax never promotes.

    Strong operands must share their dtype (JAX's ``TypeError`` otherwise). A weak operand (a
    Python scalar, or a value computed from them only) takes the strong dtype when its kind
    fits into it (``f32_array * 2`` is float32, ``i32_array * 2.0`` an error); weak operands
    alone combine on the lattice."""
    strong = None
    for a in operands:
        if not a.weak_type:
            if strong is None:
                strong = a.dtype
            elif a.dtype != strong:
                _mismatch(name, operands)
    if strong is None:  # weak operands alone: the output is weak, a bool too (all_weak)
        dtype, _ = result_type(*((a.dtype, True) for a in operands))
        return dtype, all_weak(True for _ in operands)
    rank = _KIND_RANK.get(strong.kind, 2)  # bfloat16/float8: kind "V", floats
    for a in operands:
        if a.weak_type and _KIND_RANK.get(a.dtype.kind, 2) > rank:
            _mismatch(name, operands)
    return strong, False


def _compute_dtype(prim: Primitive, operands: Sequence[ShapedArray]) -> tuple[DType, bool]:
    """:func:`lax_operand_dtype`, but ``pow`` takes an integer exponent of any dtype (JAX's
    ``lax.pow``: a float or complex base, an integer or same-dtype exponent)."""
    if prim is pow_p and operands[1].dtype.kind in "iu" and kind(operands[0].dtype) in "fc":
        return operands[0].dtype, all_weak(a.weak_type for a in operands)
    return lax_operand_dtype(prim.name, operands)


def compute_dtype(prim: Primitive, avals: Sequence[ShapedArray]) -> DType:
    """The one dtype elementwise ``prim`` computes ``avals`` in (what a lowering converts its
    operands to): their common lax dtype (a float-valued function's typing rule accepts only
    inexact ones)."""
    spec = elementwise_specs[prim]
    dtype, _ = _compute_dtype(prim, avals[1:] if spec.first_operand_is_selector else avals)
    return dtype


def _mismatch(name: str, operands: Sequence[ShapedArray]) -> None:
    shown = ", ".join(a.dtype.name + (" (weak)" if a.weak_type else "") for a in operands)
    raise TypeError(
        f"lax.{name} requires arguments to have the same dtypes, got {shown}. (Tip: the "
        "mj.numpy function of the same operation does automatic type promotion on inputs.)"
    )


#: Distinct input-type combinations memoised per elementwise primitive before the memo resets.
_MEMO_LIMIT = 4096


def _typing_rule(prim: Primitive) -> Callable[..., list[ShapedArray]]:
    """``prim``'s typing rule: :func:`elementwise_out_aval`, memoised.

    Tracing applies the same few type combinations over and over, and the NEP 50 promotion
    behind ``elementwise_out_aval`` costs microseconds: the rule remembers its answers (the
    output type does not depend on params). Only plain ShapedArrays are remembered: a
    ConcreteArray hashes by identity and would pin its value."""
    memo: dict[tuple[ShapedArray, ...], ShapedArray] = {}
    on_x64_change(lambda _: memo.clear())  # the lattice differs between the modes
    on_change("numpy_dtype_promotion", lambda _: memo.clear())

    def rule(*avals: ShapedArray, **params: object) -> list[ShapedArray]:
        out = memo.get(avals)
        if out is None:
            out = elementwise_out_aval(prim, avals)
            if all(type(a) is ShapedArray for a in avals):
                if len(memo) >= _MEMO_LIMIT:
                    memo.clear()
                memo[avals] = out
        return [out]

    rule.__name__ = f"{prim.name}_abstract_eval"
    return rule


def _register_spec(prim: Primitive, spec: ElementwiseSpec) -> None:
    elementwise_specs[prim] = spec
    abstract_eval_rules[prim] = _typing_rule(prim)


def define_elementwise(
    name: str,
    nin: int,
    kinds: str,
    out_dtype: Callable[[DType], DType],
    impl: Callable[..., Any],
    *,
    first_operand_is_selector: bool = False,
    complex_impl: Callable[[Any], Any] | None = None,
    operand_kinds: tuple[str, ...] = (),
) -> Primitive:
    """A new elementwise primitive computed by the ufunc-like ``impl`` (``nin`` operands, -1 for
    variadic, returning the single output), or ``complex_impl`` for complex operands where
    given: its spec, typing rule, impl rule and eager shortcut."""
    prim = Primitive(name)
    spec = ElementwiseSpec(nin, kinds, out_dtype, first_operand_is_selector, operand_kinds)
    _register_spec(prim, spec)
    inexact = out_dtype is to_inexact_dtype
    keeps = out_dtype is _same
    impl_rules.register_ufunc(
        prim,
        nin,
        impl,
        _operands_rule(prim),
        inexact=inexact,
        keeps_dtype=keeps,
        kinds=kinds,
        complex_ufunc=complex_impl,
        accepts=_accepts_rule(prim, nin, impl, complex_impl) if nin in (1, 2) else None,
    )
    return prim


def _accepts_rule(
    prim: Primitive,
    nin: int,
    impl: Callable[..., Any],
    complex_impl: Callable[[Any], Any] | None,
) -> Callable[[DType], bool]:
    """Whether ``prim``'s typing rule accepts ``nin`` operands of one dtype, and ``impl``
    computes them in the dtype it says: the answer, which the eager shortcut and impl rule keep
    per dtype (:class:`mj_core._primitive.UfuncShortcut`) so that they refuse what the typing
    rule refuses without running it each call. Operands of a dtype it says no to take the impl
    rule's typed path, which refuses them with the typing rule's error, or computes them and
    casts the output to the typing rule's dtype: NumPy's ufuncs compute most operations on
    ml_dtypes' narrow integers (``int4``, ``uint2``, ...) in ``int8``, where JAX keeps the
    operands' dtype."""

    def accepts(dtype: DType) -> bool:
        category = category_kind(dtype)
        if category not in "biufc":
            return False
        aval = ShapedArray((), dtype)
        try:
            (out,) = abstract_eval_rules[prim](*[aval] * nin)
        except TypeError:
            return False
        if category != kind(dtype):  # an ml_dtypes type (kind "V"): the ufunc's own dtype?
            one = np.ones((1,), dtype)
            f = complex_impl if complex_impl is not None and category == "c" else impl
            try:
                with np.errstate(all="ignore"):
                    computed = np.asarray(f(*[one] * nin)).dtype
            except Exception:  # (the typed path computes it, or reports why not)
                return False
            return bool(computed == out.dtype)
        return True

    return accepts


def typing_failed(err: TypeError | ValueError) -> Exception:
    """A typing rule's error for concrete operands, as ``jit`` reports it (its message, the
    user's source line after it), made an :class:`~mj_core.errors.MJError` so that eager
    evaluation passes it on unchanged."""
    if isinstance(err, MJError):
        return err
    return ShapeDtypeError(f"{err}{user_line_suffix()}")


def _eager_typing(prim: Primitive, args: Sequence[Any], params: dict[str, Any]) -> None:
    """An impl rule's check of concrete ``args`` with ``prim``'s typing rule (memoised)."""
    try:
        check_operands(prim, args, params)
    except (TypeError, ValueError) as err:
        raise typing_failed(err) from None


def _operands_rule(prim: Primitive) -> Callable[[list[Any]], tuple[list[Any], DType]]:
    """Eager ``prim`` on operands of several dtypes checks them as its typing rule does (lax
    never promotes) and computes in that one dtype: weak Python scalars become arrays of it,
    so NumPy cannot promote them (``bfloat16 * 2.0`` is bfloat16, as under ``jit``).

    What the rule decides depends on the operands' types only, so it is kept per signature
    (:func:`_signature`): eager loops repeat a few, and building avals costs microseconds."""
    selector = elementwise_specs[prim].first_operand_is_selector
    plans: dict[tuple[Any, ...], tuple[DType, tuple[int, ...], DType]] = {}
    _PLANS.append(plans)

    def ready(args: list[Any]) -> tuple[list[Any], DType]:
        sig = _signature(args)
        plan = plans.get(sig) if sig is not None else None
        if plan is None:
            plan = _plan(args)
            if sig is not None:
                if len(plans) >= _PLANS_LIMIT:
                    plans.clear()
                plans[sig] = plan
        out_dtype, converted, dtype = plan
        for i in converted:
            args[i] = np.asarray(args[i], dtype)
        return args, out_dtype

    def _plan(args: list[Any]) -> tuple[DType, tuple[int, ...], DType]:
        avals = [shaped_aval(a) for a in args]  # (NumPy arrays: no ConcreteArray built)
        try:
            (out,) = abstract_eval_rules[prim](*avals)  # (as registered now: atan2's own)
        except (TypeError, ValueError) as err:
            raise typing_failed(err) from None
        operands = avals[1:] if selector else avals
        dtype, _ = _compute_dtype(prim, operands)
        first = 1 if selector else 0
        converted = tuple(i for i in range(first, len(args)) if avals[i].weak_type)
        return out.dtype, converted, dtype

    return ready


_PLANS: list[dict[tuple[Any, ...], Any]] = []  # every primitive's, cleared when x64 flips
_PLANS_LIMIT = 1024


def _clear_plans(_: object) -> None:
    for plans in _PLANS:
        plans.clear()


on_x64_change(_clear_plans)
on_change("numpy_dtype_promotion", _clear_plans)

_PYTHON_SCALARS = (bool, float, complex)  # a value of these types types as its type does


def _signature(args: list[Any]) -> tuple[Any, ...] | None:
    """What typing ``args`` depends on: each array's shape and dtype, a numeric NumPy scalar's
    or a Python scalar's type (an int's only within int32, where every int types alike);
    ``None`` for anything else (tracers, other arrays), which is typed every call."""
    sig: list[Any] = []
    for a in args:
        t = type(a)
        if t is np.ndarray or t is EagerArray:
            sig.append((a.shape, a.dtype))
        elif (
            t in _PYTHON_SCALARS
            or isinstance(a, np.number | np.bool_)
            or (t is int and -(2**31) <= a < 2**31)
        ):
            sig.append(t)
        else:
            return None
    return tuple(sig)


# --- unary: float-valued (float and complex operands, as JAX's; mnp converts integers first) --
ALL = "biufc"
NUM = "iufc"
REAL = "biuf"


def _logistic(x: Any) -> Any:
    x = np.asarray(x)
    if x.dtype.kind == "c":  # JAX's (and its lowering's) formula
        with np.errstate(all="ignore"):
            return (1 / (1 + np.exp(-x))).astype(x.dtype, copy=False)[()]
    e = np.exp(-np.abs(x))
    return np.where(np.greater_equal(x, 0), 1 / (1 + e), e / (1 + e)).astype(
        np.result_type(e), copy=False
    )[()]


_erf_object = np.frompyfunc(math.erf, 1, 1)


def _erf(x: Any) -> Any:
    dtype = to_inexact_dtype(np.result_type(x))
    if dtype.kind == "c":
        raise TypeError("erf is not defined for complex inputs")
    return np.asarray(_erf_object(x), dtype=dtype)[()]


def _sqrt(x: Any) -> Any:
    """XLA's complex square root reads an imaginary ``-0.0`` as ``+0.0`` (``sqrt(-1-0j)`` is
    ``1j``, NumPy's branch cut gives ``-1j``) and a NaN real part gives ``nan+nanj`` (NumPy:
    ``sqrt(nan+infj) = inf+infj``): adding ``0`` clears the zero's sign."""
    if np.result_type(x).kind != "c":
        return np.sqrt(x)
    x = np.asarray(x)
    return np.where(np.isnan(x.real), complex(np.nan, np.nan), np.sqrt(x + 0))[()]


def _complex_divide(x: ArrayLike, y: ArrayLike) -> Any:
    """Complex ``x / y`` as XLA's CPU kernel divides (Smith's algorithm, then its corner
    cases where both parts came out NaN: a zero, an infinite numerator or an infinite
    denominator), so that eager division rounds and signs as jit does (NumPy's kernel gives
    ``nan+nanj`` for ``1 / 0j`` and ``(inf+1j) / 2``, XLA ``inf+nanj``)."""
    x, y = np.asarray(x), np.asarray(y)
    dtype = np.result_type(x, y)
    one, inf = np.ones((), float_info(dtype).dtype), np.inf
    ar, ai, br, bi = x.real, x.imag, y.real, y.imag
    with np.errstate(all="ignore"):
        r_ratio = br / bi
        r_denom = bi + br * r_ratio
        i_ratio = bi / br
        i_denom = br + bi * i_ratio
        r_small = np.abs(br) < np.abs(bi)
        cr = np.where(r_small, (r_ratio * ar + ai) / r_denom, (i_ratio * ai + ar) / i_denom)
        ci = np.where(r_small, (r_ratio * ai - ar) / r_denom, (ai - i_ratio * ar) / i_denom)
        both_nan = np.isnan(cr) & np.isnan(ci)
        if np.any(both_nan):
            zero_den = (br == 0) & (bi == 0) & ~(np.isnan(ar) & np.isnan(ai))
            signed = np.copysign(inf, br)
            a_inf_r, a_inf_i = np.isinf(ar), np.isinf(ai)
            b_fin = np.isfinite(br) & np.isfinite(bi)
            inf_num = (a_inf_r | a_inf_i) & b_fin
            sr = np.copysign(np.where(a_inf_r, one, 0), ar)
            si = np.copysign(np.where(a_inf_i, one, 0), ai)
            b_inf_r, b_inf_i = np.isinf(br), np.isinf(bi)
            inf_den = (b_inf_r | b_inf_i) & np.isfinite(ar) & np.isfinite(ai)
            tr = np.copysign(np.where(b_inf_r, one, 0), br)
            ti = np.copysign(np.where(b_inf_i, one, 0), bi)
            cases = [
                (zero_den, signed * ar, signed * ai),
                (inf_num, inf * (sr * br + si * bi), inf * (si * br - sr * bi)),
                (inf_den, 0 * (ar * tr + ai * ti), 0 * (ai * tr - ar * ti)),
            ]
            fix_r, fix_i = cr, ci
            for when, re, im in reversed(cases):
                fix_r, fix_i = np.where(when, re, fix_r), np.where(when, im, fix_i)
            cr, ci = np.where(both_nan, fix_r, cr), np.where(both_nan, fix_i, ci)
    out = np.empty(np.shape(cr), dtype)
    out.real, out.imag = cr, ci
    return out[()]


def _rsqrt(x: Any) -> Any:
    if np.result_type(x).kind == "c":
        return _complex_rsqrt(np.asarray(x))
    return np.reciprocal(_sqrt(x))


def _complex_rsqrt(x: np.ndarray[Any, Any]) -> Any:
    """XLA's complex rsqrt, in polar form: ``|x|**-1/2 (cos(-t/2) + i sin(-t/2))`` with ``t``
    the argument (so ``rsqrt(-1)`` has XLA's real part ``cos(pi/2)``, not NumPy's 0), and
    ``inf+nanj`` at zero."""
    with np.errstate(all="ignore"):
        half = -np.arctan2(x.imag, x.real) / 2
        scale = 1 / np.sqrt(np.abs(x))
        out = np.empty(x.shape, x.dtype)
        out.real, out.imag = scale * np.cos(half), scale * np.sin(half)
    out[x == 0] = complex(np.inf, np.nan)  # whatever the zeros' signs
    return out[()]


def _log1p(x: Any) -> Any:
    """NumPy's complex log1p is ``log(1 + z)``, which loses the digits of a small ``z`` (XLA's
    does not): near 0 the real part is ``log|1 + z| = log1p(x (2 + x) + y^2) / 2``."""
    if np.result_type(x).kind != "c":
        return np.log1p(x)
    x = np.asarray(x)
    re, im = x.real, x.imag
    with np.errstate(all="ignore"):
        near = 0.5 * np.log1p(re * (2 + re) + im * im) + 1j * np.arctan2(im, 1 + re)
        out = np.where(np.abs(x) < 0.5, near, np.log(1 + x))
    return out.astype(x.dtype, copy=False)[()]


def _complex(re: Any, im: Any, dtype: DType) -> Any:
    out = np.empty(np.shape(re), dtype)
    out.real, out.imag = re, im
    return out[()]


def _keep_zero(x: Any, part: Any) -> Any:
    """``part``, or ``x`` itself where ``x`` is zero: XLA's complex kernels keep a zero part
    of the operand in the part it scales (``cos(0-infj) = inf+0j``, ``cosh(nan+0j) =
    nan+0j``), where IEEE's ``0 * inf`` and ``0 * nan`` are NaN."""
    return np.where(x == 0, x, part)


def _xla_complex(real: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """The computation of a float-valued primitive for complex operands (its NumPy ``real``
    ufunc computes the others: ``define_elementwise``'s ``complex_impl``): the same-named
    ``_complex_<name>`` function below, which follows XLA's complex kernels where NumPy's
    differ at infinities and NaNs (``cos(-inf+infj)`` is ``nan+nanj`` in XLA, ``inf+nanj`` in
    NumPy), so that eager results are jit's. Which one applies is decided from the dtype, once
    per operation, not per element: a float operand still calls the bare ufunc."""
    cplx = _COMPLEX_KERNELS[real.__name__]

    def impl(x: Any) -> Any:
        with np.errstate(all="ignore"):
            return cplx(np.asarray(x))

    impl.__name__ = impl.__qualname__ = f"_complex_{real.__name__}_impl"
    return impl


def _complex_exp(z: Any) -> Any:
    """``e^a (cos b + i sin b)``, a ``complex64`` computed in double precision and rounded
    once (XLA's kernel rounds as that does; float32 ``cos`` and ``exp`` are each off by an
    ulp); where ``e^a`` overflows, ``e^(a/2) (e^(a/2) sin b)`` as XLA's kernel computes it
    (``exp(100+1e-38j)`` has a finite imaginary part)."""
    a, b = _wide(z)
    e, half = np.exp(a), np.exp(a / 2)
    over = np.isinf(e) & np.isfinite(a)
    re = np.where(over, half * np.cos(b) * half, e * np.cos(b))
    im = np.where(over, half * np.sin(b) * half, e * np.sin(b))
    return _complex(re, _keep_zero(b, im), z.dtype)


def _complex_expm1(z: Any) -> Any:
    a, b = _wide(z)  # e^a cos b - 1 = expm1(a) cos b - 2 sin^2(b/2), without cancellation
    re = np.expm1(a) * np.cos(b) - 2 * np.sin(b / 2) ** 2
    return _complex(re, _keep_zero(b, np.exp(a) * np.sin(b)), z.dtype)


def _wide(z: Any) -> tuple[Any, Any]:
    """The real and imaginary parts of ``z`` in double precision."""
    return z.real.astype(np.float64), z.imag.astype(np.float64)


def _complex_cos(z: Any) -> Any:
    a, b = z.real, z.imag
    return _complex(np.cosh(b) * np.cos(a), _keep_zero(a, -np.sinh(b) * np.sin(a)), z.dtype)


def _complex_sin(z: Any) -> Any:
    a, b = z.real, z.imag
    return _complex(_keep_zero(a, np.cosh(b) * np.sin(a)), np.sinh(b) * np.cos(a), z.dtype)


def _complex_cosh(z: Any) -> Any:
    a, b = z.real, z.imag
    return _complex(np.cosh(a) * np.cos(b), _keep_zero(b, np.sinh(a) * np.sin(b)), z.dtype)


def _complex_sinh(z: Any) -> Any:
    a, b = z.real, z.imag
    return _complex(np.sinh(a) * np.cos(b), _keep_zero(b, np.cosh(a) * np.sin(b)), z.dtype)


def _complex_tan(z: Any) -> Any:
    """NumPy's, with XLA's ``nan+nanj`` for a non-finite real part on the real axis and a
    ``+0`` real part where both parts are infinite."""
    a, b = z.real, z.imag
    t = np.tan(z)
    nan = (b == 0) & ~np.isfinite(a)
    re = np.where(nan, np.nan, np.where(np.isinf(a) & np.isinf(b), 0, t.real))
    return _complex(re, np.where(nan, np.nan, t.imag), z.dtype)


def _xla_complex_elementwise(name: str, real: Callable[[Any], Any]) -> Primitive:
    """A float-valued unary primitive: NumPy's ``real`` ufunc, XLA's kernel for complex."""
    return define_elementwise(
        name, 1, "fc", to_inexact_dtype, real, complex_impl=_xla_complex(real)
    )


_COMPLEX_KERNELS: dict[str, Callable[[Any], Any]] = {
    "exp": _complex_exp,
    "expm1": _complex_expm1,
    "cos": _complex_cos,
    "sin": _complex_sin,
    "cosh": _complex_cosh,
    "sinh": _complex_sinh,
    "tan": _complex_tan,
}

sin_p = _xla_complex_elementwise("sin", np.sin)
cos_p = _xla_complex_elementwise("cos", np.cos)
tan_p = _xla_complex_elementwise("tan", np.tan)
asin_p = define_elementwise("asin", 1, "fc", to_inexact_dtype, np.arcsin)
acos_p = define_elementwise("acos", 1, "fc", to_inexact_dtype, np.arccos)
atan_p = define_elementwise("atan", 1, "fc", to_inexact_dtype, np.arctan)
sinh_p = _xla_complex_elementwise("sinh", np.sinh)
cosh_p = _xla_complex_elementwise("cosh", np.cosh)
tanh_p = define_elementwise("tanh", 1, "fc", to_inexact_dtype, np.tanh)
exp_p = _xla_complex_elementwise("exp", np.exp)
log_p = define_elementwise("log", 1, "fc", to_inexact_dtype, np.log)
log1p_p = define_elementwise("log1p", 1, "fc", to_inexact_dtype, _log1p)
expm1_p = _xla_complex_elementwise("expm1", np.expm1)
logistic_p = define_elementwise("logistic", 1, "fc", to_inexact_dtype, _logistic)
sqrt_p = define_elementwise("sqrt", 1, "fc", to_inexact_dtype, _sqrt)
rsqrt_p = define_elementwise("rsqrt", 1, "fc", to_inexact_dtype, _rsqrt)
erf_p = define_elementwise("erf", 1, "f", to_inexact_dtype, _erf)

# --- unary: dtype-preserving ----------------------------------------------------------------


def _abs(x: Any) -> Any:
    """``|x|``; a complex NaN part makes the modulus NaN, as in XLA (NumPy's ``hypot`` gives
    ``|inf+nanj| = inf``)."""
    if np.result_type(x).kind != "c":
        return np.abs(x)
    return np.where(np.isnan(x), np.nan, np.abs(x))[()]


def _sign(x: Any) -> Any:
    """XLA's sign: a float zero keeps its sign (NumPy's ``sign(-0.0)`` is ``0.0``); a complex
    ``z`` is ``z / |z|`` part by part (``sign(inf+0j)`` is ``nan+0j``), zero staying itself."""
    x_kind = kind(np.result_type(x))
    if x_kind == "f":
        return np.copysign(np.sign(x), x)
    if x_kind != "c":
        return np.sign(x)
    x = np.asarray(x)
    modulus = _abs(x)
    out = np.empty_like(x)
    out.real = x.real / modulus
    out.imag = x.imag / modulus
    return np.where(x == 0, x, out)[()]


def _abs_dtype(dtype: DType) -> DType:
    return (
        np.dtype(np.float32 if dtype == np.complex64 else np.float64)
        if dtype.kind == "c"
        else dtype
    )


neg_p = define_elementwise("neg", 1, NUM, _same, np.negative)
abs_p = define_elementwise("abs", 1, "ifc", _abs_dtype, _abs)
_abs_out_aval = abstract_eval_rules[abs_p]


def _abs_typing(x: ShapedArray) -> list[ShapedArray]:
    """The elementwise typing rule, refusing ml_dtypes' narrow integers as JAX's does."""
    out: list[ShapedArray] = _abs_out_aval(x)
    if x.dtype in _NARROW_INTS:
        raise TypeError(
            f"abs does not accept dtype {x.dtype.name}. Support for narrow-width integers is "
            "platform-dependent and limited to a few specific operations, e.g. basic "
            "arithmetic and type casting."
        )
    return out


abstract_eval_rules[abs_p] = _abs_typing
sign_p = define_elementwise("sign", 1, NUM, _same, _sign)
floor_p = define_elementwise("floor", 1, "f", _same, np.floor)
ceil_p = define_elementwise("ceil", 1, "f", _same, np.ceil)
is_finite_p = define_elementwise("is_finite", 1, "f", _boolean, np.isfinite)
not_p = define_elementwise("not", 1, "biu", _same, np.invert)


def _round_impl(x: Any, *, rounding_method: int = 0) -> list[Any]:
    """Half away from zero (XLA's ``round_nearest_afz``) from ``trunc``: ``x - trunc(x)`` is
    exact, while ``floor(|x| + 0.5)`` rounds at the addition (float32 ``0.49999997 + 0.5`` is
    1.0, and above 2**23 the ``+ 0.5`` lands on a tie)."""
    _eager_typing(round_p, (x,), {"rounding_method": rounding_method})
    if rounding_method == 1:
        return [np.round(x)]
    t = np.trunc(x)
    return [np.where(np.abs(x - t) >= 0.5, t + np.sign(x), t)[()]]


round_p = Primitive("round")
_register_spec(round_p, ElementwiseSpec(1, "f", _same))
impl_rules[round_p] = _round_impl


def _check_integer_pow(dtype: DType, y: int) -> None:
    if y < 0 and dtype.kind in "biu":
        raise TypeError(f"Integers cannot be raised to negative powers, got integer_pow(x, {y})")


def _integer_pow_impl(x: Any, *, y: int) -> list[Any]:
    _eager_typing(integer_pow_p, (x,), {"y": y})
    dtype = np.result_type(x)
    if dtype.kind == "c":
        return [_complex_integer_pow(np.asarray(x), y)]
    return [np.power(x, y)]


def _complex_integer_pow(x: np.ndarray[Any, Any], y: int) -> Any:
    """``x ** y`` as mj's lowering (and JAX's) computes it: repeated squaring, then one
    division for a negative ``y`` (NumPy's complex power gives other signed zeros, and NaN
    where XLA divides by zero to an infinity)."""
    acc, base, n = np.ones_like(x), x, abs(y)
    first = True
    while n:
        if n & 1:
            acc = base if first else acc * base
            first = False
        n >>= 1
        if n:
            base = base * base
    return (_complex_divide(np.ones((), x.dtype), acc) if y < 0 else acc)[()]


integer_pow_p = Primitive("integer_pow")
_register_spec(integer_pow_p, ElementwiseSpec(1, NUM, _same))
impl_rules[integer_pow_p] = _integer_pow_impl
_integer_pow_out_aval = abstract_eval_rules[integer_pow_p]


def _integer_pow_typing(x: ShapedArray, *, y: int) -> list[ShapedArray]:
    """The elementwise typing rule, refusing an integer to a negative power as JAX does."""
    _check_integer_pow(x.dtype, y)
    out: list[ShapedArray] = _integer_pow_out_aval(x)
    return out


abstract_eval_rules[integer_pow_p] = _integer_pow_typing

# --- binary -----------------------------------------------------------------------------------


def _integer_rule(compute: Callable[[Any, Any, int], Any]) -> Callable[[Any, Any], Any]:
    """``compute(x, y, bits)`` as a binary impl rule, ``bits`` the width of the operands'
    integer dtype. ml_dtypes' narrow integers (int4, uint2, ...), whose kind NumPy reads as
    ``"V"`` and whose shifts and divisions it computes in int8 or not at all, are computed on
    their values in int8/uint8 and the result wrapped back to their width, as XLA's."""

    def rule(x: Any, y: Any) -> Any:
        dtype = np.result_type(x, y)
        narrow = _NARROW_INTS.get(dtype)
        if narrow is None:
            return compute(x, y, dtype.itemsize * 8)
        wide, bits = narrow
        out = compute(np.asarray(x, dtype).astype(wide), np.asarray(y, dtype).astype(wide), bits)
        return np.asarray(out).astype(dtype)[()]

    rule.__name__ = rule.__qualname__ = compute.__name__
    rule.__doc__ = compute.__doc__
    return rule


@_integer_rule
def _int_div(x: Any, y: Any, bits: int) -> Any:
    """Division; integers truncate toward zero and, as in XLA, ``x / 0`` is all ones (-1, or
    the unsigned maximum) where NumPy gives 0."""
    # lax operands share one dtype (or one is a weak Python scalar): an array's is the result's
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        dtype = np.result_type(x, y)
    if dtype.kind not in "iuc":
        return np.true_divide(x, y)
    if dtype.kind == "c":
        return _complex_divide(x, y)
    x, y = np.asarray(x, dtype), np.asarray(y, dtype)
    zero = y == 0
    y = np.where(zero, np.ones((), dtype), y)
    q = np.floor_divide(x, y)
    q += (np.remainder(x, y) != 0) & ((x < 0) != (y < 0))
    return np.where(zero, np.invert(np.zeros((), dtype)), q)[()]


@_integer_rule
def _rem(x: Any, y: Any, bits: int) -> Any:
    """C's ``fmod``; an integer remainder by zero is ``x``, as in XLA (NumPy gives 0)."""
    dtype = np.result_type(x, y)
    if dtype.kind not in "iu":
        return np.fmod(x, y)
    x, y = np.asarray(x, dtype), np.asarray(y, dtype)
    zero = y == 0
    return np.where(zero, x, np.fmod(x, np.where(zero, np.ones((), dtype), y)))[()]


@_integer_rule
def _shift_left(x: Any, y: Any, bits: int) -> Any:
    return np.where(np.less(y, bits) & np.greater_equal(y, 0), np.left_shift(x, y), 0)[()]


@_integer_rule
def _shift_right_logical(x: Any, y: Any, bits: int) -> Any:
    dtype = np.result_type(x, y)
    unsigned = np.dtype(f"u{dtype.itemsize}")
    ux = np.asarray(x, dtype).view(unsigned)
    if bits < dtype.itemsize * 8:  # a narrow integer's bits only
        ux = ux & unsigned.type((1 << bits) - 1)
    shifted = np.right_shift(ux, np.asarray(y, dtype).astype(unsigned))
    out = np.where(np.less(y, bits) & np.greater_equal(y, 0), shifted, 0)
    return out.astype(unsigned).view(dtype)[()]


@_integer_rule
def _shift_right_arithmetic(x: Any, y: Any, bits: int) -> Any:
    """XLA's arithmetic shift: the bits of ``x`` read as signed (an unsigned ``x`` too), and a
    shift count read as unsigned, so a negative or too large count fills with the sign bit."""
    dtype = np.result_type(x, y)
    signed, unsigned = np.dtype(f"i{dtype.itemsize}"), np.dtype(f"u{dtype.itemsize}")
    sx = np.asarray(x, dtype).view(signed)
    count = np.asarray(y, dtype).view(unsigned)
    spare = dtype.itemsize * 8 - bits  # a narrow integer's: its sign bit extended first
    if spare:
        sx = np.right_shift(np.left_shift(sx, signed.type(spare)), signed.type(spare))
        count = count & unsigned.type((1 << bits) - 1)
    count = np.minimum(count, bits - 1)
    return np.right_shift(sx, count.astype(signed)).view(dtype)[()]


def _pow(x: Any, y: Any) -> Any:
    """``x ** y``; an integer to a negative power is what XLA gives (NumPy raises): 1 for a base
    of 1, +-1 for -1, else 0."""
    dtype = np.result_type(x, y)
    if dtype.kind == "c":
        return _complex_pow(x, y)
    if dtype.kind != "i" or not np.any(np.less(y, 0)):
        return np.power(x, y)
    x, y = np.asarray(x, dtype), np.asarray(y, dtype)
    negative = y < 0
    out = np.power(x, np.where(negative, np.zeros((), dtype), y))
    odd = (y & 1).astype(bool)
    inverse = np.where(x == 1, 1, np.where(x == -1, np.where(odd, -1, 1), 0)).astype(dtype)
    return np.where(negative, inverse, out)[()]


def _complex_pow(x: ArrayLike, y: ArrayLike) -> Any:
    """Complex ``x ** y`` in XLA's polar form, ``|x|**c e**(-d t) (cos q + i sin q)`` with
    ``t = arg x``, ``q = d log|x| + c t`` (NumPy's kernel rounds differently: ``(-1)**0.5``
    has XLA's real part ``cos(pi/2)``, not 0); the power 0 gives 1, a zero base 0 to a
    positive real power, else what the formula gives (NaN where NumPy gives 0)."""
    x, y = np.asarray(x), np.asarray(y)
    dtype = np.result_type(x, y)
    with np.errstate(all="ignore"):
        a, b, c, d = x.real, x.imag, y.real, y.imag
        sq = a * a + b * b
        t = np.arctan2(b, a)
        coeff = np.power(sq, c / 2) * np.exp(-d * t)
        q = d * np.log(sq) / 2 + c * t
        re, im = coeff * np.cos(q), coeff * np.sin(q)
        zero = (a == 0) & (b == 0)
        one = (c == 0) & (d == 0)
        vanish = zero & (d == 0) & (c > 0)
        re = np.where(one, 1, np.where(vanish, 0, re))
        im = np.where(one | vanish, 0, im)
    out = np.empty(np.shape(re), dtype)
    out.real, out.imag = re, im
    return out[()]


add_p = define_elementwise("add", 2, NUM, _same, np.add)
sub_p = define_elementwise("sub", 2, NUM, _same, np.subtract)
mul_p = define_elementwise("mul", 2, NUM, _same, np.multiply)
div_p = define_elementwise("div", 2, NUM, _same, _int_div)
rem_p = define_elementwise("rem", 2, "iuf", _same, _rem)
pow_p = define_elementwise("pow", 2, NUM, _same, _pow, operand_kinds=("fc", NUM))


def lexicographic_pick(x: Any, y: Any, greater: bool) -> Any:
    """JAX's (and XLA's, as JAX lowers it) complex max/min: ``x`` where its real part wins,
    or its imaginary part when the real parts are equal, else ``y``; a NaN loses every
    comparison, so it is kept only from ``y`` (NumPy's ``maximum`` propagates NaN instead)."""
    op = np.greater if greater else np.less
    rx, ry = np.real(x), np.real(y)
    pick_x = np.where(rx == ry, op(np.imag(x), np.imag(y)), op(rx, ry))
    return np.where(pick_x, x, y)[()]


def _maximum(x: Any, y: Any) -> Any:
    if np.result_type(x).kind == "c":
        return lexicographic_pick(x, y, True)
    return np.maximum(x, y)


def _minimum(x: Any, y: Any) -> Any:
    if np.result_type(x).kind == "c":
        return lexicographic_pick(x, y, False)
    return np.minimum(x, y)


max_p = define_elementwise("max", 2, ALL, _same, _maximum)
min_p = define_elementwise("min", 2, ALL, _same, _minimum)
atan2_p = define_elementwise("atan2", 2, "fc", to_inexact_dtype, np.arctan2)
_atan2_out_aval = abstract_eval_rules[atan2_p]


def _atan2_typing(*avals: ShapedArray) -> list[ShapedArray]:
    """JAX's categories (floating, complexfloating), then mj's own limit: its atan2 computes
    real operands only, as NumPy's, eagerly and under ``jit`` alike."""
    out: list[ShapedArray] = _atan2_out_aval(*avals)
    if out[0].dtype.kind == "c":
        shown = ", ".join(a.str_short() for a in avals)
        raise TypeError(f"atan2 of complex operands is not implemented in mj, got ({shown})")
    return out


abstract_eval_rules[atan2_p] = _atan2_typing
and_p = define_elementwise("and", 2, "biu", _same, np.bitwise_and)
or_p = define_elementwise("or", 2, "biu", _same, np.bitwise_or)
xor_p = define_elementwise("xor", 2, "biu", _same, np.bitwise_xor)
shift_left_p = define_elementwise("shift_left", 2, "iu", _same, _shift_left)
shift_right_logical_p = define_elementwise(
    "shift_right_logical", 2, "iu", _same, _shift_right_logical
)
shift_right_arithmetic_p = define_elementwise(
    "shift_right_arithmetic", 2, "iu", _same, _shift_right_arithmetic
)
eq_p = define_elementwise("eq", 2, ALL, _boolean, np.equal)
ne_p = define_elementwise("ne", 2, ALL, _boolean, np.not_equal)
less_p = define_elementwise("less", 2, REAL, _boolean, np.less)
less_equal_p = define_elementwise("less_equal", 2, REAL, _boolean, np.less_equal)
greater_p = define_elementwise("greater", 2, REAL, _boolean, np.greater)
greater_equal_p = define_elementwise("greater_equal", 2, REAL, _boolean, np.greater_equal)

# --- n-ary ----------------------------------------------------------------------------------


def _select_n(which: Any, *cases: Any) -> Any:
    dtype = getattr(which, "dtype", None)  # (an array's, without np.result_type's dispatch)
    if (np.result_type(which) if dtype is None else dtype).kind == "b":
        if len(cases) != 2:
            raise TypeError(f"select_n with a bool selector needs 2 cases, got {len(cases)}")
        return np.where(which, cases[1], cases[0])
    # (a plain ndarray selector: an mj array's np.choose would be mj's, on broadcast views)
    return np.choose(np.asarray(which), np.broadcast_arrays(*cases), mode="clip")


def _clamp(lo: Any, x: Any, hi: Any) -> Any:
    return np.minimum(np.maximum(x, lo), hi)


select_n_p = define_elementwise(
    "select_n", -1, ALL, _same, _select_n, first_operand_is_selector=True
)
clamp_p = define_elementwise("clamp", 3, "iuf", _same, _clamp)


def _nextafter(x1: Any, x2: Any) -> Any:
    dtype = to_inexact_dtype(np.result_type(x1, x2))
    if dtype.kind == "c":
        raise TypeError(f"nextafter is not defined for complex inputs, got {dtype.name}")
    x1, x2 = np.asarray(x1, dtype), np.asarray(x2, dtype)
    if dtype == np.float16:  # NumPy's float16 kernel returns x1 on a tie; C's (XLA's) x2
        return np.where(x1 == x2, x2, np.nextafter(x1, x2))[()]
    return np.nextafter(x1, x2)[()]


# ``nextafter(x1, x2)``: the next float after ``x1`` towards ``x2``, in the operands' promoted
# float dtype. Like JAX it has no derivative (its jvp rule raises).
nextafter_p = define_elementwise("nextafter", 2, "f", to_inexact_dtype, _nextafter)


# --- lax wrappers ----------------------------------------------------------------------------
@binds(neg_p)
def neg(x: ArrayLike) -> Array:
    """Elementwise negation: ``-x``."""


@binds(sin_p)
def sin(x: ArrayLike) -> Array:
    """Elementwise sine."""


@binds(cos_p)
def cos(x: ArrayLike) -> Array:
    """Elementwise cosine."""


@binds(tan_p)
def tan(x: ArrayLike) -> Array:
    """Elementwise tangent."""


@binds(asin_p)
def asin(x: ArrayLike) -> Array:
    """Elementwise arc sine."""


@binds(acos_p)
def acos(x: ArrayLike) -> Array:
    """Elementwise arc cosine."""


@binds(atan_p)
def atan(x: ArrayLike) -> Array:
    """Elementwise arc tangent."""


@binds(sinh_p)
def sinh(x: ArrayLike) -> Array:
    """Elementwise hyperbolic sine."""


@binds(cosh_p)
def cosh(x: ArrayLike) -> Array:
    """Elementwise hyperbolic cosine."""


@binds(tanh_p)
def tanh(x: ArrayLike) -> Array:
    """Elementwise hyperbolic tangent."""


@binds(exp_p)
def exp(x: ArrayLike) -> Array:
    """Elementwise exponential: ``e ** x``."""


@binds(log_p)
def log(x: ArrayLike) -> Array:
    """Elementwise natural logarithm."""


@binds(log1p_p)
def log1p(x: ArrayLike) -> Array:
    """Elementwise ``log(1 + x)``, accurate for small ``x``."""


@binds(expm1_p)
def expm1(x: ArrayLike) -> Array:
    """Elementwise ``exp(x) - 1``, accurate for small ``x``."""


@binds(logistic_p)
def logistic(x: ArrayLike) -> Array:
    """Elementwise logistic sigmoid: ``1 / (1 + exp(-x))``."""


@binds(sqrt_p)
def sqrt(x: ArrayLike) -> Array:
    """Elementwise square root."""


@binds(rsqrt_p)
def rsqrt(x: ArrayLike) -> Array:
    """Elementwise reciprocal square root: ``1 / sqrt(x)``."""


@binds(abs_p)
def abs(x: ArrayLike) -> Array:
    """Elementwise absolute value (real for complex ``x``)."""


@binds(sign_p)
def sign(x: ArrayLike) -> Array:
    """Elementwise sign: -1, 0 or 1 (``x / abs(x)`` for complex)."""


@binds(floor_p)
def floor(x: ArrayLike) -> Array:
    """Elementwise floor."""


@binds(ceil_p)
def ceil(x: ArrayLike) -> Array:
    """Elementwise ceiling."""


@binds(is_finite_p)
def is_finite(x: ArrayLike) -> Array:
    """Elementwise test for finite values (neither inf nor NaN)."""


@binds(erf_p)
def erf(x: ArrayLike) -> Array:
    """Elementwise error function."""


@binds(not_p)
def bitwise_not(x: ArrayLike) -> Array:
    """Elementwise bitwise NOT (logical NOT for bool)."""


def round(x: ArrayLike, rounding_method: int = 0) -> Array:
    """Round to integral values; ``rounding_method`` 0 rounds half away from zero (lax's
    default), 1 rounds half to even (NumPy's)."""
    return bind1(round_p, x, rounding_method=int(rounding_method))


def integer_pow(x: ArrayLike, y: int) -> Array:
    """Elementwise ``x ** y`` for a static Python int ``y``."""
    return bind1(integer_pow_p, x, y=int(y))


@binds(add_p)
def add(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x + y`` (operands broadcast and promote like NumPy)."""


@binds(sub_p)
def sub(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x - y``."""


@binds(mul_p)
def mul(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x * y``."""


@binds(div_p)
def div(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x / y``; integer division truncates toward zero (lax semantics)."""


@binds(rem_p)
def rem(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise remainder with the sign of ``x`` (C ``fmod``)."""


@binds(pow_p)
def pow(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x ** y``."""


@binds(max_p)
def max(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise maximum (NaN-propagating for reals; complex numbers ordered by real, then
    imaginary part)."""


@binds(min_p)
def min(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise minimum (as :func:`max`)."""


@binds(atan2_p)
def atan2(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise arc tangent of ``x / y`` using the signs of both to pick the quadrant."""


@binds(shift_left_p)
def shift_left(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x << y``."""


@binds(shift_right_logical_p)
def shift_right_logical(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise logical (zero-filling) right shift."""


@binds(shift_right_arithmetic_p)
def shift_right_arithmetic(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise arithmetic (sign-extending) right shift."""


@binds(eq_p)
def eq(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x == y``."""


@binds(ne_p)
def ne(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x != y``."""


@binds(less_p)
def less(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x < y``."""


@binds(less_equal_p)
def less_equal(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x <= y``."""


@binds(greater_p)
def greater(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x > y``."""


@binds(greater_equal_p)
def greater_equal(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise ``x >= y``."""


@binds(and_p)
def bitwise_and(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise bitwise AND (logical AND for bool)."""


@binds(or_p)
def bitwise_or(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise bitwise OR (logical OR for bool)."""


@binds(xor_p)
def bitwise_xor(x: ArrayLike, y: ArrayLike) -> Array:
    """Elementwise bitwise XOR (logical XOR for bool)."""


# jax.lax spellings
lt = less
le = less_equal
gt = greater
ge = greater_equal


def select_n(which: ArrayLike, *cases: ArrayLike) -> Array:
    """``cases[which]`` elementwise; a bool ``which`` picks ``cases[1]`` where True."""
    return bind1(select_n_p, which, *cases)


def select(pred: ArrayLike, on_true: ArrayLike, on_false: ArrayLike) -> Array:
    """``on_true`` where ``pred`` is True, else ``on_false`` (elementwise)."""
    return bind1(select_n_p, pred, on_false, on_true)


def clamp(min: ArrayLike, x: ArrayLike, max: ArrayLike) -> Array:
    """Elementwise ``x`` clipped into ``[min, max]``."""
    return bind1(clamp_p, min, x, max)


def nextafter(x1: ArrayLike, x2: ArrayLike) -> Array:
    """Elementwise next representable float after ``x1`` in the direction of ``x2``."""
    return bind1(nextafter_p, x1, x2)


# --- threefry2x32: the counter-based hash behind mj.random ------------------------------------
# One primitive, as JAX's ``threefry2x32_p``, rather than its ~100 bitwise operations inlined
# at every use: a lowering can then emit the hash once per module as a private function (its
# 20 rounds in a loop, see ``mj_xla.rules.elementwise``), which keeps XLA from fusing a copy of
# the whole hash into every consumer of the random bits.
threefry2x32_p = Primitive("threefry2x32", multiple_results=True)

_U32 = np.dtype(np.uint32)
#: Threefry-2x32's rotation distances: rounds ``4i .. 4i+3`` use ``THREEFRY_ROTATIONS[i % 2]``.
THREEFRY_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
#: The key-schedule parity constant: the third key word is ``k1 ^ k2 ^ THREEFRY_PARITY``.
THREEFRY_PARITY = 0x1BD11BDA


@abstract_eval_rules.register(threefry2x32_p)
def _threefry2x32_avals(*avals: ShapedArray) -> list[ShapedArray]:
    if len(avals) != 4 or any(a.dtype != _U32 for a in avals):
        shown = ", ".join(a.str_short() for a in avals)
        raise TypeError(f"threefry2x32 requires four uint32 operands, got ({shown})")
    shape = broadcast_shapes("threefry2x32", *(a.shape for a in avals))
    return [ShapedArray(shape, _U32)] * 2


def _rotate_left_u32(x: np.ndarray[Any, Any], d: int) -> np.ndarray[Any, Any]:
    return (x << np.uint32(d)) | (x >> np.uint32(32 - d))


@impl_rules.register(threefry2x32_p)
def _threefry2x32_impl(k1: Any, k2: Any, x1: Any, x2: Any) -> list[Any]:
    """Threefry-2x32 (Salmon et al., SC 2011: 20 rounds, a key injection every 4) in NumPy's
    wrapping uint32 arithmetic, on the operands broadcast together."""
    args = [np.asarray(a) for a in (k1, k2, x1, x2)]
    _threefry2x32_avals(*(ShapedArray(a.shape, a.dtype) for a in args))
    shape = np.broadcast_shapes(*(a.shape for a in args))
    # Computed on (at least) 1-d arrays: NumPy wraps array arithmetic silently.
    k1, k2, x1, x2 = (np.array(np.broadcast_to(a, shape), ndmin=1) for a in args)
    ks = (k1, k2, k1 ^ k2 ^ np.uint32(THREEFRY_PARITY))
    x1 = x1 + ks[0]
    x2 = x2 + ks[1]
    for i in range(5):
        for r in THREEFRY_ROTATIONS[i % 2]:
            x1 = x1 + x2
            x2 = x1 ^ _rotate_left_u32(x2, r)
        x1 = x1 + ks[(i + 1) % 3]
        x2 = x2 + ks[(i + 2) % 3] + np.uint32(i + 1)
    return [x1.reshape(shape), x2.reshape(shape)]


def threefry2x32(k1: ArrayLike, k2: ArrayLike, x1: ArrayLike, x2: ArrayLike) -> tuple[Array, Array]:
    """The Threefry-2x32 hash of the counters ``(x1, x2)`` under the key ``(k1, k2)``: four
    uint32 operands broadcast together, two uint32 words out (JAX's ``threefry2x32_p``)."""
    w1, w2 = bind(threefry2x32_p, k1, k2, x1, x2)
    return w1, w2

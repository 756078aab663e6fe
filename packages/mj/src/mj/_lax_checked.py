"""``mj.lax``'s elementwise functions with ``jax.lax``'s operand checks.

``jax.lax`` never promotes: each elementwise primitive accepts only some dtype categories
(``lax.sin`` floats and complex numbers, ``lax.clz`` integers), its operands must have the
same dtype, a Python scalar included (``lax.add(f32_array, 2)`` is a ``TypeError``; ``2.0``
is float32 without x64 and fits), and their shapes the same rank (rank-0 operands aside) and
equal sizes or 1 per axis. The result is weakly typed when every operand is (``lax.acosh(1.5)``,
``lax.is_finite(1.5)``, ``lax.eq(1, 2)``); a Python bool is never weak.

mj's lower layer (:mod:`mj_core.lax`) is the library's own toolkit and is more lenient (a weak
scalar takes the other operand's dtype, operands broadcast like NumPy), so the user-facing
``mj.lax`` checks its operands here first, with JAX's wording, then calls that layer's function
(``__wrapped__``). Which dtypes an operation accepts is its primitive's decision, read from the
primitive's spec (``elementwise_specs``, the kinds its typing rule checks: JAX's, so
``mj_core.lax.sin`` of an integer is refused too); only the functions mj composes from other
primitives (``acosh``, ``clz``, ...) name their kinds here. The checks run on the
operands' avals, so they hold under ``jit`` and ``make_jaxpr`` as eagerly; a check that passed
for some avals is remembered.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from mj import _lax_composites
from mj_core import lax as _core
from mj_core import numpy as _mnp
from mj_core.errors import user_line_suffix
from mj_core.extend import Primitive, ShapedArray, array_views, bind1, elementwise_specs, get_aval
from mj_core.prims.conversions import convert_element_type_p
from mj_core.prims.elementwise import (
    abs_p,
    accepted_error,
    acos_p,
    add_p,
    and_p,
    asin_p,
    atan2_p,
    atan_p,
    category_kind,
    ceil_p,
    cos_p,
    cosh_p,
    div_p,
    eq_p,
    erf_p,
    exp_p,
    expm1_p,
    floor_p,
    greater_equal_p,
    greater_p,
    integer_pow_p,
    is_finite_p,
    less_equal_p,
    less_p,
    log1p_p,
    log_p,
    logistic_p,
    max_p,
    min_p,
    mul_p,
    ne_p,
    neg_p,
    nextafter_p,
    or_p,
    pow_p,
    rem_p,
    round_p,
    rsqrt_p,
    shift_left_p,
    shift_right_arithmetic_p,
    shift_right_logical_p,
    sign_p,
    sin_p,
    sinh_p,
    sqrt_p,
    sub_p,
    tan_p,
    tanh_p,
    xor_p,
)
from mj_core.prims.special import (
    bessel_i0e_p,
    bessel_i1e_p,
    digamma_p,
    erf_inv_p,
    erfc_p,
    igamma_p,
    igammac_p,
    lgamma_p,
)

__all__ = [
    "abs",
    "acos",
    "acosh",
    "add",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "bessel_i0e",
    "bessel_i1e",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "cbrt",
    "ceil",
    "clz",
    "cos",
    "cosh",
    "digamma",
    "div",
    "eq",
    "erf",
    "erf_inv",
    "erfc",
    "exp",
    "exp2",
    "expm1",
    "floor",
    "ge",
    "gt",
    "igamma",
    "igammac",
    "integer_pow",
    "is_finite",
    "le",
    "lgamma",
    "log",
    "log1p",
    "logistic",
    "lt",
    "max",
    "min",
    "mul",
    "ne",
    "neg",
    "nextafter",
    "population_count",
    "pow",
    "reciprocal",
    "rem",
    "round",
    "rsqrt",
    "shift_left",
    "shift_right_arithmetic",
    "shift_right_logical",
    "sign",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "sub",
    "tan",
    "tanh",
]

# The dtype kinds an operand accepts, for the functions mj composes from other primitives
# (``acosh``, ``clz``, ...): a JAX primitive's that mj has none of. Every other function's
# are its primitive's (``elementwise_specs[p].kinds``, the one home its typing rule reads).
_FC = "fc"
_F = "f"
_I = "iu"
_NUM = "iufc"
#: ``jax.lax``'s hint naming the ``jax.numpy`` function that promotes (its wording).
_JNP_EQUIVALENTS = {
    "abs": "fabs", "acos": "arccos", "acosh": "arccosh", "add": "add", "asin": "arcsin",
    "asinh": "arcsinh", "atan": "arctan", "atan2": "arctan2", "atanh": "arctanh",
    "cbrt": "cbrt", "ceil": "ceil", "cos": "cos", "cosh": "cosh", "div": "divide",
    "eq": "equal", "exp": "exp", "expm1": "expm1", "floor": "floor", "log": "log",
    "log1p": "log1p", "max": "maximum", "min": "minimum", "mul": "multiply",
    "ne": "not_equal", "neg": "negative", "nextafter": "nextafter", "pow": "float_power",
    "round": "round", "shift_left": "left_shift", "shift_right_logical": "right_shift",
    "shift_right_arithmetic": "right_shift", "sign": "sign", "sin": "sin", "sinh": "sinh",
    "sqrt": "sqrt", "sub": "subtract", "tan": "tan", "tanh": "tanh",
}  # fmt: skip


def _primitive_kinds(prim: Primitive, nin: int) -> tuple[str, ...]:
    """The kinds each of ``prim``'s ``nin`` operands accepts: JAX's, from its spec."""
    spec = elementwise_specs[prim]
    return tuple(spec.operand_kind(i) for i in range(nin))


def _fail(message: str) -> TypeError:
    return TypeError(message + user_line_suffix())


def _check_shapes(name: str, shapes: Sequence[tuple[int, ...]]) -> None:
    """JAX's broadcasting shape rule: rank-0 operands aside, one rank, and per axis one size
    (or 1)."""
    ranked = [s for s in shapes if s]
    if len({len(s) for s in ranked}) > 1:
        ranks = {len(s) for s in ranked}
        raise _fail(f"{name}: arrays must have the same number of dimensions, got {ranks}")
    for sizes in zip(*ranked, strict=False):
        if len({d for d in sizes if d != 1}) > 1:
            shown = ", ".join(str(tuple(s)) for s in shapes)
            raise _fail(f"{name} got incompatible shapes for broadcasting: {shown}.")


def _check_dtypes(
    name: str, avals: Sequence[ShapedArray], accepted: Sequence[str], same: bool
) -> None:
    position = None if len(avals) == 1 else 0
    for i, (a, ok) in enumerate(zip(avals, accepted, strict=True)):
        if category_kind(a.dtype) not in ok:
            err = accepted_error(name, a.dtype, ok, None if position is None else i)
            raise _fail(str(err))
    if same and any(a.dtype != avals[0].dtype for a in avals[1:]):
        message = (
            f"lax.{name} requires arguments to have the same dtypes, got "
            f"{', '.join(a.dtype.name for a in avals)}."
        )
        if name in _JNP_EQUIVALENTS:
            message += (
                f" (Tip: jnp.{_JNP_EQUIVALENTS[name]} is a similar function that does "
                "automatic type promotion on inputs)."
            )
        raise _fail(message)


def _aval(x: Any, name: str, position: int) -> ShapedArray:
    try:
        aval = get_aval(x)
    except TypeError as err:  # JAX's words (its Primitive.bind's), then mj's detail
        raise TypeError(
            f"Error interpreting argument to {name} as a JAX value. The problematic value is "
            f"of type {type(x)} and was passed to {name} at position {position}.\n{err}"
        ) from err
    return ShapedArray(aval.shape, aval.dtype, aval.weak_type)


def _weak_as(out: Any, weak: bool) -> Any:
    """``out``, weakly typed exactly when ``weak`` (all operands were): the composites of the
    lower layer (``acosh``, ``clz``, ...) do not keep weak types as a primitive does."""
    aval = get_aval(out)
    if bool(aval.weak_type) == weak:
        return out
    return bind1(convert_element_type_p, out, new_dtype=aval.dtype, weak_type=weak)


_F_co = TypeVar("_F_co", bound=Callable[..., Any])


def _checked(
    fn: _F_co,
    name: str,
    accepted: Primitive | Sequence[str],
    *,
    nin: int = 1,
    same: bool = True,
) -> _F_co:
    """``fn`` (the lower layer's function of ``nin`` operands), after JAX's checks of its
    operands' shapes and dtypes (``accepted``: the primitive whose typing rule's kinds apply,
    or for a function mj composes, the kinds per operand; ``same``: one dtype for all)."""
    if isinstance(accepted, Primitive):
        accepted = _primitive_kinds(accepted, nin)
    nin = len(accepted)
    passed: set[tuple[ShapedArray, ...]] = set()

    def check(avals: tuple[ShapedArray, ...]) -> None:
        if avals in passed:
            return
        if len(avals) > 1:
            _check_shapes(name, [a.shape for a in avals])
        _check_dtypes(name, avals, accepted, same)
        if len(passed) < 4096:
            passed.add(avals)

    if nin == 1:

        def op(x: Any, *args: Any, **params: Any) -> Any:  # (round's rounding_method, ...)
            if type(x) in array_views:  # typed keys: the lower layer refuses them, JAX's words
                return fn(x, *args, **params)
            a = _aval(x, name, 0)
            check((a,))
            return _weak_as(fn(x, *args, **params), a.weak_type)

    else:

        def op(x: Any, y: Any) -> Any:  # type: ignore[misc]
            if type(x) in array_views or type(y) in array_views:
                return fn(x, y)
            a, b = _aval(x, name, 0), _aval(y, name, 1)
            check((a, b))
            return _weak_as(fn(x, y), a.weak_type and b.weak_type)

    return functools.wraps(fn)(op)  # type: ignore[return-value]


def _reciprocal(x: Any) -> Any:
    """``x ** -1`` (``lax.integer_pow(x, -1)``, as JAX's ``lax.reciprocal``)."""
    return _core.integer_pow(x, -1)


acos = _checked(_core.acos, "acos", acos_p)
asin = _checked(_core.asin, "asin", asin_p)
atan = _checked(_core.atan, "atan", atan_p)
cos = _checked(_core.cos, "cos", cos_p)
cosh = _checked(_core.cosh, "cosh", cosh_p)
exp = _checked(_core.exp, "exp", exp_p)
expm1 = _checked(_core.expm1, "expm1", expm1_p)
log = _checked(_core.log, "log", log_p)
log1p = _checked(_core.log1p, "log1p", log1p_p)
logistic = _checked(_core.logistic, "logistic", logistic_p)
rsqrt = _checked(_core.rsqrt, "rsqrt", rsqrt_p)
sin = _checked(_core.sin, "sin", sin_p)
sinh = _checked(_core.sinh, "sinh", sinh_p)
sqrt = _checked(_core.sqrt, "sqrt", sqrt_p)
tan = _checked(_core.tan, "tan", tan_p)
tanh = _checked(_core.tanh, "tanh", tanh_p)
ceil = _checked(_core.ceil, "ceil", ceil_p)
floor = _checked(_core.floor, "floor", floor_p)
is_finite = _checked(_core.is_finite, "is_finite", is_finite_p)
erf = _checked(_core.erf, "erf", erf_p)
erfc = _checked(_core.erfc, "erfc", erfc_p)
erf_inv = _checked(_core.erf_inv, "erf_inv", erf_inv_p)
lgamma = _checked(_core.lgamma, "lgamma", lgamma_p)
digamma = _checked(_core.digamma, "digamma", digamma_p)
bessel_i0e = _checked(_core.bessel_i0e, "bessel_i0e", bessel_i0e_p)
bessel_i1e = _checked(_core.bessel_i1e, "bessel_i1e", bessel_i1e_p)
round = _checked(_core.round, "round", round_p)
acosh = _checked(_mnp.arccosh, "acosh", (_FC,))
asinh = _checked(_mnp.arcsinh, "asinh", (_FC,))
atanh = _checked(_mnp.arctanh, "atanh", (_FC,))
exp2 = _checked(_mnp.exp2, "exp2", (_FC,))
cbrt = _checked(_mnp.cbrt, "cbrt", (_F,))
square = _checked(_mnp.square, "square", (_NUM,))
reciprocal = _checked(_reciprocal, "reciprocal", integer_pow_p)
integer_pow = _checked(_core.integer_pow, "integer_pow", integer_pow_p)
neg = _checked(_core.neg, "neg", neg_p)
sign = _checked(_core.sign, "sign", sign_p)
abs = _checked(_core.abs, "abs", abs_p)
clz = _checked(_lax_composites.clz, "clz", (_I,))
population_count = _checked(_lax_composites.population_count, "population_count", (_I,))
add = _checked(_core.add, "add", add_p, nin=2)
sub = _checked(_core.sub, "sub", sub_p, nin=2)
mul = _checked(_core.mul, "mul", mul_p, nin=2)
div = _checked(_core.div, "div", div_p, nin=2)
rem = _checked(_core.rem, "rem", rem_p, nin=2)
lt = _checked(_core.lt, "lt", less_p, nin=2)
le = _checked(_core.le, "le", less_equal_p, nin=2)
gt = _checked(_core.gt, "gt", greater_p, nin=2)
ge = _checked(_core.ge, "ge", greater_equal_p, nin=2)
eq = _checked(_core.eq, "eq", eq_p, nin=2)
ne = _checked(_core.ne, "ne", ne_p, nin=2)
max = _checked(_core.max, "max", max_p, nin=2)
min = _checked(_core.min, "min", min_p, nin=2)
atan2 = _checked(_core.atan2, "atan2", atan2_p, nin=2)
pow = _checked(_core.pow, "pow", pow_p, nin=2, same=False)
nextafter = _checked(_core.nextafter, "nextafter", nextafter_p, nin=2)
bitwise_and = _checked(_core.bitwise_and, "and", and_p, nin=2)
bitwise_or = _checked(_core.bitwise_or, "or", or_p, nin=2)
bitwise_xor = _checked(_core.bitwise_xor, "xor", xor_p, nin=2)
shift_left = _checked(_core.shift_left, "shift_left", shift_left_p, nin=2)
shift_right_logical = _checked(
    _core.shift_right_logical, "shift_right_logical", shift_right_logical_p, nin=2
)
shift_right_arithmetic = _checked(
    _core.shift_right_arithmetic, "shift_right_arithmetic", shift_right_arithmetic_p, nin=2
)
igamma = _checked(_core.igamma, "igamma", igamma_p, nin=2)
igammac = _checked(_core.igammac, "igammac", igammac_p, nin=2)

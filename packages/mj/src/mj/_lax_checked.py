"""``mj.lax``'s elementwise functions with ``jax.lax``'s operand checks.

``jax.lax`` never promotes: each elementwise primitive accepts only some dtype categories
(``lax.sin`` floats and complex numbers, ``lax.clz`` integers), its operands must have the
same dtype, a Python scalar included (``lax.add(f32_array, 2)`` is a ``TypeError``; ``2.0``
is float32 without x64 and fits), and their shapes the same rank (rank-0 operands aside) and
equal sizes or 1 per axis. The result is weakly typed when every operand is (``lax.acosh(1.5)``,
``lax.is_finite(1.5)``, ``lax.eq(1, 2)``); a Python bool is never weak.

mj's lower layer (:mod:`mj_core.lax`) is the library's own toolkit and is more lenient (a weak
scalar takes the other operand's dtype, float-valued primitives take integers, operands
broadcast like NumPy), so the user-facing ``mj.lax`` checks its operands here first, with
JAX's wording, then calls that layer's function (``__wrapped__``). The checks run on the
operands' avals, so they hold under ``jit`` and ``make_jaxpr`` as eagerly; a check that passed
for some avals is remembered.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import numpy as np

from mj import _lax_composites
from mj_core import lax as _core
from mj_core import numpy as _mnp
from mj_core.dtypes import dtype_kind as kind
from mj_core.errors import user_line_suffix
from mj_core.extend import ShapedArray, array_views, bind1, get_aval
from mj_core.prims.conversions import convert_element_type_p

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

#: JAX's dtype categories (``np.floating``, ...), by the NumPy kinds they hold.
_CATEGORY_KINDS = {
    "integer": "iu",
    "signedinteger": "i",
    "floating": "f",
    "complexfloating": "c",
    "bool": "b",
}

_FC = ("floating", "complexfloating")
_F = ("floating",)
_I = ("integer",)
_NUM = ("integer", "floating", "complexfloating")
_ABS = ("floating", "complexfloating", "signedinteger")
_ORDERED = ("integer", "floating", "bool")
_BITWISE = ("integer", "bool")
_INT_FLOAT = ("integer", "floating")

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


#: ml_dtypes' narrow integers, whose NumPy kind is "V".
_NARROW_INT_KINDS = {"int2": "i", "int4": "i", "uint2": "u", "uint4": "u"}


def _accepts(dtype: np.dtype[Any], accepted: Sequence[str]) -> bool:
    k = _NARROW_INT_KINDS.get(dtype.name) or kind(dtype)
    return any(k in _CATEGORY_KINDS[c] for c in accepted)


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
    name: str, avals: Sequence[ShapedArray], accepted: Sequence[Sequence[str] | None], same: bool
) -> None:
    if len(avals) == 1:
        (a,), (ok,) = avals, accepted
        if ok is not None and not _accepts(a.dtype, ok):
            raise _fail(
                f"{name} does not accept dtype {a.dtype.name}. Accepted dtypes are subtypes "
                f"of {', '.join(ok)}."
            )
        return
    for i, (a, ok) in enumerate(zip(avals, accepted, strict=True)):
        if ok is not None and not _accepts(a.dtype, ok):
            raise _fail(
                f"{name} does not accept dtype {a.dtype.name} at position {i}. Accepted dtypes "
                f"at position {i} are subtypes of {', '.join(ok)}."
            )
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


def _aval(x: Any) -> ShapedArray:
    aval = get_aval(x)
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
    accepted: Sequence[Sequence[str] | None],
    *,
    same: bool = True,
) -> _F_co:
    """``fn`` (the lower layer's function of ``len(accepted)`` operands), after JAX's checks of
    its operands' shapes and dtypes (``accepted``: the categories per operand, ``None`` for
    any; ``same``: one dtype for all)."""
    passed: set[tuple[ShapedArray, ...]] = set()

    def check(avals: tuple[ShapedArray, ...]) -> None:
        if avals in passed:
            return
        if len(avals) > 1:
            _check_shapes(name, [a.shape for a in avals])
        _check_dtypes(name, avals, accepted, same)
        if len(passed) < 4096:
            passed.add(avals)

    if len(accepted) == 1:

        def op(x: Any, *args: Any, **params: Any) -> Any:  # (round's rounding_method, ...)
            if type(x) in array_views:  # typed keys: the lower layer refuses them, JAX's words
                return fn(x, *args, **params)
            a = _aval(x)
            check((a,))
            return _weak_as(fn(x, *args, **params), a.weak_type)

    else:

        def op(x: Any, y: Any) -> Any:  # type: ignore[misc]
            if type(x) in array_views or type(y) in array_views:
                return fn(x, y)
            a, b = _aval(x), _aval(y)
            check((a, b))
            return _weak_as(fn(x, y), a.weak_type and b.weak_type)

    return functools.wraps(fn)(op)  # type: ignore[return-value]


def _reciprocal(x: Any) -> Any:
    """``x ** -1`` (``lax.integer_pow(x, -1)``, as JAX's ``lax.reciprocal``)."""
    return _core.integer_pow(x, -1)


acos = _checked(_core.acos, "acos", (_FC,))
asin = _checked(_core.asin, "asin", (_FC,))
atan = _checked(_core.atan, "atan", (_FC,))
cos = _checked(_core.cos, "cos", (_FC,))
cosh = _checked(_core.cosh, "cosh", (_FC,))
exp = _checked(_core.exp, "exp", (_FC,))
expm1 = _checked(_core.expm1, "expm1", (_FC,))
log = _checked(_core.log, "log", (_FC,))
log1p = _checked(_core.log1p, "log1p", (_FC,))
logistic = _checked(_core.logistic, "logistic", (_FC,))
rsqrt = _checked(_core.rsqrt, "rsqrt", (_FC,))
sin = _checked(_core.sin, "sin", (_FC,))
sinh = _checked(_core.sinh, "sinh", (_FC,))
sqrt = _checked(_core.sqrt, "sqrt", (_FC,))
tan = _checked(_core.tan, "tan", (_FC,))
tanh = _checked(_core.tanh, "tanh", (_FC,))
ceil = _checked(_core.ceil, "ceil", (_F,))
floor = _checked(_core.floor, "floor", (_F,))
is_finite = _checked(_core.is_finite, "is_finite", (_F,))
erf = _checked(_core.erf, "erf", (_F,))
erfc = _checked(_core.erfc, "erfc", (_F,))
erf_inv = _checked(_core.erf_inv, "erf_inv", (_F,))
lgamma = _checked(_core.lgamma, "lgamma", (_F,))
digamma = _checked(_core.digamma, "digamma", (_F,))
bessel_i0e = _checked(_core.bessel_i0e, "bessel_i0e", (_F,))
bessel_i1e = _checked(_core.bessel_i1e, "bessel_i1e", (_F,))
round = _checked(_core.round, "round", (_F,))
acosh = _checked(_mnp.arccosh, "acosh", (_FC,))
asinh = _checked(_mnp.arcsinh, "asinh", (_FC,))
atanh = _checked(_mnp.arctanh, "atanh", (_FC,))
exp2 = _checked(_mnp.exp2, "exp2", (_FC,))
cbrt = _checked(_mnp.cbrt, "cbrt", (_F,))
square = _checked(_mnp.square, "square", (_NUM,))
reciprocal = _checked(_reciprocal, "reciprocal", (_NUM,))
integer_pow = _checked(_core.integer_pow, "integer_pow", (_NUM,))
neg = _checked(_core.neg, "neg", (_NUM,))
sign = _checked(_core.sign, "sign", (_NUM,))
abs = _checked(_core.abs, "abs", (_ABS,))
clz = _checked(_lax_composites.clz, "clz", (_I,))
population_count = _checked(_lax_composites.population_count, "population_count", (_I,))
add = _checked(_core.add, "add", (_NUM, _NUM))
sub = _checked(_core.sub, "sub", (_NUM, _NUM))
mul = _checked(_core.mul, "mul", (_NUM, _NUM))
div = _checked(_core.div, "div", (_NUM, _NUM))
rem = _checked(_core.rem, "rem", (_INT_FLOAT, _INT_FLOAT))
lt = _checked(_core.lt, "lt", (_ORDERED, _ORDERED))
le = _checked(_core.le, "le", (_ORDERED, _ORDERED))
gt = _checked(_core.gt, "gt", (_ORDERED, _ORDERED))
ge = _checked(_core.ge, "ge", (_ORDERED, _ORDERED))
eq = _checked(_core.eq, "eq", (None, None))
ne = _checked(_core.ne, "ne", (None, None))
max = _checked(_core.max, "max", (None, None))
min = _checked(_core.min, "min", (None, None))
atan2 = _checked(_core.atan2, "atan2", (_FC, _FC))
pow = _checked(_core.pow, "pow", (_FC, _NUM), same=False)
nextafter = _checked(_core.nextafter, "nextafter", (_F, _F))
bitwise_and = _checked(_core.bitwise_and, "and", (_BITWISE, _BITWISE))
bitwise_or = _checked(_core.bitwise_or, "or", (_BITWISE, _BITWISE))
bitwise_xor = _checked(_core.bitwise_xor, "xor", (_BITWISE, _BITWISE))
shift_left = _checked(_core.shift_left, "shift_left", (_I, _I))
shift_right_logical = _checked(_core.shift_right_logical, "shift_right_logical", (_I, _I))
shift_right_arithmetic = _checked(_core.shift_right_arithmetic, "shift_right_arithmetic", (_I, _I))
igamma = _checked(_core.igamma, "igamma", (_F, _F))
igammac = _checked(_core.igammac, "igammac", (_F, _F))

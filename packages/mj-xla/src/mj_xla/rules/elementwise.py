"""Lowering rules of the elementwise primitives.

StableHLO has no implicit broadcasting or promotion, while mj's elementwise primitives
broadcast like NumPy and promote with NEP 50. Every rule therefore first brings each operand
to the output shape and the *compute* dtype with ``lower_operands`` (see
:mod:`mj_xla._promotion`), then emits the natural op.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from mj_core import Primitive, ShapedArray
from mj_core.dtypes import float_info
from mj_core.prims.elementwise import (
    THREEFRY_PARITY,
    THREEFRY_ROTATIONS,
    abs_p,
    acos_p,
    add_p,
    and_p,
    asin_p,
    atan2_p,
    atan_p,
    category_kind,
    ceil_p,
    clamp_p,
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
    not_p,
    or_p,
    pow_p,
    rem_p,
    round_p,
    rsqrt_p,
    select_n_p,
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
    threefry2x32_p,
    xor_p,
)
from mj_xla._jaxlib import Value, chlo, hlo, ir, ir_tensor_type
from mj_xla._lowering import (
    Avals,
    LoweringContext,
    Values,
    aval_to_ir_type,
    broadcast_to_aval,
    compare,
    ir_constant,
    lowering_rules,
)
from mj_xla._monoids import lexicographic_extremum
from mj_xla._promotion import lower_operands, register_elementwise

__all__: list[str] = []


def _full(value: Any, shape: tuple[int, ...], dtype: np.dtype[Any]) -> Value:
    scalar = ir_constant(value, dtype)
    if not shape:
        return scalar
    return hlo.broadcast_in_dim(ir_tensor_type(shape, dtype), scalar, [])


for _prim, _op in [
    (neg_p, hlo.negate),
    (tan_p, hlo.tan),
    (asin_p, chlo.asin),
    (acos_p, chlo.acos),
    (atan_p, chlo.atan),
    (tanh_p, hlo.tanh),
    (exp_p, hlo.exponential),
    (log_p, hlo.log),
    (log1p_p, hlo.log_plus_one),
    (expm1_p, hlo.exponential_minus_one),
    (sqrt_p, hlo.sqrt),
    (rsqrt_p, hlo.rsqrt),
    (erf_p, chlo.erf),
    (abs_p, hlo.abs),
    (add_p, hlo.add),
    (sub_p, hlo.subtract),
    (mul_p, hlo.multiply),
    (div_p, hlo.divide),
    (rem_p, hlo.remainder),
    (pow_p, hlo.power),
    (atan2_p, hlo.atan2),
    (and_p, hlo.and_),
    (or_p, hlo.or_),
    (xor_p, hlo.xor),
    (shift_left_p, hlo.shift_left),
    (shift_right_logical_p, hlo.shift_right_logical),
    (shift_right_arithmetic_p, hlo.shift_right_arithmetic),  # what the impl rule follows
    (nextafter_p, chlo.next_after),
]:
    register_elementwise(_prim, _op)  # type: ignore[arg-type]


def _complex_sin_cos(x: Value, dtype: np.dtype[Any], shape: tuple[int, ...], cos: bool) -> Value:
    """JAX's complex sin/cos: ``stablehlo.sine`` loses the digits of a tiny imaginary part and
    turns ``sin(1e5j)`` into ``nan+infj``. Through real sin/cos and ``expm1`` (``2 sinh b =
    expm1(b) - expm1(-b)``, ``2 cosh b = expm1(b) + expm1(-b) + 2``), with the part that is
    ``0 * inf`` on the imaginary axis set to an exact 0."""
    part = float_info(dtype).dtype
    a, b = hlo.real(x), hlo.imag(x)
    sn, cs = hlo.sine(a), hlo.cosine(a)
    e1m, e2m = hlo.exponential_minus_one(b), hlo.exponential_minus_one(hlo.negate(b))
    two = _full(2, shape, part)
    snh = hlo.divide(hlo.subtract(e1m, e2m), two)
    csh = hlo.divide(hlo.add(hlo.add(e1m, e2m), two), two)
    zero = _full(0, shape, part)
    a_is_zero = compare(a, zero, "EQ", part)
    if cos:
        re, im = hlo.multiply(cs, csh), hlo.negate(hlo.multiply(sn, snh))
        return hlo.select(a_is_zero, hlo.complex(re, zero), hlo.complex(re, im))
    re, im = hlo.multiply(sn, csh), hlo.multiply(cs, snh)
    return hlo.select(a_is_zero, hlo.complex(zero, im), hlo.complex(re, im))


def _times_i(x: Value, sign: int) -> Value:
    """``1j * x`` (``sign=1``) or ``-1j * x`` exactly, by swapping the parts."""
    re, im = hlo.real(x), hlo.imag(x)
    return hlo.complex(hlo.negate(im), re) if sign > 0 else hlo.complex(im, hlo.negate(re))


def _register_sin_cos(
    prim: Primitive, op: Callable[..., Value], cos: bool, hyperbolic: bool
) -> None:
    """sin/cos, and sinh/cosh as ``sinh z = -i sin(iz)``, ``cosh z = cos(iz)`` on complex
    operands (``chlo.sinh`` loses the digits of small complex arguments as ``stablehlo.sine``
    does)."""

    def rule(
        ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
    ) -> list[Value]:
        (x,), dtype = lower_operands(prim, avals_in, avals_out, in_vals)
        if dtype.kind != "c":
            return [op(x)]
        shape = avals_out[0].shape
        if not hyperbolic:
            return [_complex_sin_cos(x, dtype, shape, cos)]
        out = _complex_sin_cos(_times_i(x, 1), dtype, shape, cos)
        return [out if cos else _times_i(out, -1)]

    rule.__name__ = f"{prim.name}_lowering"
    lowering_rules[prim] = rule


_register_sin_cos(sin_p, hlo.sine, cos=False, hyperbolic=False)
_register_sin_cos(cos_p, hlo.cosine, cos=True, hyperbolic=False)
_register_sin_cos(sinh_p, chlo.sinh, cos=False, hyperbolic=True)
_register_sin_cos(cosh_p, chlo.cosh, cos=True, hyperbolic=True)


def _register_extremum(
    prim: Primitive, op: Callable[..., Value], bool_op: Callable[..., Value]
) -> None:
    """max/min; on bool they are or/and, on complex numbers JAX's lexicographic pick."""
    direction = "GT" if prim is max_p else "LT"

    def rule(
        ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
    ) -> list[Value]:
        (x, y), dtype = lower_operands(prim, avals_in, avals_out, in_vals)
        if dtype.kind == "c":
            return [lexicographic_extremum(direction, dtype)(x, y)]
        return [bool_op(x, y) if dtype == np.bool_ else op(x, y)]

    rule.__name__ = f"{prim.name}_lowering"
    lowering_rules[prim] = rule


_register_extremum(max_p, hlo.maximum, hlo.or_)
_register_extremum(min_p, hlo.minimum, hlo.and_)


def _lower_integral_identity(prim: Primitive, op: Callable[..., Value]) -> None:
    """floor/ceil/round: the float op, or the identity on integers (as in NumPy)."""

    def rule(
        ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values, **params: Any
    ) -> list[Value]:
        (x,), dtype = lower_operands(prim, avals_in, avals_out, in_vals)
        return [x if category_kind(dtype) in "iu" else op(x, **params)]

    rule.__name__ = f"{prim.name}_lowering"
    lowering_rules[prim] = rule


def _round(x: Value, *, rounding_method: int = 0) -> Value:
    return hlo.round_nearest_even(x) if rounding_method == 1 else hlo.round_nearest_afz(x)


_lower_integral_identity(floor_p, hlo.floor)
_lower_integral_identity(ceil_p, hlo.ceil)
_lower_integral_identity(round_p, _round)


def _sign_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    (x,), dtype = lower_operands(sign_p, avals_in, avals_out, in_vals)
    if category_kind(dtype) == "u":  # stablehlo.sign is for signed types: of unsigned x, x != 0
        nonzero = compare(x, _full(0, avals_out[0].shape, dtype), "NE", dtype)
        return [hlo.convert(x.type, nonzero)]
    return [hlo.sign(x)]


lowering_rules[sign_p] = _sign_lowering


def _is_finite_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    (x,), dtype = lower_operands(is_finite_p, avals_in, avals_out, in_vals)
    if category_kind(dtype) in "iu":
        return [_full(True, avals_out[0].shape, np.dtype(np.bool_))]
    return [hlo.is_finite(x)]


lowering_rules[is_finite_p] = _is_finite_lowering


def _not_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    (x,), _ = lower_operands(not_p, avals_in, avals_out, in_vals)
    return [hlo.not_(x)]


lowering_rules[not_p] = _not_lowering


def _integer_pow_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values, *, y: int
) -> list[Value]:
    """x ** y by repeated squaring (what XLA would do for a constant exponent)."""
    (x,), dtype = lower_operands(integer_pow_p, avals_in, avals_out, in_vals)
    shape = avals_out[0].shape
    acc: Value | None = None
    base, n = x, abs(y)
    while n:
        if n & 1:
            acc = base if acc is None else hlo.multiply(acc, base)
        n >>= 1
        if n:
            base = hlo.multiply(base, base)
    if acc is None:
        acc = _full(1, shape, dtype)
    if y < 0:
        acc = hlo.divide(_full(1, shape, dtype), acc)
    return [acc]


lowering_rules[integer_pow_p] = _integer_pow_lowering


def _logistic_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    """``1 / (1 + exp(-x))``, JAX's lowering (not ``stablehlo.logistic``), for complex too."""
    (x,), dtype = lower_operands(logistic_p, avals_in, avals_out, in_vals)
    one = _full(1, avals_out[0].shape, dtype)
    return [hlo.divide(one, hlo.add(one, hlo.exponential(hlo.negate(x))))]


lowering_rules[logistic_p] = _logistic_lowering


def _register_comparison(prim: Primitive, direction: str) -> None:
    def rule(
        ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
    ) -> list[Value]:
        (x, y), dtype = lower_operands(prim, avals_in, avals_out, in_vals)
        return [compare(x, y, direction, dtype)]

    rule.__name__ = f"{prim.name}_lowering"
    lowering_rules[prim] = rule


for _prim, _direction in [
    (eq_p, "EQ"),
    (ne_p, "NE"),
    (less_p, "LT"),
    (less_equal_p, "LE"),
    (greater_p, "GT"),
    (greater_equal_p, "GE"),
]:
    _register_comparison(_prim, _direction)


def _select_n_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    """``cases[which]``: one ``select`` for a bool selector, a balanced tree of selects on
    ``which < mid`` for an integer one (``which`` clamped into range, like the impl)."""
    out = avals_out[0]
    which_aval, which = avals_in[0], in_vals[0]
    which = broadcast_to_aval(which, which_aval, out.shape, which_aval.dtype)
    cases = [
        broadcast_to_aval(v, a, out.shape, out.dtype)
        for v, a in zip(in_vals[1:], avals_in[1:], strict=True)
    ]
    if which_aval.dtype == np.bool_:
        return [hlo.select(which, cases[1], cases[0])]
    if len(cases) == 1:
        return [cases[0]]

    def tree(lo: int, hi: int) -> Value:
        if hi - lo == 1:
            return cases[lo]
        mid = (lo + hi) // 2
        pred = compare(which, _full(mid, out.shape, which_aval.dtype), "LT", which_aval.dtype)
        return hlo.select(pred, tree(lo, mid), tree(mid, hi))

    return [tree(0, len(cases))]


lowering_rules[select_n_p] = _select_n_lowering


def _clamp_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    (lo, x, hi), _ = lower_operands(clamp_p, avals_in, avals_out, in_vals)
    return [hlo.clamp(lo, x, hi)]


lowering_rules[clamp_p] = _clamp_lowering


# --- threefry2x32 -----------------------------------------------------------------------------
_U32 = np.dtype(np.uint32)
_I32 = np.dtype(np.int32)
#: The platforms whose modules run the hash's rounds in a loop (JAX's ``use_rolled_loops``: a
#: loop compiles faster; a GPU runs the unrolled body faster).
THREEFRY_ROLLED_PLATFORMS = {"cpu"}


def _threefry2x32_lowering(
    ctx: LoweringContext, avals_in: Avals, avals_out: Avals, in_vals: Values
) -> list[Value]:
    """A call of the private function ``threefry2x32``, emitted once per module and operand
    types, as JAX does (``inline=False``): the hash is about 100 operations, and inlined at each
    use XLA would fuse a copy of it into every consumer of the bits. On the CPU its five groups
    of four rounds are one ``while`` loop (JAX's ``use_rolled_loops``), elsewhere unrolled."""
    rolled = ctx.platform in THREEFRY_ROLLED_PLATFORMS

    def emit(params: list[Value]) -> list[Value]:
        return _threefry2x32_body(avals_in, avals_out[0].shape, rolled, params)

    key = ("threefry2x32", rolled, tuple(avals_in))
    return ctx.call_function("threefry2x32", key, avals_in, avals_out, emit, in_vals)


def _u32_full(value: Any, shape: tuple[int, ...]) -> Value:
    return _full(np.uint32(value), shape, _U32)


def _rotate_left(x: Value, d: Value, shape: tuple[int, ...]) -> Value:
    """``x`` rotated left by ``d`` bits (``0 < d < 32``; ``d`` of ``x``'s shape)."""
    left = hlo.shift_left(x, d)
    return hlo.or_(left, hlo.shift_right_logical(x, hlo.subtract(_u32_full(32, shape), d)))


def _threefry_rounds(x: list[Value], rotations: list[Value], shape: tuple[int, ...]) -> None:
    """Four Threefry rounds on the words ``x``, in place: mix, rotate by each distance, xor."""
    for r in rotations:
        x[0] = hlo.add(x[0], x[1])
        x[1] = hlo.xor(x[0], _rotate_left(x[1], r, shape))


def _threefry2x32_body(
    avals_in: Avals, shape: tuple[int, ...], rolled: bool, params: list[Value]
) -> list[Value]:
    """Threefry-2x32 on the four parameters (broadcast to ``shape``): the key words stay at
    their own (usually scalar) shape and are broadcast where they are injected."""
    k_aval = ShapedArray(np.broadcast_shapes(avals_in[0].shape, avals_in[1].shape), _U32)
    kshape = k_aval.shape
    k1, k2 = (
        broadcast_to_aval(v, a, kshape, _U32) for v, a in zip(params[:2], avals_in[:2], strict=True)
    )
    ks = [k1, k2, hlo.xor(hlo.xor(k1, k2), _u32_full(THREEFRY_PARITY, kshape))]
    x = [
        broadcast_to_aval(v, a, shape, _U32) for v, a in zip(params[2:], avals_in[2:], strict=True)
    ]

    def to_shape(k: Value) -> Value:
        return broadcast_to_aval(k, k_aval, shape, _U32)

    x[0] = hlo.add(x[0], to_shape(ks[0]))
    x[1] = hlo.add(x[1], to_shape(ks[1]))
    if not rolled:
        for i in range(5):
            _threefry_rounds(x, [_u32_full(r, shape) for r in THREEFRY_ROTATIONS[i % 2]], shape)
            x[0] = hlo.add(x[0], to_shape(ks[(i + 1) % 3]))
            x[1] = hlo.add(hlo.add(x[1], to_shape(ks[(i + 2) % 3])), _u32_full(i + 1, shape))
        return x
    # The loop carries the counter, the words, the key words rotated by one each group and
    # the two rotation schedules swapped each group (JAX's ``rolled_loop_step``).
    rot_aval = ShapedArray((4,), _U32)
    rots = [ir_constant(np.array(r, _U32)) for r in THREEFRY_ROTATIONS]
    out_aval = ShapedArray(shape, _U32)
    carry_avals = [ShapedArray((), _I32), out_aval, out_aval, k_aval, k_aval, k_aval]
    carry_types = [aval_to_ir_type(a) for a in [*carry_avals, rot_aval, rot_aval]]
    init = [ir_constant(np.array(0, _I32)), *x, ks[1], ks[2], ks[0], *rots]
    loop = hlo.WhileOp(carry_types, init)
    cond = loop.cond.blocks.append(*carry_types)
    with ir.InsertionPoint(cond):
        five = ir_constant(np.array(5, _I32))
        hlo.return_([compare(cond.arguments[0], five, "LT", _I32)])
    body = loop.body.blocks.append(*carry_types)
    with ir.InsertionPoint(body):
        group, w1, w2, ka, kb, kc, rot, rot_next = body.arguments
        words: list[Value] = [w1, w2]
        scalar = ir_tensor_type((), _U32)
        distances = [
            broadcast_to_aval(
                hlo.reshape(scalar, hlo.slice(rot, [j], [j + 1], [1])),
                ShapedArray((), _U32),
                shape,
                _U32,
            )
            for j in range(4)
        ]
        _threefry_rounds(words, distances, shape)
        group_next = hlo.add(group, ir_constant(np.array(1, _I32)))
        count = broadcast_to_aval(group_next, ShapedArray((), _I32), shape, _U32)
        words[0] = hlo.add(words[0], to_shape(ka))
        words[1] = hlo.add(hlo.add(words[1], to_shape(kb)), count)
        hlo.return_([group_next, *words, kb, kc, ka, rot_next, rot])
    results: list[Value] = list(loop.results)
    return results[1:3]


lowering_rules[threefry2x32_p] = _threefry2x32_lowering

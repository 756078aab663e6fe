"""Differential testing: random programs under random transformation stacks, run by mj and by
JAX, must agree in values (per-dtype tolerances), shapes and dtypes.

A program is a small data structure (argument types and a list of ``Op``s reading earlier
values by index) built by hypothesis while tracking every value's shape and kind, so it is
valid by construction. It is interpreted twice by the same code, once with ``mj.numpy`` /
``mj.lax`` and once with ``jax.numpy`` / ``jax.lax``, and wrapped in the same stack of
transformations (none, jit, grad, vmap with random in_axes/out_axes, jvp, vjp, linearize,
up to three deep).

CI runs a fixed, derandomized budget; ``MJ_DIFF_EXAMPLES=2000`` runs a larger one.

Deliberate differences from JAX are kept out of the generated programs, because mj follows
NumPy 2's dtype rules where JAX has its own (DESIGN.md section 2): float-valued ops on
integers (``sin(int32)`` is float64 in mj and NumPy, float32 in JAX), ``mean``/``cumsum`` of
int32, and mixing integer with float operands. Integer values only meet dtype-preserving
ops.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle

MAX_EXAMPLES = int(os.environ.get("MJ_DIFF_EXAMPLES", "120"))


class Backend(NamedTuple):
    """One implementation of the API the programs use."""

    np: Any
    lax: Any
    jit: Callable[..., Any]
    grad: Callable[..., Any]
    vmap: Callable[..., Any]
    jvp: Callable[..., Any]
    vjp: Callable[..., Any]
    linearize: Callable[..., Any]


MJ = Backend(mnp, mj.lax, mj.jit, mj.grad, mj.vmap, mj.jvp, mj.vjp, mj.linearize)
JAX = Backend(jnp, jax.lax, jax.jit, jax.grad, jax.vmap, jax.jvp, jax.vjp, jax.linearize)


# --- the operations a program is made of: (backend, *inputs, *params) -> list of outputs ------


def _sin(b, x):
    return [b.np.sin(x)]


def _cos(b, x):
    return [b.np.cos(x)]


def _tanh(b, x):
    return [b.np.tanh(x)]


def _exp_tanh(b, x):
    return [b.np.exp(b.np.tanh(x))]


def _log1p_abs(b, x):
    return [b.np.log1p(b.np.abs(x))]


def _sqrt_sq1(b, x):
    return [b.np.sqrt(x * x + 1.0)]


def _logistic(b, x):
    return [b.lax.logistic(x)]


def _cumsum(b, x, axis):
    return [b.np.cumsum(x, axis=axis)]


def _mean(b, x, axis, keepdims):
    return [b.np.mean(x, axis=axis, keepdims=keepdims)]


def _neg(b, x):
    return [-x]


def _square(b, x):
    return [b.np.square(x)]


def _sum(b, x, axis, keepdims):
    return [b.np.sum(x, axis=axis, keepdims=keepdims)]


def _max(b, x, axis, keepdims):
    return [b.np.max(x, axis=axis, keepdims=keepdims)]


def _min(b, x, axis, keepdims):
    return [b.np.min(x, axis=axis, keepdims=keepdims)]


def _prod(b, x, axis, keepdims):
    return [b.np.prod(x, axis=axis, keepdims=keepdims)]


def _reshape(b, x, shape):
    return [b.np.reshape(x, shape)]


def _transpose(b, x, perm):
    return [b.np.transpose(x, perm)]


def _expand_dims(b, x, axis):
    return [b.np.expand_dims(x, axis)]


def _squeeze(b, x, axis):
    return [b.np.squeeze(x, axis)]


def _index(b, x, k):
    return [x[k]]


def _slice(b, x, axis, start, stop, step):
    return [x[(slice(None),) * axis + (slice(start, stop, step),)]]


def _take(b, x, axis, idx):
    return [x[(slice(None),) * axis + (np.asarray(idx),)]]


def _gram(b, x):
    if x.ndim == 1:
        return [b.np.dot(x, x)]
    return [b.np.matmul(x, b.np.swapaxes(x, -1, -2))]


def _cond(b, x):
    return [b.lax.cond(b.np.sum(x) > 0, lambda v: v * v, lambda v: -v, x)]


def _scan(b, x):
    def body(c, xi):
        return c * xi + xi, c - xi

    carry, ys = b.lax.scan(body, x[0], x)
    return [ys, carry]


def _concat(b, x, axis):
    return [b.np.concatenate([x, x * 2], axis=axis)]


def _at_add(b, x, k):
    # asarray: the inputs may be NumPy arrays, which have no .at (in JAX and mj alike)
    return [b.np.asarray(x).at[k].add(x[k] * 3)]


def _at_set(b, x, k):
    return [b.np.asarray(x).at[k].set(x[k - 1])]


def _sort(b, x, axis):
    return [b.np.sort(x, axis=axis)]


def _clip(b, x):
    return [b.np.clip(x, -1, 1)]


def _ipow(b, x):
    return [x**3]


def _var(b, x, axis, keepdims):
    return [b.np.var(x, axis=axis, keepdims=keepdims)]


def _fori(b, x):
    return [b.lax.fori_loop(0, 3, lambda i, c: c * x - c, x)]


def _dyn_index(b, x):
    """``x[k]`` with ``k`` computed from the data: a gather of a traced index under jit/vmap."""
    k = b.np.argmax(b.np.reshape(x, (x.shape[0], -1))[:, 0])
    return [x[k]]


def _argmax(b, x, axis):
    return [b.np.argmax(x, axis=axis)]


def _add(b, x, y):
    return [x + y]


def _sub(b, x, y):
    return [x - y]


def _mul(b, x, y):
    return [x * y]


def _maximum(b, x, y):
    return [b.np.maximum(x, y)]


def _minimum(b, x, y):
    return [b.np.minimum(x, y)]


def _where_pos(b, x, y):
    return [b.np.where(x > 0, x, y)]


def _safe_div(b, x, y):
    return [x / (y * y + 1.0)]


def _matmul(b, x, y):
    return [b.np.matmul(x, y)]


def _add_lit(b, x, v):
    return [x + v]


def _mul_lit(b, x, v):
    return [x * v]


OPS: dict[str, Callable[..., list[Any]]] = {
    f.__name__[1:]: f
    for f in (
        _sin, _cos, _tanh, _exp_tanh, _log1p_abs, _sqrt_sq1, _logistic, _cumsum, _mean,
        _neg, _square, _sum, _max, _min, _prod, _reshape, _transpose, _expand_dims, _squeeze,
        _index, _slice, _take, _gram, _cond, _scan, _add, _sub, _mul, _maximum, _minimum,
        _where_pos, _safe_div, _matmul, _add_lit, _mul_lit, _concat, _at_add, _at_set, _sort,
        _clip, _ipow, _var, _fori, _dyn_index, _argmax,
    )
}  # fmt: skip

FLOAT_UNARY = ("sin", "cos", "tanh", "exp_tanh", "log1p_abs", "sqrt_sq1", "logistic")
ANY_UNARY = ("neg", "square", "cond", "clip", "ipow", "fori")
REDUCTIONS = ("sum", "max", "min", "prod")
ANY_BINARY = ("add", "sub", "mul", "maximum", "minimum", "where_pos")


@dataclass(frozen=True)
class Op:
    name: str
    ins: tuple[int, ...]
    params: tuple[Any, ...] = ()


@dataclass(frozen=True)
class Program:
    arg_types: tuple[tuple[tuple[int, ...], str], ...]  # (shape, dtype name)
    ops: tuple[Op, ...]

    def __call__(self, b: Backend, *args: Any) -> Any:
        env = [b.np.asarray(a) for a in args]
        for op in self.ops:
            env.extend(OPS[op.name](b, *(env[i] for i in op.ins), *op.params))
        return env[-1]


@dataclass(frozen=True)
class Transform:
    kind: str  # jit, grad, jvp, vjp, linearize, vmap
    in_axes: tuple[int | None, ...] = ()
    out_axes: int = 0


# --- generation: shapes and kinds are tracked so every program is valid ----------------------

Shape = tuple[int, ...]


def _broadcast(s: Shape, t: Shape) -> Shape | None:
    out = []
    rs, rt = s[::-1] + (1,) * (len(t) - len(s)), t[::-1] + (1,) * (len(s) - len(t))
    for a, c in zip(rs, rt, strict=True):
        if a != c and 1 not in (a, c):
            return None
        out.append(max(a, c))
    return tuple(out[::-1])


def _matmul_shape(s: Shape, t: Shape) -> Shape | None:
    if not s or not t:
        return None
    if len(s) == 1 and len(t) == 1:
        return () if s == t else None
    if len(s) == 1:
        return t[:-2] + t[-1:] if s[0] == t[-2] else None
    if len(t) == 1:
        return s[:-1] if s[-1] == t[0] else None
    if s[-1] != t[-2]:
        return None
    batch = _broadcast(s[:-2], t[:-2])
    return None if batch is None else (*batch, s[-2], t[-1])


def _reduced(shape: Shape, axis: int | tuple[int, ...] | None, keepdims: bool) -> Shape:
    axes = range(len(shape)) if axis is None else (axis,) if isinstance(axis, int) else axis
    axes = {a % len(shape) for a in axes}
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


shapes = st.lists(st.integers(1, 4), max_size=3).map(tuple)


@st.composite
def programs(draw: st.DrawFn, float_only: bool) -> Program:
    n_args = draw(st.integers(1, 3))
    arg_types = []
    vals: list[tuple[Shape, str]] = []  # (shape, kind) of every value so far
    for _ in range(n_args):
        kind = "f" if float_only else draw(st.sampled_from("ffi"))
        dtype = draw(st.sampled_from(("float32", "float64") if kind == "f" else ("int32", "int64")))
        shape = draw(shapes)
        arg_types.append((shape, dtype))
        vals.append((shape, kind))
    ops = []
    for _ in range(draw(st.integers(1, 6))):
        i = draw(st.one_of(st.just(len(vals) - 1), st.integers(0, len(vals) - 1)))
        op, outs = _draw_op(draw, i, vals, float_only)
        ops.append(op)
        vals.extend(outs)
    return Program(tuple(arg_types), tuple(ops))


def _draw_op(
    draw: st.DrawFn, i: int, vals: list[tuple[Shape, str]], float_only: bool
) -> tuple[Op, list[Any]]:
    shape, kind = vals[i]
    rank = len(shape)
    names = list(ANY_UNARY + REDUCTIONS + ("reshape", "add_lit", "mul_lit"))
    if kind == "f":
        names += (*FLOAT_UNARY, "mean", "var")
    if rank:
        names += ["transpose", "index", "slice", "take", "scan", "gram", "concat", "at_add"]
        names += ["at_set", "sort", "dyn_index"]
        names += ["argmax"] if not float_only else []
        names += ["cumsum"] if kind == "f" else []
    if rank < 3:
        names.append("expand_dims")
    if 1 in shape:
        names.append("squeeze")
    partners = [
        j for j, (s, k) in enumerate(vals) if k == kind and _broadcast(shape, s) is not None
    ]
    names += list(ANY_BINARY) + (["safe_div"] if kind == "f" else [])
    mm = [j for j, (s, k) in enumerate(vals) if k == kind and _matmul_shape(shape, s) is not None]
    if mm:
        names.append("matmul")
    name = draw(st.sampled_from(names))
    same = [(shape, kind)]
    if name in FLOAT_UNARY or name in ANY_UNARY:
        return Op(name, (i,)), same
    if name == "gram":
        out = () if rank == 1 else shape[:-1] + shape[-2:-1]
        return Op(name, (i,)), [(out, kind)]
    if name in REDUCTIONS or name in ("mean", "var"):
        axis: Any = None
        if rank:
            axis = draw(
                st.one_of(
                    st.none(),
                    st.integers(-rank, rank - 1),
                    st.lists(st.integers(0, rank - 1), min_size=1, unique=True).map(tuple),
                )
            )
        keepdims = draw(st.booleans())
        return Op(name, (i,), (axis, keepdims)), [(_reduced(shape, axis, keepdims), kind)]
    if name == "reshape":
        new = tuple(shape[p] for p in draw(st.permutations(range(rank))))
        new = (*new[:1], 1, *new[1:]) if rank < 3 and draw(st.booleans()) else new
        return Op(name, (i,), (new,)), [(new, kind)]
    if name in ("add_lit", "mul_lit"):
        lit = draw(st.sampled_from((2, -1, 0.5, 1.5) if kind == "f" else (2, -1, 3)))
        return Op(name, (i,), (lit,)), same
    if name == "transpose":
        perm = tuple(draw(st.permutations(range(rank))))
        return Op(name, (i,), (perm,)), [(tuple(shape[p] for p in perm), kind)]
    if name == "index":
        k = draw(st.integers(-shape[0], shape[0] - 1))
        return Op(name, (i,), (k,)), [(shape[1:], kind)]
    if name == "slice":
        axis = draw(st.integers(0, rank - 1))
        n = shape[axis]
        start = draw(st.integers(0, n - 1))
        stop = draw(st.integers(start + 1, n))
        step = draw(st.integers(1, 2))
        size = len(range(start, stop, step))
        out = (*shape[:axis], size, *shape[axis + 1 :])
        return Op(name, (i,), (axis, start, stop, step)), [(out, kind)]
    if name == "take":
        axis = draw(st.integers(0, rank - 1))
        n = shape[axis]
        idx = tuple(draw(st.lists(st.integers(-n, n - 1), min_size=1, max_size=3)))
        out = (*shape[:axis], len(idx), *shape[axis + 1 :])
        return Op(name, (i,), (axis, idx)), [(out, kind)]
    if name == "concat":
        axis = draw(st.integers(-rank, rank - 1))
        out = list(shape)
        out[axis] *= 2
        return Op(name, (i,), (axis,)), [(tuple(out), kind)]
    if name in ("at_add", "at_set"):
        return Op(name, (i,), (draw(st.integers(-shape[0], shape[0] - 1)),)), same
    if name == "sort":
        return Op(name, (i,), (draw(st.integers(-rank, rank - 1)),)), same
    if name == "dyn_index":
        return Op(name, (i,)), [(shape[1:], kind)]
    if name == "argmax":
        axis = draw(st.integers(-rank, rank - 1))
        return Op(name, (i,), (axis,)), [(_reduced(shape, axis, False), "i")]
    if name == "scan":
        return Op(name, (i,)), [(shape, kind), (shape[1:], kind)]
    if name == "cumsum":
        return Op(name, (i,), (draw(st.integers(-rank, rank - 1)),)), same
    if name == "expand_dims":
        axis = draw(st.integers(-rank - 1, rank))
        out = list(shape)
        out.insert(axis % (rank + 1), 1)
        return Op(name, (i,), (axis,)), [(tuple(out), kind)]
    if name == "squeeze":
        axis = draw(st.sampled_from([a for a, d in enumerate(shape) if d == 1]))
        return Op(name, (i,), (axis,)), [(shape[:axis] + shape[axis + 1 :], kind)]
    if name == "matmul":
        j = draw(st.sampled_from(mm))
        out_mm = _matmul_shape(shape, vals[j][0])
        assert out_mm is not None
        return Op(name, (i, j)), [(out_mm, kind)]
    j = draw(st.sampled_from(partners))
    out_b = _broadcast(shape, vals[j][0])
    assert out_b is not None
    return Op(name, (i, j)), [(out_b, kind)]


AD_KINDS = ("grad", "jvp", "vjp", "linearize")


@dataclass(frozen=True)
class Case:
    """A program, a transformation stack (outermost first), the shapes of the arguments the
    outermost function takes, and the seed of their values."""

    program: Program
    stack: tuple[Transform, ...]
    arg_shapes: tuple[Shape, ...]
    seed: int


@st.composite
def cases(draw: st.DrawFn) -> Case:
    kinds = draw(st.lists(st.sampled_from(("jit", "vmap", *AD_KINDS)), max_size=3))
    prog = draw(programs(float_only=any(k in AD_KINDS for k in kinds)))
    arg_shapes = [s for s, _ in prog.arg_types]
    out_shape = _program_out_shape(prog)
    stack = []
    for kind in reversed(kinds):  # innermost first: argument and output shapes grow outwards
        if kind in ("grad", "vjp"):
            out_shape = arg_shapes[0]
        if kind != "vmap":
            stack.append(Transform(kind))
            continue
        size = draw(st.integers(1, 3))
        axes = [draw(st.one_of(st.none(), st.integers(-len(s) - 1, len(s)))) for s in arg_shapes]
        if all(a is None for a in axes):
            axes[0] = 0
        for n, (s, a) in enumerate(zip(arg_shapes, axes, strict=True)):
            if a is not None:
                arg_shapes[n] = _insert(s, a, size)
        out_axes = draw(st.integers(-len(out_shape) - 1, len(out_shape)))
        out_shape = _insert(out_shape, out_axes, size)
        stack.append(Transform(kind, tuple(axes), out_axes))
    return Case(prog, tuple(reversed(stack)), tuple(arg_shapes), draw(st.integers(0, 2**32 - 1)))


def _insert(shape: Shape, axis: int, size: int) -> Shape:
    out = list(shape)
    out.insert(axis % (len(shape) + 1), size)
    return tuple(out)


def _program_out_shape(prog: Program) -> Shape:
    args = [jax.ShapeDtypeStruct(s, d) for s, d in prog.arg_types]
    out = jax.eval_shape(lambda *a: prog(JAX, *a), *args)
    return tuple(out.shape)


# --- running a case on both backends ---------------------------------------------------------


def _wrap(b: Backend, t: Transform, f: Callable[..., Any]) -> Callable[..., Any]:
    if t.kind == "jit":
        return b.jit(f)
    if t.kind == "grad":
        return b.grad(lambda *a: b.np.sum(b.np.sin(f(*a))))
    if t.kind == "jvp":

        def jvp_fun(*a):
            p, tan = b.jvp(f, a, tuple(b.np.cos(x) for x in a))
            return tan + 0.5 * p

        return jvp_fun
    if t.kind == "vjp":

        def vjp_fun(*a):
            out, pullback = b.vjp(f, *a)
            return pullback(b.np.sin(out))[0]

        return vjp_fun
    if t.kind == "linearize":

        def lin_fun(*a):
            out, f_jvp = b.linearize(f, *a)
            return f_jvp(*(b.np.cos(x) for x in a)) + 0.5 * out

        return lin_fun
    return b.vmap(f, in_axes=t.in_axes, out_axes=t.out_axes)


def build(b: Backend, prog: Program, stack: tuple[Transform, ...]) -> Callable[..., Any]:
    f: Callable[..., Any] = lambda *a: prog(b, *a)  # noqa: E731
    for t in reversed(stack):
        f = _wrap(b, t, f)
    return f


def make_args(case: Case) -> list[np.ndarray]:
    rng = np.random.default_rng(case.seed)
    args = []
    for (_, dtype), shape in zip(case.program.arg_types, case.arg_shapes, strict=True):
        if dtype.startswith("float"):
            args.append(rng.uniform(-2.0, 2.0, size=shape).astype(dtype))
        else:
            args.append(rng.integers(-3, 4, size=shape).astype(dtype))
    return args


TOLERANCES = {  # (rtol, atol relative to the reference's magnitude)
    np.dtype("float64"): (1e-9, 1e-11),
    np.dtype("float32"): (1e-3, 1e-4),  # XLA and NumPy transcendentals differ in the last bits
}


def assert_agree(case: Case) -> None:
    args = make_args(case)
    want = np.asarray(build(JAX, case.program, case.stack)(*args))
    got = np.asarray(build(MJ, case.program, case.stack)(*args))
    assert got.shape == want.shape, f"shape: mj {got.shape}, jax {want.shape}"
    assert got.dtype == want.dtype, f"dtype: mj {got.dtype}, jax {want.dtype}"
    if got.dtype.kind in "fc":
        rtol, atol = TOLERANCES[got.dtype]
        scale = 1.0 + float(np.max(np.abs(want), initial=0.0))
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol * scale)
    else:
        np.testing.assert_array_equal(got, want)


@settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
@given(cases())
def test_mj_agrees_with_jax(case: Case) -> None:
    assert_agree(case)

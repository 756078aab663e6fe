"""Random short programs (issue 24): the same program gives the same answer in mj eager,
``mj.eval_jaxpr(mj.make_jaxpr(f))``, ``mj.jit`` and JAX's jit.

A seeded generator composes elementwise functions, reductions and cumulative functions over
a pool of values of several shapes and dtypes (so binary functions exercise the promotion
lattice and broadcasting), in both x64 modes. Dtypes must agree exactly, values within a
tolerance for the dtype (NaN-aware). Discontinuous functions (floor, round, sign) only see
the program's inputs: after a chain of roundings, a one-ULP difference would move a value
across a step, which says nothing about either library.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj_core import config

pytestmark = pytest.mark.oracle

Module = Any  # mj.numpy or jax.numpy: the programs are written once for both


class Fn(NamedTuple):
    """One function the generator may apply: ``apply(module, *operands)``, the dtype kinds
    it takes, whether it only sees the program's inputs (a discontinuous function) and
    whether it works along the last axis (no 0-d operand)."""

    name: str
    arity: int
    kinds: str
    apply: Callable[..., Any]
    inputs_only: bool = False
    along_axis: bool = False


def _axis(keepdims: bool) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A reduction over the last axis (kept, so the result still broadcasts with its row)."""

    def wrap(reduce: Callable[..., Any]) -> Callable[..., Any]:
        return lambda m, x: reduce(m)(x, axis=-1, keepdims=keepdims)

    return wrap


FNS = [
    Fn("sin", 1, "biufc", lambda m, x: m.sin(x)),
    Fn("cos", 1, "biufc", lambda m, x: m.cos(x)),
    Fn("tanh", 1, "biufc", lambda m, x: m.tanh(x)),
    Fn("exp", 1, "fc", lambda m, x: m.exp(x)),
    Fn("log1p_abs", 1, "biuf", lambda m, x: m.log1p(m.abs(x))),
    Fn("sqrt_abs", 1, "biufc", lambda m, x: m.sqrt(m.abs(x))),
    Fn("abs", 1, "iufc", lambda m, x: m.abs(x)),
    Fn("negative", 1, "iufc", lambda m, x: m.negative(x)),
    Fn("square", 1, "biufc", lambda m, x: m.square(x)),
    Fn("floor", 1, "biuf", lambda m, x: m.floor(x), inputs_only=True),
    Fn("round", 1, "biufc", lambda m, x: m.round(x), inputs_only=True),
    Fn("sign", 1, "iuf", lambda m, x: m.sign(x), inputs_only=True),
    Fn("add", 2, "biufc", lambda m, x, y: m.add(x, y)),
    Fn("subtract", 2, "iufc", lambda m, x, y: m.subtract(x, y)),
    Fn("multiply", 2, "biufc", lambda m, x, y: m.multiply(x, y)),
    Fn("maximum", 2, "biufc", lambda m, x, y: m.maximum(x, y)),
    Fn("minimum", 2, "biufc", lambda m, x, y: m.minimum(x, y)),
    Fn("where_greater", 2, "biuf", lambda m, x, y: m.where(x > y, x, y)),
    Fn("sum", 1, "biufc", _axis(True)(lambda m: m.sum), along_axis=True),
    Fn("mean", 1, "biufc", _axis(True)(lambda m: m.mean), along_axis=True),
    Fn("max", 1, "biufc", _axis(True)(lambda m: m.max), along_axis=True),
    Fn("min", 1, "biuf", _axis(True)(lambda m: m.min), along_axis=True),
    Fn("var", 1, "biuf", _axis(True)(lambda m: m.var), along_axis=True),
    Fn("cumsum", 1, "biufc", lambda m, x: m.cumsum(x, axis=-1), along_axis=True),
    Fn("cumprod", 1, "fc", lambda m, x: m.cumprod(x, axis=-1), along_axis=True),
]

SHAPES = [(3, 4), (3, 1), (4,), ()]
X32_DTYPES = [np.dtype(d) for d in ("bool", "int8", "int32", "uint8", "float16", "float32")]
X32_DTYPES.append(np.dtype(np.complex64))
X64_DTYPES = [*X32_DTYPES, np.dtype(np.int64), np.dtype(np.float64), np.dtype(np.complex128)]

Step = tuple[Fn, tuple[int, ...]]  # the function and the pool indices of its operands


class Program(NamedTuple):
    inputs: list[np.ndarray]
    steps: list[Step]


def _value(rng: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype[Any]) -> Any:
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        lo = 0 if dtype.kind == "u" else -6
        return rng.integers(lo, 7, size=shape).astype(dtype)
    data = rng.uniform(-2, 2, shape)
    if dtype.kind == "c":
        data = data + 1j * rng.uniform(-2, 2, shape)
    return np.asarray(data).astype(dtype)


def generate(rng: np.random.Generator, dtypes: list[np.dtype[Any]], length: int) -> Program:
    """A program of ``length`` steps over 2-3 inputs; each step's operands come from the
    inputs and earlier results, and a step JAX refuses (``jnp.sign`` of a bool, say) is
    drawn again: refusals are the sweep's and the promotion tests' business."""
    inputs = [
        _value(rng, SHAPES[rng.integers(len(SHAPES))], dtypes[rng.integers(len(dtypes))])
        for _ in range(rng.integers(2, 4))
    ]
    pool = [jax.eval_shape(jnp.asarray, x) for x in inputs]
    steps: list[Step] = []
    while len(steps) < length:
        fn = FNS[rng.integers(len(FNS))]
        reach = len(inputs) if fn.inputs_only else len(pool)
        operands = tuple(int(i) for i in rng.integers(reach, size=fn.arity))
        avals = [pool[i] for i in operands]
        if any(a.dtype.kind not in fn.kinds for a in avals):
            continue
        if fn.along_axis and avals[0].ndim == 0:
            continue
        try:
            out = jax.eval_shape(lambda *a, fn=fn: fn.apply(jnp, *a), *avals)
        except (TypeError, ValueError):
            continue
        steps.append((fn, operands))
        pool.append(out)
    return Program(inputs, steps)


def interpret(program: Program, module: Module) -> Callable[..., list[Any]]:
    """The program as a function of its inputs, written with ``module``'s functions; it
    returns every intermediate value."""

    def run(*args: Any) -> list[Any]:
        pool = list(args)
        for fn, operands in program.steps:
            pool.append(fn.apply(module, *(pool[i] for i in operands)))
        return pool[len(args) :]

    return run


def _tolerance(dtype: np.dtype[Any]) -> tuple[float, float]:
    """(rtol, atol): generous enough for a chain of a few roundings in either library."""
    if dtype in (np.dtype(np.float16),):
        return 2e-2, 2e-2
    if dtype in (np.dtype(np.float32), np.dtype(np.complex64)):
        return 2e-4, 2e-5
    return 1e-9, 1e-12


def _compare(path: str, got: Any, want: Any, where: str) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype, f"{where} {path}: dtype {got.dtype}, JAX {want.dtype}"
    assert got.shape == want.shape, f"{where} {path}: shape {got.shape}, JAX {want.shape}"
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=f"{where} {path}")
        return
    rtol, atol = _tolerance(want.dtype)
    for part in ("real", "imag") if want.dtype.kind == "c" else ("real",):
        g = getattr(got, part).astype(np.float64)
        w = getattr(want, part).astype(np.float64)
        scale = np.maximum(np.abs(w), 1.0)  # absolute error scaled by magnitude >= 1
        close = (g == w) | (np.abs(g - w) <= atol * scale + rtol * np.abs(w))
        close |= np.isnan(g) & np.isnan(w)
        assert close.all(), f"{where} {path}.{part}: got {g[~close][:3]}, JAX {w[~close][:3]}"


def _describe(program: Program) -> str:
    ins = ", ".join(f"{x.dtype}{list(x.shape)}" for x in program.inputs)
    ops = "; ".join(f"{fn.name}{list(ops)}" for fn, ops in program.steps)
    return f"inputs ({ins}): {ops}"


PROGRAMS = 24  # per mode: each compiles once in each library (the test's cost)
LENGTH = 8


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
def test_random_programs_agree_across_paths_and_with_jax(x64: bool) -> None:
    rng = np.random.default_rng(2024 + x64)
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", x64)
    try:
        with config.override("enable_x64", x64), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # both libraries' 64-bit narrowing warnings
            for _ in range(PROGRAMS):
                program = generate(rng, X64_DTYPES if x64 else X32_DTYPES, LENGTH)
                _check(program)
    finally:
        jax.config.update("jax_enable_x64", before)


def _check(program: Program) -> None:
    where = _describe(program)
    args = program.inputs
    want = jax.jit(interpret(program, jnp))(*args)
    f = interpret(program, mnp)
    closed = mj.make_jaxpr(f)(*args)
    paths = {
        "eager": f(*args),
        "eval_jaxpr": mj.eval_jaxpr(closed, args),
        "jit": mj.jit(f)(*args),
    }
    for path, got in paths.items():
        assert len(got) == len(want), f"{where} {path}: {len(got)} values"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _compare(path, g, w, f"{where} (step {i})")

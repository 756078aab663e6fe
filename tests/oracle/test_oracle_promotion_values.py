"""JAX's promotion on real values, in both x64 modes (issue 18): every pair of the lattice's
array dtypes and Python scalars through ``mj.numpy``'s binary functions, eagerly, under
``jit``, under ``vmap`` and (for floats) under ``grad``, against ``jax.numpy``. Any differing
cell is printed; the abstract table itself is ``test_oracle_promotion.py``.
"""

import itertools
import warnings

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj_core import config

ARRAY_DTYPES = [
    np.dtype(t)
    for t in (
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
        "float16", "float32", "float64", "complex64", "complex128",
    )
] + [np.dtype(ml_dtypes.bfloat16)]  # fmt: skip
SCALARS = [True, 3, 2.5, 1.5 + 0.5j]
OPERANDS = [*ARRAY_DTYPES, *SCALARS]
FUNCTIONS = ("add", "multiply", "maximum", "less", "true_divide")


def _value(operand):
    """A small array of ``operand``'s dtype (values every dtype holds), or the scalar itself."""
    if isinstance(operand, np.dtype):
        return np.array([1, 0, 1], np.int8).astype(operand)
    return operand


def _label(operand):
    return operand.name if isinstance(operand, np.dtype) else type(operand).__name__


def _outcome(fn, *args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(fn(*args))
    except Exception as e:  # the exception class is part of the contract
        return type(e).__name__


def _differs(got, want):
    if isinstance(got, str) or isinstance(want, str):  # both must raise (a TypeError)
        return not (isinstance(got, str) and isinstance(want, str))
    if got.dtype != want.dtype or got.shape != want.shape:
        return True
    wide = np.complex128 if got.dtype.kind == "c" else np.float64
    return not np.allclose(got.astype(wide), want.astype(wide), rtol=1e-2, equal_nan=True)


def _show(outcome):
    return outcome if isinstance(outcome, str) else outcome.dtype.name


def _jitted_row(jit, fun, xa, row, *, as_arguments):
    """Every cell ``fun(xa, b)`` of ``row`` in one jitted program (one compile per row); a
    cell whose tracing raises gives its exception's class name. ``as_arguments``: the ``b``
    operands are the program's arguments (Python scalars stay weak, as in an eager call),
    else constants of the program (XLA may fold them: JAX's jitted ``x / [1, 0, 1]`` of
    constant booleans gives 0 where the eager 0/0 is NaN)."""
    errors: dict[int, str] = {}

    def traced_row(x, *bs):
        outs = []
        for i, b in enumerate(row):
            try:
                outs.append(fun(x, bs[i] if as_arguments else _value(b)))
            except Exception as e:
                errors[i] = type(e).__name__
                outs.append(None)
        return outs

    outs = jit(traced_row)(xa, *([_value(b) for b in row] if as_arguments else []))
    return [errors.get(i) or np.asarray(out) for i, out in enumerate(outs)]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_binary_functions_promote_like_jax_eager_jit_and_vmap(name, x64):
    """JAX's answers come from one jitted program per row (JAX's eager operations are
    jit-compiled single operations, so they are the same answers): one compile per row."""
    jfun, mfun = getattr(jnp, name), getattr(mnp, name)
    diffs = []
    for a in OPERANDS:
        xa = _value(a)
        row = [b for b in OPERANDS if isinstance(a, np.dtype) or isinstance(b, np.dtype)]
        wants = _jitted_row(jax.jit, jfun, xa, row, as_arguments=True)
        under_jit = _jitted_row(mj.jit, mfun, xa, row, as_arguments=False)
        for i, b in enumerate(row):
            want = wants[i]
            cells = {"eager": _outcome(mfun, xa, _value(b)), "jit": under_jit[i]}
            if isinstance(a, np.dtype) and isinstance(b, np.dtype):
                stacked = (np.stack([xa, xa]), np.stack([_value(b), _value(b)]))
                batched = _outcome(mj.vmap(mfun), *stacked)
                cells["vmap"] = batched if isinstance(batched, str) else batched[0]
            for where, got in cells.items():
                if _differs(got, want):
                    diffs.append(
                        f"{name}({_label(a)}, {_label(b)}) {where}: jax {_show(want)}, "
                        f"mj {_show(got)}"
                    )
    assert not diffs, "\n".join(diffs)


FLOATS = [d for d in ARRAY_DTYPES if d.kind == "f"] + [np.dtype(ml_dtypes.bfloat16)]


def test_gradients_keep_the_input_dtype_like_jax(x64):
    """``grad`` of ``sum(x * y)`` in ``x``: the cotangent has ``x``'s dtype (JAX converts it
    back through the promotion), whatever ``y``'s dtype or scalar."""
    diffs = []
    for a, b in itertools.product(FLOATS, [*FLOATS, 3, 2.5]):
        x, y = np.float32(1.5).astype(a), _value(b)
        y = y[0] if isinstance(b, np.dtype) else y

        def jloss(v, y=y):
            return jnp.multiply(v, y).astype(jnp.float32)

        def mloss(v, y=y):
            return mnp.multiply(v, y).astype(mnp.float32)

        want = _outcome(jax.grad(jloss), x)
        for where, fn in (("grad", mj.grad(mloss)), ("jit(grad)", mj.jit(mj.grad(mloss)))):
            got = _outcome(fn, x)
            if _differs(got, want):
                diffs.append(
                    f"grad {a.name} x {_label(b)} {where}: jax {_show(want)}, mj {_show(got)}"
                )
    assert not diffs, "\n".join(diffs)


@pytest.mark.parametrize(
    ("x", "y", "modes"),
    [
        # float64 is float32 without x64: that pair is mixed only with it
        (np.ones(3, np.float32), np.ones(3, np.float64), [True]),
        (np.ones(3, np.int32), np.ones(3, np.float32), [False, True]),
        (np.ones(3, np.float32), np.ones(3, np.float16), [False, True]),
    ],
)
def test_lax_refuses_mixed_dtypes_like_jax(x, y, modes):
    before = jax.config.jax_enable_x64
    try:
        for x64 in modes:
            jax.config.update("jax_enable_x64", x64)
            with config.override("enable_x64", x64):
                with pytest.raises(TypeError, match="same dtypes"):
                    jax.lax.add(x, y)
                with pytest.raises(TypeError, match=r"lax\.add requires .* the same dtypes"):
                    mj.lax.add(x, y)
                with pytest.raises(TypeError, match=r"lax\.add requires .* the same dtypes"):
                    mj.jit(mj.lax.add)(x, y)
    finally:
        jax.config.update("jax_enable_x64", before)

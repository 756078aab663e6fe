"""``jax_numpy_dtype_promotion="strict"`` end to end: NumPy-level functions, operators,
``.at`` updates, jit, grad and vmap give JAX's dtype or JAX's ``TypePromotionError``, in both
x64 modes; the weak Python scalars still promote within their kind."""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp


def _arrays(xnp):
    return {
        "f32": xnp.ones(3, xnp.float32),
        "i32": xnp.arange(3, dtype=xnp.int32),
        "f16": xnp.ones(3, xnp.float16),
        "b": xnp.ones(3, bool),
        "c64": xnp.ones(3, xnp.complex64),
        "u8": xnp.ones(3, xnp.uint8),
    }


CASES = {
    "f32+f16": lambda xnp, lib, a: a["f32"] + a["f16"],
    "f32+i32": lambda xnp, lib, a: xnp.add(a["f32"], a["i32"]),
    "f32+1": lambda xnp, lib, a: a["f32"] + 1,
    "f32*2.0": lambda xnp, lib, a: a["f32"] * 2.0,
    "i32+1.0": lambda xnp, lib, a: a["i32"] + 1.0,
    "i32+1": lambda xnp, lib, a: a["i32"] + 1,
    "f32+1j": lambda xnp, lib, a: a["f32"] + 1j,
    "bool+1": lambda xnp, lib, a: a["b"] + 1,
    "bool+bool": lambda xnp, lib, a: a["b"] + a["b"],
    "f32+bool": lambda xnp, lib, a: a["f32"] + a["b"],
    "f32*c64": lambda xnp, lib, a: a["f32"] * a["c64"],
    "u8+i32": lambda xnp, lib, a: a["u8"] + a["i32"],
    "u8+1": lambda xnp, lib, a: a["u8"] + 1,
    "2*3.0": lambda xnp, lib, a: xnp.multiply(2, 3.0),
    "weak float + weak int": lambda xnp, lib, a: xnp.asarray(1.0) + xnp.asarray(1),
    "weak float + f16": lambda xnp, lib, a: xnp.asarray(1.0) + a["f16"],
    "where": lambda xnp, lib, a: xnp.where(a["b"], a["f32"], 0),
    "concatenate": lambda xnp, lib, a: xnp.concatenate([a["f32"], a["f16"]]),
    "dot": lambda xnp, lib, a: xnp.dot(a["f32"], a["f16"]),
    "promote_types": lambda xnp, lib, a: xnp.promote_types("float32", "int32"),
    "result_type": lambda xnp, lib, a: xnp.result_type(a["f32"], a["i32"]),
    "mean int": lambda xnp, lib, a: xnp.mean(a["i32"]),
    "true_divide ints": lambda xnp, lib, a: a["i32"] / a["i32"],
    "sin int": lambda xnp, lib, a: xnp.sin(a["i32"]),
    "var": lambda xnp, lib, a: xnp.var(a["f32"]),
    "clip": lambda xnp, lib, a: xnp.clip(a["f32"], 0, 1),
    "clip int by floats": lambda xnp, lib, a: xnp.clip(a["i32"], 0.5, 1.5),
    "f32**2": lambda xnp, lib, a: a["f32"] ** 2,
    "linspace": lambda xnp, lib, a: xnp.linspace(0, 1, 5),
    "at add float to int": lambda xnp, lib, a: a["i32"].at[0].add(1.5),
    "at set int to float": lambda xnp, lib, a: a["f32"].at[0].set(1),
    "jit f32+i32": lambda xnp, lib, a: lib.jit(lambda x, y: x + y)(a["f32"], a["i32"]),
    "jit f32*2": lambda xnp, lib, a: lib.jit(lambda x: x * 2)(a["f32"]),
    "grad": lambda xnp, lib, a: lib.grad(lambda x: xnp.sum(xnp.sin(x) * 2.0))(a["f32"]),
    "grad of x**3": lambda xnp, lib, a: lib.grad(lambda x: xnp.sum(x**3))(a["f32"]),
    "vmap": lambda xnp, lib, a: lib.vmap(lambda x: x * 2 + 1)(a["f32"]),
    "softmax": lambda xnp, lib, a: lib.nn.softmax(a["f32"]),
    "norm": lambda xnp, lib, a: xnp.linalg.norm(a["f32"]),
    "percentile": lambda xnp, lib, a: xnp.percentile(a["f32"], 50),
}


def _outcome(xnp, lib, make):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = make(xnp, lib, _arrays(xnp))
        return str(np.dtype(getattr(out, "dtype", out)))
    except Exception as e:  # the exception class is part of the contract
        return type(e).__name__


@pytest.mark.parametrize("make", CASES.values(), ids=CASES.keys())
def test_strict_promotion_as_jax(make, x64):
    outcomes = []
    for xnp, lib in ((jnp, jax), (mnp, mj)):
        with lib.numpy_dtype_promotion("strict"):
            outcomes.append(_outcome(xnp, lib, make))
    assert outcomes[1] == outcomes[0]
    assert mj.config.numpy_dtype_promotion == "standard"  # restored after the block


def test_the_option_and_its_jax_name():
    with pytest.raises(ValueError, match="numpy_dtype_promotion must be one of"):
        mj.config.update("jax_numpy_dtype_promotion", "loose")
    mj.config.update("jax_numpy_dtype_promotion", "strict")
    try:
        assert mj.config.jax_numpy_dtype_promotion == "strict"
        with pytest.raises(mj.dtypes.TypePromotionError, match="jax_numpy_dtype_promotion=strict"):
            mnp.ones(2, mnp.float32) + mnp.ones(2, mnp.int32)
    finally:
        mj.config.update("jax_numpy_dtype_promotion", "standard")
    assert (mnp.ones(2, mnp.float32) + mnp.ones(2, mnp.int32)).dtype == np.float32

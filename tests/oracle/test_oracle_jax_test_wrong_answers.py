"""Wrong values, dtypes and missing errors found by JAX's own test files on mj (issue 35:
``lax_numpy_test``, ``lax_test``, ``lax_scipy_test``, ``api_test``, ``lax_autodiff_test``),
each against JAX 0.10.2 in both dtype modes (the ``x64`` fixture)."""

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle


def _outcome(fun):
    """``fun()``'s dtype, weak type and values, or the name of the error class it raised."""
    try:
        with np.errstate(over="ignore"):
            out = fun()
    except (TypeError, ValueError, OverflowError) as e:
        return type(e).__name__
    return str(out.dtype), bool(out.weak_type), np.asarray(out).astype(np.float64).tolist()


_LISTS = {
    "int_and_float16": lambda np_: [0, np.float16(1)],
    "float_and_float16": lambda np_: [0.5, np.float16(1)],
    "int_and_bfloat16": lambda np_: [0, ml_dtypes.bfloat16(1)],
    "int_and_float8": lambda np_: [0.5, ml_dtypes.float8_e4m3fn(1)],
    "int_and_int4": lambda np_: [0, ml_dtypes.int4(1)],
    "int_and_int8": lambda np_: [1, np.int8(1)],
    "int_and_uint8": lambda np_: [1, np.uint8(1)],
    "uint64_and_int8": lambda np_: [np.uint64(1), np.int8(1)],
    "int_too_big_for_int8": lambda np_: [300, np.int8(1)],
    "negative_int_for_uint8": lambda np_: [-1, np.uint8(1)],
    "int_beyond_int64": lambda np_: [0, 2**63],
    "int_for_float16_overflows": lambda np_: [70000, np.float16(1)],
    "nested_float16": lambda np_: [[0, np.float16(1)], (2, 3)],
    "float16_array_and_int": lambda np_: [np_.array(1, "float16"), 2],
    "bfloat16_array_and_float": lambda np_: [np_.array(1, "bfloat16"), 2.5],
    "numpy_float16_rows": lambda np_: [np.ones(2, "float16"), [2, 3]],
    "weak_array_and_float16": lambda np_: [np_.array(1.0), np.float16(1)],
    "float_and_int8_strict": lambda np_: [1.5, np.int8(1)],
    "bool_and_int_strict": lambda np_: [True, 1],
    "int8_and_uint8": lambda np_: [np.int8(1), np.uint8(1)],
    "python_ints": lambda np_: [1, 2],
    "python_floats": lambda np_: [1.0, 2],
}


@pytest.mark.parametrize("promotion", ["standard", "strict"])
@pytest.mark.parametrize("case", sorted(_LISTS))
def test_array_of_a_list_takes_its_leaves_lattice_dtype(x64, case, promotion):
    """``jnp.array(list)`` has the dtype JAX's lattice gives its leaves (``[0, np.float16(1)]``
    is float16, ``[1, np.int8(1)]`` int8, bfloat16 and float8 leaves stay themselves; mj read
    the list with NumPy's promotion and gave float32/int32), so a Python int that the dtype
    cannot hold is an OverflowError (``[0, 2**63]`` was a float), and strict promotion refuses
    the lists it refuses (JAX's ``testArrayFromList``)."""
    make = _LISTS[case]
    with mj.numpy_dtype_promotion(promotion):
        ours = _outcome(lambda: mnp.array(make(mnp)))
    with jax.numpy_dtype_promotion(promotion):
        theirs = _outcome(lambda: jnp.array(make(jnp)))
    assert ours == theirs


_NARROW_SPECIALS = {
    "betainc": 3,
    "igamma": 2,
    "igammac": 2,
    "igamma_grad_a": 2,
    "bessel_i0e": 1,
}


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("name", sorted(_NARROW_SPECIALS))
def test_narrow_float_special_functions_compute_in_float32(x64, name, dtype):
    """float16/bfloat16 ``betainc``, ``igamma``, ``igammac``, ``igamma_grad_a`` and
    ``bessel_i0e`` are JAX's, which computes them in float32, eagerly and under jit: mj's jit
    ran the continued fractions in float16 (``betainc`` off by 20% and more, ``igammac`` by
    4%) and failed on bfloat16 (no ``finfo``), eager ``igamma_grad_a`` refused bfloat16
    (JAX's ``testOp`` betainc float16/bfloat16 cases)."""
    rng = np.random.RandomState(0)
    args = [(rng.rand(300) * 5 + 0.05).astype(dtype) for _ in range(_NARROW_SPECIALS[name])]
    if name == "betainc":
        args[-1] = (rng.rand(300) * 0.98 + 0.01).astype(dtype)
    fun = getattr(mj.lax, name)
    theirs = getattr(jax.lax, name)(*args)
    # one ulp of the narrow dtype apart at most (eager mj computes in float64, then rounds)
    ulp = 2.0**-10 if dtype == "float16" else 2.0**-7
    for ours in (fun(*args), mj.jit(fun)(*args)):
        assert ours.dtype == theirs.dtype
        np.testing.assert_allclose(
            np.asarray(ours, np.float64), np.asarray(theirs, np.float64), rtol=ulp, atol=1e-6
        )

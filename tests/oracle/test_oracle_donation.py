"""jit(donate_argnums=/donate_argnames=) against real JAX 0.10.2: the same arguments end up
deleted, the same ones are reported unusable, and the results agree."""

import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj

pytestmark = pytest.mark.oracle

X = np.arange(6, dtype=np.float32).reshape(2, 3)

# (function of (x, y, z), jit keyword arguments, how the call passes y)
CASES = {
    "one_donated_one_output": (lambda x, y, z: x * 2 + y + z, {"donate_argnums": 0}, "pos"),
    "two_donated_one_output": (lambda x, y, z: x + y + z, {"donate_argnums": (0, 1)}, "pos"),
    "outputs_of_other_shapes": (lambda x, y, z: (x.sum(), y.T, z), {"donate_argnums": 1}, "pos"),
    "by_name_passed_by_position": (lambda x, y, z: x - y + z, {"donate_argnames": "y"}, "pos"),
    "by_number_passed_by_name": (lambda x, y, z: x - y + z, {"donate_argnums": 1}, "kw"),
    "tuple_of_outputs": (lambda x, y, z: (x + 1, y + 1, z + 1), {"donate_argnums": (0, 2)}, "pos"),
}


def run(lib, put, fun, options, how):
    args = [put(X), put(2 * X), put(3 * X)]
    f = lib.jit(fun, **options)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = f(args[0], y=args[1], z=args[2]) if how == "kw" else f(*args)
    unusable = [str(w.message).splitlines()[0] for w in caught if "donated" in str(w.message)]
    outs = out if isinstance(out, tuple) else (out,)
    return [a.is_deleted() for a in args], unusable, [np.asarray(o) for o in outs]


@pytest.mark.parametrize("name", CASES)
def test_donation_deletes_what_jax_deletes(name):
    fun, options, how = CASES[name]
    deleted, unusable, outs = run(mj, mj.device_put, fun, options, how)
    j_deleted, j_unusable, j_outs = run(jax, jnp.asarray, fun, options, how)
    assert deleted == j_deleted
    assert unusable == j_unusable
    for o, w in zip(outs, j_outs, strict=True):
        np.testing.assert_allclose(o, w, rtol=1e-6)
        assert o.dtype == w.dtype


def test_a_deleted_array_raises_jax_error():
    f = mj.jit(lambda x: x + 1, donate_argnums=0)
    jf = jax.jit(lambda x: x + 1, donate_argnums=0)
    x, jx = mj.device_put(X), jnp.asarray(X)
    f(x)
    jf(jx)
    with pytest.raises(RuntimeError) as ours:
        np.asarray(x)
    with pytest.raises(RuntimeError) as theirs:
        np.asarray(jx)
    assert str(ours.value) == str(theirs.value)

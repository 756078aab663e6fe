"""``linear_transpose`` through a ``jit`` against JAX: an integer-linear jitted function
transposes with integer cotangents (not float0 ones), and the integer / bool outputs a
jitted function computes besides its linear one (``x > 0``, an int from it) take no
cotangent, so the ops making them are not transposed (JAX's DCE drops them)."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp


def _cases(lib, np_):
    side = lib.jit(lambda x: (2 * x, np_.int32(3) + (x > 0).astype(np_.int32), x > 0))
    return [
        (lib.linear_transpose(lambda x: side(x)[0], 1.0), 1.0),
        (lib.linear_transpose(lib.jit(lambda x: 3 * x), 1), 3),
        (lib.linear_transpose(lib.jit(lambda x: (2 * x, x)), 1), (3, 4)),
        (
            lib.linear_transpose(lib.jit(lambda x: 2 * x), np.ones(3, np.int32)),
            np.arange(3, dtype=np.int32),
        ),
    ]


@pytest.mark.parametrize("case", range(4))
def test_linear_transpose_of_jit_outputs_as_jax(case, x64):
    got_f, ct = _cases(mj, mnp)[case]
    want_f, _ = _cases(jax, jnp)[case]
    (got,), (want,) = got_f(ct), want_f(ct)
    assert (got.dtype, got.weak_type) == (want.dtype, want.weak_type)
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_cotangent_type_refusal_wording_as_jax(x64):
    for lib, np_ in ((jax, jnp), (mj, mnp)):
        transpose_fun = lib.linear_transpose(lambda x, np_=np_: np_.stack([x, x]), 1.0)
        with pytest.raises(TypeError, match="cotangent type does not match function output"):
            transpose_fun(1.0)

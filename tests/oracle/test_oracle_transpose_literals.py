"""A user's transpose rule gets the operands that are no ``UndefPrimal`` with an ``aval``, as
in JAX 0.10.2, also where the operand is a strong scalar constant that the linearized jaxpr
holds as a literal (equinox's ``select_if_vmap`` transpose reads ``x.aval`` of the zeros its
jvp rule made: mj handed it a bare ``np.float32`` and failed with AttributeError)."""

import jax
import jax.interpreters.ad as jax_ad
import jax.numpy as jnp
import numpy as np
import pytest
from jax.extend.core import Primitive as JaxPrimitive

import mj
import mj.interpreters.ad as mj_ad
import mj.numpy as mnp
from mj.extend.core import Primitive as MjPrimitive

pytestmark = pytest.mark.oracle


def _scale_primitive(lib, ad, primitive_cls, seen):
    """``scale(x, c) = x * c``, linear in ``x``; its transpose records ``c.aval``."""
    p = primitive_cls("scale_by_const")
    p.def_impl(lambda x, c: x * c)
    p.def_abstract_eval(lambda x, c: x)

    def jvp(primals, tangents):
        x, c = primals
        tx, _ = tangents
        if type(tx) is ad.Zero:
            tx = lib.numpy.zeros(tx.aval.shape, tx.aval.dtype)
        return p.bind(x, c), p.bind(tx, c)

    def transpose(ct, x, c):
        assert ad.is_undefined_primal(x)
        assert not ad.is_undefined_primal(c)
        seen.append((c.aval.shape, c.aval.dtype, c.aval.weak_type))
        return [p.bind(ct, c), None]

    ad.primitive_jvps[p] = jvp
    ad.primitive_transposes[p] = transpose
    return p


CONSTANTS = {
    "numpy_float32": lambda np_: np.float32(2.5),
    "array_float32": lambda np_: np_.float32(2.5),
    "zeros": lambda np_: np_.zeros((), np_.float32),
}


@pytest.mark.parametrize("const", CONSTANTS)
def test_transpose_rules_see_avals_of_literal_operands(x64, const):
    mj_seen, jax_seen = [], []
    mp = _scale_primitive(mj, mj_ad, MjPrimitive, mj_seen)
    jp = _scale_primitive(jax, jax_ad, JaxPrimitive, jax_seen)
    mc, jc = CONSTANTS[const](mnp), CONSTANTS[const](jnp)
    got = mj.grad(lambda y: mp.bind(y * 3.0, mc))(np.float32(1.0))
    want = jax.grad(lambda y: jp.bind(y * 3.0, jc))(np.float32(1.0))
    assert got.dtype == want.dtype
    assert got.weak_type == want.weak_type
    np.testing.assert_allclose(np.asarray(got), np.asarray(want))
    assert mj_seen == jax_seen
    assert len(mj_seen) == 1

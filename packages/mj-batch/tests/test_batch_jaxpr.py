"""vmap_jaxpr: batching a closed jaxpr into a new closed jaxpr."""

from __future__ import annotations

import numpy as np
import pytest

from mj_batch import vmap
from mj_batch.extend import not_mapped, vmap_jaxpr
from mj_core import lax
from mj_ir import ClosedJaxpr, make_jaxpr, typecheck_jaxpr

RNG = np.random.default_rng(3)
TABLE = RNG.normal(size=(3,))  # closed over: becomes a const of the jaxpr


def fun(x, y):
    return lax.sin(x) * y + TABLE, lax.reduce_sum(x, (0,)), y * 2.0


def _closed() -> ClosedJaxpr:
    return make_jaxpr(fun)(np.ones(3), 1.0)


def test_batched_jaxpr_computes_the_stacked_results() -> None:
    closed = _closed()
    batched, dims = vmap_jaxpr(closed, 4, (1, 0))
    typecheck_jaxpr(batched.jaxpr)
    assert dims == [1, 0, 0]
    xs, ys = RNG.normal(size=(3, 4)), RNG.normal(size=(4,))
    outs = batched(xs, ys)
    for k in range(4):
        ref = fun(xs[:, k], ys[k])
        np.testing.assert_allclose(outs[0][:, k], ref[0], rtol=1e-12)
        np.testing.assert_allclose(outs[1][k], ref[1], rtol=1e-12)
        np.testing.assert_allclose(outs[2][k], ref[2], rtol=1e-12)
    assert [a.shape for a in batched.in_avals] == [(3, 4), (4,)]


def test_unbatched_inputs_and_outputs_stay_unbatched() -> None:
    batched, dims = vmap_jaxpr(_closed(), 5, (0, not_mapped))
    assert dims == [0, 0, not_mapped]
    assert batched.out_avals[2].shape == ()
    # None is accepted for an unbatched input too
    _, dims_none = vmap_jaxpr(_closed(), 5, (0, None))
    assert dims_none == dims


def test_instantiate_forces_every_output_to_batch_dim_zero() -> None:
    batched, dims = vmap_jaxpr(_closed(), 4, (1, not_mapped), instantiate=True)
    assert dims == [0, 0, 0]
    xs = RNG.normal(size=(3, 4))
    outs = batched(xs, 0.5)
    assert outs[0].shape == (4, 3)
    np.testing.assert_allclose(outs[0], (np.sin(xs) * 0.5 + TABLE[:, None]).T, rtol=1e-12)
    np.testing.assert_allclose(outs[2], np.full(4, 1.0))
    _, dims = vmap_jaxpr(_closed(), 4, (0, not_mapped), instantiate=(False, False, True))
    assert dims == [0, 0, 0]


def test_negative_batch_dims() -> None:
    closed = _closed()
    _, dims = vmap_jaxpr(closed, 4, (-1, -1))
    assert dims == [1, 0, 0]


def test_results_are_cached() -> None:
    closed = _closed()
    first = vmap_jaxpr(closed, 4, (0, 0))[0]
    assert vmap_jaxpr(closed, 4, (0, 0))[0] is first
    assert vmap_jaxpr(closed, 3, (0, 0))[0] is not first


def test_bad_arguments() -> None:
    closed = _closed()
    with pytest.raises(ValueError, match="2 inputs"):
        vmap_jaxpr(closed, 4, (0,))
    with pytest.raises(ValueError, match="out of range"):
        vmap_jaxpr(closed, 4, (2, 0))
    with pytest.raises(ValueError, match="instantiate"):
        vmap_jaxpr(closed, 4, (0, 0), instantiate=(True,))


def test_make_jaxpr_of_vmap_matches_vmap_jaxpr_values() -> None:
    xs, ys = RNG.normal(size=(4, 3)), RNG.normal(size=(4,))
    staged = make_jaxpr(vmap(fun))(xs, ys)
    typecheck_jaxpr(staged.jaxpr)
    eager = vmap(fun)(xs, ys)
    for a, b in zip(staged(xs, ys), eager, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-12)

"""Typing rules of the collectives: staged with their axis in scope, each has the type the
collective's definition gives it (its vmap values are checked in mj-batch's tests)."""

import numpy as np
import pytest

from mj_core.extend import extend_axis_env
from mj_core.prims.parallel import (
    all_gather,
    all_to_all,
    axis_index,
    pmax,
    pmin,
    ppermute,
    psum,
    psum_scatter,
)
from mj_ir import make_jaxpr

N = 4
X = np.zeros((8, 6), np.float32)

CASES = [
    ("psum", lambda v: psum(v, "i"), (8, 6)),
    ("pmax", lambda v: pmax(v, "i"), (8, 6)),
    ("pmin", lambda v: pmin(v, "i"), (8, 6)),
    ("all_gather", lambda v: all_gather(v, "i", axis=1), (8, N, 6)),
    ("all_gather", lambda v: all_gather(v, "i", axis=1, tiled=True), (8, 6 * N)),
    ("reduce_scatter", lambda v: psum_scatter(v, "i", tiled=True), (8 // N, 6)),
    ("reduce_scatter", lambda v: psum_scatter(v[:N], "i"), (6,)),
    ("all_to_all", lambda v: all_to_all(v, "i", 0, 1, tiled=True), (8 // N, 6 * N)),
    ("all_to_all", lambda v: all_to_all(v[:N], "i", 0, 1), (6, N)),
    ("ppermute", lambda v: ppermute(v, "i", [(0, 1), (1, 0)]), (8, 6)),
    ("axis_index", lambda v: axis_index("i") + 0 * v[0, 0].astype(np.int32), ()),
]


@pytest.mark.parametrize(("name", "fun", "shape"), CASES, ids=[c[0] for c in CASES])
def test_collectives_are_staged_with_their_types(name, fun, shape):
    with extend_axis_env("i", N, None):  # an axis whose collectives are staged (pmap's kind)
        closed = make_jaxpr(fun)(X)
    assert name in {e.primitive.name for e in closed.jaxpr.eqns}
    (out,) = closed.out_avals
    assert out.shape == shape
    assert out.dtype == (np.int32 if name == "axis_index" else np.float32)


def test_psum_keeps_the_seed_spelling_of_its_axis_name():
    with extend_axis_env("rows", N, None):
        text = str(make_jaxpr(lambda v: psum(v, axis_name="rows"))(X))
    assert "psum[axis_name=rows]" in text


def test_a_name_bound_nowhere_is_a_name_error():
    with pytest.raises(NameError, match="unbound axis name: rows"):
        make_jaxpr(lambda v: psum(v, "rows"))(X)

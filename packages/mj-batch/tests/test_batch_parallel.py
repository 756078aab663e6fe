"""Collectives under ``vmap(..., axis_name=...)``: values against NumPy references written
from each collective's definition, nested and shadowed names, derivatives (``check_grads``)
and errors. (jit and control flow inside a named vmap: mj-control's test_control_parallel.)"""

import numpy as np
import pytest

from mj_autodiff import check_grads, grad
from mj_batch import vmap
from mj_core import numpy as mnp
from mj_core.prims.parallel import (
    all_gather,
    all_to_all,
    axis_index,
    axis_size,
    pmax,
    pmean,
    pmin,
    ppermute,
    pshuffle,
    psum,
    psum_scatter,
    pswapaxes,
)

RNG = np.random.default_rng(0)
X = RNG.normal(size=(4, 8))  # 4 examples along the named axis


def per_example(fun, x, **kw):
    return np.asarray(vmap(fun, axis_name="i", **kw)(x))


# --- NumPy references: example i's result, from the stack x[j] of every example's value -----


def ref_all_gather(x, axis, tiled):
    out = np.concatenate(list(x), axis=axis) if tiled else np.stack(list(x), axis=axis)
    return np.stack([out] * len(x))


def ref_psum_scatter(x, dim, tiled):
    total = x.sum(0)
    n = len(x)
    blocks = np.split(total, n, axis=dim)
    return np.stack([b if tiled else np.squeeze(b, dim) for b in blocks])


def ref_all_to_all(x, split, concat, tiled):
    n = len(x)
    if tiled:
        return np.stack(
            [np.concatenate([np.split(x[j], n, axis=split)[i] for j in range(n)], concat)
             for i in range(n)]
        )  # fmt: skip
    return np.stack(
        [np.stack([np.take(x[j], i, axis=split) for j in range(n)], concat) for i in range(n)]
    )


def ref_ppermute(x, perm):
    out = np.zeros_like(x)
    for src, dst in perm:
        out[dst] = x[src]
    return out


# --- values -----------------------------------------------------------------------------------


def test_reductions_match_numpy():
    np.testing.assert_allclose(per_example(lambda v: psum(v, "i"), X), np.stack([X.sum(0)] * 4))
    np.testing.assert_allclose(per_example(lambda v: pmax(v, "i"), X), np.stack([X.max(0)] * 4))
    np.testing.assert_allclose(per_example(lambda v: pmin(v, "i"), X), np.stack([X.min(0)] * 4))
    np.testing.assert_allclose(per_example(lambda v: pmean(v, "i"), X), np.stack([X.mean(0)] * 4))


def test_psum_of_a_pytree_bools_and_unbatched_values():
    out = vmap(lambda v: psum({"a": v, "b": (v > 0, 2.0)}, "i"), axis_name="i")(X)
    np.testing.assert_allclose(out["a"], np.stack([X.sum(0)] * 4))
    assert out["b"][0].dtype == np.int32
    np.testing.assert_array_equal(out["b"][0], np.stack([(X > 0).sum(0)] * 4))
    np.testing.assert_allclose(out["b"][1], 8.0)  # a constant: 2.0 times the axis size
    # an operand the vmap does not batch: every example holds it
    c = np.arange(3.0)
    np.testing.assert_allclose(
        vmap(lambda v: psum(c, "i") + 0 * v[:3], axis_name="i")(X), np.stack([4 * c] * 4)
    )
    np.testing.assert_allclose(
        vmap(lambda v: pmax(mnp.asarray(c), "i") + 0 * v[:3], axis_name="i")(X),
        np.stack([c] * 4),
    )


def test_psum_1_is_the_axis_size_and_axis_index_counts():
    assert vmap(lambda v: psum(1, "i") + 0 * v, axis_name="i")(np.zeros(5)).tolist() == [5] * 5
    idx = vmap(lambda v: axis_index("i"), axis_name="i")(X)
    assert idx.dtype == np.int32
    np.testing.assert_array_equal(idx, np.arange(4))
    assert vmap(lambda v: axis_size("i") + 0 * v, axis_name="i")(np.zeros(3)).tolist() == [3] * 3


@pytest.mark.parametrize("tiled", [False, True])
@pytest.mark.parametrize("axis", [0, 1, -1])
def test_all_gather(axis, tiled):
    x = X.reshape(4, 2, 4)
    got = per_example(lambda v: all_gather(v, "i", axis=axis, tiled=tiled), x)
    rank = 2 if tiled else 3
    np.testing.assert_allclose(got, ref_all_gather(x, axis % rank, tiled))


@pytest.mark.parametrize("tiled", [False, True])
@pytest.mark.parametrize("dim", [0, 1])
def test_psum_scatter(dim, tiled):
    x = X.reshape(4, 2, 4) if dim == 1 else X.reshape(4, 4, 2)
    got = per_example(lambda v: psum_scatter(v, "i", scatter_dimension=dim, tiled=tiled), x)
    np.testing.assert_allclose(got, ref_psum_scatter(x, dim, tiled))


@pytest.mark.parametrize(("split", "concat"), [(0, 0), (0, 1), (2, 0), (2, 1), (0, 2), (2, 2)])
def test_all_to_all(split, concat):
    x = RNG.normal(size=(4, 4, 2, 4))
    got = per_example(lambda v: all_to_all(v, "i", split, concat), x)
    np.testing.assert_allclose(got, ref_all_to_all(x, split, concat, tiled=False))


@pytest.mark.parametrize(("split", "concat"), [(0, 0), (0, 1), (1, 0)])
def test_all_to_all_tiled_and_pswapaxes(split, concat):
    x = RNG.normal(size=(4, 8, 4))
    got = per_example(lambda v: all_to_all(v, "i", split, concat, tiled=True), x)
    np.testing.assert_allclose(got, ref_all_to_all(x, split, concat, tiled=True))
    y = RNG.normal(size=(4, 3, 4))
    np.testing.assert_allclose(
        per_example(lambda v: pswapaxes(v, "i", 1), y), ref_all_to_all(y, 1, 1, tiled=False)
    )


@pytest.mark.parametrize(
    "perm", [[(0, 1), (1, 2), (2, 3), (3, 0)], [(0, 2), (2, 0)], [(3, 0), (0, 3), (1, 1), (2, 2)]]
)
def test_ppermute_and_pshuffle(perm):
    np.testing.assert_allclose(
        per_example(lambda v: ppermute(v, "i", perm), X), ref_ppermute(X, perm)
    )
    shuffle = [2, 0, 3, 1]
    np.testing.assert_allclose(per_example(lambda v: pshuffle(v, "i", shuffle), X), X[shuffle])


def test_batch_dim_not_leading_and_out_axes():
    xt = X.T.copy()  # the named axis is axis 1
    got = vmap(lambda v: psum(v, "i") - v, in_axes=1, out_axes=1, axis_name="i")(xt)
    np.testing.assert_allclose(got, (X.sum(0) - X).T)
    got = vmap(lambda v: all_gather(v, "i"), in_axes=1, axis_name="i")(xt)
    np.testing.assert_allclose(got, ref_all_gather(X, 0, False))


# --- nesting, shadowing, several names ---------------------------------------------------------


def test_nested_names_resolve_to_their_own_axis():
    x = RNG.normal(size=(3, 4, 5))
    inner = vmap(lambda v: psum(v, "j"), axis_name="j")
    np.testing.assert_allclose(
        vmap(inner, axis_name="i")(x), np.broadcast_to(x.sum(1, keepdims=True), x.shape)
    )
    outer = vmap(lambda v: psum(v, "i"), axis_name="j")
    np.testing.assert_allclose(
        vmap(outer, axis_name="i")(x), np.broadcast_to(x.sum(0, keepdims=True), x.shape)
    )
    both = vmap(lambda v: psum(v, ("i", "j")), axis_name="j")
    np.testing.assert_allclose(
        vmap(both, axis_name="i")(x), np.broadcast_to(x.sum((0, 1), keepdims=True), x.shape)
    )
    idx = vmap(vmap(lambda v: axis_index("i") * 10 + axis_index("j"), axis_name="j"),
               axis_name="i")(x)  # fmt: skip
    np.testing.assert_array_equal(idx, 10 * np.arange(3)[:, None] + np.arange(4))


def test_an_inner_vmap_shadows_the_outer_name():
    x = RNG.normal(size=(3, 4))
    got = vmap(vmap(lambda v: psum(v, "i"), axis_name="i"), axis_name="i")(x)
    np.testing.assert_allclose(got, np.broadcast_to(x.sum(1, keepdims=True), x.shape))


def test_unnamed_vmap_inside_named_vmap():
    x = RNG.normal(size=(3, 4))
    got = vmap(vmap(lambda v: psum(v, "i")), axis_name="i")(x)
    np.testing.assert_allclose(got, np.broadcast_to(x.sum(0, keepdims=True), x.shape))


# --- derivatives ------------------------------------------------------------------------------

GRAD_CASES = {
    "psum": lambda v: psum(v**2, "i") * mnp.sin(v),
    "pmean": lambda v: pmean(mnp.sin(v), "i") * v,
    "pmax": lambda v: pmax(v * v, "i") * v,
    "pmin": lambda v: pmin(mnp.sin(v), "i") * v,
    "all_gather": lambda v: all_gather(v, "i") * mnp.cos(v),
    "all_gather_tiled": lambda v: all_gather(v, "i", tiled=True)[:8] * mnp.cos(v),
    "ppermute": lambda v: ppermute(mnp.sin(v), "i", [(0, 1), (1, 2), (2, 3), (3, 0)]) * v,
    "ppermute_partial": lambda v: ppermute(mnp.sin(v), "i", [(0, 1), (1, 2)]) * v,
    "psum_scatter": lambda v: psum_scatter(v, "i", tiled=True) ** 2,
    "psum_scatter_untiled": lambda v: psum_scatter(v[:4], "i") ** 2,
    "all_to_all": lambda v: all_to_all(mnp.sin(v).reshape(4, 2), "i", 0, 1) * 2,
    "all_to_all_tiled": lambda v: all_to_all(mnp.sin(v).reshape(8, 1), "i", 0, 1, tiled=True),
}


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_check_grads_through_collectives(name):
    fn = GRAD_CASES[name]
    check_grads(lambda x: mnp.sum(vmap(fn, axis_name="i")(x) ** 2), (X,), order=2)


def test_grad_inside_named_vmap_transposes_psum_into_psum():
    f = lambda v: mnp.sum(mnp.sin(v) * psum(v**2, "i"))  # noqa: E731
    got = vmap(grad(f), axis_name="i")(X)
    # d/dx_i of sum(sin(x_i) * S) with S = sum_j x_j**2, the cotangent of S summed by psum
    want = np.cos(X) * (X**2).sum(0) + 2 * X * np.sin(X).sum(0)
    np.testing.assert_allclose(got, want)


def test_grad_through_ppermute_is_the_inverse_permutation():
    perm = [(0, 1), (1, 2), (2, 3), (3, 0)]
    got = vmap(grad(lambda v: mnp.sum(ppermute(v, "i", perm) * X[0])), axis_name="i")(X)
    np.testing.assert_allclose(got, np.broadcast_to(X[0], X.shape))
    w = RNG.normal(size=(4, 8))
    got = grad(lambda x: mnp.sum(vmap(lambda v: ppermute(v, "i", perm), axis_name="i")(x) * w))(X)
    np.testing.assert_allclose(got, ref_ppermute(w, [(d, s) for s, d in perm]))


# --- errors -----------------------------------------------------------------------------------


def test_unbound_axis_name_is_a_name_error_listing_the_names_in_scope():
    with pytest.raises(NameError, match=r"unbound axis name: j\. .*\['i'\]"):
        vmap(lambda v: psum(v, "j"), axis_name="i")(X)
    with pytest.raises(NameError, match="unbound axis name: i"):
        psum(np.ones(3), "i")
    with pytest.raises(NameError, match="unbound axis name: i"):
        vmap(lambda v: psum(v, "i"))(X)  # an unnamed vmap binds no name


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="unique"):
        vmap(lambda v: ppermute(v, "i", [(0, 1), (1, 1)]), axis_name="i")(X)
    with pytest.raises(ValueError, match="out of range"):
        vmap(lambda v: ppermute(v, "i", [(0, 7)]), axis_name="i")(X)
    with pytest.raises(ValueError, match="permutation"):
        vmap(lambda v: pshuffle(v, "i", [0, 0, 1, 2]), axis_name="i")(X)
    with pytest.raises(ValueError, match="equal"):
        vmap(lambda v: all_to_all(v, "i", 0, 0), axis_name="i")(X)
    with pytest.raises(ValueError, match="must be equal"):
        vmap(lambda v: psum_scatter(v, "i"), axis_name="i")(X)
    with pytest.raises(NotImplementedError, match="axis_index_groups"):
        vmap(lambda v: psum(v, "i", axis_index_groups=[[0, 1], [2, 3]]), axis_name="i")(X)
    # groups of different sizes: fine for a reduction (refused here as any groups under vmap),
    # not for a gather (as JAX)
    with pytest.raises(NotImplementedError, match="axis_index_groups"):
        vmap(lambda v: psum(v, "i", axis_index_groups=[[0], [1, 2, 3]]), axis_name="i")(X)
    with pytest.raises(ValueError, match="same size"):
        vmap(lambda v: all_gather(v, "i", axis_index_groups=[[0], [1, 2, 3]]), axis_name="i")(X)

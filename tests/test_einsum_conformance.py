"""``einsum`` with zero-size dimensions, the interleaved (sublist) form and upper-case labels
next to ``...``, against NumPy (issue 23)."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp

rng = np.random.default_rng(0)

ZERO_SIZE = [
    ("...ij,...jk->...ik", (0, 2, 3), (0, 3, 4)),  # the example
    ("...ij,...jk->...ik", (5, 0, 2, 3), (0, 3, 4)),
    ("...ij,...jk->...ik", (1, 2, 3), (0, 3, 4)),  # size 1 broadcasts against 0
    ("bij,bjk->bik", (0, 2, 3), (0, 3, 4)),
    ("ij,jk->ik", (2, 0), (0, 3)),  # an empty contraction is a zero-filled result
    ("i,i->", (0,), (0,)),
    ("ij,j->i", (0, 3), (3,)),
]


@pytest.mark.parametrize(("subscripts", "sa", "sb"), ZERO_SIZE)
def test_zero_size_dimensions(subscripts, sa, sb):
    a, b = rng.normal(size=sa), rng.normal(size=sb)
    want = np.einsum(subscripts, a, b)
    for f in (mnp.einsum, mj.jit(mnp.einsum, static_argnums=0)):
        got = f(subscripts, a, b)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want)
    ga, gb = mj.grad(lambda a, b: mnp.einsum(subscripts, a, b).sum(), argnums=(0, 1))(a, b)
    assert ga.shape == a.shape
    assert gb.shape == b.shape


def test_zero_size_batch_under_vmap():
    a, b = np.ones((4, 0, 2, 3)), np.ones((4, 0, 3, 5))
    got = mj.vmap(lambda x, y: mnp.einsum("...ij,...jk->...ik", x, y))(a, b)
    assert got.shape == (4, 0, 2, 5)


@pytest.mark.parametrize(
    "args",
    [
        lambda a, b, c: (a, [0, 1], b, [1, 2]),
        lambda a, b, c: (a, [0, 1], b, [1, 2], [2, 0]),
        lambda a, b, c: (a, [0, 1], b, [1, 2], c, [2], [0]),
        lambda a, b, c: (a, [Ellipsis, 1], c[:3], [1], [Ellipsis]),
        lambda a, b, c: (a, [0, 0]),
        lambda a, b, c: (a, [51, 26], b, [26, 0]),  # upper-case letters
    ],
)
def test_interleaved_sublist_form(args):
    a, b, c = rng.normal(size=(3, 3)), rng.normal(size=(3, 4)), rng.normal(size=(4,))
    want = np.einsum(*args(a, b, c))
    np.testing.assert_allclose(mnp.einsum(*args(a, b, c)), want, rtol=1e-12)
    np.testing.assert_allclose(
        mj.jit(lambda a, b, c: mnp.einsum(*args(a, b, c)))(a, b, c), want, rtol=1e-12
    )


def test_sublist_labels_are_checked():
    with pytest.raises(ValueError, match="sublist labels"):
        mnp.einsum(np.ones(2), [52])


def test_upper_case_labels_next_to_an_ellipsis():
    x = rng.normal(size=(2, 3))
    for subscripts in ("...Z,...Z->...", "...Z,...Z", "A...,A...->..."):
        np.testing.assert_allclose(mnp.einsum(subscripts, x, x), np.einsum(subscripts, x, x))


def test_precision_and_preferred_element_type_are_accepted():
    a = np.arange(6, dtype=np.int8).reshape(2, 3)
    got = mnp.einsum("ij,kj->ik", a, a, preferred_element_type=np.int32, precision="highest")
    assert got.dtype == np.int32
    np.testing.assert_array_equal(got, a.astype(np.int32) @ a.T.astype(np.int32))

"""``where=``, ``initial=`` and ``out=`` of the reductions, against NumPy's own (which has the
same meaning): masked elements are left out, ``initial`` joins the result, ``max``/``min``
need ``initial`` with a mask, and ``out`` is refused (arrays are immutable)."""

import numpy as np
import pytest

import mj_core.numpy as mnp

A = np.arange(24.0).reshape(2, 3, 4) - 7.5
MASK = (np.arange(24).reshape(2, 3, 4) % 3) != 0
ROW_MASK = np.array([True, False, True, True])
AXES = [None, 0, 1, 2, (0, 2)]


@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("mask", [MASK, ROW_MASK], ids=["full", "broadcast"])
def test_masked_reductions_match_numpy(axis, keepdims, mask):
    kw = {"axis": axis, "keepdims": keepdims, "where": mask}
    cases = {
        "sum": (mnp.sum(A, **kw), np.sum(A, **kw)),
        "prod": (mnp.prod(A / 8, **kw), np.prod(A / 8, **kw)),
        "max": (mnp.max(A, initial=-100.0, **kw), np.max(A, initial=-100.0, **kw)),
        "min": (mnp.min(A, initial=100.0, **kw), np.min(A, initial=100.0, **kw)),
        "mean": (mnp.mean(A, **kw), np.mean(A, **kw)),
        "var": (mnp.var(A, ddof=1, **kw), np.var(A, ddof=1, **kw)),
        "std": (mnp.std(A, **kw), np.std(A, **kw)),
        "all": (mnp.all(A > -5, **kw), np.all(A > -5, **kw)),
        "any": (mnp.any(A > 10, **kw), np.any(A > 10, **kw)),
    }
    for name, (got, want) in cases.items():
        assert np.shape(got) == np.shape(want), name
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6, err_msg=name)


def test_initial_joins_the_result():
    np.testing.assert_allclose(np.asarray(mnp.sum(A, axis=0, initial=10.0)), A.sum(0) + 10)
    np.testing.assert_allclose(np.asarray(mnp.prod(A[0, 0], initial=2.0)), 2 * A[0, 0].prod())
    assert float(mnp.max(A, initial=1e3)) == 1e3
    assert float(mnp.min(np.array([], np.float32), initial=-1.0)) == -1.0
    ints = np.arange(12, dtype=np.int32).reshape(3, 4)
    got = mnp.min(ints, axis=0, where=ints % 2 == 1, initial=50)
    np.testing.assert_array_equal(np.asarray(got), np.min(ints, 0, where=ints % 2 == 1, initial=50))
    assert np.asarray(got).dtype == np.int32


def test_integer_mean_and_count_of_a_mask():
    ints = np.arange(12, dtype=np.int32).reshape(3, 4)
    got = mnp.mean(ints, axis=1, where=ints > 4)
    assert np.asarray(got).dtype == np.asarray(mnp.mean(ints)).dtype  # JAX's float for int32
    np.testing.assert_allclose(np.asarray(got), np.mean(ints, 1, where=ints > 4))
    # every element masked out: 0/0, as in NumPy and JAX
    assert np.isnan(float(mnp.mean(A, where=np.zeros_like(MASK))))


def test_correction_is_ddof():
    np.testing.assert_allclose(np.asarray(mnp.var(A, axis=0, correction=1)), A.var(0, ddof=1))
    np.testing.assert_allclose(np.asarray(mnp.std(A, correction=2)), A.std(ddof=2))
    with pytest.raises(ValueError, match="ddof and correction"):
        mnp.var(A, ddof=1, correction=1)


def test_refusals():
    with pytest.raises(ValueError, match="does not have an identity"):
        mnp.max(A, where=MASK)
    with pytest.raises(ValueError, match="must be a scalar"):
        mnp.sum(A, initial=np.ones(2))
    for fn in (mnp.sum, mnp.prod, mnp.max, mnp.min, mnp.mean, mnp.var, mnp.all, mnp.any):
        with pytest.raises(NotImplementedError, match="'out' argument"):
            fn(A, out=A)


def test_promote_integers_false_keeps_the_dtype():
    small = np.array([100, 100], np.int8)
    assert np.asarray(mnp.sum(small)).dtype != np.int8
    got = mnp.sum(small, promote_integers=False)
    assert np.asarray(got).dtype == np.int8
    assert int(got) == np.int8(-56)  # wraps, as JAX's int8 sum

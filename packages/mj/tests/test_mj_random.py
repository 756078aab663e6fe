"""mj.random: Threefry keys and samplers.

The hard-coded numbers are JAX 0.10.2's outputs (``jax_enable_x64``); tests/oracle compares
against JAX directly. The statistical checks use enough samples that a wrong distribution
fails by many standard errors.
"""

import math
import re

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import random as mr
from mj_core.errors import ConcretizationError


def test_prngkey_holds_the_seed_words():
    np.testing.assert_array_equal(mr.PRNGKey(0), [0, 0])
    np.testing.assert_array_equal(mr.PRNGKey(2**32 + 5), [1, 5])
    np.testing.assert_array_equal(mr.PRNGKey(-1), [2**32 - 1, 2**32 - 1])
    np.testing.assert_array_equal(mr.PRNGKey(np.int32(-1)), [0, 2**32 - 1])
    assert mr.PRNGKey(7).dtype == np.uint32
    typed = mr.key(7)
    assert typed.shape == ()
    assert str(typed.dtype) == "key<fry>"
    np.testing.assert_array_equal(mr.key_data(typed), mr.PRNGKey(7))


def test_split_fold_in_and_bits_match_jax():
    key = mr.PRNGKey(0)
    np.testing.assert_array_equal(
        mr.split(key), [[1797259609, 2579123966], [928981903, 3453687069]]
    )
    np.testing.assert_array_equal(
        mr.split(mr.PRNGKey(42), 3),
        [[1832780943, 270669613], [64467757, 2916123636], [2465931498, 255383827]],
    )
    np.testing.assert_array_equal(mr.fold_in(key, 7), [2716826189, 292468403])
    np.testing.assert_array_equal(
        mr.bits(key, (5,), np.uint32), [4070199207, 4202968722, 1427181096, 2012915765, 2447653815]
    )
    np.testing.assert_array_equal(
        mr.bits(key, (3,), np.uint64),
        np.array([7719171245655871230, 3989946895414531357, 17807037942121513089], np.uint64),
    )
    np.testing.assert_array_equal(mr.bits(key, (3,), np.uint8), [167, 146, 40])


def test_samples_match_jax():
    key = mr.PRNGKey(0)
    np.testing.assert_array_equal(
        mr.uniform(key, (4,)),
        [0.41845711171638644, 0.21629545460551136, 0.9653214611189975, 0.5745005337275046],
    )
    np.testing.assert_array_equal(
        mr.uniform(key, (4,), np.float32),
        np.array([0.947667, 0.9785799, 0.33229148, 0.46866846], np.float32),
    )
    np.testing.assert_allclose(
        mr.normal(key, (6,)),
        [-0.2058421394796434, -0.7847657764467411, 1.8160866726679836, 0.1878440128937887,
         0.08086788103743275, -0.3721107933346203],
        rtol=1e-14,
    )  # fmt: skip
    np.testing.assert_array_equal(
        mr.bernoulli(key, 0.3, (8,)), [False, True, False, False, False, False, False, False]
    )
    np.testing.assert_array_equal(
        mr.categorical(key, np.array([0.1, 1.0, -2.0, 0.5]), shape=(10,)),
        [2, 3, 0, 1, 3, 1, 1, 1, 0, 1],
    )
    np.testing.assert_array_equal(mr.randint(key, (6,), 0, 10), [5, 1, 5, 7, 3, 5])
    np.testing.assert_array_equal(mr.randint(key, (6,), -5, 100, np.int8), [59, 25, 57, 53, 36, 7])
    np.testing.assert_array_equal(mr.permutation(key, 10), [0, 1, 8, 5, 6, 4, 3, 2, 7, 9])
    np.testing.assert_array_equal(
        mr.permutation(key, np.arange(12).reshape(4, 3)),
        [[0, 1, 2], [3, 4, 5], [9, 10, 11], [6, 7, 8]],
    )


def test_keys_are_deterministic_and_distinct():
    a, b = mr.split(mr.PRNGKey(1))
    np.testing.assert_array_equal(mr.uniform(a, (3,)), mr.uniform(a, (3,)))
    assert not np.array_equal(mr.uniform(a, (3,)), mr.uniform(b, (3,)))
    folded = {tuple(mr.fold_in(a, i).tolist()) for i in range(50)}
    assert len(folded) == 50
    assert mr.split(a, (2, 3)).shape == (2, 3, 2)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_uniform_range_and_moments(dtype):
    x = mr.uniform(mr.PRNGKey(3), (20000,), dtype, -1.0, 3.0)
    assert x.dtype == dtype
    assert x.shape == (20000,)
    assert np.all(x >= -1.0)
    assert np.all(x < 3.0)
    # mean 1, variance 16/12: standard error of the mean is ~0.008
    assert abs(float(np.mean(x, dtype=np.float64)) - 1.0) < 0.05
    assert abs(float(np.var(x, dtype=np.float64)) - 16 / 12) < 0.05


def test_uniform_with_array_bounds_broadcasts():
    lo = np.array([0.0, 10.0, 100.0])
    x = mr.uniform(mr.PRNGKey(4), (1000, 3), minval=lo, maxval=lo + 1)
    assert np.all((x >= lo) & (x < lo + 1))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_normal_distribution(dtype):
    x = np.sort(mr.normal(mr.PRNGKey(5), (20000,), dtype).astype(np.float64))
    assert abs(x.mean()) < 0.05
    assert abs(x.std() - 1) < 0.05
    # Kolmogorov-Smirnov distance to the normal CDF (critical value at 1e-3 is ~0.014)
    cdf = np.array([0.5 * (1 + math.erf(v / math.sqrt(2))) for v in x])
    ecdf = np.arange(1, x.size + 1) / x.size
    assert np.max(np.abs(cdf - ecdf)) < 0.014


def test_complex_normal_has_unit_variance():
    z = mr.normal(mr.PRNGKey(6), (20000,), np.complex128)
    assert z.dtype == np.complex128
    assert abs(np.mean(np.abs(z) ** 2) - 1) < 0.05
    assert abs(np.var(z.real) - 0.5) < 0.03


def test_erf_inv_inverts_erf():
    x = np.linspace(-0.999999, 0.999999, 2001)
    y = mj.scipy.special.erfinv(x)
    np.testing.assert_allclose([math.erf(v) for v in y], x, rtol=1e-14, atol=1e-15)
    x32 = x.astype(np.float32)
    y32 = mj.scipy.special.erfinv(x32)
    assert y32.dtype == np.float32
    np.testing.assert_allclose(y32, mj.scipy.special.erfinv(x32.astype(np.float64)), rtol=2e-6)
    with np.errstate(all="ignore"):
        edges = mj.scipy.special.erfinv(np.array([-1.0, 1.0, 1.5]))
    assert edges[0] == -np.inf
    assert edges[1] == np.inf
    assert np.isnan(edges[2])


def test_bernoulli_frequency():
    p = np.array([0.1, 0.5, 0.9])
    draws = mr.bernoulli(mr.PRNGKey(7), p, (10000, 3))
    assert draws.dtype == np.bool_
    np.testing.assert_allclose(draws.mean(axis=0), p, atol=0.02)
    assert mr.bernoulli(mr.PRNGKey(7), p).shape == (3,)


def test_categorical_frequency_and_axis():
    probs = np.array([0.2, 0.5, 0.3])
    draws = mr.categorical(mr.PRNGKey(8), np.log(probs), shape=(20000,))
    assert draws.dtype == np.int64
    np.testing.assert_allclose(np.bincount(draws, minlength=3) / draws.size, probs, atol=0.015)
    logits = np.log(np.array([[0.9, 0.05], [0.1, 0.95]]))  # categories along axis 0
    cols = mr.categorical(mr.PRNGKey(9), logits, axis=0, shape=(4000, 2))
    np.testing.assert_allclose(cols.mean(axis=0), [0.1, 0.95], atol=0.03)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int32, np.int64])
def test_randint_range_and_uniformity(dtype):
    x = mr.randint(mr.PRNGKey(10), (12000,), 3, 9, dtype)
    assert x.dtype == dtype
    counts = np.bincount(x.astype(np.int64) - 3, minlength=6)
    assert counts.size == 6
    np.testing.assert_allclose(counts / x.size, np.full(6, 1 / 6), atol=0.02)


def test_randint_edge_ranges():
    key = mr.PRNGKey(11)
    np.testing.assert_array_equal(mr.randint(key, (5,), 4, 4), np.full(5, 4))
    np.testing.assert_array_equal(mr.randint(key, (5,), 4, 2), np.full(5, 4))
    full = mr.randint(key, (4000,), 0, 256, np.uint8)  # maxval past the dtype's range
    assert full.min() < 10
    assert full.max() > 245


def test_permutation_is_a_permutation():
    key = mr.PRNGKey(12)
    p = mr.permutation(key, 3000)  # large enough for two sorting rounds
    np.testing.assert_array_equal(np.sort(p), np.arange(3000))
    x = np.arange(20).reshape(5, 4)
    rows = mr.permutation(key, x, axis=0)
    assert sorted(map(tuple, rows.tolist())) == sorted(map(tuple, x.tolist()))
    cols = mr.permutation(key, x, axis=1)
    np.testing.assert_array_equal(np.sort(cols, axis=1), x)
    indep = mr.permutation(key, np.tile(np.arange(6), (8, 1)), axis=1, independent=True)
    np.testing.assert_array_equal(np.sort(indep, axis=1), np.tile(np.arange(6), (8, 1)))
    assert len({tuple(r) for r in indep.tolist()}) > 1


def test_sampling_under_vmap_equals_a_loop():
    keys = mr.split(mr.PRNGKey(13), 4)
    batched = mj.vmap(lambda k: mr.normal(k, (3,)))(keys)
    looped = np.stack([mr.normal(k, (3,)) for k in keys])
    np.testing.assert_allclose(batched, looped, rtol=1e-15)
    split_b = mj.vmap(mr.split)(keys)
    np.testing.assert_array_equal(split_b, np.stack([mr.split(k) for k in keys]))
    folds = mj.vmap(mr.fold_in, in_axes=(None, 0))(keys[0], np.arange(4, dtype=np.uint32))
    np.testing.assert_array_equal(folds, np.stack([mr.fold_in(keys[0], i) for i in range(4)]))


def test_sampling_under_jit_equals_eager():
    key = mr.PRNGKey(14)
    for sample in (
        lambda k: mr.uniform(k, (5,)),
        lambda k: mr.normal(k, (2, 3)),
        lambda k: mr.randint(k, (4,), 0, 100),
        lambda k: mr.categorical(k, np.zeros(5), shape=(6,)),
        lambda k: mr.permutation(k, 7),
        lambda k: mr.split(k, 3),
    ):
        np.testing.assert_allclose(np.asarray(mj.jit(sample)(key)), sample(key), rtol=1e-15)
    np.testing.assert_array_equal(np.asarray(mj.jit(mr.PRNGKey)(2**40 + 3)), mr.PRNGKey(2**40 + 3))


def test_make_jaxpr_stages_the_hash():
    """The hash is staged as one ``threefry2x32`` equation (JAX's ``threefry2x32_p``), not as
    its ~100 bitwise operations."""
    closed = mj.make_jaxpr(lambda k: mr.uniform(k, (3,)))(mr.PRNGKey(0))
    prims = [eqn.primitive.name for eqn in closed.jaxpr.eqns]
    assert prims.count("threefry2x32") == 1
    assert len(prims) < 30, prims  # (the 20 rounds inlined are over 100 equations)
    assert {"shift_right_logical", "bitcast_convert_type"} <= set(prims)
    (out,) = closed(mr.PRNGKey(0))
    np.testing.assert_array_equal(out, mr.uniform(mr.PRNGKey(0), (3,)))


def test_gradient_flows_through_uniform_bounds():
    key = mr.PRNGKey(15)
    u = mr.uniform(key, (3,))
    g = mj.grad(lambda hi: mnp.sum(mr.uniform(key, (3,), maxval=hi)))(2.0)
    np.testing.assert_allclose(g, np.sum(u), rtol=1e-12)


@pytest.mark.parametrize(
    ("call", "error", "message"),
    [
        (lambda: mr.uniform(np.zeros(3, np.uint32)), TypeError, "mj.random.uniform"),
        (lambda: mr.normal(np.zeros((4, 2), np.uint32)), TypeError, "mj.vmap"),
        (lambda: mr.split(np.zeros(2, np.int32)), TypeError, "uint32[2]"),
        (lambda: mr.PRNGKey(1.5), TypeError, "integer"),
        (lambda: mr.PRNGKey(np.array([1, 2])), TypeError, "scalar"),
        (lambda: mr.uniform(mr.PRNGKey(0), (2,), np.int32), ValueError, "floating-point"),
        (lambda: mr.uniform(mr.PRNGKey(0), (2,), minval=np.zeros(3)), ValueError, "broadcast"),
        (lambda: mr.randint(mr.PRNGKey(0), (2,), 0, 5, np.float32), TypeError, "integer dtype"),
        (lambda: mr.bernoulli(mr.PRNGKey(0), 1), TypeError, "floating-point"),
        (lambda: mr.fold_in(mr.PRNGKey(0), np.arange(2)), TypeError, "scalar"),
        (lambda: mr.bits(mr.PRNGKey(0), (2,), np.int32), ValueError, "unsigned"),
        (lambda: mr.categorical(mr.PRNGKey(0), np.zeros(3), axis=2), ValueError, "out of range"),
    ],
)
def test_bad_arguments_raise_clear_errors(call, error, message):
    with pytest.raises(error, match=message.replace("[", r"\[").replace(".", r"\.")):
        call()


def test_error_points_at_user_line():
    with pytest.raises(TypeError, match=r"test_mj_random\.py"):
        mr.normal(np.zeros(3, np.uint32))


def test_permutation_of_traced_int_needs_a_concrete_size():
    with pytest.raises(ConcretizationError):
        mj.jit(lambda k, n: mr.permutation(k, n))(mr.PRNGKey(0), 5)


# An operation's line: results, then ``stablehlo.add``, ``"stablehlo.case"``, ``call``, ...
_OP = r"^\s*(?:%\S+ = )?(?:\"?(?:stablehlo|chlo)\.\w+|(?:func\.)?call|(?:func\.)?return)\b"


def _module_size(text):
    """(operations, functions, while loops) of a StableHLO module's text."""
    ops = re.findall(_OP, text, re.M)
    return len(ops), text.count("func.func"), text.count("stablehlo.while")


def test_a_program_drawing_many_times_hashes_in_shared_private_functions():
    """Issue 39: each PRNG use calls one private ``threefry2x32`` function per operand shape,
    its rounds in a loop (JAX's lowering on the CPU: 278 operations for this program), where
    inlining the hash at every use gave a flat 763-operation module."""

    def body(i, carry):
        key, acc = carry
        key, k1, k2 = mr.split(key, 3)
        hit = mr.bernoulli(k1, 0.3, (16,))
        return key, acc + mnp.where(hit, mr.normal(k2, (16,)), 0.0)

    def program(key):
        return mj.lax.fori_loop(0, 4, body, (key, mnp.zeros(16)))

    key = mr.PRNGKey(3)
    text = mj.jit(program).lower(key).as_text()
    n_ops, n_funcs, n_whiles = _module_size(text)
    assert n_ops < 300, n_ops
    hashes = re.findall(r"func\.func private @(threefry2x32\w*)", text)
    assert len(hashes) == 2  # split's (3,) counters and the samplers' (16,): one function each
    assert n_funcs == 3  # main and the two hash functions
    assert n_whiles == 3  # main's fori_loop, and one loop per hash function
    assert len(re.findall(r"call @threefry2x32", text)) == 3
    got = mj.jit(program)(key)
    want = program(key)
    np.testing.assert_array_equal(np.asarray(got[0]), want[0])
    np.testing.assert_allclose(np.asarray(got[1]), want[1], rtol=1e-6)

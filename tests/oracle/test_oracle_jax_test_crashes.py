"""Cases where JAX's own test files (issue 35) found mj raising where JAX computes, each
against JAX 0.10.2 in both dtype modes (the ``x64`` fixture)."""

import functools
import re
import warnings

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import lax as mlax

pytestmark = pytest.mark.oracle

BF16 = ml_dtypes.bfloat16


def _same(ours, theirs):
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    assert ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours.astype(np.complex128), theirs.astype(np.complex128))


@pytest.mark.parametrize("jit", [False, True])
def test_bfloat16_float_parts(x64, jit):
    """ldexp / frexp / spacing of bfloat16 (NumPy's finfo refused bfloat16: "not inexact")."""
    x = np.array([1.5, 3.0, 1e30, -2.0, 0.0, np.inf, 1e-30], BF16)
    e = np.array([2, -3, 100, 1, 5, 1, -3], np.int32)
    wrap = mj.jit if jit else (lambda f: f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        _same(wrap(mnp.ldexp)(x, e), jnp.ldexp(x, e))
        for ours, theirs in zip(wrap(mnp.frexp)(x), jnp.frexp(x), strict=True):
            _same(ours, theirs)
        _same(wrap(mnp.spacing)(x[:4]), jnp.spacing(x[:4]))


@pytest.mark.parametrize("jit", [False, True])
def test_bfloat16_betainc(x64, jit):
    """lax.betainc of bfloat16 (its lowering read NumPy's finfo of the operand dtype)."""
    a = np.array([0.3, 0.5, 2.0], BF16)
    b = np.array([0.7, 0.5, 3.0], BF16)
    x = np.array([0.2, 0.5, 0.9], BF16)
    f = mj.jit(mlax.betainc) if jit else mlax.betainc
    ours, theirs = np.asarray(f(a, b, x)), np.asarray(jax.jit(jax.lax.betainc)(a, b, x))
    assert ours.dtype == theirs.dtype
    np.testing.assert_allclose(ours.astype(np.float32), theirs.astype(np.float32), rtol=2e-2)


def test_corrcoef_bfloat16_dtype(x64):
    """corrcoef(dtype='bfloat16') computes in bfloat16; an integer dtype is JAX's ValueError."""
    ours = mnp.corrcoef(mnp.arange(5), mnp.arange(5), dtype="bfloat16")
    theirs = jnp.corrcoef(jnp.arange(5), jnp.arange(5), dtype="bfloat16")
    _same(ours, theirs)
    with pytest.raises(ValueError, match="corrcoef: dtype must be a subclass of float or complex"):
        mnp.corrcoef(mnp.arange(5), mnp.arange(5), dtype=int)
    with pytest.raises(ValueError, match="cov: dtype must be a subclass of float or complex"):
        mnp.cov(mnp.arange(5), dtype=int)


@pytest.mark.parametrize("args", [(1 + 2j, 5 + 3j), (0 + 0j, 5 + 0j), (0, 5, 1 + 1j)])
def test_arange_complex_bounds_refused(x64, args):
    """Complex start/stop/step: JAX's ValueError (mj's float() of a complex was a TypeError);
    a complex dtype with real bounds still computes."""
    msg = "Passing complex start/stop/step to jnp.arange is no longer supported"
    with pytest.raises(ValueError, match=msg):
        jnp.arange(*args)
    with pytest.raises(ValueError, match=msg):
        mnp.arange(*args)
    _same(mnp.arange(4, dtype=mnp.complex64), jnp.arange(4, dtype=jnp.complex64))


@pytest.mark.parametrize("val", [1 + 1j, [1 + 1j], [1.0, 2.0], np.arange(2)])
def test_iscomplexobj_of_traced_sequence(x64, val):
    """jit(iscomplexobj) of a list whose leaves are traced (mj made a NumPy array of it)."""
    assert bool(mj.jit(mnp.iscomplexobj)(val)) == bool(jax.jit(jnp.iscomplexobj)(val))


@pytest.mark.parametrize("shape", [(3, 4), (5,), (2, 3, 2)])
@pytest.mark.parametrize("dtype", [np.int32, np.uint8])
def test_unravel_index_traced_shape(x64, shape, dtype):
    """jit(unravel_index) with the shape traced too (JAX takes the sequence apart)."""
    idx = np.array([3, 0, 7, 200] if dtype == np.uint8 else [3, -2, 7, -100], dtype)
    ours = mj.jit(mnp.unravel_index)(idx, shape)
    theirs = jax.jit(jnp.unravel_index)(idx, shape)
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs, strict=True):
        _same(o, t)


def _aval(x):
    return (np.shape(x), np.asarray(x).dtype, bool(getattr(x, "weak_type", False)))


def _control_forwarding_programs(lib, lax):
    def cond_fwd(x, y):
        return lax.cond(x < 3, lambda x, y: (x * 2, y), lambda x, y: (x * 3, y), x, y)

    def while_fwd(w, x, c_max):
        def body(val):
            c, x, w = val
            return c + 1, x @ w, w

        _, x, w = lax.while_loop(lambda val: val[0] < c_max, body, (0, x, w))
        return w, x

    def scan_in_cond(x, y):
        def g(_, y):
            y, _ = lax.scan(lambda y, _: (y, None), y, None, length=1)
            return y

        return lax.cond(x < 0, g, g, x, y)

    def switch_fwd(i, y):
        return lax.switch(i, [lambda y: y, lambda y: y, lambda y: y], y)

    return cond_fwd, while_fwd, scan_in_cond, switch_fwd


@pytest.mark.parametrize("jit", [False, True])
def test_control_flow_forwards_unchanged_operands(x64, jit):
    """An operand that every cond branch returns as it is, or a carry a while/scan body
    returns unchanged, is the output itself (JAX's forwarding): vmap with out_axes=None
    accepts it though the predicate is batched, and cond returns the very object."""
    outs = []
    for lib, lax in ((mj, mj.lax), (jax, jax.lax)):
        np_ = mnp if lib is mj else jnp
        cond_fwd, while_fwd, scan_in_cond, switch_fwd = _control_forwarding_programs(lib, lax)
        wrap = lib.jit if jit else (lambda f: f)
        y = np_.array(3.0)
        x2, y2 = wrap(lib.vmap(cond_fwd, in_axes=(0, None), out_axes=(0, None)))(np_.arange(3), y)
        if not jit:
            assert y2 is y
        w, xs = np_.ones((2, 2)), np_.ones((4, 2))
        w_, x_ = wrap(lib.vmap(while_fwd, in_axes=(None, 0, 0), out_axes=(None, 0)))(
            w, xs, np_.arange(4)
        )
        s = wrap(lib.vmap(scan_in_cond, (0, None), None))(np_.arange(3.0), 3.0)
        sw = wrap(lib.vmap(switch_fwd, (0, None), None))(np_.arange(3), 2.0)
        py = wrap(lambda p, lax=lax: lax.cond(p, lambda v: v, lambda v: v, 3))(True)
        g = lib.grad(lambda y, f=scan_in_cond: f(1.0, y))(2.0)
        outs.append([x2, y2, w_, x_, s, sw, py, g])
    for ours, theirs in zip(*outs, strict=True):
        assert _aval(ours) == _aval(theirs)
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


def _barrier_operand_counts(lib):
    np_ = mnp if lib is mj else jnp

    @functools.partial(lib.remat, prevent_cse=({"W": False, "x": True},))
    def layer(dct):
        return dct["x"] @ dct["W"]

    def loss(ws, x):
        for w in ws:
            x = layer({"W": w, "x": x})
        return np_.sum(x**2)

    ws = [np_.ones((3, 3)) * 0.5 for _ in range(2)]
    x = np_.arange(3.0)
    txt = lib.jit(lib.grad(loss, (0, 1))).lower(ws, x).as_text()
    counts = [len(m.split(",")) for m in re.findall(r"optimization_barrier ([%\w, ]+) :", txt)]
    return counts, lib.grad(loss, (0, 1))(ws, x)


def test_checkpoint_prevent_cse_pytree_prefix(x64):
    """prevent_cse entries may be pytree prefixes of the arguments (a dict of bools for a dict
    argument); a known input the recomputation reads keeps its own flag (only x and the
    residual pass through the optimization barrier, as in JAX, not W)."""
    ours, (ours_ws, ours_x) = _barrier_operand_counts(mj)
    theirs, (theirs_ws, theirs_x) = _barrier_operand_counts(jax)
    assert ours == theirs
    for o, t in zip([*ours_ws, ours_x], [*theirs_ws, theirs_x], strict=True):
        np.testing.assert_allclose(np.asarray(o), np.asarray(t), rtol=1e-6)


def test_linear_transpose_through_jit_with_comparison_output(x64):
    """linear_transpose of a jitted function that also returns ``x > 0`` (unused): the
    comparison gets no cotangent and is not transposed (JAX's issue 15660)."""
    outs = []
    for lib in (mj, jax):
        f = lib.jit(lambda x: (2 * x, x > 0))
        outs.append(lib.linear_transpose(lambda x, f=f: f(x)[0], 1.0)(1.0))
        # integer outputs keep their cotangents (JAX transposes integer-linear functions)
        outs.append(lib.linear_transpose(lambda x: 2 * x, np.int32(1))(np.int32(3)))
    n = len(outs) // 2
    for (ours,), (theirs,) in zip(outs[:n], outs[n:], strict=True):
        assert _aval(ours) == _aval(theirs)
        np.testing.assert_array_equal(np.asarray(ours), np.asarray(theirs))


def _custom_jvp_remat_grads(lib):
    np_ = mnp if lib is mj else jnp

    @lib.custom_jvp
    def total(x):
        return np_.sum(x, axis=0)

    @total.defjvp
    def total_jvp(primals, tangents):
        (x,), (xdot,) = primals, tangents
        return total(x), total(xdot)  # the function itself, on the tangents

    f = lib.remat(lambda x: total(np_.sin(x)), policy=lib.checkpoint_policies.checkpoint_dots)

    def g(x):
        return lib.lax.scan(lambda _, x: (None, f(x)), None, x)[1]

    x = np_.arange(1.0, 4.0)
    xs = np_.arange(6.0).reshape(2, 3)
    return [
        lib.grad(lambda x: lib.grad(f)(x).sum())(x),
        lib.jvp(lib.grad(f), (x,), (np_.ones(3),))[1],
        lib.grad(lambda x: lib.jacrev(g)(x).sum())(xs),
        lib.jacfwd(lib.jacrev(g))(xs),
    ]


def test_custom_jvp_transposed_inside_checkpoint(x64):
    """A JVP rule that applies the custom_jvp function to the tangents leaves a
    custom_jvp_call in the linear part; transposing it (second-order grads of a remat with a
    policy, also inside scan) transposes its own jaxpr, as JAX."""
    for ours, theirs in zip(_custom_jvp_remat_grads(mj), _custom_jvp_remat_grads(jax), strict=True):
        np.testing.assert_allclose(np.asarray(ours), np.asarray(theirs), rtol=1e-6)


class _Struct:
    def __init__(self, shape, dtype, weak_type=False):
        self.shape, self.dtype, self.weak_type = shape, np.dtype(dtype), weak_type


class _EasyDict(dict):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.__dict__ = self


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, BF16])
def test_duck_typed_abstract_arguments(x64, dtype):
    """eval_shape and make_jaxpr take any leaf with shape and dtype attributes as an array of
    that (canonical) type, as JAX's shaped_abstractify (a SimpleNamespace, a user's struct, a
    dict subclass with attribute access)."""
    import types

    leaves = [
        _Struct((3, 4), dtype),
        _Struct((2,), dtype, weak_type=True),
        types.SimpleNamespace(shape=(), dtype=np.dtype(dtype)),
        _EasyDict(shape=(3,), dtype=np.dtype(dtype)),
    ]
    for leaf in leaves:
        # (x + x only for strong leaves: a weak float32 under x64 or a weak bfloat16 is a
        # matter of mj's weak-type lattice, not of abstractification)
        weak = getattr(leaf, "weak_type", False)
        ours = mj.eval_shape(lambda x, w=weak: (x,) if w else (x, x + x), leaf)
        theirs = jax.eval_shape(lambda x, w=weak: (x,) if w else (x, x + x), leaf)
        assert [(o.shape, o.dtype, o.weak_type) for o in ours] == [
            (t.shape, t.dtype, t.weak_type) for t in theirs
        ]
        ours_j = mj.make_jaxpr(lambda x: x)(leaf)
        theirs_j = jax.make_jaxpr(lambda x: x)(leaf)
        assert [(a.shape, a.dtype, a.weak_type) for a in ours_j.in_avals] == [
            (a.shape, a.dtype, a.weak_type) for a in theirs_j.in_avals
        ]


def test_dunder_jax_array_argument_refused(x64):
    """jit / make_jaxpr of an object with __jax_array__: JAX's ValueError."""

    class Wrapped:
        def __init__(self, val):
            self.val = val

        def __jax_array__(self):
            return self.val

    msg = r"Triggering __jax_array__\(\) during abstractification is no longer supported"
    for lib, np_ in ((mj, mnp), (jax, jnp)):
        with pytest.raises(ValueError, match=msg):
            lib.jit(lambda x: x)(Wrapped(np_.arange(4)))
        with pytest.raises(ValueError, match=msg):
            lib.make_jaxpr(lambda x: x)(Wrapped(np_.arange(4)))


def test_choose_and_ravel_multi_index_out_of_bounds_wording(x64):
    """mode='raise' out of bounds: JAX's (and NumPy's) message starts with 'invalid entry',
    which JAX's tests match to tell the expected error."""
    for np_ in (mnp, jnp):
        with pytest.raises(ValueError, match=r"^invalid entry in choice array"):
            np_.choose(np.array([0, 2]), [np.arange(2), np.arange(2)], mode="raise")
        with pytest.raises(ValueError, match=r"^invalid entry in coordinates array"):
            np_.ravel_multi_index((np.array([0, 3]), np.array([1, 1])), (3, 4), mode="raise")

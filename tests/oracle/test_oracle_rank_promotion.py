"""``numpy_rank_promotion`` against JAX 0.10.2 (issue 35), in both dtype modes.

JAX checks rank promotion only on the user's operands of ``jax.numpy`` functions
(``promote_shapes``); lax primitives, vmap's batched shapes, linalg and the derivative rules
never check it. JAX's own test suite runs with ``jax_numpy_rank_promotion="raise"``, so mj
must raise (and warn) exactly where JAX does, with JAX's words, and compute where JAX computes.
"""

import re
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import lax as mlax

jax.config.update("jax_enable_x64", True)

pytestmark = pytest.mark.oracle

RNG = np.random.default_rng(35)
V3 = RNG.normal(size=(3,))
M23 = RNG.normal(size=(2, 3))
I3 = RNG.integers(1, 5, size=(3,))
I23 = RNG.integers(1, 5, size=(2, 3))
_A = RNG.normal(size=(4, 3, 3))
_SPD = _A @ np.swapaxes(_A, -1, -2) + 3 * np.broadcast_to(np.eye(3), (4, 3, 3))
_RHS = RNG.normal(size=(4, 3, 2))
_M23, _V3 = M23, V3


@pytest.fixture(params=["raise", "warn"])
def rank_mode(request):
    """Both libraries with the same ``numpy_rank_promotion`` mode."""
    before = jax.config.jax_numpy_rank_promotion
    jax.config.update("jax_numpy_rank_promotion", request.param)
    with mj.numpy_rank_promotion(request.param):
        yield request.param
    jax.config.update("jax_numpy_rank_promotion", before)


@pytest.fixture
def raising():
    before = jax.config.jax_numpy_rank_promotion
    jax.config.update("jax_numpy_rank_promotion", "raise")
    with mj.numpy_rank_promotion("raise"):
        yield
    jax.config.update("jax_numpy_rank_promotion", before)


def _outcome(fn, *args):
    """``("ok", value)``, ``("raise", type, message)`` or ``("warn", [messages])``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = fn(*args)
        except Exception as e:
            return ("raise", e, str(e))
    msgs = [str(w.message) for w in caught if "rank promotion" in str(w.message)]
    if msgs:
        return ("warn", msgs, np.asarray(out))
    return ("ok", jax.tree_util.tree_map(np.asarray, out), None)


def _mj_wording(jax_text):
    """JAX's text with mj's option name where JAX's names its own config option."""
    return jax_text.replace("jax_numpy_rank_promotion", "mj_numpy_rank_promotion")


# --- the user's operands of different ranks: JAX raises / warns, and so does mj ---------------

_USER = {
    "add": (lambda np_: np_.add, V3, M23),
    "operator+": (lambda np_: lambda x, y: np_.asarray(x) + np_.asarray(y), V3, M23),
    "subtract": (lambda np_: np_.subtract, M23, V3),
    "multiply": (lambda np_: np_.multiply, V3, M23),
    "true_divide": (lambda np_: np_.true_divide, V3, M23),
    "maximum": (lambda np_: np_.maximum, V3, M23),
    "less": (lambda np_: np_.less, V3, M23),
    "equal": (lambda np_: np_.equal, V3, M23),
    "arctan2": (lambda np_: np_.arctan2, V3, M23),
    "hypot": (lambda np_: np_.hypot, V3, M23),
    "logaddexp": (lambda np_: np_.logaddexp, V3, M23),
    "power": (lambda np_: np_.power, np.abs(V3), M23),
    "remainder": (lambda np_: np_.remainder, I3, I23),
    "floor_divide": (lambda np_: np_.floor_divide, I3, I23),
    "bitwise_and": (lambda np_: np_.bitwise_and, I3, I23),
    "left_shift": (lambda np_: np_.left_shift, I3, I23),
    "logical_and": (lambda np_: np_.logical_and, V3, M23),
    "isclose": (lambda np_: np_.isclose, V3, M23),
}


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("name", sorted(_USER))
def test_user_rank_promotion_raises_and_warns_as_jax(name, jit, rank_mode, x64):
    make, x, y = _USER[name]
    jf, mf = make(jnp), make(mnp)
    if jit:
        jf, mf = jax.jit(jf), mj.jit(mf)
    # shapes of this case only: JAX warns when it traces, and its ufuncs are jitted functions
    # whose traces are cached by shape (another case's call would have traced them already)
    reps = 2 * sorted(_USER).index(name) + 1 + jit
    x, y = np.tile(x, reps), np.tile(y, reps)
    want = _outcome(jf, x, y)
    got = _outcome(mf, x, y)
    assert want[0] == ("raise" if rank_mode == "raise" else "warn"), want
    assert got[0] == want[0], (got, want)
    if rank_mode == "raise":
        assert isinstance(got[1], ValueError)
        # JAX's words first (mj's option name), mj's context (the user's line) after them
        assert got[2].startswith(_mj_wording(want[2])), (got[2], want[2])
    else:
        assert got[1][0].startswith(_mj_wording(want[1][0])), (got[1], want[1])
        np.testing.assert_allclose(got[2], want[2], rtol=1e-6)


@pytest.mark.parametrize("y", [2.0, 3, np.float32(2.0), np.ones(())], ids=repr)
def test_scalars_are_not_rank_promotion(y, raising, x64):
    want = _outcome(jnp.add, V3, y)
    got = _outcome(mnp.add, V3, y)
    assert want[0] == got[0] == "ok"
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)


# --- shapes JAX builds itself (vmap, linalg, derivative rules, lax): no check -----------------


def _cases(np_, la, api, lax, dtype):
    """The cases, on inputs of the mode's float ``dtype`` (JAX's executable cache must not see
    one float64 host array in both modes)."""
    M23, V3, SPD, RHS = (np.asarray(a, dtype) for a in (_M23, _V3, _SPD, _RHS))  # noqa: N806
    return {
        "vmap_broadcast_unbatched": lambda: api.vmap(lambda a, b: a - b, (0, None))(M23, V3),
        "vmap_broadcast_batched_scalar": lambda: api.vmap(lambda a, s: a * s)(M23, V3[:2]),
        "vmap_in_axes_1": lambda: api.vmap(lambda a, b: a + b, (1, None))(M23, M23[:, 0]),
        "vmap_nested": lambda: api.vmap(api.vmap(lambda a, b: a * b, (0, None)), (None, 0))(
            V3, M23
        ),
        "vmap_of_dot": lambda: api.vmap(np_.dot, (0, None))(SPD, V3),
        "vmap_of_sum_minus": lambda: api.vmap(lambda a: a - a.sum())(M23),
        "vmap_where": lambda: api.vmap(lambda a, b: np_.where(a > 0, a, b), (0, None))(M23, V3),
        "where_broadcast": lambda: np_.where(M23 > 0, V3, 0.0),
        "matmul_batched": lambda: np_.matmul(SPD, RHS[0]),
        "matmul_vector": lambda: np_.matmul(SPD, V3),
        "lax_add_scalar": lambda: lax.add(np_.asarray(V3), 2.0),
        "lax_mul_scalar": lambda: lax.mul(np_.asarray(M23), np_.asarray(M23)[0, 0]),
        "solve": lambda: la.solve(SPD, RHS),
        "inv": lambda: la.inv(SPD),
        "cholesky": lambda: la.cholesky(SPD),
        "eigh_values": lambda: la.eigh(SPD)[0],
        "det": lambda: la.det(SPD),
        "slogdet": lambda: tuple(la.slogdet(SPD)),
        "norm_axis": lambda: la.norm(M23, axis=1),
        "grad_slogdet": lambda: api.grad(lambda m: la.slogdet(m)[1].sum())(SPD),
        "grad_inv": lambda: api.grad(lambda m: la.inv(m).sum())(SPD),
        "grad_solve": lambda: api.grad(lambda m: la.solve(m, RHS).sum())(SPD),
        "grad_mean_axis": lambda: api.grad(lambda a: (np_.mean(a, axis=1) ** 2).sum())(M23),
        "grad_max_axis": lambda: api.grad(lambda a: np_.max(a, axis=0).sum())(M23),
        "grad_norm_axis": lambda: api.grad(lambda a: la.norm(a, axis=1).sum())(M23),
        "grad_softmax": lambda: api.grad(
            lambda a: (a - a.max(axis=1, keepdims=True)).sum() + np_.log(a**2 + 1).sum()
        )(M23),
        "jacfwd_matmul": lambda: api.jacfwd(lambda a: np_.matmul(SPD, a))(V3),
        "jacrev_vmap": lambda: api.jacrev(api.vmap(lambda a: np_.sin(a) * a.sum()))(M23),
        "grad_of_vmap": lambda: api.grad(
            lambda a: api.vmap(lambda r, b: (r * b).sum(), (0, None))(a, V3).sum()
        )(M23),
        "vmap_of_grad": lambda: api.vmap(api.grad(lambda a, b: (a * b).sum()), (0, None))(M23, V3),
        "hessian": lambda: api.hessian(lambda a: (np_.tanh(a) ** 2).sum())(V3),
    }


class _Api:
    def __init__(self, lib):
        self.vmap, self.grad, self.jacfwd = lib.vmap, lib.grad, lib.jacfwd
        self.jacrev, self.hessian = lib.jacrev, lib.hessian


_NAMES = sorted(_cases(jnp, jnp.linalg, _Api(jax), jax.lax, np.float64))


@pytest.mark.parametrize("jit", [False, True], ids=["eager", "jit"])
@pytest.mark.parametrize("name", _NAMES)
def test_internal_shapes_are_not_checked(name, jit, raising, x64):
    dtype = np.float64 if x64 else np.float32
    jf = _cases(jnp, jnp.linalg, _Api(jax), jax.lax, dtype)[name]
    mf = _cases(mnp, mnp.linalg, _Api(mj), mlax, dtype)[name]
    if jit:
        jf, mf = jax.jit(jf), mj.jit(mf)
    want = _outcome(jf)
    assert want[0] == "ok", want  # (the case is one JAX computes under "raise")
    got = _outcome(mf)
    assert got[0] == "ok", got
    tol = 1e-4 if not jax.config.jax_enable_x64 else 1e-9
    for g, w in zip(
        jax.tree_util.tree_leaves(got[1]), jax.tree_util.tree_leaves(want[1]), strict=True
    ):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol)


def test_raise_message_names_the_users_line(raising):
    with pytest.raises(ValueError, match="could not be broadcast together for add") as info:
        mnp.add(V3, M23)
    text = str(info.value)
    assert re.search(r"\(in \w+ at .*test_oracle_rank_promotion\.py:\d+\)$", text), text

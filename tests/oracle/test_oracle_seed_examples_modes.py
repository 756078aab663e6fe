"""The seed examples (seed 004: Quickstart, Autodiff Cookbook, custom derivative rules,
pytrees, Sharp Bits, jaxpr interpreters; seed 000: Autodidax) against JAX, in both x64 modes
(issue 18).

Each example is written once as a function of a namespace (``ns.numpy``, ``ns.grad``, ...)
and run with ``ns`` bound to JAX and to mj. Every output leaf must have JAX's dtype and shape
exactly and its value within a tolerance fitting the dtype; an example that warns about a
64-bit request (JAX's "Explicitly requested dtype ..." warning) must warn in mj too.
Jaxprs are compared as equation lists (primitive names and avals, weak types included): mj
prints jaxprs in Autodidax's format, not JAX's, so the texts are compared only for
Autodidax's one-equation example, each against its own format.
"""

import warnings
from collections import namedtuple
from collections.abc import Callable
from functools import partial
from types import SimpleNamespace
from typing import Any

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest

import mj
import mj.numpy as mnp

JAX = SimpleNamespace(
    name="jax",
    numpy=jnp,
    lax=jax.lax,
    random=jax.random,
    tree_util=jax.tree_util,
    grad=jax.grad,
    value_and_grad=jax.value_and_grad,
    jit=jax.jit,
    vmap=jax.vmap,
    jvp=jax.jvp,
    vjp=jax.vjp,
    linearize=jax.linearize,
    jacfwd=jax.jacfwd,
    jacrev=jax.jacrev,
    hessian=jax.hessian,
    custom_jvp=jax.custom_jvp,
    custom_vjp=jax.custom_vjp,
    make_jaxpr=jax.make_jaxpr,
    eval_jaxpr=lambda closed, *args: jax.core.eval_jaxpr(closed.jaxpr, closed.consts, *args),
    concretization_error=jax.errors.ConcretizationTypeError,
)
MJ = SimpleNamespace(
    name="mj",
    numpy=mnp,
    lax=mj.lax,
    random=mj.random,
    tree_util=mj.tree_util,
    grad=mj.grad,
    value_and_grad=mj.value_and_grad,
    jit=mj.jit,
    vmap=mj.vmap,
    jvp=mj.jvp,
    vjp=mj.vjp,
    linearize=mj.linearize,
    jacfwd=mj.jacfwd,
    jacrev=mj.jacrev,
    hessian=mj.hessian,
    custom_jvp=mj.custom_jvp,
    custom_vjp=mj.custom_vjp,
    make_jaxpr=mj.make_jaxpr,
    eval_jaxpr=lambda closed, *args: mj.eval_jaxpr(closed.jaxpr, [*closed.consts, *args]),
    concretization_error=mj.errors.ConcretizationError,
)

RTOL = {2: 1e-2, 4: 1e-5, 8: 1e-10}  # by the float's (or complex part's) itemsize
CASES: dict[str, Callable[[SimpleNamespace], Any]] = {}
LOOSE: dict[str, float] = {}  # a case's float32 rtol where the example amplifies rounding


def case(fn: Callable[[SimpleNamespace], Any]) -> Callable[[SimpleNamespace], Any]:
    CASES[fn.__name__] = fn
    return fn


# --- comparing outputs ----------------------------------------------------------------------------


def _leaves(tree: Any, path: str = "out") -> list[tuple[str, Any]]:
    """The leaves of a result built from tuples, lists, namedtuples, dicts and None."""
    if isinstance(tree, dict):
        return [leaf for k in sorted(tree) for leaf in _leaves(tree[k], f"{path}[{k!r}]")]
    if isinstance(tree, list | tuple):
        kind = type(tree).__name__ if hasattr(tree, "_fields") else "seq"
        leaves = [leaf for i, v in enumerate(tree) for leaf in _leaves(v, f"{path}[{i}]")]
        return [(f"{path}:{kind}", len(tree)), *leaves]
    return [(path, tree)]


def _differences(got: Any, want: Any, rtol32: float) -> list[str]:
    got_leaves, want_leaves = _leaves(got), _leaves(want)
    if [p for p, _ in got_leaves] != [p for p, _ in want_leaves]:
        return [f"structure: jax {[p for p, _ in want_leaves]}, mj {[p for p, _ in got_leaves]}"]
    diffs = []
    for (path, g), (_, w) in zip(got_leaves, want_leaves, strict=True):
        if not hasattr(w, "dtype"):  # Python values: types and values as JAX has them
            if type(g) is not type(w) or not _close_python(g, w):
                diffs.append(f"{path}: jax {w!r}, mj {g!r}")
            continue
        if not hasattr(g, "dtype"):
            diffs.append(f"{path}: jax {w.dtype}{w.shape} array, mj {type(g).__name__} {g!r}")
            continue
        g, w = np.asarray(g), np.asarray(w)
        if g.dtype != w.dtype or g.shape != w.shape:
            diffs.append(f"{path}: jax {w.dtype}{w.shape}, mj {g.dtype}{g.shape}")
        elif not _close_arrays(g, w, rtol32):
            wide = np.complex128 if w.dtype.kind == "c" else np.float64
            err = np.nanmax(np.abs(g.astype(wide) - w.astype(wide)), initial=0.0)
            diffs.append(f"{path} ({w.dtype}{w.shape}): max |mj - jax| = {err}")
    return diffs


def _close_python(g: Any, w: Any) -> bool:
    if isinstance(w, float):
        return bool(np.isclose(g, w, rtol=1e-12, equal_nan=True))
    return bool(g == w)


def _close_arrays(g: np.ndarray, w: np.ndarray, rtol32: float) -> bool:
    if w.dtype.kind not in "fc":
        return np.array_equal(g, w)
    size = w.dtype.itemsize // (2 if w.dtype.kind == "c" else 1)
    rtol = rtol32 if size == 4 else RTOL[size]
    wide = np.complex128 if w.dtype.kind == "c" else np.float64
    scale = max(float(np.max(np.abs(w.astype(wide)), initial=0.0, where=np.isfinite(w))), 1.0)
    return np.allclose(g.astype(wide), w.astype(wide), rtol=rtol, atol=rtol * scale, equal_nan=True)


def _run(fn: Callable[[SimpleNamespace], Any], ns: SimpleNamespace) -> tuple[Any, bool]:
    """The example's outputs, or its exception's kind, and whether it warned that a 64-bit
    dtype was truncated."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = fn(ns)
        except Exception as e:
            out = f"raised {_error_kind(e, ns)}"
    truncated = any("Explicitly requested dtype" in str(w.message) for w in caught)
    return out, truncated


def _error_kind(e: Exception, ns: SimpleNamespace) -> str:
    if isinstance(e, ns.concretization_error):
        return "ConcretizationError"
    return type(e).__name__


def _aval(v: Any) -> tuple[str, tuple[int, ...], bool]:
    a = v.aval
    return (np.dtype(a.dtype).name, tuple(a.shape), bool(a.weak_type))


def signature(closed: Any) -> dict[str, Any]:
    """A closed jaxpr as comparable data: input and output avals and its equations'
    primitives with their operand and result avals (literals included)."""
    jaxpr = closed.jaxpr
    return {
        "in": [_aval(v) for v in jaxpr.invars],
        "out": [_aval(v) for v in jaxpr.outvars],
        "eqns": [
            (e.primitive.name, [_aval(v) for v in e.invars], [_aval(v) for v in e.outvars])
            for e in jaxpr.eqns
        ],
    }


def avals_only(closed: Any) -> dict[str, Any]:
    """Where mj's equations legitimately differ from JAX's: the program's avals."""
    sig = signature(closed)
    return {"in": sig["in"], "out": sig["out"]}


# --- Quickstart -----------------------------------------------------------------------------------


def sum_logistic(ns, x):
    return ns.numpy.sum(1.0 / (1.0 + ns.numpy.exp(-x)))


@case
def quickstart_grad_sum_logistic(ns):
    x_small = ns.numpy.arange(3.0)
    return ns.grad(partial(sum_logistic, ns))(x_small)


@case
def quickstart_grad_composition(ns):
    f = partial(sum_logistic, ns)
    return ns.grad(ns.jit(ns.grad(ns.jit(ns.grad(f)))))(1.0)


@case
def quickstart_random_normal_and_dot(ns):
    key = ns.random.PRNGKey(0)
    x = ns.random.normal(key, (10,))
    y = ns.random.normal(key, (30, 30), dtype=ns.numpy.float32)
    return key, x, ns.numpy.dot(y, y.T)


@case
def quickstart_selu_under_jit(ns):
    def selu(x, alpha=1.67, lmbda=1.05):
        return lmbda * ns.numpy.where(x > 0, x, alpha * ns.numpy.exp(x) - alpha)

    x = ns.random.normal(ns.random.PRNGKey(0), (1000,))
    return selu(x), ns.jit(selu)(x)


@case
def quickstart_vmap_of_dot(ns):
    key = ns.random.PRNGKey(0)
    mat = ns.random.normal(key, (150, 100))
    batched_x = ns.random.normal(key, (10, 100))

    def apply_matrix(v):
        return ns.numpy.dot(mat, v)

    naive = ns.numpy.stack([apply_matrix(v) for v in batched_x])
    manual = ns.numpy.dot(batched_x, mat.T)
    return naive, manual, ns.jit(ns.vmap(apply_matrix))(batched_x)


# --- Autodiff Cookbook ----------------------------------------------------------------------------


@case
def cookbook_tanh_higher_order(ns):
    t = ns.numpy.tanh
    return ns.grad(t)(2.0), ns.grad(ns.grad(t))(2.0), ns.grad(ns.grad(ns.grad(t)))(2.0)


def cookbook_setup(ns):
    """The cookbook's logistic regression: ``predict``, ``loss`` and its parameters."""
    jnp_ = ns.numpy

    def sigmoid(x):
        return 0.5 * (jnp_.tanh(x / 2) + 1)

    def predict(W, b, inputs):  # noqa: N803
        return sigmoid(jnp_.dot(inputs, W) + b)

    inputs = jnp_.array(
        [[0.52, 1.12, 0.77], [0.88, -1.08, 0.15], [0.52, 0.06, -1.30], [0.74, -2.49, 1.39]]
    )
    targets = jnp_.array([True, True, False, True])

    def loss(W, b):  # noqa: N803
        preds = predict(W, b, inputs)
        label_probs = preds * targets + (1 - preds) * (1 - targets)
        return -jnp_.sum(jnp_.log(label_probs))

    _, w_key, b_key = ns.random.split(ns.random.PRNGKey(0), 3)
    W, b = ns.random.normal(w_key, (3,)), ns.random.normal(b_key, ())  # noqa: N806
    return SimpleNamespace(predict=predict, loss=loss, inputs=inputs, W=W, b=b)


@case
def cookbook_logistic_regression_grads(ns):
    c = cookbook_setup(ns)
    return (
        c.W,
        c.b,
        ns.grad(c.loss, argnums=0)(c.W, c.b),
        ns.grad(c.loss, 1)(c.W, c.b),
        ns.grad(c.loss, (0, 1))(c.W, c.b),
        ns.value_and_grad(c.loss, (0, 1))(c.W, c.b),
    )


@case
def cookbook_grad_of_a_dict(ns):
    c = cookbook_setup(ns)
    return ns.grad(lambda p: c.loss(p["W"], p["b"]))({"W": c.W, "b": c.b})


@case
def cookbook_jacfwd_jacrev_hessian(ns):
    c = cookbook_setup(ns)

    def f(W):  # noqa: N803
        return c.predict(W, c.b, c.inputs)

    return ns.jacfwd(f)(c.W), ns.jacrev(f)(c.W), ns.hessian(f)(c.W)


@case
def cookbook_hvp_three_ways(ns):
    def f(x):
        return ns.numpy.sum(ns.numpy.tanh(x) ** 2)

    key1, key2 = ns.random.split(ns.random.PRNGKey(1))
    X, V = ns.random.normal(key1, (3, 4)), ns.random.normal(key2, (3, 4))  # noqa: N806
    fwd_rev = ns.jvp(ns.grad(f), (X,), (V,))[1]
    rev_fwd = ns.grad(lambda x: ns.jvp(f, (x,), (V,))[1])(X)
    rev_rev = ns.grad(lambda x: ns.numpy.vdot(ns.grad(f)(x), V))(X)
    return fwd_rev, rev_fwd, rev_rev, ns.numpy.tensordot(ns.hessian(f)(X), V, 2)


@case
def cookbook_vmapped_vjp_and_jvp_jacobians(ns):
    c = cookbook_setup(ns)

    def f(W):  # noqa: N803
        return c.predict(W, c.b, c.inputs)

    y, vjp_fun = ns.vjp(f, c.W)
    rows = ns.vmap(vjp_fun)(ns.numpy.eye(len(y)))
    cols = ns.vmap(lambda s: ns.jvp(f, (c.W,), (s,))[1], in_axes=1)(ns.numpy.eye(len(c.W)))
    return y, rows, cols


@case
def cookbook_jit_of_vjp_with_python_control_flow(ns):
    def f(x):
        try:
            if x < 3:
                return 2 * x**3
            raise ValueError
        except ValueError:
            return ns.numpy.pi * x

    y, f_vjp = ns.vjp(f, 4.0)
    return y, ns.jit(f_vjp)(1.0)


# --- Custom derivative rules ----------------------------------------------------------------------


def log1pexp_rules(ns):
    jnp_ = ns.numpy

    @ns.custom_jvp
    def log1pexp(x):
        return jnp_.log(1.0 + jnp_.exp(x))

    log1pexp.defjvps(lambda t, ans, x: (1 - 1 / (1 + jnp_.exp(x))) * t)
    return log1pexp


@case
def custom_log1pexp(ns):
    f = log1pexp_rules(ns)
    with np.errstate(over="ignore"):
        large = ns.grad(f)(100.0)
    return (
        ns.jit(f)(3.0),
        ns.jit(ns.grad(f))(3.0),
        ns.vmap(ns.jit(ns.grad(f)))(ns.numpy.arange(3.0)),
        large,
    )


@case
def custom_jvp_with_defjvp_and_defjvps(ns):
    @ns.custom_jvp
    def f(x, y):
        return ns.numpy.sin(x) * y

    @f.defjvp
    def f_jvp(primals, tangents):
        x, y = primals
        x_dot, y_dot = tangents
        return f(x, y), ns.numpy.cos(x) * x_dot * y + ns.numpy.sin(x) * y_dot

    @ns.custom_jvp
    def g(x, y):
        return x**2 * y

    g.defjvps(lambda x_dot, primal_out, x, y: 2 * x * y * x_dot, None)
    return (
        f(2.0, 3.0),
        ns.jvp(f, (2.0, 3.0), (1.0, 0.0)),
        ns.grad(f)(2.0, 3.0),
        ns.grad(g)(2.0, 3.0),
        ns.grad(g, 1)(2.0, 3.0),
    )


@case
def custom_vjp_basic(ns):
    @ns.custom_vjp
    def f(x, y):
        return ns.numpy.sin(x) * y

    f.defvjp(
        lambda x, y: (f(x, y), (ns.numpy.cos(x), ns.numpy.sin(x), y)),
        lambda res, g: (res[0] * g * res[2], res[1] * g),
    )
    return f(2.0, 3.0), ns.grad(f)(2.0, 3.0), ns.grad(f, (0, 1))(2.0, 3.0)


@case
def custom_clip_gradient(ns):
    @partial(ns.custom_vjp, nondiff_argnums=(0, 1))
    def clip_gradient(lo, hi, x):
        return x

    clip_gradient.defvjp(
        lambda lo, hi, x: (x, None), lambda lo, hi, _, g: (ns.numpy.clip(g, lo, hi),)
    )

    def clip_sin(x):
        return ns.numpy.sin(clip_gradient(-0.75, 0.75, x))

    t = ns.numpy.linspace(0, 10, 1000)
    return clip_sin(t), ns.vmap(ns.grad(clip_sin))(t), ns.vmap(ns.grad(ns.numpy.sin))(t)


@case
def custom_convention_at_a_boundary(ns):
    def f(x):
        return x / (1 + ns.numpy.sqrt(x))

    g = ns.custom_jvp(f)
    g.defjvps(lambda t, ans, x: ((ns.numpy.sqrt(x) + 2) / (2 * (ns.numpy.sqrt(x) + 1) ** 2)) * t)
    with np.errstate(divide="ignore", invalid="ignore"):
        return ns.grad(f)(0.0), ns.grad(g)(0.0)


def fixed_point_sqrt(ns):
    """The page's ``fixed_point`` with its implicit-function VJP, and ``newton_sqrt``."""

    @partial(ns.custom_vjp, nondiff_argnums=(0,))
    def fixed_point(f, a, x_guess):
        def cond_fun(carry):
            x_prev, x = carry
            return ns.numpy.abs(x_prev - x) > 1e-6

        def body_fun(carry):
            _, x = carry
            return x, f(a, x)

        _, x_star = ns.lax.while_loop(cond_fun, body_fun, (x_guess, f(a, x_guess)))
        return x_star

    def fixed_point_fwd(f, a, x_init):
        x_star = fixed_point(f, a, x_init)
        return x_star, (a, x_star)

    def rev_iter(f, packed, u):
        a, x_star, x_star_bar = packed
        _, vjp_x = ns.vjp(lambda x: f(a, x), x_star)
        return x_star_bar + vjp_x(u)[0]

    def fixed_point_rev(f, res, x_star_bar):
        a, x_star = res
        _, vjp_a = ns.vjp(lambda a: f(a, x_star), a)
        (a_bar,) = vjp_a(fixed_point(partial(rev_iter, f), (a, x_star, x_star_bar), x_star_bar))
        return a_bar, ns.numpy.zeros_like(x_star)

    fixed_point.defvjp(fixed_point_fwd, fixed_point_rev)
    return lambda a: fixed_point(lambda a, x: 0.5 * (x + a / x), a, a)


@case
def custom_fixed_point(ns):
    newton_sqrt = fixed_point_sqrt(ns)
    return (
        newton_sqrt(2.0),
        ns.vmap(newton_sqrt)(ns.numpy.array([1.0, 2.0, 3.0, 4.0])),
        ns.grad(newton_sqrt)(2.0),
        ns.grad(ns.grad(newton_sqrt))(2.0),
    )


LOOSE["custom_fixed_point"] = 1e-4  # the loops stop at |x_prev - x| <= 1e-6


Point = namedtuple("Point", ["x", "y"])


@case
def custom_rules_with_pytrees(ns):
    @ns.custom_jvp
    def f(pt):
        return {"a": pt.x**2, "b": (ns.numpy.sin(pt.x), ns.numpy.cos(pt.y))}

    @f.defjvp
    def f_jvp(primals, tangents):
        (pt,), (pt_dot,) = primals, tangents
        ans_dot = {
            "a": 2 * pt.x * pt_dot.x,
            "b": (ns.numpy.cos(pt.x) * pt_dot.x, -ns.numpy.sin(pt.y) * pt_dot.y),
        }
        return f(pt), ans_dot

    return f(Point(1.0, 2.0)), ns.grad(lambda pt: f(pt)["a"] + f(pt)["b"][0])(Point(1.0, 2.0))


@case
def custom_nondiff_argnums(ns):
    @partial(ns.custom_jvp, nondiff_argnums=(0,))
    def app(f, x):
        return f(x)

    @app.defjvp
    def app_jvp(f, primals, tangents):
        (x,), (x_dot,) = primals, tangents
        return f(x), 2.0 * x_dot

    return app(lambda x: x**3, 3.0), ns.grad(app, 1)(lambda x: x**3, 3.0)


# --- Pytrees --------------------------------------------------------------------------------------


@case
def pytrees_flatten_and_map(ns):
    tu = ns.tree_util
    example_trees = [
        [1, "a", None],
        (1, (2, 3), ()),
        [1, {"k1": 2, "k2": (3, 4)}, 5],
        {"a": 2, "b": (2, 3)},
        ns.numpy.array([1, 2, 3]),
        Point(1.0, 2.0),
    ]
    counts = [len(tu.tree_leaves(t)) for t in example_trees]
    list_of_lists = [[1, 2, 3], [1, 2], [1, 2, 3, 4]]
    leaves, treedef = tu.tree_flatten((1.0, {"b": 2.0, "a": 3.0}))
    return (
        counts,
        tu.tree_map(lambda x: x * 2, list_of_lists),
        tu.tree_map(lambda x, y: x + y, list_of_lists, list_of_lists),
        leaves,
        tu.tree_unflatten(treedef, [v * 2.0 for v in leaves]),
        tu.tree_map(lambda x: x * 2.0, example_trees[4]),
    )


@case
def pytrees_mlp_params_from_numpy(ns):
    """The page's MLP: float64 NumPy parameters, one SGD step through ``tree_map``."""
    rng = np.random.default_rng(0)
    params = [
        {"weights": rng.normal(size=(n_in, n_out)), "biases": np.ones(n_out)}
        for n_in, n_out in zip([1, 128, 128], [128, 128, 1], strict=True)
    ]

    def forward(params, x):
        *hidden, last = params
        for layer in hidden:
            x = ns.numpy.maximum(0.0, x @ layer["weights"] + layer["biases"])
        return x @ last["weights"] + last["biases"]

    def loss_fn(params, x, y):
        return ns.numpy.mean((forward(params, x) - y) ** 2)

    xs = rng.normal(size=(128, 1))
    ys = xs**2
    grads = ns.grad(loss_fn)(params, xs, ys)
    updated = ns.tree_util.tree_map(lambda p, g: p - 1e-4 * g, params, grads)
    shapes = ns.tree_util.tree_map(lambda x: x.shape, params)
    return shapes, grads, updated


LOOSE["pytrees_mlp_params_from_numpy"] = 1e-4  # sums of 128 x 128 products


@case
def pytrees_registered_class(ns):
    class RegisteredSpecial:
        def __init__(self, x, y):
            self.x, self.y = x, y

    ns.tree_util.register_pytree_node(
        RegisteredSpecial, lambda v: ((v.x, v.y), None), lambda _, c: RegisteredSpecial(*c)
    )
    leaves, treedef = ns.tree_util.tree_flatten(RegisteredSpecial(1.0, 2.0))
    doubled = ns.tree_util.tree_map(lambda x: x * 2, RegisteredSpecial(1.0, 2.0))
    g = ns.grad(lambda s: s.x * s.y)(RegisteredSpecial(3.0, 5.0))
    rebuilt = ns.tree_util.tree_unflatten(treedef, [3.0, 4.0])
    return leaves, (doubled.x, doubled.y), (g.x, g.y), (rebuilt.x, rebuilt.y)


# --- Sharp Bits -----------------------------------------------------------------------------------


@case
def sharp_bits_index_updates(ns):
    jax_array = ns.numpy.zeros((3, 3), dtype=ns.numpy.float32)
    updated = jax_array.at[1, :].set(1.0)
    added = ns.numpy.ones((5, 6)).at[::2, 3:].add(7.0)
    ints = ns.numpy.arange(6).at[::2].multiply(3)
    return jax_array, updated, added, ints, ns.jit(lambda x: x.at[0].set(-1.5))(added)


@case
def sharp_bits_out_of_bounds(ns):
    x = ns.numpy.arange(10)
    return (
        x[11],
        ns.jit(lambda x, i: x[i])(x, 11),
        ns.numpy.arange(10.0).at[11].get(mode="fill", fill_value=ns.numpy.nan),
        ns.numpy.zeros(5).at[10].set(1.0),
        ns.numpy.arange(5).at[ns.numpy.array([1, 7])].add(10),
    )


@case
def sharp_bits_non_array_inputs(ns):
    return ns.numpy.sum([1, 2, 3])


@case
def sharp_bits_nans_and_infs(ns):
    jnp_ = ns.numpy

    def naive_log1pexp(x):
        return jnp_.log(1.0 + jnp_.exp(x))

    with np.errstate(all="ignore"):
        values = jnp_.array([0.0, 1.0, -1.0, 1000.0])
        return (
            jnp_.divide(0.0, 0.0),
            jnp_.log(0.0),
            jnp_.exp(values),
            jnp_.isnan(values / 0.0),
            jnp_.isinf(jnp_.exp(values)),
            jnp_.nan_to_num(values / 0.0),
            ns.grad(naive_log1pexp)(100.0),
        )


@case
def sharp_bits_python_control_flow(ns):
    def f(x):
        return 3.0 * x**2 if x < 3 else 4 * x

    try:
        ns.jit(f)(2.0)
        refused = "no error"
    except ns.concretization_error:
        refused = "ConcretizationError"
    operand = ns.numpy.array([0.0])
    return (
        ns.grad(f)(2.0),
        ns.grad(f)(4.0),
        refused,
        ns.jit(f, static_argnums=(0,))(2.0),
        ns.lax.cond(True, lambda x: x + 1, lambda x: x - 1, operand),
        ns.lax.cond(False, lambda x: x + 1, lambda x: x - 1, operand),
        ns.lax.while_loop(lambda x: x < 10, lambda x: x + 1, 0),
        ns.lax.fori_loop(0, 10, lambda i, x: x + i, 0),
        ns.lax.fori_loop(0, 10, lambda i, x: x + i, 0.5),
    )


@case
def sharp_bits_double_precision_requests(ns):
    jnp_ = ns.numpy
    x = ns.random.uniform(ns.random.PRNGKey(0), (1000,), dtype=jnp_.float64)
    return (
        x,
        jnp_.array([1, 2, 3], dtype="float64"),
        jnp_.arange(5, dtype=jnp_.int64),
        jnp_.zeros(3, dtype="int64"),
        jnp_.ones(2, dtype=jnp_.complex128),
    )


@case
def sharp_bits_default_dtypes(ns):
    jnp_ = ns.numpy
    return (
        jnp_.array([1, 2, 3]),
        jnp_.array([1.0, 2.0]),
        jnp_.array([1 + 2j]),
        jnp_.arange(3),
        jnp_.arange(3.0),
        jnp_.linspace(0, 1, 5),
        jnp_.zeros(2),
        jnp_.array(np.arange(3.0)),  # NumPy's float64, canonicalized without x64
        jnp_.array(np.arange(3)),
        jnp_.asarray(np.uint64(7)),
        ns.random.randint(ns.random.PRNGKey(0), (4,), 0, 10),
    )


@case
def sharp_bits_type_promotion(ns):
    """Seed 004's "Type promotion semantics": array pairs and weakly typed Python scalars."""
    jnp_ = ns.numpy

    def ones(dtype):
        return jnp_.ones(2, dtype=dtype)

    return (
        ones("int32") + ones("float32"),
        ones("int8") + 1,
        ones("int8") + 1.5,
        ones("uint8") + ones("int8"),
        ones("float16") + 2.5,
        ones(ml_dtypes.bfloat16) + ones("float16"),
        ones("bool") + ones("uint16"),
        ones("int32") + ones("uint32"),
        ones("float32") * 2j,
        jnp_.arange(3) + 1.0,
        jnp_.arange(3) / 2,
        jnp_.promote_types(jnp_.int8, jnp_.uint8),
        jnp_.promote_types(jnp_.bfloat16, jnp_.float16),
    )


@case
def sharp_bits_64bit_promotion(ns):
    """Pairs that reach 64-bit types with x64 and are canonicalized to 32 bits without it."""
    jnp_ = ns.numpy
    return (
        jnp_.asarray(np.ones(2, np.int64)) + jnp_.asarray(np.ones(2, np.uint64)),
        jnp_.asarray(np.ones(2, np.int64)) * jnp_.ones(2, jnp_.float32),
        jnp_.asarray(np.ones(2, np.float64)) + jnp_.ones(2, jnp_.float32),
        jnp_.ones(2, jnp_.uint32) + jnp_.ones(2, jnp_.int32),
    )


# --- Writing custom jaxpr interpreters ------------------------------------------------------------


def exp_tanh(ns):
    return lambda x: ns.numpy.exp(ns.numpy.tanh(x))


@case
def interpreters_jaxpr_and_eval(ns):
    f = exp_tanh(ns)
    closed = ns.make_jaxpr(f)(ns.numpy.ones(5))
    return signature(closed), ns.eval_jaxpr(closed, ns.numpy.ones(5))


def inverse(ns, fun):
    """The page's inverse interpreter: the equations of ``fun``'s jaxpr run backwards."""
    rules = {"exp": ns.numpy.log, "tanh": ns.numpy.arctanh}

    def inverted(y):
        closed = ns.make_jaxpr(fun)(y)
        jaxpr = closed.jaxpr
        env = {}
        env[jaxpr.outvars[0]] = y
        for eqn in reversed(jaxpr.eqns):
            (inp,), (out,) = eqn.invars, eqn.outvars
            env[inp] = rules[eqn.primitive.name](env[out])
        return env[jaxpr.invars[0]]

    return inverted


@case
def interpreters_inverse(ns):
    f = exp_tanh(ns)
    inv = inverse(ns, f)
    xs = (np.arange(5) + 1.0) / 5.0
    return (
        inv(f(1.0)),
        # JAX's arctanh is one primitive, mj's the composite 0.5 * log1p(2x / (1 - x)); the
        # input is a Python float because mj's eager results carry no weak type
        avals_only(ns.make_jaxpr(inv)(2.0)),
        ns.jit(ns.vmap(ns.grad(inv)))(xs),
    )


@case
def interpreters_examine_jaxpr(ns):
    """The page's ``foo`` and ``bar`` (jaxprs with and without constants)."""

    def foo(x):
        return x + 1

    def bar(w, b, x):
        return ns.numpy.dot(w, x) + b + ns.numpy.ones(5), x

    w, b, x = ns.numpy.ones((5, 10)), ns.numpy.ones(5), ns.numpy.ones(10)
    return (
        signature(ns.make_jaxpr(foo)(5)),
        signature(ns.make_jaxpr(foo)(5.0)),
        # JAX stages ``ones(5)`` as a broadcast_in_dim; mj folds it into a constant
        avals_only(ns.make_jaxpr(bar)(w, b, x)),
        bar(w, b, x),
    )


@case
def interpreters_grad_of_log1pexp_jaxpr(ns):
    def log1pexp(x):
        return ns.numpy.log(1.0 + ns.numpy.exp(x))

    return signature(ns.make_jaxpr(ns.grad(log1pexp))(100.0))


# --- Autodidax (seed 000) -------------------------------------------------------------------------


def autodidax_f(ns):
    def f(x):
        y = ns.numpy.sin(x) * 2.0
        z = -y + x
        return z

    return f


@case
def autodidax_jvp_and_higher_derivatives(ns):
    f = autodidax_f(ns)

    def deriv(fun):
        return lambda x: ns.jvp(fun, (x,), (1.0,))[1]

    return (
        f(3.0),
        ns.jvp(f, (3.0,), (1.0,)),
        deriv(f)(3.0),
        deriv(deriv(f))(3.0),
        deriv(deriv(deriv(f)))(3.0),
    )


@case
def autodidax_vmap_and_jacfwd_on_numpy_floats(ns):
    f = autodidax_f(ns)

    def add_one_to_a_scalar(scalar):
        assert not scalar.shape
        return 1 + scalar

    return (
        ns.vmap(add_one_to_a_scalar, (0,))(np.arange(3.0)),
        ns.jacfwd(f)(np.arange(3.0)),
        ns.vmap(ns.numpy.dot, (0, None))(np.ones((2, 3)), np.arange(3.0)),
    )


@case
def autodidax_jit_linearize_and_vjp(ns):
    f = autodidax_f(ns)

    @ns.jit
    def g(x, y):
        return ns.numpy.sin(x) * ns.numpy.cos(y)

    y, f_lin = ns.linearize(ns.numpy.sin, 3.0)
    y2, f_vjp = ns.vjp(ns.numpy.sin, 3.0)
    return g(3.0, 4.0), ns.grad(g)(3.0, 4.0), y, f_lin(1.0), y2, f_vjp(1.0), ns.grad(f)(3.0)


@case
def autodidax_make_jaxprs(ns):
    return (
        signature(ns.make_jaxpr(lambda x: 2.0 * x)(3.0)),
        signature(ns.make_jaxpr(lambda x: ns.numpy.sin(ns.numpy.cos(x)))(3.0)),
        signature(ns.make_jaxpr(lambda x, t: ns.jvp(ns.numpy.sin, (x,), (t,)))(3.0, 1.0)),
    )


@case
def autodidax_make_jaxpr_literal_takes_the_operand_dtype(ns):
    return signature(ns.make_jaxpr(lambda x: x * 2.0)(np.float32(3.0)))


SPELLINGS = {"2.0 * x": lambda x: 2.0 * x, "x * 2.0": lambda x: x * 2.0}


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_autodidax_jaxpr_text_follows_the_mode(spelling, x64):
    """Autodidax prints ``{ lambda a:float32[] . let b:float32[] = mul 2.0 a in ( b ) }``;
    JAX 0.10.2 prints the same program in its own format. Each must name the mode's float."""
    width = 64 if x64 else 32
    fn = SPELLINGS[spelling]
    operands = "2.0 a" if spelling.startswith("2.0") else "a 2.0"
    mj_text = f"{{ lambda a:float{width}[] . let b:float{width}[] = mul {operands} in ( b ) }}"
    jax_operands = operands.replace("2.0", f"2.0:f{width}[]")
    jax_text = f"{{ lambda ; a:f{width}[]. let b:f{width}[] = mul {jax_operands} in (b,) }}"
    assert " ".join(str(jax.make_jaxpr(fn)(3.0)).split()) == jax_text
    assert " ".join(str(mj.make_jaxpr(fn)(3.0)).split()) == mj_text


# --- the comparison -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(CASES))
def test_seed_example_matches_jax(name, x64):
    fn = CASES[name]
    want, jax_truncated = _run(fn, JAX)
    got, mj_truncated = _run(fn, MJ)
    diffs = _differences(got, want, LOOSE.get(name, RTOL[4]))
    if jax_truncated != mj_truncated:
        diffs.append(f"64-bit truncation warning: jax {jax_truncated}, mj {mj_truncated}")
    assert not diffs, "\n".join(diffs)

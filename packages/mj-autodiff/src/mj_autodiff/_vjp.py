"""Reverse mode: ``vjp`` (linearize, then transpose), ``grad`` and ``value_and_grad``.

Called eagerly (no transformation active), ``vjp`` records a tape instead
(:mod:`mj_autodiff._tape`): the same derivatives without staging a linear jaxpr."""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any, ParamSpec

import numpy as np

from mj_autodiff._jvp import flatten_fun_aux
from mj_autodiff._linearize import LinearFunction, linearize_flat
from mj_autodiff._tangents import Zero, instantiate_zeros, shape_dtype, tangent_aval
from mj_autodiff._tape import tape_vjp_flat
from mj_core import Tracer, get_aval, is_eager
from mj_core.dtypes import is_float, is_inexact
from mj_core.errors import user_line_suffix
from mj_core.extend import (
    Token,
    borrowed_data,
    eager_result,
    is_token_aval,
    unchanged,
    unshared,
    weak_result,
)
from mj_core.tree_util import PyTreeDef, register_pytree_node, tree_flatten, tree_unflatten

__all__ = ["DidntWant", "DontWant", "GradValue", "NotNeeded", "grad", "value_and_grad", "vjp"]

P = ParamSpec("P")


class NotNeeded:
    """An entry of a pullback's ``args_res`` whose argument the backward pass does not read
    (JAX's ``NotNeeded``): a pytree without leaves."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return type(other) is NotNeeded

    def __hash__(self) -> int:
        return hash(NotNeeded)

    def __repr__(self) -> str:
        return "NotNeeded()"


class GradValue:
    """``f_vjp.with_refs`` marker (``jax.ad.GradValue``): return this argument's cotangent."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return type(other) is GradValue

    def __hash__(self) -> int:
        return hash(GradValue)

    def __repr__(self) -> str:
        return "GradValue()"


class DontWant:
    """``f_vjp.with_refs`` marker (``jax.ad.DontWant``): this argument's cotangent is not
    wanted, so it is not computed (its place holds :class:`DidntWant`)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return type(other) is DontWant

    def __hash__(self) -> int:
        return hash(DontWant)

    def __repr__(self) -> str:
        return "DontWant()"


class DidntWant:
    """In place of a cotangent that was not wanted (``jax.ad.DidntWant``): a pytree without
    leaves, so a pullback's result with it passes through ``jit``."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return type(other) is DidntWant

    def __hash__(self) -> int:
        return hash(DidntWant)

    def __repr__(self) -> str:
        return "DidntWant()"


register_pytree_node(NotNeeded, lambda x: ((), None), lambda aux, ch: NotNeeded())
register_pytree_node(DidntWant, lambda x: ((), None), lambda aux, ch: DidntWant())


class _Residuals:
    """A pullback's linear map split as JAX's ``vjp`` splits it: the residuals that are
    primal arguments themselves (read from ``args_res`` when the pullback runs, so a caller
    may drop and restore them) and the others (``opaque``)."""

    __slots__ = ("args_res", "lin", "opaque", "spec")

    def __init__(
        self, lin: LinearFunction, spec: list[tuple[bool, int]], args_res: Any, opaque: list[Any]
    ) -> None:
        self.lin = lin
        self.spec = spec  # per residual: (is an argument, index among arguments / opaque)
        self.args_res = args_res
        self.opaque = opaque

    @classmethod
    def split(cls, lin: LinearFunction, primals: list[Any], in_tree: PyTreeDef) -> _Residuals:
        position = {id(p): i for i, p in enumerate(primals)}
        spec: list[tuple[bool, int]] = []
        opaque: list[Any] = []
        used: set[int] = set()
        for c in lin.consts:
            i = position.get(id(c))
            if i is None:
                spec.append((False, len(opaque)))
                opaque.append(c)
            else:
                spec.append((True, i))
                used.add(i)
        leaves = [p if i in used else NotNeeded() for i, p in enumerate(primals)]
        # one entry per positional argument (JAX turns its containers into tuples; the leaf
        # order, which is what the backward pass reads, is the same)
        args = []
        for child in in_tree.child_treedefs:
            args.append(tree_unflatten(child, leaves[: child.num_leaves]))
            leaves = leaves[child.num_leaves :]
        return cls(lin, spec, args, opaque)

    def linear_function(self) -> LinearFunction:
        """The linear map with its residuals as ``args_res`` and ``opaque`` hold them now."""
        args = tree_flatten(self.args_res, is_leaf=_is_residual_slot)[0]
        consts = [args[i] if primal else self.opaque[i] for primal, i in self.spec]
        lin = self.lin
        return LinearFunction(
            lin.jaxpr, consts, lin.in_avals, lin.in_nonzero, lin.out_avals, lin.out_nonzero
        )


def _is_residual_slot(x: Any) -> bool:
    return x is None or type(x) is NotNeeded


class _VJPFunction:
    """The pullback returned by :func:`vjp`: maps an output cotangent to the cotangents of
    the primal arguments (a tuple, one entry per argument).

    As JAX 0.10.2's ``VJP`` object it has ``jaxpr`` (the linear map it transposes, residuals
    first), ``args_res`` (per argument: the argument where the backward pass reads it as a
    residual, else ``NotNeeded()``; assignable, e.g. dropped and restored later),
    ``opaque_residuals`` (the other residuals) and ``with_refs``. A pullback recorded on a
    tape (eager ``vjp``) linearizes ``fun`` again at the same arguments the first time one of
    these is read, and from then on transposes that linear map."""

    __slots__ = ("_fun", "_res", "in_tree", "out_tree", "primals", "primals_out", "pullback")

    def __init__(
        self,
        pullback: Callable[[Sequence[Any]], list[Any]],
        in_tree: PyTreeDef,
        out_tree: PyTreeDef,
        primals_out: list[Any],
        fun: Callable[..., Any] | None = None,
        primals: list[Any] | None = None,
        res: _Residuals | None = None,
    ) -> None:
        self.pullback = pullback
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.primals_out = primals_out
        self._fun = fun  # the flat function (a fresh flattening per call), to linearize again
        self.primals = primals
        self._res = res

    def _residuals(self) -> _Residuals:
        if self._res is None:
            lin = getattr(self.pullback, "__self__", None)
            if type(lin) is not LinearFunction:
                if self._fun is None or self.primals is None:
                    raise ValueError("this vjp function has no linear map to describe")
                lin = linearize_flat(self._fun, self.primals)[1].pruned()
            self._res = _Residuals.split(lin, self.primals or [], self.in_tree)
        return self._res

    @property
    def jaxpr(self) -> Any:
        """The linear jaxpr the pullback transposes: residuals, then tangent inputs."""
        return self._residuals().lin.jaxpr

    @property
    def args_res(self) -> Any:
        return self._residuals().args_res

    @args_res.setter
    def args_res(self, value: Any) -> None:
        self._residuals().args_res = value

    @property
    def opaque_residuals(self) -> list[Any]:
        return self._residuals().opaque

    @opaque_residuals.setter
    def opaque_residuals(self, value: list[Any]) -> None:
        self._residuals().opaque = value

    def with_refs(self, *wants: Any) -> Callable[[Any], Any]:
        """The pullback for only some arguments' cotangents (JAX's ``f_vjp.with_refs``): one
        marker per positional argument, ``GradValue()`` (return it) or ``DontWant()`` (not
        computed: ``DidntWant()`` in its place). JAX's gradient references (``GradRef``,
        ``new_ref``) are not supported."""
        flat, tree = tree_flatten(wants)
        if tree != self.in_tree:
            raise TypeError(
                f"with_refs: expected one marker per argument leaf, structured as {self.in_tree}, "
                f"got {tree}"
            )
        for x in flat:
            if not isinstance(x, GradValue | DontWant):
                raise NotImplementedError(
                    f"with_refs: only GradValue() and DontWant() are supported, got {x!r} "
                    "(mj has no gradient references)"
                )
        wanted = [isinstance(x, GradValue) for x in flat]
        if all(wanted):
            return self
        if self._fun is None or self.primals is None:
            raise ValueError("with_refs: this vjp function cannot be linearized again")
        return _WantedPullback(self, wanted)

    @property
    def _name(self) -> str:
        return getattr(self._fun, "__name__", "<unknown>")

    def __call__(self, ct: Any, *extra_args: Any) -> Any:
        if extra_args:
            raise TypeError(_too_many_args(self._name, len(extra_args) + 1))
        cts = self._check(ct)
        cts_in = (
            self.pullback(cts) if self._res is None else self._res.linear_function().transpose(cts)
        )
        return tree_unflatten(self.in_tree, [instantiate_zeros(c) for c in cts_in])

    def _check(self, ct: Any) -> list[Any]:
        cts_flat, ct_tree = tree_flatten(ct)
        if ct_tree != self.out_tree:
            raise ValueError(
                "unexpected tree structure.\n\nThe argument to a VJP function returned by "
                "`jax.vjp` must match the pytree structure of the differentiated function "
                f"{self._name}: got {ct_tree}, but expected {self.out_tree}."
            )
        return [
            _check_cotangent(i, p, c)
            for i, (p, c) in enumerate(zip(self.primals_out, cts_flat, strict=True))
        ]


class _WantedPullback:
    """``f_vjp.with_refs(...)``: ``fun`` linearized again in the wanted arguments only (the
    others held fixed), so the unwanted cotangents are never computed."""

    __slots__ = ("_lin", "_vjp", "_wanted")

    def __init__(self, vjp: _VJPFunction, wanted: list[bool]) -> None:
        fun, primals = vjp._fun, vjp.primals
        assert fun is not None
        assert primals is not None

        def fun_wanted(*xs: Any) -> Any:
            it = iter(xs)
            return fun(*[next(it) if w else p for p, w in zip(primals, wanted, strict=True)])

        self._vjp = vjp
        self._wanted = wanted
        self._lin = linearize_flat(
            fun_wanted, [p for p, w in zip(primals, wanted, strict=True) if w]
        )[1]

    def __call__(self, ct: Any) -> Any:
        it = iter(self._lin.transpose(self._vjp._check(ct)))
        cts = [instantiate_zeros(next(it)) if w else DidntWant() for w in self._wanted]
        return tree_unflatten(self._vjp.in_tree, cts)


def _flatten_vjp_function(f: _VJPFunction) -> tuple[list[Any], Any]:
    """A pullback is a pytree, as JAX's (a ``Partial``): its leaves are its residuals
    (``args_res``, then ``opaque_residuals``) and the primal outputs, so it can be a
    ``custom_vjp`` residual (flax's ``nn.vjp`` inside ``nn.custom_vjp``) or a ``jit`` output.
    A taped pullback (eager, all values concrete) has no leaves: it is kept whole."""
    if f._res is None and type(getattr(f.pullback, "__self__", None)) is not LinearFunction:
        return [], (f, None)
    res = f._residuals()
    leaves, tree = tree_flatten((res.args_res, res.opaque, f.primals_out))
    return leaves, (f, tree)


def _unflatten_vjp_function(aux: Any, leaves: Any) -> _VJPFunction:
    f, tree = aux
    if tree is None:
        return f  # type: ignore[no-any-return]
    args_res, opaque, primals_out = tree_unflatten(tree, list(leaves))
    old = f._residuals()
    res = _Residuals(old.lin, old.spec, args_res, opaque)
    return _VJPFunction(
        res.linear_function().transpose, f.in_tree, f.out_tree, primals_out, res=res
    )


register_pytree_node(_VJPFunction, _flatten_vjp_function, _unflatten_vjp_function)


def _too_many_args(name: str, n: int) -> str:
    """JAX's message for a pullback called with several arguments."""
    return (
        f"The function returned by `jax.vjp` applied to {name} was called with {n} arguments, "
        "but functions returned by `jax.vjp` must be called with a single argument "
        "corresponding to the single value returned by the function being differentiated "
        "(even if that returned value is a tuple or other container). For example, if "
        "f(x) returns (x, x) and _, f_vjp = jax.vjp(f, 1.0), call f_vjp((2.0, 2.0)), not "
        "f_vjp(2.0, 2.0)."
    )


def _short(dtype: Any, shape: Sequence[int]) -> str:
    """An aval as JAX's ``str_short``: ``float32[3,4]``."""
    return f"{np.dtype(dtype).name}[{','.join(str(d) for d in shape)}]"


def _check_cotangent(index: int, primal: Any, ct: Any) -> Any:
    if type(primal) is Token:  # a token output's cotangent is a token (JAX's to_ct_aval)
        c_aval = get_aval(ct)
        if not is_token_aval(c_aval):
            raise ValueError(
                "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
                f"{_short(c_aval.dtype, c_aval.shape)}, but expected Tok because the "
                "corresponding output of the differentiated function had JAX type Tok"
            )
        return Zero(c_aval)  # (tokens are not differentiated)
    p_shape, p_dtype = shape_dtype(primal)
    c_aval = get_aval(ct)
    expected = tangent_aval(get_aval(primal))
    if c_aval.shape != tuple(p_shape):
        got, want = _short(c_aval.dtype, c_aval.shape), _short(expected.dtype, p_shape)
        raise ValueError(
            "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
            f"{got}, but expected {want} because the corresponding output of the "
            f"differentiated function had JAX type {_short(p_dtype, p_shape)} (the shape "
            f"of the cotangent must be the primal output's; output leaf {index})."
        )
    if c_aval.dtype != expected.dtype:
        if c_aval.weak_type and is_inexact(p_dtype):
            return np.asarray(ct, p_dtype)
        if p_dtype.kind in "biu":  # JAX takes any cotangent of an int/bool output as float0 0
            return np.zeros(c_aval.shape, expected.dtype)
        got, want = _short(c_aval.dtype, c_aval.shape), _short(expected.dtype, p_shape)
        raise ValueError(
            "unexpected JAX type (e.g. shape/dtype) for argument to VJP function: got "
            f"{got}, but expected {want} because the corresponding output of the "
            f"differentiated function had JAX type {_short(p_dtype, p_shape)} (the cotangent "
            f"must have the primal output's tangent dtype; output leaf {index})."
        )
    return ct


def vjp(
    fun: Callable[..., Any], *primals: Any, has_aux: bool = False, reduce_axes: Sequence[Any] = ()
) -> tuple[Any, ...]:
    """``(fun(*primals), f_vjp)`` where ``f_vjp(ct)`` pulls an output cotangent back to a
    tuple of cotangents, one per primal argument. With ``has_aux=True``, ``fun`` returns
    ``(out, aux)`` and the result is ``(out, f_vjp, aux)``. (``reduce_axes`` is refused when
    given, as JAX does.)
    """
    _check_reduce_axes("vjp", reduce_axes)
    primals_flat, in_tree = tree_flatten(primals)
    flat_fun, out_store, aux_store = flatten_fun_aux(fun, in_tree, has_aux)
    # the pullback outlives the call: it must not see later writes to the caller's arrays; and
    # a host array is computed as its canonical mj array (float64 -> float32 without x64), so
    # an output that is an input is that array, as JAX's vjp returns it
    primals_flat = [unchanged(p) if isinstance(p, _HOST) else p for p in primals_flat]
    primals_out, pullback = _vjp_flat(flat_fun, primals_flat)
    out_tree = out_store()

    def refun(*xs: Any) -> list[Any]:  # a fresh flattening per call (its stores fill once)
        return flatten_fun_aux(fun, in_tree, has_aux)[0](*xs)

    refun.__name__ = getattr(fun, "__name__", "<unknown>")

    f_vjp = _VJPFunction(pullback, in_tree, out_tree, primals_out, refun, primals_flat)
    out = tree_unflatten(out_tree, primals_out)
    if has_aux:
        return out, f_vjp, aux_store()
    return out, f_vjp


_HOST = (np.ndarray, np.generic)  # (an EagerArray is an ndarray and unchanged returns it)

Pullback = Callable[[Sequence[Any]], list[Any]]


def _vjp_flat(fun: Callable[..., Any], primals: list[Any]) -> tuple[list[Any], Pullback]:
    """``fun``'s outputs at ``primals`` (flat lists) and its pullback: on a tape when no
    transformation is active, else by linearizing (so staged programs hold the transposed
    linear jaxpr, as JAX's do)."""
    if is_eager() and not any(isinstance(p, Tracer) for p in primals):
        return tape_vjp_flat(fun, primals)
    primals_out, lin = linearize_flat(fun, primals)
    # without the tangent operations no output reads (a stop_gradient's operand's, say) and
    # their residuals, as JAX's vjp: the pullback saves only what the backward pass reads
    return primals_out, lin.pruned().transpose


def _argnums_tuple(argnums: int | Sequence[int], nargs: int, api: str) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums:
        raise ValueError(f"{api}: argnums must not be empty.")
    out = []
    for i in nums:
        if not isinstance(i, int | np.integer):
            raise TypeError(f"{api}: argnums must be ints, got {i!r}.")
        if not -nargs <= i < nargs:
            raise TypeError(
                f"differentiating with respect to argnums={argnums} requires at least "
                f"{max(nums) + 1} positional arguments to be passed by the caller, but got only "
                f"{nargs} positional arguments ({api}{user_line_suffix()})."
            )
        out.append(int(i) % nargs)
    if len(set(out)) < len(out):  # the later argument's gradient would overwrite the earlier
        raise TypeError(
            f"{api}: argnums={argnums} names the same argument more than once; each argument "
            f"can be differentiated once{user_line_suffix()}."
        )
    return tuple(out)


def _check_inexact_input(
    api: str, x: Any, holomorphic: bool = False, allow_int: bool = False
) -> None:
    _, dtype = shape_dtype(x)
    if dtype.kind not in "biufc" and not isinstance(x, Tracer):  # strings, objects, dates
        try:
            get_aval(x)
        except TypeError as err:  # JAX's words (its check_arg's), then mj's detail
            raise TypeError(
                f"Argument '{x}' of type {type(x)} is not a valid JAX type. {err}"
            ) from err
    if allow_int and dtype.kind in "biu":  # its gradient is a float0 zero, as in JAX
        return
    if holomorphic and dtype.kind != "c":
        raise TypeError(
            f"{api} with holomorphic=True requires inputs with complex dtype, but got "
            f"{dtype.name}{user_line_suffix()}."
        )
    if not is_inexact(dtype):
        raise TypeError(
            f"{api} requires real- or complex-valued inputs (input dtype that is a sub-dtype "
            f"of np.inexact), but got {dtype.name}. If you want to use integer or boolean "
            "inputs, use vjp or set allow_int to True (their gradient is a float0 zero)."
        )


def _check_scalar_output(api: str, out: Any, holomorphic: bool = False) -> np.dtype[Any]:
    if isinstance(out, tuple | list | dict):
        raise TypeError(
            f"Gradient only defined for scalar-output functions. Output was {out}: {api} "
            f"requires a scalar array output, but the function returned a "
            f"{type(out).__name__}; use vjp or jacrev for non-scalar outputs."
        )
    shape, dtype = shape_dtype(out)
    if tuple(shape) != ():
        raise TypeError(
            f"Gradient only defined for scalar-output functions. Output had shape: {tuple(shape)}."
        )
    if holomorphic:
        if dtype.kind != "c":
            raise TypeError(
                f"{api} with holomorphic=True requires outputs with complex dtype, but got "
                f"{dtype.name}{user_line_suffix()}."
            )
    elif not is_float(dtype):
        hint = (
            " For holomorphic differentiation, pass holomorphic=True. For differentiation of "
            "non-holomorphic functions involving complex outputs, use vjp directly."
            if dtype.kind == "c"
            else ""
        )
        raise TypeError(
            f"{api} requires real-valued outputs (output dtype that is a sub-dtype of "
            f"np.floating), but got {dtype.name}.{hint}"
        )
    return dtype


def value_and_grad(
    fun: Callable[P, Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
    reduce_axes: Sequence[Any] = (),
) -> Callable[P, tuple[Any, Any]]:
    """A function returning ``(fun(*args), gradient)``; with ``has_aux``,
    ``((out, aux), gradient)``. The gradient is w.r.t. the argument ``argnums`` (an int) or a
    tuple of gradients (a tuple of ints). ``fun`` must return a real scalar (a complex one with
    ``holomorphic=True``, for complex inputs); integer and bool inputs need ``allow_int=True``
    and get float0 zeros."""
    _check_reduce_axes("value_and_grad", reduce_axes)
    return _make_grad(
        fun, argnums, has_aux, "value_and_grad", holomorphic, allow_int, with_value=True
    )


def grad(
    fun: Callable[P, Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
    allow_int: bool = False,
    reduce_axes: Sequence[Any] = (),
) -> Callable[P, Any]:
    """The gradient of scalar-valued ``fun`` w.r.t. argument ``argnums`` (a tuple of
    gradients for a tuple of argnums); with ``has_aux``, ``(gradient, aux)``. Integer and bool
    arguments need ``allow_int=True`` and get float0 zeros, as in JAX.

    Example::

        >>> grad(lambda x: x * x)(3.0)   # 6.0
    """
    _check_reduce_axes("grad", reduce_axes)
    return _make_grad(fun, argnums, has_aux, "grad", holomorphic, allow_int, with_value=False)


def _check_reduce_axes(api: str, reduce_axes: Sequence[Any]) -> None:
    """JAX keeps ``reduce_axes`` in the signature but refuses any axis (deprecated)."""
    if reduce_axes:
        raise NotImplementedError(f"reduce_axes argument to {api} is deprecated")


def _make_grad(
    fun: Callable[..., Any],
    argnums: int | Sequence[int],
    has_aux: bool,
    api: str,
    holomorphic: bool,
    allow_int: bool,
    *,
    with_value: bool,
) -> Callable[..., Any]:
    @functools.wraps(fun)
    def grad_fun(*args: Any, **kwargs: Any) -> Any:
        nums = _argnums_tuple(argnums, len(args), api)
        diff_args = tuple(args[i] for i in nums)
        leaves, in_tree = tree_flatten(diff_args)
        for leaf in leaves:
            _check_inexact_input(api, leaf, holomorphic, allow_int)
        # the tape is gone when this returns: NumPy inputs are read through read-only views
        # (no copies), and only results still sharing their memory are copied at the end
        borrowed = [x for x in leaves if type(x) is np.ndarray and x.flags.writeable]
        if borrowed:
            leaves = [borrowed_data(x) if type(x) is np.ndarray else x for x in leaves]

        def partial_fun(*dyn: Any) -> Any:
            full = list(args)
            for i, x in zip(nums, dyn, strict=True):
                full[i] = x
            return fun(*full, **kwargs)

        flat_fun, out_store, aux_store = flatten_fun_aux(partial_fun, in_tree, has_aux)
        outs, pullback = _vjp_flat(flat_fun, leaves)
        out = tree_unflatten(out_store(), outs)
        dtype = _check_scalar_output(api, out, holomorphic)
        cts = pullback([_one(out, dtype)])
        grads = tree_unflatten(in_tree, [instantiate_zeros(c) for c in cts])
        g = grads[0] if isinstance(argnums, int) else grads
        value = (out, aux_store()) if has_aux else out
        if borrowed:
            g, value = unshared([g, value], borrowed)
        if with_value:
            return value, g
        return (g, value[1]) if has_aux else g

    return grad_fun


def _one(out: Any, dtype: np.dtype[Any]) -> Any:
    """The output cotangent seed: weakly typed when the output is, as JAX's ``grad`` seeds
    with ``full_like(out, 1)``, so a weak input's gradient stays weak. Eagerly an mj array in
    the mode's dtypes, as ``grad(lambda x: x)`` returns the seed itself (a Python scalar came
    back as a ``float``, float64 to NumPy); while tracing, a scalar that stays a literal of
    the staged program (as JAX's ``1.0:f32[]``)."""
    one = np.ones((), dtype)
    weak = get_aval(out).weak_type
    if isinstance(out, Tracer):
        return one.item() if weak and get_aval(one.item()).dtype == dtype else one
    return weak_result(one) if weak else eager_result(one)

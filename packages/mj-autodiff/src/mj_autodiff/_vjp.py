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
from mj_autodiff._tangents import instantiate_zeros, shape_dtype, tangent_aval
from mj_autodiff._tape import tape_vjp_flat
from mj_core import Tracer, get_aval, is_eager
from mj_core.dtypes import is_float, is_inexact
from mj_core.errors import user_line_suffix
from mj_core.extend import borrowed_data, eager_result, unchanged, unshared, weak_result
from mj_core.tree_util import PyTreeDef, register_pytree_node, tree_flatten, tree_unflatten

__all__ = ["grad", "value_and_grad", "vjp"]

P = ParamSpec("P")


class _VJPFunction:
    """The pullback returned by :func:`vjp`: maps an output cotangent to the cotangents of
    the primal arguments (a tuple, one entry per argument)."""

    __slots__ = ("in_tree", "out_tree", "primals_out", "pullback")

    def __init__(
        self,
        pullback: Callable[[Sequence[Any]], list[Any]],
        in_tree: PyTreeDef,
        out_tree: PyTreeDef,
        primals_out: list[Any],
    ) -> None:
        self.pullback = pullback
        self.in_tree = in_tree
        self.out_tree = out_tree
        self.primals_out = primals_out

    def __call__(self, ct: Any) -> Any:
        cts_flat, ct_tree = tree_flatten(ct)
        if ct_tree != self.out_tree:
            raise TypeError(
                "unexpected tree structure of argument to vjp function: got "
                f"{ct_tree}, but expected to match {self.out_tree}."
            )
        cts = [
            _check_cotangent(i, p, c)
            for i, (p, c) in enumerate(zip(self.primals_out, cts_flat, strict=True))
        ]
        cts_in = self.pullback(cts)
        return tree_unflatten(self.in_tree, [instantiate_zeros(c) for c in cts_in])


def _flatten_vjp_function(f: _VJPFunction) -> tuple[list[Any], Any]:
    """A pullback is a pytree, as JAX's (a ``Partial``): its leaves are the residuals of its
    linear map and the primal outputs, so it can be a ``custom_vjp`` residual (flax's
    ``nn.vjp`` inside ``nn.custom_vjp``) or a ``jit`` output. A taped pullback (eager, all
    values concrete) has no leaves: it is kept whole."""
    pullback = f.pullback
    lin = getattr(pullback, "__self__", None)
    if type(lin) is LinearFunction:
        return [*lin.consts, *f.primals_out], (f, len(lin.consts))
    return [], (f, -1)


def _unflatten_vjp_function(aux: Any, leaves: Any) -> _VJPFunction:
    f, n = aux
    if n < 0:
        return f  # type: ignore[no-any-return]
    leaves = list(leaves)
    old = f.pullback.__self__
    lin = LinearFunction(
        old.jaxpr, leaves[:n], old.in_avals, old.in_nonzero, old.out_avals, old.out_nonzero
    )
    return _VJPFunction(lin.transpose, f.in_tree, f.out_tree, leaves[n:])


register_pytree_node(_VJPFunction, _flatten_vjp_function, _unflatten_vjp_function)


def _check_cotangent(index: int, primal: Any, ct: Any) -> Any:
    p_shape, p_dtype = shape_dtype(primal)
    c_aval = get_aval(ct)
    expected = tangent_aval(get_aval(primal))
    if c_aval.shape != tuple(p_shape):
        raise ValueError(
            "Shape of cotangent input to vjp pullback function "
            f"{c_aval.shape} must be the same as the shape of corresponding primal input "
            f"{tuple(p_shape)} (output leaf {index})."
        )
    if c_aval.dtype != expected.dtype:
        if c_aval.weak_type and is_inexact(p_dtype):
            return np.asarray(ct, p_dtype)
        if p_dtype.kind in "biu":  # JAX takes any cotangent of an int/bool output as float0 0
            return np.zeros(c_aval.shape, expected.dtype)
        raise TypeError(
            f"Type of cotangent input to vjp pullback function ({c_aval.dtype}) is not the "
            f"expected tangent type ({expected.dtype}) of corresponding primal output with "
            f"dtype {p_dtype.name} (output leaf {index})."
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
    f_vjp = _VJPFunction(pullback, in_tree, out_tree, primals_out)
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
    return primals_out, lin.transpose


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
                f"{api}: differentiating with respect to argnums={argnums} requires at least "
                f"{max(nums) + 1} positional arguments, but the function was called with "
                f"{nargs}{user_line_suffix()}."
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

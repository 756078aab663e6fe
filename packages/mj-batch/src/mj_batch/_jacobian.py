"""The Jacobian family: ``jacfwd``, ``jacrev`` and ``hessian``.

Both Jacobians push (or pull) a whole standard basis through the function at once with
``vmap``, rather than one basis vector per call: ``jacfwd`` vmaps ``jvp`` over the basis of
the inputs, ``jacrev`` vmaps the ``vjp`` pullback over the basis of the outputs. Results have
JAX's layout: for every output leaf, a pytree like the differentiated arguments whose leaves
have shape ``out.shape + in.shape``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from mj_autodiff import jvp, vjp
from mj_batch._batching import dtype_of, shape_of
from mj_batch._vmap import vmap
from mj_core import lax
from mj_core.dtypes import is_float
from mj_core.errors import user_location
from mj_core.tree_util import PyTreeDef, tree_flatten, tree_unflatten

__all__ = ["hessian", "jacfwd", "jacrev"]


def _where() -> str:
    loc = user_location()
    return f" ({loc})" if loc else ""


def _argnums(api: str, argnums: int | Sequence[int], nargs: int) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    if not nums:
        raise ValueError(f"{api}: argnums must not be empty.")
    for i in nums:
        if not isinstance(i, int | np.integer) or isinstance(i, bool):
            raise TypeError(f"{api}: argnums must be ints, got {argnums!r}.")
        if not -nargs <= i < nargs:
            raise ValueError(
                f"{api}: argnums={argnums!r} needs at least {max(nums) + 1} positional "
                f"arguments, but the function was called with {nargs}{_where()}."
            )
    out = tuple(int(i) % nargs for i in nums)
    if len(set(out)) < len(out):  # as JAX, a TypeError (there an accidental one)
        raise TypeError(
            f"{api}: argnums={argnums!r} names the same argument more than once; each "
            f"argument can be differentiated once{_where()}."
        )
    return out


def _check_dtype(api: str, what: str, x: Any, holomorphic: bool) -> np.dtype[Any]:
    dtype = dtype_of(x)
    if holomorphic and dtype.kind != "c":
        raise TypeError(
            f"{api} with holomorphic=True requires {what} with complex dtype, but got "
            f"{dtype.name}{_where()}."
        )
    if api == "jacrev" and what == "inputs" and not holomorphic:  # as grad: complex is fine
        if dtype.kind not in "fc" and not is_float(dtype):
            raise TypeError(
                f"jacrev requires real- or complex-valued inputs (input dtype that is a "
                f"sub-dtype of np.inexact), but got {dtype.name}. If you want to use Boolean- "
                f"or integer-valued inputs, use vjp or set allow_int to True{_where()}."
            )
        return dtype
    if not holomorphic and not is_float(dtype):
        hint = (
            " For holomorphic differentiation, pass holomorphic=True." if dtype.kind == "c" else ""
        )
        raise TypeError(
            f"{api} requires real-valued {what} ({what[:-1]} dtype that is a sub-dtype of "
            f"np.floating), but got {dtype.name}{_where()}.{hint}"
        )
    return dtype


def _std_basis(leaves: Sequence[Any]) -> tuple[int, list[np.ndarray[Any, Any]]]:
    """The standard basis of the space of ``leaves``, split per leaf: leaf ``i`` gets an array
    of shape ``(n,) + shape_i`` (``n`` = total size), together forming the identity."""
    shapes = [shape_of(x) for x in leaves]
    sizes = [int(np.prod(s, dtype=np.int64)) for s in shapes]
    total = sum(sizes)
    basis = []
    offset = 0
    for x, shape, size in zip(leaves, shapes, sizes, strict=True):
        block = np.zeros((total, size), dtype_of(x))
        block[np.arange(offset, offset + size), np.arange(size)] = 1
        basis.append(block.reshape((total, *shape)))
        offset += size
    return total, basis


def _split_axis(x: Any, axis: int, shapes: Sequence[tuple[int, ...]]) -> list[Any]:
    """Cut axis ``axis`` of ``x`` (of size sum of the sizes of ``shapes``) into pieces and
    reshape piece ``i`` to have ``shapes[i]`` in place of that axis."""
    x_shape = shape_of(x)
    if len(shapes) == 1 and len(shapes[0]) == 1:
        return [x]
    pieces = []
    offset = 0
    for shape in shapes:
        size = int(np.prod(shape, dtype=np.int64))
        piece = x
        if len(shapes) > 1:
            piece = lax.slice_in_dim(x, offset, offset + size, axis=axis)
        new_shape = (*x_shape[:axis], *shape, *x_shape[axis + 1 :])
        pieces.append(lax.reshape(piece, new_shape))
        offset += size
    return pieces


def _nest(out_tree: PyTreeDef, in_tree: PyTreeDef, blocks: list[list[Any]]) -> Any:
    """``blocks[j][i]`` (output leaf j, input leaf i) as an output-shaped tree of input-shaped
    trees, JAX's layout for Jacobians."""
    return tree_unflatten(out_tree, [tree_unflatten(in_tree, row) for row in blocks])


class _Partial:
    """``fun`` as a function of the flat leaves of the differentiated arguments only."""

    __slots__ = ("args", "dyn_tree", "fun", "kwargs", "nums")

    def __init__(
        self,
        fun: Callable[..., Any],
        args: tuple[Any, ...],
        kwargs: dict[str, Any],
        nums: tuple[int, ...],
        dyn_tree: PyTreeDef,
    ) -> None:
        self.fun = fun
        self.args = args
        self.kwargs = kwargs
        self.nums = nums
        self.dyn_tree = dyn_tree

    def __call__(self, *dyn_leaves: Any) -> Any:
        full = list(self.args)
        for i, x in zip(self.nums, tree_unflatten(self.dyn_tree, dyn_leaves), strict=True):
            full[i] = x
        return self.fun(*full, **self.kwargs)


def _setup(
    api: str,
    fun: Callable[..., Any],
    argnums: int | Sequence[int],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    holomorphic: bool,
) -> tuple[_Partial, list[Any], PyTreeDef]:
    """The partial function of the differentiated leaves, those leaves, and the structure
    the Jacobian's inner trees take (one argument, or a tuple of them)."""
    nums = _argnums(api, argnums, len(args))
    dyn_leaves, dyn_tree = tree_flatten(tuple(args[i] for i in nums))
    for x in dyn_leaves:
        _check_dtype(api, "inputs", x, holomorphic)
    in_tree = tree_flatten(args[nums[0]])[1] if isinstance(argnums, int) else dyn_tree
    return _Partial(fun, args, kwargs, nums, dyn_tree), dyn_leaves, in_tree


def _split_aux(api: str, out: Any, has_aux: bool) -> tuple[Any, Any]:
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple | list) and len(out) == 2):
        raise TypeError(
            f"{api} with has_aux=True needs the function to return a pair (output, auxiliary "
            f"data), but it returned {type(out).__name__}{_where()}."
        )
    return out[0], out[1]


def jacfwd(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable[..., Any]:
    """Jacobian of ``fun`` by forward mode: one ``jvp`` per input basis vector, vmapped.

    Arguments:
        fun: function of arrays (pytrees) returning arrays (a pytree).
        argnums: the positional argument(s) to differentiate, an int or a tuple of ints.
        has_aux: ``fun`` returns ``(output, aux)``; the result is then ``(jacobian, aux)``.
        holomorphic: ``fun`` is holomorphic in complex inputs.

    Returns:
        A function with ``fun``'s arguments returning the Jacobian: for each output leaf, a
        tree like ``args[argnums]`` of arrays of shape ``out.shape + in.shape``.

    Example:
        >>> jacfwd(mnp.sin)(np.arange(3.0))   # diag(cos([0, 1, 2]))
    """

    @functools.wraps(fun)
    def jacfun(*args: Any, **kwargs: Any) -> Any:
        partial, dyn_leaves, in_tree = _setup("jacfwd", fun, argnums, args, kwargs, holomorphic)
        out_trees: list[PyTreeDef] = []

        def pushfwd(*tangents: Any) -> Any:
            out, out_dot = jvp(partial, tuple(dyn_leaves), tangents)
            y, aux = _split_aux("jacfwd", out, has_aux)
            y_dot, _ = _split_aux("jacfwd", out_dot, has_aux)
            y_leaves, out_tree = tree_flatten(y)
            if holomorphic:
                for leaf in y_leaves:
                    _check_dtype("jacfwd", "outputs", leaf, holomorphic)
            out_trees.append(out_tree)
            return y_dot, aux

        _, basis = _std_basis(dyn_leaves)
        jac, aux = vmap(pushfwd, in_axes=0, out_axes=(-1, None))(*basis)
        shapes = [shape_of(x) for x in dyn_leaves]
        blocks = [_split_axis(j, len(shape_of(j)) - 1, shapes) for j in tree_flatten(jac)[0]]
        result = _nest(out_trees[0], in_tree, blocks)
        return (result, aux) if has_aux else result

    return jacfun


def jacrev(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable[..., Any]:
    """Jacobian of ``fun`` by reverse mode: the ``vjp`` pullback of every output basis vector,
    vmapped. Same arguments and result layout as :func:`jacfwd`.

    Example:
        >>> jacrev(lambda x: x * x)(np.arange(3.0))   # diag([0, 2, 4])
    """

    @functools.wraps(fun)
    def jacfun(*args: Any, **kwargs: Any) -> Any:
        partial, dyn_leaves, in_tree = _setup("jacrev", fun, argnums, args, kwargs, holomorphic)
        res = vjp(partial, *dyn_leaves, has_aux=has_aux)
        y, pullback = res[0], res[1]
        y_leaves, out_tree = tree_flatten(y)
        for leaf in y_leaves:
            _check_dtype("jacrev", "outputs", leaf, holomorphic)

        def pullback_flat(*ct_leaves: Any) -> Any:
            return pullback(tree_unflatten(out_tree, ct_leaves))

        _, basis = _std_basis(y_leaves)
        cts = vmap(pullback_flat)(*basis)  # cts[i]: (total out size,) + in_shape_i
        out_shapes = [shape_of(leaf) for leaf in y_leaves]
        columns = [_split_axis(ct, 0, out_shapes) for ct in cts]  # columns[i][j]
        blocks = [[columns[i][j] for i in range(len(cts))] for j in range(len(y_leaves))]
        result = _nest(out_tree, in_tree, blocks)
        return (result, res[2]) if has_aux else result

    return jacfun


def hessian(
    fun: Callable[..., Any],
    argnums: int | Sequence[int] = 0,
    has_aux: bool = False,
    holomorphic: bool = False,
) -> Callable[..., Any]:
    """Hessian of ``fun``: forward over reverse, ``jacfwd(jacrev(fun))``, the efficient order
    for a scalar loss (a wide Jacobian inside, a square one outside). Result leaves have shape
    ``out.shape + in.shape + in.shape``."""
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)

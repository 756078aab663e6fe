"""Eager operations on sharded arrays, as JAX's ``apply_primitive``: one compiled program.

An operation outside ``jit`` with an operand sharded over several devices is compiled as a
one-primitive SPMD program over those devices (cached by primitive, params, operand types
and shardings), so XLA's partitioner lays the result out, and it stays a sharded array:
``x + 1`` of an array split over a mesh axis is split the same way. mj-core's eager path
hands the operation here (:mod:`mj_core._eager_dispatch`) by the type of an operand, before
any impl rule runs: a :class:`ShardedArray` operand, whoever binds the primitive.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sequence
from types import NotImplementedType
from typing import Any

import numpy as np

from mj_core import Primitive, bind, get_aval, raise_to_shaped
from mj_core.extend import FAMILIES, ShapedArray, eager_handlers, family_primitives
from mj_ir.extend import trace_to_jaxpr
from mj_xla._executable import compile_jaxpr
from mj_xla._sharded_array import ShardedArray
from mj_xla._sharding import PmapSharding, Sharding
from mj_xla._spmd_executable import SpmdExecutable

__all__ = ["apply_sharded"]

_MAX_EXECUTABLES = 256
_executables: OrderedDict[Hashable, Any] = OrderedDict()


def _operand(x: Any) -> tuple[ShapedArray, Sharding | None]:
    if isinstance(x, ShardedArray):
        return x._aval, x.sharding
    return raise_to_shaped(get_aval(x)), None  # host data: XLA picks its layout


#: The primitives compiled here: mj-core's catalogue, whose impl rules compute with NumPy.
#: A higher layer's primitive (``xla_pmap``, ``xla_call``, ``cond``, ``custom_jvp_call``) is
#: declined: its impl rule takes device arrays itself, or binds the primitives inside, which
#: come back here one by one.
_CORE_PRIMITIVES = frozenset(p for f in FAMILIES for p in family_primitives(f))


def apply_sharded(
    prim: Primitive, args: Sequence[Any], params: dict[str, Any]
) -> list[Any] | NotImplementedType:
    """``prim`` on ``args`` (some sharded) as a compiled SPMD program; its outputs, or
    ``NotImplemented`` for a primitive that its impl rule evaluates (see above)."""
    if prim not in _CORE_PRIMITIVES:
        return NotImplemented  # type: ignore[no-any-return]  # (typeshed: Any)
    typed = [_operand(x) for x in args]
    shardings = [s for _, s in typed]
    if any(isinstance(s, PmapSharding) for s in shardings):  # a pmap's output: on the host
        host = [np.asarray(x) if isinstance(x, ShardedArray) else x for x in args]
        return bind(prim, *host, **params)  # (Python scalars stay weak)
    avals = [a for a, _ in typed]
    key: Hashable | None = (prim, tuple(params.items()), tuple(avals), tuple(shardings))
    try:
        exe = _executables.get(key)
    except TypeError:  # an unhashable param (a list): compile without caching
        key, exe = None, None
    if exe is None:
        jaxpr, consts = trace_to_jaxpr(lambda *xs: bind(prim, *xs, **params), avals)
        exe = compile_jaxpr(jaxpr, consts, prim.name, in_shardings=shardings, keep_spec=True)
        if key is not None:
            _executables[key] = exe
            if len(_executables) > _MAX_EXECUTABLES:
                _executables.popitem(last=False)
    else:
        _executables.move_to_end(key)
    assert isinstance(exe, SpmdExecutable)
    return list(exe.run(args))


eager_handlers[ShardedArray] = apply_sharded

"""Eager operations on arrays committed to one device, as JAX's: the result is committed there.

``mj.device_put(x, device)`` gives a :class:`~mj_xla._array.CommittedArray`; as in JAX, an
operation outside ``jit`` on it runs where it lives and returns an array committed to that
device (``(x + 1).devices() == {device}``), whatever else it meets: an uncommitted array, host
data or a Python scalar goes along; two arrays committed to different devices are JAX's
``ValueError``. mj-core's eager path hands the operation here by the type of an operand
(:data:`~mj_core.extend.eager_handlers`), before any impl rule runs.

The primitive is computed by its impl rule, as every eager mj operation is (so the numbers are
eager mj's), on the operands' host views, and each output is put on the device.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import NotImplementedType
from typing import Any

from mj_core import Primitive, eval_primitive, get_aval, raise_to_shaped
from mj_core.extend import (
    FAMILIES,
    eager_handlers,
    eager_result,
    family_primitives,
    weak_result,
)
from mj_xla._array import Array, CommittedArray
from mj_xla._device_put import _put_leaf
from mj_xla._jit import _committed_device
from mj_xla._sharded_array import ShardedArray
from mj_xla._sharding import SingleDeviceSharding

__all__ = ["apply_committed"]

#: The primitives handled here: mj-core's catalogue. A higher layer's primitive (``xla_call``,
#: ``cond``, ``custom_jvp_call``) is declined: its impl rule takes device arrays itself (jit
#: places its computation on the committed device), or binds the primitives inside, which come
#: back here one by one.
_CORE_PRIMITIVES = frozenset(p for f in FAMILIES for p in family_primitives(f))


def _host(x: Any) -> Any:
    """A device array's data as eager evaluation takes it: its host view as an mj array,
    weakly typed if the array is."""
    if type(x) is CommittedArray or type(x) is Array:
        return weak_result(x._value) if x.weak_type else eager_result(x._value)
    return x


def apply_committed(
    prim: Primitive, args: Sequence[Any], params: dict[str, Any]
) -> list[Any] | NotImplementedType:
    """``prim`` on ``args`` (one of them committed to a device): its outputs committed to that
    device, or ``NotImplemented`` for a primitive its impl rule evaluates (see above)."""
    if prim not in _CORE_PRIMITIVES:
        return NotImplemented  # type: ignore[no-any-return]  # (typeshed: Any)
    device: Any = None
    for x in args:
        if type(x) is CommittedArray:
            if device is None:
                device = x.device
            elif x.device is not device:  # JAX's ValueError, naming both arguments
                avals = [raise_to_shaped(get_aval(a)) for a in args]
                _committed_device(args, avals, None, prim.name)
        elif type(x) is ShardedArray:
            return eager_handlers[ShardedArray](prim, args, params)  # its own path
    place = SingleDeviceSharding(device)
    outs = eval_primitive(prim, [_host(x) for x in args], params)
    return [_put_leaf(o, place) for o in outs]


eager_handlers[CommittedArray] = apply_committed

"""``device_put``: host data (or arrays) onto a device, or split over several by a sharding."""

from __future__ import annotations

from typing import Any

import numpy as np

from mj_core import ShapedArray, Tracer, get_aval
from mj_core.dtypes import canonical_dtype
from mj_core.errors import user_line_suffix
from mj_core.extend import like_placements
from mj_core.tree_util import (
    flatten_up_to,
    prefix_errors,
    tree_flatten,
    tree_map,
    tree_structure,
    tree_unflatten,
)
from mj_xla import _jaxlib
from mj_xla._array import Array, CommittedArray
from mj_xla._array import device_put as _put_default
from mj_xla._sharded_array import ShardedArray, put_sharded
from mj_xla._sharding import Sharding, SingleDeviceSharding

__all__ = ["device_put"]


def device_put(x: Any, device: Any = None, *, may_alias: Any = None, donate: Any = None) -> Any:
    """Move ``x`` (a pytree of NumPy arrays, Python scalars, Arrays) to the device.

    Without ``device``, host values go to the default device, uncommitted, and Arrays pass
    through unchanged; Python scalars keep their weak type. ``device`` may be a device
    (``mj.devices()[i]``, ``mj.devices("cpu")[0]``): the result is committed to it, so
    computations on it run there (see ``Array.committed``); or a
    :class:`~mj.sharding.Sharding`: a ``NamedSharding`` splits each
    leaf over the mesh's devices, each device getting its slice (dimensions must divide
    evenly). ``may_alias`` and ``donate`` are accepted for JAX compatibility.
    """
    with _jaxlib.explicit_transfers("put"):
        return _put(x, device)


def _is_device(x: Any) -> bool:
    return hasattr(x, "id") and hasattr(x, "platform")


def _is_target(x: Any) -> bool:
    """A leaf of ``device``'s pytree: ``None``, a device or a sharding (or anything else,
    refused by :func:`_put`)."""
    return x is None or isinstance(x, Sharding) or _is_device(x)


def _put(x: Any, device: Any) -> Any:
    if device is None:
        return _put_default(x)
    if isinstance(device, Sharding):
        sharding = device
    elif _is_device(device):
        sharding = SingleDeviceSharding(device)
    elif isinstance(device, tuple | list | dict):  # a pytree prefix of x, as JAX's
        return _put_tree(x, device)
    else:  # JAX's wording (api._check_sharding), then mj's
        raise ValueError(
            "`jax.device_put` only accepts `None`, `jax.sharding.Sharding`, `jax.Device`, "
            "`Format`, `jax.memory.Space` or a pytree of these values. Received invalid "
            f"value: {device} (mj's device_put: a device, a Sharding, None or a pytree prefix "
            f"of x of these){user_line_suffix()}"
        )
    return tree_map(lambda leaf: _put_leaf(leaf, sharding), x)


def _put_tree(x: Any, device: Any) -> Any:
    """``device`` a pytree prefix of ``x``: each subtree goes where its ``device`` leaf says."""
    targets, target_def = tree_flatten(device, is_leaf=_is_target)
    try:
        subtrees = flatten_up_to(target_def, x)
    except ValueError:
        errors = prefix_errors(device, x, is_leaf=_is_target)
        details = "\n  ".join(str(e("device_put device").args[0]) for e in errors)
        found = f"\n  Mismatch details ({len(errors)} found):\n  {details}" if errors else ""
        raise ValueError(  # JAX's wording (api.device_put's prefix error), then mj's
            "device_put device specification must be a tree prefix of the corresponding "
            f"value; got specification {device!r} for value tree {tree_structure(x)}"
            f"{user_line_suffix()}.{found}"
        ) from None
    return tree_unflatten(target_def, [_put(t, d) for t, d in zip(subtrees, targets, strict=True)])


def _put_leaf(x: Any, sharding: Sharding) -> Any:
    if isinstance(x, Tracer):
        return x
    if isinstance(x, ShardedArray) and x.buffer_for(sharding) is not None:
        return x
    if isinstance(sharding, SingleDeviceSharding) and type(x) in (Array, CommittedArray):
        (device,) = sharding.device_assignment
        if type(x) is CommittedArray and x.device is device:
            return x
        return CommittedArray(_jaxlib.copy_to_device(x._buf, x._aval, device, True), x._aval)
    aval = get_aval(x)
    shaped = ShapedArray(aval.shape, canonical_dtype(aval.dtype), aval.weak_type)
    host = np.asarray(x, shaped.dtype)
    if isinstance(sharding, SingleDeviceSharding):
        (device,) = sharding.device_assignment
        return CommittedArray(_jaxlib.put_on(host, device), shaped)
    return put_sharded(host, shaped, sharding)


# ``zeros_like(x)`` & co. of an array on devices lands where ``x`` is, as in JAX.
like_placements[ShardedArray] = lambda new, like: device_put(new, like.sharding)
like_placements[CommittedArray] = lambda new, like: device_put(new, like.device)

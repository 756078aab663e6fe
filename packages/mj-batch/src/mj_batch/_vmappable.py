"""Custom vmappable types (JAX's ``batching.register_vmappable``): a type that is not a pytree
of arrays (an array with named axes, a ragged or sparse array) mapped by ``vmap`` with specs
of its own.

Registering ``data_type`` with ``spec_type`` makes its instances leaves of vmap's argument and
output trees, and instances of ``spec_type`` valid ``in_axes``/``out_axes`` entries. The
conversions dispatch on the value's type, for every caller alike:

* ``to_elt(cont, get_idx, x, spec)`` turns the batched input ``x`` into the per-example value
  that the mapped function sees; ``cont(val, axis)`` does that for a part ``val`` of it
  (an array mapped along ``axis``, an int or ``None``, or another vmappable with its spec).
  ``get_idx()`` is the example's index (an int32 batch of ``0 .. axis_size - 1``).
* ``from_elt(cont, axis_size, elt, spec)`` turns an output value back into the batched one;
  ``cont(axis_size, val, axis)`` does that for a part ``val`` of it, batch axis at ``axis``.
* ``make_iota(axis_size)``, if given, builds ``get_idx``'s indices when the axis size is of
  ``axis_size_type``.

A spec for an instance of a registered type is ``None`` or an instance of its spec type; a
spec of a registered spec type for an array is an error too, naming both.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from mj_batch._batching import BatchTrace, BatchTracer, broadcast_batched, moveaxis, not_mapped
from mj_core import full_raise, lax
from mj_core.errors import user_location
from mj_core.extend import Token, abstract_token, is_array, shape_of

__all__ = [
    "SpecMatchError",
    "from_elt",
    "index_getter",
    "is_spec",
    "is_vmappable",
    "leaf_test",
    "make_iota",
    "match_axis",
    "place",
    "placed",
    "register_vmappable",
    "spec_error",
    "to_elt",
    "unregister_vmappable",
]

ToElt = Callable[[Callable[..., Any], Callable[[], Any], Any, Any], Any]
FromElt = Callable[[Callable[..., Any], Any, Any, Any], Any]
MakeIota = Callable[[Any], Any]


@dataclass(frozen=True)
class _Vmappable:
    spec_type: type
    axis_size_type: type
    to_elt: ToElt
    from_elt: FromElt


_vmappables: dict[type, _Vmappable] = {}
_make_iota: dict[type, MakeIota] = {}


def register_vmappable(
    data_type: type,
    spec_type: type,
    axis_size_type: type,
    to_elt: ToElt,
    from_elt: FromElt,
    make_iota: MakeIota | None = None,
) -> None:
    """Let ``vmap`` map instances of ``data_type`` with ``spec_type`` specs (JAX's
    ``batching.register_vmappable``; the handlers are described in the module docstring)."""
    _vmappables[data_type] = _Vmappable(spec_type, axis_size_type, to_elt, from_elt)
    if make_iota is not None:
        _make_iota[axis_size_type] = make_iota


def unregister_vmappable(data_type: type) -> None:
    """Undo :func:`register_vmappable` for ``data_type``: its instances are pytrees (or plain
    leaves) again. A spec type stays valid while another registered type uses it."""
    entry = _vmappables.pop(data_type, None)
    if entry is not None and all(
        v.axis_size_type is not entry.axis_size_type for v in _vmappables.values()
    ):
        _make_iota.pop(entry.axis_size_type, None)


def is_vmappable(x: object) -> bool:
    """True for an instance of a registered vmappable type (a leaf of vmap's trees)."""
    return type(x) in _vmappables


def leaf_test() -> Callable[[object], bool] | None:
    """The ``is_leaf`` for flattening vmap's trees: :func:`is_vmappable`, or ``None`` (the
    plain, faster flattening) while no type is registered."""
    return is_vmappable if _vmappables else None


def is_spec(x: object) -> bool:
    """True for an instance of a registered spec type (a valid ``in_axes``/``out_axes`` leaf)."""
    t = type(x)
    return any(v.spec_type is t for v in _vmappables.values())


class SpecMatchError(Exception):
    """An output batched at ``src`` whose ``out_axes`` entry (``dst``) is ``None``; ``index``
    is the output leaf. vmap turns it into JAX's message, by the leaf's key path."""

    def __init__(self, index: int, src: int, dst: Any) -> None:
        super().__init__(index, src, dst)
        self.index, self.src, self.dst = index, src, dst


placed = object()
"""The batch dim :func:`from_elt` reports for an output its type's ``from_elt`` has already
put in place (no axis left to move)."""


def _where() -> str:
    loc = user_location()
    return f" ({loc})" if loc else ""


def _describe(x: object) -> str:
    try:
        return f"an array of shape {shape_of(x)}"
    except TypeError:
        return f"a {type(x).__name__}"


def _check_spec(which: str, x: object, entry: _Vmappable, spec: object) -> None:
    if spec is not None and not isinstance(spec, entry.spec_type):
        raise TypeError(
            f"vmap {which} entry for a {type(x).__name__} must be None or a "
            f"{entry.spec_type.__name__} (the spec type it was registered with), but got "
            f"{spec!r} of type {type(spec).__name__}{_where()}."
        )


def spec_error(which: str, x: object, spec: object) -> TypeError:
    """The error for a registered spec type's instance given for a value that is not of a
    type registered with it."""
    users = sorted(t.__name__ for t, v in _vmappables.items() if v.spec_type is type(spec))
    return TypeError(
        f"vmap {which} entry {spec!r} of type {type(spec).__name__} is a spec for "
        f"{', '.join(users)} (registered vmappable types), but the value it maps is "
        f"{_describe(x)}, which takes an int or None{_where()}."
    )


def make_iota(axis_size: Any) -> Any:
    """The indices ``0 .. axis_size - 1``: by the handler registered for ``axis_size``'s
    type, else an int32 ``iota``."""
    handler = _make_iota.get(type(axis_size))
    if handler is not None:
        return handler(axis_size)
    return lax.iota(np.int32, int(axis_size))


def index_getter(trace: BatchTrace, axis_size: Any) -> Callable[[], Any]:
    """``get_idx`` for the handlers: the example's index, built on first use."""

    @functools.cache
    def get_idx() -> Any:
        return BatchTracer(trace, make_iota(axis_size), 0)

    return get_idx


def to_elt(trace: BatchTrace, get_idx: Callable[[], Any], x: Any, spec: Any) -> Any:
    """The per-example value of the input ``x`` mapped along ``spec`` (a batch dim of an
    array; a registered type's handler for an instance of it)."""
    entry = _vmappables.get(type(x))
    if entry is not None:
        _check_spec("in_axes", x, entry, spec)
        return entry.to_elt(functools.partial(to_elt, trace, get_idx), get_idx, x, spec)
    if spec is None or spec is not_mapped:
        return x
    if not isinstance(spec, int) or isinstance(spec, bool):
        if is_spec(spec):
            raise spec_error("in_axes", x, spec)
        raise TypeError(f"vmap in_axes entry must be an int or None, got {spec!r}{_where()}.")
    shape = shape_of(x)
    if not -len(shape) <= spec < len(shape):
        raise ValueError(
            f"vmap was requested to map a value along axis {spec}, but its shape is "
            f"{shape}{_where()}"
        )
    axis = spec % len(shape)
    if shape[axis] != trace.axis_size:
        raise ValueError(
            f"vmap got inconsistent sizes for array axes to be mapped: axis {spec} of a value "
            f"of shape {shape} has size {shape[axis]}, the mapped axis {trace.axis_size}"
            f"{_where()}"
        )
    return BatchTracer(trace, x, axis)


def from_elt(trace: BatchTrace, axis_size: int, index: int, x: Any, spec: Any) -> Any:
    """The batched value of output leaf ``index`` (``x`` on ``trace``) with its batch axis
    at ``spec`` (a registered type's handler for an instance of it)."""
    entry = _vmappables.get(type(x))
    if entry is not None:
        _check_spec("out_axes", x, entry, spec)

        def cont(size: int, elt: Any, axis: Any) -> Any:
            return from_elt(trace, size, index, elt, axis)

        return entry.from_elt(cont, axis_size, x, spec)
    t = full_raise(trace, x)
    return place(axis_size, index, t.val, t.batch_dim, spec)


def place(axis_size: int, index: int, val: Any, bdim: Any, spec: Any) -> Any:
    """Output leaf ``index``, the array ``val`` batched at ``bdim``, with its batch axis at
    its ``out_axes`` entry ``spec``."""
    if type(spec) is not int and spec is not None:
        if is_spec(spec):
            raise spec_error("out_axes", val, spec)
        raise TypeError(f"vmap out_axes entry must be an int or None, got {spec!r}{_where()}.")
    if type(val) is Token or getattr(val, "aval", None) is abstract_token:
        if spec is not None:  # (never batched: tokens carry no data)
            raise ValueError(
                f"vmap out_axes entry {spec} for output leaf {index}, a token: a token has no "
                f"batch axis, its out_axes entry must be None{_where()}."
            )
        return val
    if not is_array(val):
        raise TypeError(
            f"Output from batched function {val!r} with type {type(val)} is not a valid JAX "
            f"type{_where()}."
        )
    return match_axis(axis_size, index, val, bdim, spec)


def match_axis(axis_size: int, index: int, val: Any, bdim: Any, spec: int | None) -> Any:
    """``val`` (batched at ``bdim``, or ``not_mapped``) with its batch axis at ``spec``
    (``None``: unmapped, allowed only for an unbatched value)."""
    if spec is None:
        if bdim is not not_mapped:
            raise SpecMatchError(index, bdim, None)
        return val
    rank = len(shape_of(val)) + (bdim is not_mapped)
    if not -rank <= spec < rank:
        raise ValueError(
            f"axis {spec} is out of bounds for array of dimension {rank} (vmap out_axes "
            f"for output leaf {index}, of rank {rank} with the batch axis){_where()}."
        )
    spec %= rank
    if bdim is not_mapped:
        return broadcast_batched(val, axis_size, spec)
    return moveaxis(val, bdim, spec)

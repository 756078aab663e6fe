"""Named axes in scope: which transformation binds each axis name, and with what size.

``vmap(f, axis_name="i")`` and ``pmap(f, axis_name="i")`` push an :class:`AxisFrame` while
``f`` runs; a collective (``psum(x, "i")``, see :mod:`mj_core.prims.parallel`) resolves its
names to the innermost frames binding them, and raises JAX's ``NameError`` for a name no
frame binds. A frame's ``main`` is the trace that computes collectives over its axis (vmap's
batch trace, which reduces over its batch dimension); it is ``None`` for an axis whose
collectives are staged and later lowered to XLA collectives (pmap's).

The frames are per thread, like the trace stack: tracing in several threads at once keeps
separate environments.
"""

from __future__ import annotations

import threading
from collections.abc import Hashable, Iterator, Sequence
from contextlib import contextmanager

from mj_core._trace import MainTrace

__all__ = [
    "AxisFrame",
    "axis_env_signature",
    "axis_frame",
    "axis_names_in_scope",
    "batching_frame",
    "extend_axis_env",
    "frame_of_main",
    "names_of",
    "swap_batching_frame",
]


class AxisFrame:
    """One named axis in scope: its ``name``, its ``size`` and the ``main`` trace owning it."""

    __slots__ = ("main", "name", "size")

    def __init__(self, name: Hashable, size: int, main: MainTrace | None) -> None:
        self.name = name
        self.size = size
        self.main = main

    def __repr__(self) -> str:
        return f"AxisFrame({self.name!r}, size={self.size})"


class _AxisState(threading.local):
    def __init__(self) -> None:
        self.frames: list[AxisFrame] = []
        # The frame of the named batch trace whose rule is running now (None outside one):
        # a rule batching a nested jaxpr batches the same axis, so it inherits the name.
        self.batching: AxisFrame | None = None


_state = _AxisState()


@contextmanager
def extend_axis_env(name: Hashable, size: int, main: MainTrace | None) -> Iterator[AxisFrame]:
    """Bind axis ``name`` (of ``size``, computed by ``main``) for the duration of the block."""
    frame = AxisFrame(name, size, main)
    frames = _state.frames
    frames.append(frame)
    try:
        yield frame
    finally:
        if frames and frames[-1] is frame:
            frames.pop()
        else:
            frames.remove(frame)


def names_of(axis_name: Hashable | Sequence[Hashable]) -> tuple[Hashable, ...]:
    """The axis names a collective's ``axis_name`` argument names (a name or a tuple)."""
    if isinstance(axis_name, tuple | list):
        return tuple(axis_name)
    return (axis_name,)


def axis_names_in_scope() -> list[Hashable]:
    """The names bound here, outermost first (the unnamed vmaps' frames are left out)."""
    return [f.name for f in _state.frames if f.name is not None]


def axis_env_signature() -> tuple[tuple[Hashable, int], ...]:
    """The named axes in scope and their sizes: part of a trace cache's key, since tracing
    resolves collectives against them."""
    return tuple((f.name, f.size) for f in _state.frames if f.name is not None)


def axis_frame(name: Hashable) -> AxisFrame:
    """The innermost frame binding ``name``; ``NameError`` (worded as JAX's) if none does."""
    if name is not None:
        for frame in reversed(_state.frames):
            if frame.name == name:
                return frame
    raise NameError(
        f"unbound axis name: {name}. The following axis names (e.g. defined by pmap) are "
        f"available to collective operations: {axis_names_in_scope()}"
    )


def frame_of_main(main: MainTrace) -> AxisFrame | None:
    """The frame whose axis ``main`` computes (``None`` for an unnamed vmap's trace)."""
    for frame in reversed(_state.frames):
        if frame.main is main:
            return frame
    return None


def swap_batching_frame(frame: AxisFrame | None) -> AxisFrame | None:
    """Record ``frame`` as the named batch trace running a rule now (``None``: none is);
    returns the previous one, to restore when the rule returns. A plain swap, not a context
    manager: a named vmap does it around every primitive."""
    state = _state
    prev = state.batching
    state.batching = frame
    return prev


def batching_frame() -> AxisFrame | None:
    """The frame of the named batch trace whose rule is running now, if any."""
    return _state.batching

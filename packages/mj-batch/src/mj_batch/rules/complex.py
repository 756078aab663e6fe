"""Batching rules of ``real``, ``imag``, ``conj`` (elementwise, batch dim unchanged) and
``complex`` (operands broadcast like NumPy, lined up by ``align_batched``)."""

from __future__ import annotations

from mj_batch._batching import defbroadcasting, defvectorized
from mj_core.prims import complex as cx

__all__: list[str] = []

for _prim in (cx.real_p, cx.imag_p, cx.conj_p):
    defvectorized(_prim)
defbroadcasting(cx.complex_p)

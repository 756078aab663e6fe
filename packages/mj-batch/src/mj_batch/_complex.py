"""Batching rules of ``real``, ``imag``, ``conj`` (elementwise, batch dim unchanged) and
``complex`` (operands broadcast like NumPy, lined up by :func:`align_batched`)."""

from __future__ import annotations

from mj_batch._batching import defvectorized
from mj_batch._elementwise import defbroadcasting
from mj_core.prims import complex as cx

for _prim in (cx.real_p, cx.imag_p, cx.conj_p):
    defvectorized(_prim)
defbroadcasting(cx.complex_p)

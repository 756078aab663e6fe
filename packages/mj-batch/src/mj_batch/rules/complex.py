"""Batching rules of ``real``, ``imag``, ``conj`` (elementwise, batch dim unchanged) and
``complex`` (operands broadcast like NumPy, lined up by ``align_batched``)."""

from __future__ import annotations

from mj_batch._batching import defbroadcasting, defvectorized
from mj_core.prims.complex import complex_p, conj_p, imag_p, real_p

__all__: list[str] = []

for _prim in (real_p, imag_p, conj_p):
    defvectorized(_prim)
defbroadcasting(complex_p)

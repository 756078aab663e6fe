"""``mj.dlpack``: arrays from other libraries through the DLPack protocol, as ``jax.dlpack``.

``from_dlpack(x)`` takes anything with ``__dlpack__`` whose data is on the CPU (a NumPy array,
a CPU torch tensor, another mj array) and puts it on an mj device. mj arrays own their data
(``device_put`` copies on entry), so the result never aliases ``x``: a later change to ``x``
does not show in it, and ``copy=False`` is refused.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from mj import numpy as mnp
from mj_core.dtypes import bfloat16
from mj_core.errors import user_line_suffix
from mj_core.extend import DTypeLike
from mj_xla import device_put

__all__ = ["from_dlpack", "is_supported_dtype"]

_SUPPORTED = frozenset(
    np.dtype(t)
    for t in (
        np.bool_,
        np.int8,
        np.int16,
        np.int32,
        np.int64,
        np.uint8,
        np.uint16,
        np.uint32,
        np.uint64,
        np.float16,
        bfloat16,
        np.float32,
        np.float64,
        np.complex64,
        np.complex128,
    )
)


def is_supported_dtype(dtype: DTypeLike | None) -> bool:
    """Whether arrays of ``dtype`` cross DLPack (booleans, integers, floats, complex)."""
    return np.dtype(dtype) in _SUPPORTED


def from_dlpack(external_array: Any, device: Any = None, copy: bool | None = None) -> Any:
    """An mj array with the data of ``external_array`` (an object with ``__dlpack__``),
    on ``device`` (a device or sharding; the default device if None)."""
    if copy is False:
        raise ValueError(
            "from_dlpack: copy=False cannot be honoured: mj arrays own their data, so the "
            f"data is always copied{user_line_suffix()}"
        )
    data = mnp.from_dlpack(external_array)  # checks the protocol, owns a copy of the data
    if not is_supported_dtype(data.dtype):
        raise TypeError(f"from_dlpack: unsupported dtype {data.dtype}{user_line_suffix()}")
    return device_put(data, device) if device is not None else device_put(data)

"""JVP and transpose rules of ``real``, ``imag``, ``conj`` and ``complex``.

All four are R-linear, so their JVPs apply the primitive to the tangents. Transposes follow
JAX's convention exactly: they are the plain (unconjugated) transposes of the real-linear
maps, e.g. ``real``'s cotangent ``t`` goes back as ``complex(t, 0)`` and ``imag``'s as
``complex(0, -t)``; ``grad`` of a real-valued function of a complex input therefore returns
``df/dx - i*df/dy``, as JAX does.
"""

from __future__ import annotations

from typing import Any

from mj_autodiff._derivatives import deflinear2
from mj_autodiff._transpose import Operand, UndefPrimal, unbroadcast
from mj_core import lax
from mj_core.extend import ArrayLike, DType
from mj_core.prims.complex import complex_p, conj_p, imag_p, real_p


def _real_transpose(ct: ArrayLike, x: UndefPrimal) -> list[Any]:
    return [lax.complex(ct, 0.0)]


deflinear2(real_p, _real_transpose)


def _imag_transpose(ct: ArrayLike, x: UndefPrimal) -> list[Any]:
    return [lax.complex(0.0, lax.neg(ct))]


deflinear2(imag_p, _imag_transpose)


def _conj_transpose(ct: ArrayLike, x: UndefPrimal, *, input_dtype: DType) -> list[Any]:
    if input_dtype.kind == "c":
        return [lax.conj(ct)]
    return [lax.real(ct)]


deflinear2(conj_p, _conj_transpose)


def _complex_transpose(ct: ArrayLike, x: Operand, y: Operand) -> list[Any]:
    return [
        unbroadcast(lax.real(ct), x.aval) if type(x) is UndefPrimal else None,
        unbroadcast(lax.imag(lax.neg(ct)), y.aval) if type(y) is UndefPrimal else None,
    ]


deflinear2(complex_p, _complex_transpose)

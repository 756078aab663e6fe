"""Batching rule of ``fft``: it transforms the trailing dims, so the batch dim goes to the
front (JAX's rule) and the transform applies to the whole batch."""

from __future__ import annotations

from typing import Any

from mj_batch._batching import Dims, RuleResult, Vals, first_mapped, moveaxis, vmap_rules
from mj_core import bind1
from mj_core.prims.fft import FftType, fft_p

__all__: list[str] = []


def _fft_vmap(
    axis_size: int, vals_in: Vals, dims_in: Dims, *, fft_type: FftType, fft_lengths: Any
) -> RuleResult:
    (x,), bdim = vals_in, first_mapped(dims_in)
    x = moveaxis(x, bdim, 0)
    return [bind1(fft_p, x, fft_type=fft_type, fft_lengths=fft_lengths)], [0]


vmap_rules[fft_p] = _fft_vmap

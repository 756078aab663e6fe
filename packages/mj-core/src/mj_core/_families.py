"""The closed catalogue of primitive families: the unit of organisation in every layer.

Each name ``f`` is one file per layer: ``mj_core/prims/f.py`` (primitives, lax wrappers, impl
and typing rules), ``mj_autodiff/rules/f.py``, ``mj_batch/rules/f.py`` and
``mj_xla/rules/f.py``. Every ``rules/__init__`` registers by iterating this tuple, and the
coverage tests iterate it too, so a rule's home follows from its layer and its family.
"""

from __future__ import annotations

__all__ = ["FAMILIES"]

FAMILIES: tuple[str, ...] = (
    "elementwise",  # arithmetic, comparisons, bitwise, transcendental, nextafter
    "special",  # erf, lgamma, digamma, bessel, incomplete gamma and beta, ...
    "complex",  # real, imag, conj, complex
    "conversions",  # convert_element_type, bitcast, reduce_precision
    "reductions",  # reduce_*, argmin/argmax, cumulative reductions
    "sorting",  # sort, top_k
    "contractions",  # dot_general
    "convolution",  # conv_general_dilated
    "windowed",  # reduce_window, select_and_scatter, ...
    "structural",  # broadcast, reshape, transpose, concatenate, pad, slice, ...
    "indexing",  # gather, scatter, dynamic_slice, ...
    "linalg",  # cholesky, triangular_solve, lu, qr, eigh, svd, ...
    "fft",  # fft
    "callback",  # host callbacks
    "parallel",  # collectives over named axes: psum, all_gather, ppermute, axis_index, ...
    "tokens",  # create_token, after_all
)

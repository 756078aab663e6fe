"""``jax.lax.conv_general_dilated_patches`` and ``conv_general_dilated_local``: compositions of
``conv_general_dilated`` and ``dot_general``, as JAX builds them (``jax/_src/lax/other.py``).

``conv_general_dilated_patches`` extracts each output location's receptive field (a grouped
convolution with one-hot kernels); ``conv_general_dilated_local`` (flax's
``nn.ConvLocal``) contracts those patches with a separate kernel per output location.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import mj.numpy as mnp
from mj_core import lax
from mj_core.errors import user_line_suffix
from mj_core.extend import Array, ArrayLike
from mj_core.lax import PrecisionLike

__all__ = ["conv_general_dilated_local", "conv_general_dilated_patches"]


def conv_general_dilated_patches(
    lhs: ArrayLike,
    filter_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: object = None,
    precision: str | lax.Precision | None = None,
    preferred_element_type: object = None,
) -> Array:
    """Each output location's patch of ``lhs`` (the ``filter_shape`` window, with strides,
    padding and dilations as ``conv_general_dilated``), flattened into the feature dimension
    in the order ``C`` then the window's spatial dimensions, as JAX's."""
    x = mnp.asarray(lhs)
    filter_shape = tuple(int(n) for n in filter_shape)
    dn = lax.conv_dimension_numbers(x.shape, (1, 1, *filter_shape), dimension_numbers)
    lhs_spec, rhs_spec, _ = dn
    spatial_size = math.prod(filter_shape)
    n_channels = x.shape[lhs_spec[1]]
    # one one-hot kernel per (channel, window position): a grouped convolution copies the
    # window's values into separate output features
    rhs = mnp.eye(spatial_size, dtype=x.dtype)
    rhs = lax.broadcast_in_dim(rhs, (n_channels, spatial_size, spatial_size), (1, 2))
    rhs = lax.reshape(rhs, (n_channels * spatial_size, 1, *filter_shape))
    rhs = mnp.moveaxis(rhs, (0, 1), (rhs_spec[0], rhs_spec[1]))
    return lax.conv_general_dilated(
        x,
        rhs,
        window_strides=window_strides,
        padding=padding,
        lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation,
        dimension_numbers=dn,
        precision=None if precision is None else (precision, lax.Precision.DEFAULT),
        feature_group_count=n_channels,
        preferred_element_type=preferred_element_type,  # type: ignore[arg-type]
    )


def conv_general_dilated_local(
    lhs: ArrayLike,
    rhs: ArrayLike,
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    filter_shape: Sequence[int],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: object = None,
    precision: PrecisionLike = None,
) -> Array:
    """An unshared convolution (a locally connected layer): ``rhs`` holds one kernel per
    output location, its spatial dimensions the output's and its ``I`` dimension the input
    features times the receptive window (``C`` first), as JAX's."""
    x = mnp.asarray(lhs)
    # the patches' precision: the lhs half of a (lhs, rhs) pair, as JAX's
    lhs_precision = precision[0] if isinstance(precision, (tuple, list)) else precision
    if not (lhs_precision is None or isinstance(lhs_precision, (str, lax.Precision))):
        raise TypeError(
            f"conv_general_dilated_local: precision must be a Precision, its name or None "
            f"(or a pair of them), got {lhs_precision!r}{user_line_suffix()}"
        )
    patches = conv_general_dilated_patches(
        x,
        filter_shape=filter_shape,
        window_strides=window_strides,
        padding=padding,
        lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation,
        dimension_numbers=dimension_numbers,
        precision=lhs_precision,
    )
    _, rhs_spec, out_spec = lax.conv_dimension_numbers(
        x.shape, (1, 1, *filter_shape), dimension_numbers
    )
    lhs_b = list(out_spec[2:])
    rhs_b = list(rhs_spec[2:])
    rhs_b = [rhs_b[i] for i in sorted(range(len(rhs_b)), key=lambda k: lhs_b[k])]
    lhs_b = sorted(lhs_b)
    dn = (([out_spec[1]], [rhs_spec[1]]), (lhs_b, rhs_b))
    out = lax.dot_general(patches, rhs, dimension_numbers=dn, precision=precision)
    return mnp.moveaxis(out, (-2, -1), (out_spec[0], out_spec[1]))

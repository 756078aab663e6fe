"""``conv_general_dilated``: XLA's N-d convolution with strides, padding, input (lhs) and
kernel (rhs) dilation, and feature/batch grouping.

Params are already resolved (the ``mj_core.lax`` wrappers turn ``"SAME"`` and dimension
strings into numbers): ``padding`` is one ``(lo, hi)`` pair per spatial dimension (negative
values crop), and ``dimension_numbers`` is a :class:`ConvDimensionNumbers` saying where the
batch, feature and spatial dimensions of lhs, rhs and output are. In the canonical order
``lhs = (N, C, *S)``, ``rhs = (O, I, *K)``, ``out = (N', O, *S')``, the output is

``out[n, g*Og + o, *p] = sum_{i, *k} lhs_padded[n, g*I + i, *(p*stride + k*rhs_dilation)]
* rhs[g*Og + o, i, *k]``

with ``g`` the feature group (or, for batch groups, ``n`` running over one group of the lhs
batch: ``lhs[g*N' + n]``).

The lax wrappers follow the rules: ``conv_general_dilated`` resolves what users write
(dimension-number strings such as ``("NHWC", "HWIO", "NHWC")``, ``"SAME"``/``"VALID"``
padding) into the primitive's numeric params; ``conv``, ``conv_with_general_padding`` and
``conv_transpose`` are conveniences on top. The NumPy convolution itself is in
:mod:`mj_core.prims._conv_numpy`. ``__all__`` is the family's primitives and lax API;
``reshape_axis_into``/``reshape_axis_out_of`` (batch-folding helpers of the rules of higher
layers) are not lax API.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from mj_core._avals import ShapedArray
from mj_core._primitive import Primitive, abstract_eval_rules, impl_rules
from mj_core._shapes import aval_error, shape_of
from mj_core._typing import Array, ArrayLike, DTypeLike
from mj_core.errors import user_line_suffix
from mj_core.prims._conv_numpy import canonical_conv, dilate_and_pad
from mj_core.prims._conv_numpy import dilate_dim as dilate_dim
from mj_core.prims._operands import bind1, check_operands, common_dtype
from mj_core.prims.contractions import Precision, PrecisionLike, canonicalize_precision
from mj_core.prims.structural import reshape_p, rev_p, transpose_p

__all__ = [
    "ConvDimensionNumbers",
    "conv",
    "conv_dimension_numbers",
    "conv_general_dilated",
    "conv_general_dilated_p",
    "conv_general_permutations",
    "conv_general_shape_tuple",
    "conv_shape_tuple",
    "conv_transpose",
    "conv_transpose_shape_tuple",
    "conv_with_general_padding",
    "padtype_to_pads",
]

_NAME = "conv_general_dilated"


class ConvDimensionNumbers(NamedTuple):
    """Where the dimensions of a convolution's operands and output are.

    ``lhs_spec`` and ``out_spec`` are ``(batch dim, feature dim, *spatial dims)``;
    ``rhs_spec`` is ``(out feature dim, in feature dim, *spatial dims)``. Spatial dims are
    listed in the same (kernel) order in all three.
    """

    lhs_spec: tuple[int, ...]
    rhs_spec: tuple[int, ...]
    out_spec: tuple[int, ...]


conv_general_dilated_p = Primitive(_NAME)


def _check_params(
    avals: tuple[ShapedArray, ShapedArray],
    window_strides: Sequence[int],
    padding: Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int],
    rhs_dilation: Sequence[int],
    dimension_numbers: ConvDimensionNumbers,
) -> None:
    lhs, rhs = avals
    if lhs.ndim != rhs.ndim:
        raise aval_error(
            _NAME, f"{_NAME} lhs and rhs must have the same number of dimensions", avals
        )
    if lhs.ndim < 2:
        raise aval_error(_NAME, "operands must have rank >= 2 (batch and feature dims)", avals)
    if not isinstance(dimension_numbers, ConvDimensionNumbers):
        raise aval_error(
            _NAME,
            f"dimension_numbers must be a ConvDimensionNumbers, got {dimension_numbers!r}",
            avals,
        )
    for name, spec in zip(("lhs_spec", "rhs_spec", "out_spec"), dimension_numbers, strict=True):
        if sorted(spec) != list(range(lhs.ndim)):
            raise aval_error(
                _NAME,
                f"dimension_numbers.{name}={tuple(spec)} must be a permutation of "
                f"range({lhs.ndim})",
                avals,
            )
    nspatial = lhs.ndim - 2
    for name, value in (
        ("window_strides", window_strides),
        ("padding", padding),
        ("lhs_dilation", lhs_dilation),
        ("rhs_dilation", rhs_dilation),
    ):
        if len(value) != nspatial:
            raise aval_error(
                _NAME,
                f"{name}={tuple(value)} must have one entry per spatial dimension ({nspatial})",
                avals,
            )
    for name, value in (
        ("window_strides", window_strides),
        ("lhs_dilation", lhs_dilation),
        ("rhs_dilation", rhs_dilation),
    ):
        if any(v < 1 for v in value):
            raise aval_error(_NAME, f"{name}={tuple(value)} must be positive", avals)


def _check_groups(
    avals: tuple[ShapedArray, ShapedArray],
    lhs_shape: tuple[int, ...],
    rhs_shape: tuple[int, ...],
    feature_group_count: int,
    batch_group_count: int,
) -> None:
    """Group counts against the canonical-order shapes ``(N, C, ...)`` and ``(O, I, ...)``."""
    n, c = lhs_shape[:2]
    o, i = rhs_shape[:2]
    if feature_group_count < 1 or batch_group_count < 1:
        raise aval_error(
            _NAME,
            f"feature_group_count={feature_group_count} and batch_group_count="
            f"{batch_group_count} must be positive integers",
            avals,
        )
    if feature_group_count > 1 and batch_group_count > 1:
        raise aval_error(
            _NAME,
            f"at most one of feature_group_count={feature_group_count} and "
            f"batch_group_count={batch_group_count} may be > 1",
            avals,
        )
    if c % feature_group_count or c // feature_group_count != i:
        raise aval_error(
            _NAME,
            f"lhs feature dimension size {c} divided by feature_group_count="
            f"{feature_group_count} must equal the rhs input feature dimension size {i}",
            avals,
        )
    for count, what in ((feature_group_count, "feature"), (batch_group_count, "batch")):
        if o % count:
            raise aval_error(
                _NAME,
                f"rhs output feature dimension size {o} must be a multiple of "
                f"{what}_group_count={count}",
                avals,
            )
    if n % batch_group_count:
        raise aval_error(
            _NAME,
            f"batch_group_count={batch_group_count} must divide the lhs batch dimension size {n}",
            avals,
        )


@abstract_eval_rules.register(conv_general_dilated_p)
def _conv_general_dilated_avals(
    lhs: ShapedArray,
    rhs: ShapedArray,
    *,
    window_strides: tuple[int, ...],
    padding: tuple[tuple[int, int], ...],
    lhs_dilation: tuple[int, ...],
    rhs_dilation: tuple[int, ...],
    dimension_numbers: ConvDimensionNumbers,
    feature_group_count: int,
    batch_group_count: int,
    precision: tuple[Precision, Precision] | None = None,
    preferred_element_type: np.dtype[Any] | None = None,
) -> list[ShapedArray]:
    avals = (lhs, rhs)
    _check_params(avals, window_strides, padding, lhs_dilation, rhs_dilation, dimension_numbers)
    lhs_spec, rhs_spec, out_spec = dimension_numbers
    lhs_shape = tuple(lhs.shape[d] for d in lhs_spec)
    rhs_shape = tuple(rhs.shape[d] for d in rhs_spec)
    _check_groups(avals, lhs_shape, rhs_shape, feature_group_count, batch_group_count)
    dtype, weak = common_dtype(_NAME, avals)
    if preferred_element_type is not None:
        dtype, weak = np.dtype(preferred_element_type), False
    spatial = []
    for size, k, (lo, hi), s, ld, rd in zip(
        lhs_shape[2:],
        rhs_shape[2:],
        padding,
        window_strides,
        lhs_dilation,
        rhs_dilation,
        strict=True,
    ):
        padded = dilate_dim(size, ld) + lo + hi
        if padded < 0:
            raise aval_error(
                _NAME,
                f"negative padding {(lo, hi)} is larger than the dilated spatial size "
                f"{dilate_dim(size, ld)}",
                avals,
            )
        spatial.append(max(0, (padded - dilate_dim(k, rd)) // s + 1))
    canonical = (lhs_shape[0] // batch_group_count, rhs_shape[0], *spatial)
    shape = tuple(canonical[list(out_spec).index(d)] for d in range(len(canonical)))
    return [ShapedArray(shape, dtype, weak)]


@impl_rules.register(conv_general_dilated_p)
def _conv_general_dilated_impl(lhs: Any, rhs: Any, **params: Any) -> list[Any]:
    """The params are those of :func:`_conv_general_dilated_avals`, which checks them."""
    (out,) = check_operands(conv_general_dilated_p, (lhs, rhs), params)
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    # bool convolutions are logical (and, or), like XLA's: count in integers, then test
    compute = np.dtype(np.int64) if out.dtype == np.bool_ else out.dtype
    x = np.transpose(np.asarray(lhs, compute), lhs_spec)
    w = np.transpose(np.asarray(rhs, compute), rhs_spec)
    x = dilate_and_pad(x, params["lhs_dilation"], params["padding"])
    canonical_shape = tuple(out.shape[d] for d in out_spec)
    result = canonical_conv(
        x,
        w,
        canonical_shape,
        params["window_strides"],
        params["rhs_dilation"],
        params["feature_group_count"],
        params["batch_group_count"],
    )
    result = np.ascontiguousarray(np.transpose(result, np.argsort(out_spec)))
    # bfloat16's products come back in float32 (its matmul accumulates there)
    return [result if result.dtype == out.dtype else np.asarray(result, out.dtype)]


# --- lax wrappers ----------------------------------------------------------------------------
def conv_general_permutations(
    dimension_numbers: Sequence[str],
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """The ``(lhs_spec, rhs_spec, out_spec)`` of dimension-number strings such as
    ``("NCHW", "OIHW", "NCHW")``: spatial dims are ordered as they appear in the rhs string."""
    lhs_str, rhs_str, out_str = dimension_numbers
    charpairs = (("N", "C"), ("O", "I"), ("N", "C"))
    for i, (spec, (a, b)) in enumerate(zip(dimension_numbers, charpairs, strict=True)):
        if not spec.count(a) == spec.count(b) == 1:
            raise TypeError(
                f"conv_general_dilated: dimension_numbers[{i}] must contain the characters "
                f"{a!r} and {b!r} exactly once, got {spec!r}"
            )
        if len(spec) != len(set(spec)):
            raise TypeError(
                f"conv_general_dilated: dimension_numbers[{i}] cannot have duplicate "
                f"characters, got {spec!r}"
            )
    spatial = [set(s) - set(pair) for s, pair in zip(dimension_numbers, charpairs, strict=True)]
    if not spatial[0] == spatial[1] == spatial[2]:
        raise TypeError(
            "conv_general_dilated: dimension_numbers must each have the same set of spatial "
            f"characters, got {tuple(dimension_numbers)}"
        )

    def perm(spec: str, pair: tuple[str, str]) -> tuple[int, ...]:
        dims = sorted(
            (i for i, c in enumerate(spec) if c not in pair), key=lambda i: rhs_str.index(spec[i])
        )
        return (spec.index(pair[0]), spec.index(pair[1]), *dims)

    return perm(lhs_str, charpairs[0]), perm(rhs_str, charpairs[1]), perm(out_str, charpairs[2])


def conv_dimension_numbers(
    lhs_shape: Sequence[int], rhs_shape: Sequence[int], dimension_numbers: object
) -> ConvDimensionNumbers:
    """``dimension_numbers`` (``None``, three strings, or a ``ConvDimensionNumbers``) as a
    ``ConvDimensionNumbers``; only the ranks of the shapes matter. ``None`` means
    ``("NCHW", "OIHW", "NCHW")`` (for 2-D)."""
    if isinstance(dimension_numbers, ConvDimensionNumbers):
        return ConvDimensionNumbers(*(tuple(int(d) for d in s) for s in dimension_numbers))
    ndim = len(lhs_shape)
    if ndim != len(rhs_shape):
        raise TypeError(
            f"convolution requires lhs and rhs ndim to be equal, got {ndim} and "
            f"{len(rhs_shape)} (shapes {tuple(lhs_shape)} and {tuple(rhs_shape)})"
        )
    if dimension_numbers is None:
        iota = tuple(range(ndim))
        return ConvDimensionNumbers(iota, iota, iota)
    if not isinstance(dimension_numbers, list | tuple):
        raise TypeError(
            "conv_general_dilated: dimension_numbers must be None, a ConvDimensionNumbers or "
            f"a tuple of three strings, got {type(dimension_numbers).__name__}"
        )
    if len(dimension_numbers) != 3 or not all(isinstance(s, str) for s in dimension_numbers):
        raise TypeError(
            "conv_general_dilated: dimension_numbers must be three strings such as "
            f"('NCHW', 'OIHW', 'NCHW'), got {dimension_numbers!r}"
        )
    for i, spec in enumerate(dimension_numbers):
        if len(spec) != ndim:
            raise TypeError(
                f"conv_general_dilated: dimension_numbers[{i}]={spec!r} must have one "
                f"character per dimension of lhs and rhs, shapes {tuple(lhs_shape)} and "
                f"{tuple(rhs_shape)}"
            )
    return ConvDimensionNumbers(*conv_general_permutations(dimension_numbers))


def padtype_to_pads(
    in_shape: Sequence[int],
    window_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str,
) -> list[tuple[int, int]]:
    """``(lo, hi)`` pads for ``"VALID"`` (none), ``"SAME"`` (output size ``ceil(in /
    stride)``, an odd pad's extra element at the end) or ``"SAME_LOWER"`` (at the start)."""
    mode = padding.upper()
    if mode == "VALID":
        return [(0, 0)] * len(in_shape)
    if mode not in ("SAME", "SAME_LOWER"):
        raise ValueError(
            f"Unrecognized padding type: expected 'VALID', 'SAME', or 'SAME_LOWER', got {padding}."
        )
    pads = []
    for size, window, stride in zip(in_shape, window_shape, window_strides, strict=True):
        out = -(-size // stride)
        total = max((out - 1) * stride + window - size, 0)
        # Python ints whatever the inputs (NumPy integer arrays give NumPy scalars), as JAX
        small, big = int(total // 2), int(total - total // 2)
        pads.append((small, big) if mode == "SAME" else (big, small))
    return pads


def _int_pairs(padding: Any) -> list[tuple[int, int]]:
    try:
        return [(operator.index(lo), operator.index(hi)) for lo, hi in padding]
    except (ValueError, TypeError) as err:
        raise ValueError(
            "padding argument to conv_general_dilated should be a string or a sequence of "
            f"(low, high) pairs, got {padding}"
        ) from err


def conv_general_dilated(
    lhs: ArrayLike,
    rhs: ArrayLike,
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int] | None = None,
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: object = None,
    feature_group_count: int = 1,
    batch_group_count: int = 1,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """General N-d convolution with strides, padding, lhs (transposed-conv) dilation, rhs
    (atrous) dilation and grouping, as ``jax.lax.conv_general_dilated``."""
    lhs_shape, rhs_shape = shape_of(lhs), shape_of(rhs)
    dnums = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    nspatial = len(lhs_shape) - 2
    if lhs_dilation is None:
        lhs_dilation = (1,) * nspatial
    elif isinstance(padding, str) and any(d != 1 for d in lhs_dilation):
        raise ValueError(
            "String padding is not implemented for transposed convolution using this op. "
            "Please either exactly specify the required padding or use conv_transpose."
        )
    if rhs_dilation is None:
        rhs_dilation = (1,) * nspatial
    if len(window_strides) != nspatial:  # JAX's shape rule's ValueError and wording
        raise ValueError(
            "conv_general_dilated window and window_strides must have the same number of "
            f"dimensions, but got {nspatial} and {len(window_strides)}{user_line_suffix()}"
        )
    if len(rhs_dilation) != nspatial:  # (a ValueError in JAX too, from XLA's verifier)
        raise ValueError(
            f"conv_general_dilated: rhs_dilation={tuple(rhs_dilation)} must have one entry per "
            f"spatial dimension ({nspatial}) of lhs shape {lhs_shape}{user_line_suffix()}"
        )
    if isinstance(padding, str):
        in_spatial = [lhs_shape[d] for d in dnums.lhs_spec[2:]]
        window = [
            dilate_dim(rhs_shape[d], r)
            for d, r in zip(dnums.rhs_spec[2:], rhs_dilation, strict=True)
        ]
        pads = tuple(padtype_to_pads(in_spatial, window, window_strides, padding))
    else:
        pads = tuple(_int_pairs(padding))
    pet = None if preferred_element_type is None else np.dtype(preferred_element_type)
    return bind1(
        conv_general_dilated_p,
        lhs,
        rhs,
        window_strides=tuple(int(s) for s in window_strides),
        padding=pads,
        lhs_dilation=tuple(int(d) for d in lhs_dilation),
        rhs_dilation=tuple(int(d) for d in rhs_dilation),
        dimension_numbers=dnums,
        feature_group_count=operator.index(feature_group_count),
        batch_group_count=operator.index(batch_group_count),
        precision=canonicalize_precision(precision),
        preferred_element_type=pet,
    )


def conv(
    lhs: ArrayLike,
    rhs: ArrayLike,
    window_strides: Sequence[int],
    padding: str,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """Convolution of an ``NCHW`` input with an ``OIHW`` kernel (any number of spatial
    dims) and ``"SAME"``/``"VALID"`` padding."""
    return conv_with_general_padding(
        lhs, rhs, window_strides, padding, None, None, precision, preferred_element_type
    )


def conv_with_general_padding(
    lhs: ArrayLike,
    rhs: ArrayLike,
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    lhs_dilation: Sequence[int] | None,
    rhs_dilation: Sequence[int] | None,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
) -> Array:
    """:func:`conv` (``NCHW`` input, ``OIHW`` kernel) with explicit padding and dilations."""
    return conv_general_dilated(
        lhs,
        rhs,
        window_strides,
        padding,
        lhs_dilation=lhs_dilation,
        rhs_dilation=rhs_dilation,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )


def _conv_transpose_padding(k: int, s: int, padding: str | tuple[int, int]) -> tuple[int, int]:
    """Padding of one spatial dim of the fractionally strided conv that ``conv_transpose``
    computes, given the forward conv's padding mode (kernel ``k``, stride ``s``)."""
    if padding == "SAME":
        pad_len = k + s - 2
        pad_a = k - 1 if s > k - 1 else math.ceil(pad_len / 2)
    elif padding == "VALID":
        pad_len = k + s - 2 + max(k - s, 0)
        pad_a = k - 1
    elif isinstance(padding, tuple):
        pads = tuple(k - p - 1 for p in padding)
        pad_a = pads[0]
        pad_len = sum(pads)
    else:
        raise ValueError(f"conv_transpose: invalid padding mode {padding!r}")
    return pad_a, pad_len - pad_a


_TRANSPOSE_DEFAULT_DNUMS = {
    2: ("NC", "IO", "NC"),
    3: ("NHC", "HIO", "NHC"),
    4: ("NHWC", "HWIO", "NHWC"),
    5: ("NHWDC", "HWDIO", "NHWDC"),
}


def conv_transpose(
    lhs: ArrayLike,
    rhs: ArrayLike,
    strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    rhs_dilation: Sequence[int] | None = None,
    dimension_numbers: object = None,
    transpose_kernel: bool = False,
    precision: PrecisionLike = None,
    preferred_element_type: DTypeLike | None = None,
    use_consistent_padding: bool = False,
) -> Array:
    """The fractionally strided ("transposed") convolution, as ``jax.lax.conv_transpose``:
    ``lhs`` dilated by ``strides``; output sizes follow ``keras.layers.Conv2DTranspose``.
    Dimension numbers default to TensorFlow's (``NHWC``, ``HWIO``)."""
    lhs_shape, rhs_shape = shape_of(lhs), shape_of(rhs)
    ndim = len(lhs_shape)
    if ndim != len(rhs_shape) or ndim < 2:
        raise TypeError(
            "conv_transpose: lhs and rhs must have the same rank >= 2, got shapes "
            f"{lhs_shape} and {rhs_shape}"
        )
    if dimension_numbers is None:
        if ndim not in _TRANSPOSE_DEFAULT_DNUMS:
            raise ValueError("conv_transpose: no default dimension_numbers for rank > 5")
        dimension_numbers = _TRANSPOSE_DEFAULT_DNUMS[ndim]
    dn = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    kernel_spatial = [rhs_shape[d] for d in dn.rhs_spec[2:]]
    if rhs_dilation is None:
        rhs_dilation = (1,) * (ndim - 2)
    pads: str | Sequence[tuple[int, int]]
    if use_consistent_padding or padding in ("SAME", "VALID"):
        per_dim: list[str | tuple[int, int]] = (
            [padding] * len(strides) if isinstance(padding, str) else [*_int_pairs(padding)]
        )
        pads = tuple(
            _conv_transpose_padding(dilate_dim(k, r), s, p)
            for k, r, s, p in zip(kernel_spatial, rhs_dilation, strides, per_dim, strict=True)
        )
    else:
        pads = padding
    if transpose_kernel:  # flip spatial axes and swap the kernel's in/out feature axes
        rhs = bind1(rev_p, rhs, dimensions=tuple(sorted(dn.rhs_spec[2:])))
        perm = list(range(ndim))
        perm[dn.rhs_spec[0]], perm[dn.rhs_spec[1]] = dn.rhs_spec[1], dn.rhs_spec[0]
        rhs = bind1(transpose_p, rhs, permutation=tuple(perm))
    return conv_general_dilated(
        lhs,
        rhs,
        (1,) * (ndim - 2),
        pads,
        strides,
        rhs_dilation,
        dn,
        precision=precision,
        preferred_element_type=preferred_element_type,
    )


def reshape_axis_into(src: int, dst: int, x: ArrayLike) -> Array:
    """Merge axis ``src`` of ``x`` into axis ``dst`` (numbered after ``src`` is removed) as
    its major part: the batching and grouped-transpose rules fold a batch into N/C/O this way."""
    shape = shape_of(x)
    perm = [i for i in range(len(shape)) if i != src]
    perm.insert(dst, src)
    new_shape = [shape[i] for i in range(len(shape)) if i != src]
    new_shape[dst] *= shape[src]
    if perm != list(range(len(shape))):
        x = bind1(transpose_p, x, permutation=tuple(perm))
    return bind1(reshape_p, x, new_sizes=tuple(new_shape))


def reshape_axis_out_of(src: int, size1: int, x: ArrayLike) -> Array:
    """Split axis ``src`` of ``x`` into ``(size1, rest)``: the inverse of
    :func:`reshape_axis_into`."""
    shape = list(shape_of(x))
    size2, ragged = divmod(shape[src], size1)
    if ragged:
        raise ValueError(f"reshape_axis_out_of: {size1} does not divide axis size {shape[src]}")
    shape[src : src + 1] = [size1, size2]
    return bind1(reshape_p, x, new_sizes=tuple(shape))


# --- output shapes, as JAX's public helpers (layers size their parameters with them) ---------

Shape = tuple[int, ...]


def _stride_dim(size: int, window: int, stride: int) -> int:
    """How many windows of ``window`` fit in ``size`` at step ``stride`` (0 if none)."""
    return max(0, (size - window) // stride + 1)


def conv_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    strides: Sequence[int],
    pads: str | Sequence[tuple[int, int]],
    batch_group_count: int = 1,
) -> Shape:
    """Output shape of a convolution with operands in ``NC...``/``OI...`` order."""
    if isinstance(pads, str):
        pads = padtype_to_pads(lhs_shape[2:], rhs_shape[2:], strides, pads)
    if len(pads) != len(lhs_shape) - 2:
        raise TypeError(
            "Wrong number of explicit pads for convolution: expected "
            f"{len(lhs_shape) - 2}, got {len(pads)}."
        )
    padded = [d + lo + hi for d, (lo, hi) in zip(lhs_shape[2:], pads, strict=True)]
    if any(d < 0 for d in padded):
        raise ValueError(
            "Negative padding is larger than the size of the corresponding dimension: got "
            f"padding={list(pads)} for lhs_shape[2:]={tuple(lhs_shape[2:])}"
        )
    space = tuple(
        _stride_dim(d, k, s) for d, k, s in zip(padded, rhs_shape[2:], strides, strict=True)
    )
    batch = lhs_shape[0] // batch_group_count if batch_group_count > 1 else lhs_shape[0]
    return (int(batch), int(rhs_shape[0]), *space)


def _permuted(shape: Sequence[int], perm: Sequence[int]) -> Shape:
    return tuple(int(shape[i]) for i in perm)


def _unpermuted(shape: Sequence[int], perm: Sequence[int]) -> Shape:
    out = [0] * len(perm)
    for size, i in zip(shape, perm, strict=True):
        out[i] = size
    return tuple(out)


def conv_general_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    dimension_numbers: object,
) -> Shape:
    """Output shape of ``conv_general_dilated`` (without dilation) for the layouts in
    ``dimension_numbers`` (``("NHWC", "HWIO", "NHWC")`` or a ``ConvDimensionNumbers``)."""
    lhs_spec, rhs_spec, out_spec = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    out = conv_shape_tuple(
        _permuted(lhs_shape, lhs_spec), _permuted(rhs_shape, rhs_spec), window_strides, padding
    )
    return _unpermuted(out, out_spec)


def conv_transpose_shape_tuple(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    window_strides: Sequence[int],
    padding: str | Sequence[tuple[int, int]],
    dimension_numbers: object,
) -> Shape:
    """Output shape of ``conv_transpose`` for the layouts in ``dimension_numbers``."""
    lhs_spec, rhs_spec, out_spec = conv_dimension_numbers(lhs_shape, rhs_shape, dimension_numbers)
    lhs, rhs = _permuted(lhs_shape, lhs_spec), _permuted(rhs_shape, rhs_spec)
    if isinstance(padding, str):
        padding = [
            _conv_transpose_padding(k, s, padding)
            for k, s in zip(rhs[2:], window_strides, strict=True)
        ]
    space = tuple(
        (i - 1) * s - k + 2 + sum(p)
        for i, k, s, p in zip(lhs[2:], rhs[2:], window_strides, padding, strict=True)
    )
    return _unpermuted((lhs[0], rhs[0], *space), out_spec)

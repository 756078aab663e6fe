"""``mj.example_libraries.stax``: JAX's small neural-net specification library, for mj.

A layer is an ``(init_fun, apply_fun)`` pair: ``init_fun(rng, input_shape)`` returns
``(output_shape, params)`` and ``apply_fun(params, inputs, **kwargs)`` applies the layer
(``rng=`` reaches layers that need randomness, such as :func:`Dropout`). Combinators
(:func:`serial`, :func:`parallel`, :func:`shape_dependent`) build layers from layers.

Keys are split in the same order as ``jax.example_libraries.stax`` and the initializers are
``mj.nn.initializers`` (JAX's sampling, bit for bit), so the same key gives the same
parameters as JAX. Shapes are computed without arrays, so a batch dimension may be ``-1``.
The module is over 600 lines because it is JAX's whole stax in one namespace (about forty
layers and combinators, each a short pair of closures), as users import it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import mj.numpy as mnp
from mj import lax, random
from mj.nn import (
    elu,
    gelu,
    leaky_relu,
    log_softmax,
    relu,
    selu,
    sigmoid,
    softmax,
    softplus,
    standardize,
)
from mj.nn.initializers import glorot_normal, normal, ones, zeros
from mj_core.extend import AnyArray, Array, ArrayLike

__all__ = [
    "AvgPool",
    "BatchNorm",
    "Conv",
    "Conv1DTranspose",
    "ConvTranspose",
    "Dense",
    "Dropout",
    "Elu",
    "Exp",
    "FanInConcat",
    "FanInSum",
    "FanOut",
    "Flatten",
    "Gelu",
    "GeneralConv",
    "GeneralConvTranspose",
    "Identity",
    "LeakyRelu",
    "LogSoftmax",
    "MaxPool",
    "Relu",
    "Selu",
    "Sigmoid",
    "Softmax",
    "Softplus",
    "SumPool",
    "Tanh",
    "elementwise",
    "elu",
    "gelu",
    "glorot",
    "glorot_normal",
    "leaky_relu",
    "log_softmax",
    "logsoftmax",
    "normal",
    "ones",
    "parallel",
    "randn",
    "relu",
    "selu",
    "serial",
    "shape_dependent",
    "sigmoid",
    "softmax",
    "softplus",
    "standardize",
    "zeros",
]

# Aliases JAX keeps for backwards compatibility.
glorot = glorot_normal
randn = normal
logsoftmax = log_softmax

Shape = tuple[int, ...]
Initializer = Callable[[AnyArray, Sequence[int]], AnyArray]
InitFun = Callable[[AnyArray, Any], tuple[Any, Any]]
ApplyFun = Callable[..., Any]
Layer = tuple[InitFun, ApplyFun]
Padding = str | Sequence[tuple[int, int]]
DimensionNumbers = tuple[str, str, str]


# --- shape arithmetic (no arrays: init_fun works on shapes with a -1 batch) -----------------


def _stride_dim(d: int, window: int, stride: int) -> int:
    return max((d - window) // stride + 1, 0)


def _permutations(dimension_numbers: DimensionNumbers) -> list[tuple[int, ...]]:
    """Each spec's axes in (batch/out, feature/in, *spatial in the kernel's order) order."""
    rhs_spec = dimension_numbers[1]
    perms = []
    for spec, pair in zip(dimension_numbers, (("N", "C"), ("O", "I"), ("N", "C")), strict=True):
        spatial = [i for i, c in enumerate(spec) if c not in pair]
        order = (
            spatial if spec is rhs_spec else sorted(spatial, key=_kernel_position(spec, rhs_spec))
        )
        perms.append((spec.index(pair[0]), spec.index(pair[1]), *order))
    return perms


def _kernel_position(spec: str, rhs_spec: str) -> Callable[[int], int]:
    return lambda i: rhs_spec.index(spec[i])


def _conv_shape(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    strides: Sequence[int],
    padding: Padding,
    dimension_numbers: DimensionNumbers,
) -> Shape:
    """``lax.conv_general_shape_tuple``: the output shape of a general convolution."""
    lhs_perm, rhs_perm, out_perm = _permutations(dimension_numbers)
    lhs = [lhs_shape[i] for i in lhs_perm]
    rhs = [rhs_shape[i] for i in rhs_perm]
    pads = (
        lax.padtype_to_pads(lhs[2:], rhs[2:], strides, padding)
        if isinstance(padding, str)
        else list(padding)
    )
    space = [
        _stride_dim(d + lo + hi, k, s)
        for d, k, s, (lo, hi) in zip(lhs[2:], rhs[2:], strides, pads, strict=True)
    ]
    out = [lhs[0], rhs[0], *space]
    return tuple(out[out_perm.index(i)] for i in range(len(out)))


def _conv_transpose_padding(k: int, s: int, padding: str) -> tuple[int, int]:
    """Before and after padding of one spatial axis of ``lax.conv_transpose``."""
    if padding == "SAME":
        pad_len = k + s - 2
        pad_a = k - 1 if s > k - 1 else math.ceil(pad_len / 2)
    elif padding == "VALID":
        pad_len = k + s - 2 + max(k - s, 0)
        pad_a = k - 1
    else:
        raise ValueError(f"Invalid padding mode: {padding}")
    return pad_a, pad_len - pad_a


def _conv_transpose_shape(
    lhs_shape: Sequence[int],
    rhs_shape: Sequence[int],
    strides: Sequence[int],
    padding: Padding,
    dimension_numbers: DimensionNumbers,
) -> Shape:
    """``lax.conv_transpose_shape_tuple``: the output shape of a transposed convolution."""
    lhs_perm, rhs_perm, out_perm = _permutations(dimension_numbers)
    lhs = [lhs_shape[i] for i in lhs_perm]
    rhs = [rhs_shape[i] for i in rhs_perm]
    if isinstance(padding, str):
        pads = [
            _conv_transpose_padding(k, s, padding) for k, s in zip(rhs[2:], strides, strict=True)
        ]
    else:
        pads = list(padding)
    space = [
        (i - 1) * s - k + 2 + lo + hi
        for i, k, s, (lo, hi) in zip(lhs[2:], rhs[2:], strides, pads, strict=True)
    ]
    out = [lhs[0], rhs[0], *space]
    return tuple(out[out_perm.index(i)] for i in range(len(out)))


# --- layers with parameters -----------------------------------------------------------------


def Dense(  # noqa: N802 (JAX's layer names are CamelCase, like Keras')
    out_dim: int,
    W_init: Initializer = glorot_normal(),  # noqa: B008, N803
    b_init: Initializer = normal(),  # noqa: B008
) -> Layer:
    """Layer constructor function for a dense (fully-connected) layer."""

    def init_fun(rng: ArrayLike, input_shape: Shape) -> tuple[Shape, tuple[Array, Array]]:
        output_shape = (*input_shape[:-1], out_dim)
        k1, k2 = random.split(rng)
        return output_shape, (W_init(k1, (input_shape[-1], out_dim)), b_init(k2, (out_dim,)))

    def apply_fun(
        params: tuple[ArrayLike, ArrayLike], inputs: ArrayLike, **kwargs: object
    ) -> Array:
        W, b = params  # noqa: N806
        return mnp.dot(inputs, W) + b

    return init_fun, apply_fun


def _kernel_shape(
    dimension_numbers: DimensionNumbers,
    out_chan: int,
    filter_shape: Sequence[int],
    input_shape: Shape,
) -> list[int]:
    lhs_spec, rhs_spec, _ = dimension_numbers
    filter_iter = iter(filter_shape)
    return [
        out_chan
        if c == "O"
        else input_shape[lhs_spec.index("C")]
        if c == "I"
        else next(filter_iter)
        for c in rhs_spec
    ]


def GeneralConv(  # noqa: N802
    dimension_numbers: DimensionNumbers,
    out_chan: int,
    filter_shape: Sequence[int],
    strides: Sequence[int] | None = None,
    padding: Padding = "VALID",
    W_init: Initializer | None = None,  # noqa: N803
    b_init: Initializer = normal(1e-6),  # noqa: B008
) -> Layer:
    """Layer construction function for a general convolution layer."""
    _, rhs_spec, out_spec = dimension_numbers
    one = (1,) * len(filter_shape)
    strides = tuple(strides or one)
    w_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

    def init_fun(rng: ArrayLike, input_shape: Shape) -> tuple[Shape, tuple[Array, Array]]:
        kernel_shape = _kernel_shape(dimension_numbers, out_chan, filter_shape, input_shape)
        output_shape = _conv_shape(input_shape, kernel_shape, strides, padding, dimension_numbers)
        bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
        k1, k2 = random.split(rng)
        return output_shape, (w_init(k1, kernel_shape), b_init(k2, bias_shape))

    def apply_fun(
        params: tuple[ArrayLike, ArrayLike], inputs: ArrayLike, **kwargs: object
    ) -> Array:
        W, b = params  # noqa: N806
        out = lax.conv_general_dilated(
            inputs, W, strides, padding, one, one, dimension_numbers=dimension_numbers
        )
        return out + b

    return init_fun, apply_fun


Conv = functools.partial(GeneralConv, ("NHWC", "HWIO", "NHWC"))


def GeneralConvTranspose(  # noqa: N802
    dimension_numbers: DimensionNumbers,
    out_chan: int,
    filter_shape: Sequence[int],
    strides: Sequence[int] | None = None,
    padding: Padding = "VALID",
    W_init: Initializer | None = None,  # noqa: N803
    b_init: Initializer = normal(1e-6),  # noqa: B008
) -> Layer:
    """Layer construction function for a general transposed-convolution layer."""
    _, rhs_spec, out_spec = dimension_numbers
    one = (1,) * len(filter_shape)
    strides = tuple(strides or one)
    w_init = W_init or glorot_normal(rhs_spec.index("I"), rhs_spec.index("O"))

    def init_fun(rng: ArrayLike, input_shape: Shape) -> tuple[Shape, tuple[Array, Array]]:
        kernel_shape = _kernel_shape(dimension_numbers, out_chan, filter_shape, input_shape)
        output_shape = _conv_transpose_shape(
            input_shape, kernel_shape, strides, padding, dimension_numbers
        )
        bias_shape = [out_chan if c == "C" else 1 for c in out_spec]
        k1, k2 = random.split(rng)
        return output_shape, (w_init(k1, kernel_shape), b_init(k2, bias_shape))

    def apply_fun(
        params: tuple[ArrayLike, ArrayLike], inputs: ArrayLike, **kwargs: object
    ) -> Array:
        W, b = params  # noqa: N806
        out = lax.conv_transpose(inputs, W, strides, padding, dimension_numbers=dimension_numbers)
        return out + b

    return init_fun, apply_fun


Conv1DTranspose = functools.partial(GeneralConvTranspose, ("NHC", "HIO", "NHC"))
ConvTranspose = functools.partial(GeneralConvTranspose, ("NHWC", "HWIO", "NHWC"))


def BatchNorm(  # noqa: N802
    axis: int | Sequence[int] = (0, 1, 2),
    epsilon: float = 1e-5,
    center: bool = True,
    scale: bool = True,
    beta_init: Initializer = zeros,
    gamma_init: Initializer = ones,
) -> Layer:
    """Layer construction function for a batch normalization layer.

    Normalizes over ``axis`` with the batch's own statistics (no running averages, as JAX's);
    ``beta``/``gamma`` have the shape of the remaining axes, and are ``()`` when switched off.
    """
    axes = tuple(axis) if isinstance(axis, Sequence) else (int(axis),)

    def init_fun(rng: ArrayLike, input_shape: Shape) -> tuple[Shape, tuple[Any, Any]]:
        shape = tuple(d for i, d in enumerate(input_shape) if i not in axes)
        k1, k2 = random.split(rng)
        beta = beta_init(k1, shape) if center else ()
        gamma = gamma_init(k2, shape) if scale else ()
        return input_shape, (beta, gamma)

    def apply_fun(params: tuple[Any, Any], x: ArrayLike, **kwargs: object) -> AnyArray:
        beta, gamma = params
        ed = tuple(None if i in axes else slice(None) for i in range(mnp.ndim(x)))
        z = standardize(x, axes, epsilon=epsilon)
        if center and scale:
            return gamma[ed] * z + beta[ed]
        if center:
            return z + beta[ed]
        if scale:
            return gamma[ed] * z
        return z

    return init_fun, apply_fun


# --- parameterless layers -------------------------------------------------------------------


def elementwise(fun: Callable[..., ArrayLike], **fun_kwargs: object) -> Layer:
    """Layer that applies a scalar function elementwise on its inputs."""

    def init_fun(rng: ArrayLike, input_shape: Shape) -> tuple[Shape, tuple[()]]:
        return input_shape, ()

    def apply_fun(params: object, inputs: object, **kwargs: object) -> AnyArray:
        return fun(inputs, **fun_kwargs)

    return init_fun, apply_fun


Tanh = elementwise(mnp.tanh)
Relu = elementwise(relu)
Exp = elementwise(mnp.exp)
LogSoftmax = elementwise(log_softmax, axis=-1)
Softmax = elementwise(softmax, axis=-1)
Softplus = elementwise(softplus)
Sigmoid = elementwise(sigmoid)
Elu = elementwise(elu)
LeakyRelu = elementwise(leaky_relu)
Selu = elementwise(selu)
Gelu = elementwise(gelu)

Rescaler = Callable[[AnyArray, AnyArray, str | None], AnyArray]


def _pooling_layer(
    reducer: Callable[[ArrayLike, ArrayLike], ArrayLike],
    init_val: float,
    rescaler: Callable[[Sequence[int], Sequence[int], Padding], Rescaler] | None = None,
) -> Callable[..., Layer]:
    def PoolingLayer(  # noqa: N802
        window_shape: Sequence[int],
        strides: Sequence[int] | None = None,
        padding: Padding = "VALID",
        spec: str | None = None,
    ) -> Layer:
        """Layer construction function for a pooling layer."""
        window = tuple(window_shape)
        steps = tuple(strides or (1,) * len(window))
        rescale = rescaler(window, steps, padding) if rescaler else None
        non_spatial = (0, len(window) + 1) if spec is None else (spec.index("N"), spec.index("C"))
        for i in sorted(non_spatial):
            window = (*window[:i], 1, *window[i:])
            steps = (*steps[:i], 1, *steps[i:])

        def init_fun(rng: ArrayLike, input_shape: Shape) -> tuple[Shape, tuple[()]]:
            pads = (
                lax.padtype_to_pads(input_shape, window, steps, padding)
                if isinstance(padding, str)
                else list(padding)
            )
            out_shape = tuple(
                _stride_dim(d + lo + hi, w, s)
                for d, w, s, (lo, hi) in zip(input_shape, window, steps, pads, strict=True)
            )
            return out_shape, ()

        def apply_fun(params: object, inputs: ArrayLike, **kwargs: object) -> Array:
            out = lax.reduce_window(inputs, init_val, reducer, window, steps, padding)
            return rescale(out, inputs, spec) if rescale else out

        return init_fun, apply_fun

    return PoolingLayer


def _normalize_by_window_size(
    dims: Sequence[int], strides: Sequence[int], padding: Padding
) -> Rescaler:
    """AvgPool's divisor: how many input elements each window covered (fewer at a padded
    border, as JAX's)."""

    def rescale(outputs: AnyArray, inputs: AnyArray, spec: str | None) -> AnyArray:
        non_spatial = (0, inputs.ndim - 1) if spec is None else (spec.index("N"), spec.index("C"))
        spatial_shape = tuple(inputs.shape[i] for i in range(inputs.ndim) if i not in non_spatial)
        one = mnp.ones(spatial_shape, dtype=inputs.dtype)
        window_sizes = lax.reduce_window(one, 0.0, lax.add, dims, strides, padding)
        for i in sorted(non_spatial):
            window_sizes = mnp.expand_dims(window_sizes, i)
        return outputs / window_sizes

    return rescale


MaxPool = _pooling_layer(lax.max, -math.inf)
SumPool = _pooling_layer(lax.add, 0.0)
AvgPool = _pooling_layer(lax.add, 0.0, _normalize_by_window_size)


def _flatten() -> Layer:
    """Layer construction function for flattening all but the leading dim."""

    def init_fun(rng: ArrayLike, input_shape: Shape) -> tuple[Shape, tuple[()]]:
        return (input_shape[0], math.prod(input_shape[1:])), ()

    def apply_fun(params: Any, inputs: AnyArray, **kwargs: Any) -> AnyArray:
        return mnp.reshape(inputs, (inputs.shape[0], -1))

    return init_fun, apply_fun


Flatten = _flatten()


def _identity() -> Layer:
    """Layer construction function for an identity layer."""

    def init_fun(rng: ArrayLike, input_shape: Shape) -> tuple[Shape, tuple[()]]:
        return input_shape, ()

    def apply_fun(params: object, inputs: object, **kwargs: object) -> AnyArray:
        return inputs

    return init_fun, apply_fun


Identity = _identity()


def FanOut(num: int) -> Layer:  # noqa: N802
    """Layer construction function for a fan-out layer: ``num`` copies of the input."""

    def init_fun(rng: ArrayLike, input_shape: Shape) -> tuple[list[Shape], tuple[()]]:
        return [input_shape] * num, ()

    def apply_fun(params: object, inputs: object, **kwargs: object) -> list[AnyArray]:
        return [inputs] * num

    return init_fun, apply_fun


def _fan_in_sum() -> Layer:
    """Layer construction function for a fan-in sum layer."""

    def init_fun(rng: ArrayLike, input_shape: Sequence[Shape]) -> tuple[Shape, tuple[()]]:
        return input_shape[0], ()

    def apply_fun(params: object, inputs: Sequence[AnyArray], **kwargs: object) -> AnyArray:
        return sum(inputs)

    return init_fun, apply_fun


FanInSum = _fan_in_sum()


def FanInConcat(axis: int = -1) -> Layer:  # noqa: N802
    """Layer construction function for a fan-in concatenation layer."""

    def init_fun(rng: ArrayLike, input_shape: Sequence[Shape]) -> tuple[Shape, tuple[()]]:
        ax = axis % len(input_shape[0])
        concat_size = sum(shape[ax] for shape in input_shape)
        first = input_shape[0]
        return (*first[:ax], concat_size, *first[ax + 1 :]), ()

    def apply_fun(params: object, inputs: Sequence[ArrayLike], **kwargs: object) -> Array:
        return mnp.concatenate(inputs, axis)

    return init_fun, apply_fun


def Dropout(rate: float, mode: str = "train") -> Layer:  # noqa: N802
    """Layer construction function for a dropout layer with given rate.

    As in JAX, ``rate`` is the probability of *keeping* an element (kept ones are divided by
    it); ``apply_fun`` needs ``rng=`` in any mode, and ``mode != 'train'`` is the identity.
    """

    def init_fun(rng: ArrayLike, input_shape: Shape) -> tuple[Shape, tuple[()]]:
        return input_shape, ()

    def apply_fun(params: Any, inputs: AnyArray, **kwargs: Any) -> AnyArray:
        rng = kwargs.get("rng")
        if rng is None:
            raise ValueError(
                "Dropout layer requires apply_fun to be called with a PRNG key argument. "
                "That is, instead of `apply_fun(params, inputs)`, call it like "
                "`apply_fun(params, inputs, rng)` where `rng` is a PRNG key "
                "(e.g. from `mj.random.key`)."
            )
        if mode == "train":
            keep = random.bernoulli(rng, rate, inputs.shape)
            return mnp.where(keep, inputs / rate, 0)
        return inputs

    return init_fun, apply_fun


# --- combinators ----------------------------------------------------------------------------


def serial(*layers: Layer) -> Layer:
    """Combinator for composing layers in serial.

    Args:
      *layers: a sequence of layers, each an (init_fun, apply_fun) pair.

    Returns:
      A new layer, meaning an (init_fun, apply_fun) pair, representing the serial
      composition of the given sequence of layers.
    """
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers, strict=True) if layers else ((), ())

    def init_fun(rng: ArrayLike, input_shape: object) -> tuple[Any, list[Any]]:
        params = []
        for init in init_funs:
            rng, layer_rng = random.split(rng)
            input_shape, param = init(layer_rng, input_shape)
            params.append(param)
        return input_shape, params

    def apply_fun(params: Sequence[Any], inputs: Any, **kwargs: Any) -> Any:
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers
        for fun, param, layer_rng in zip(apply_funs, params, rngs, strict=True):
            inputs = fun(param, inputs, rng=layer_rng, **kwargs)
        return inputs

    return init_fun, apply_fun


def parallel(*layers: Layer) -> Layer:
    """Combinator for composing layers in parallel.

    The layer resulting from this combinator is often used with the FanOut and FanInSum
    layers.

    Args:
      *layers: a sequence of layers, each an (init_fun, apply_fun) pair.

    Returns:
      A new layer, meaning an (init_fun, apply_fun) pair, representing the parallel
      composition of the given sequence of layers. In particular, the returned layer takes
      a sequence of inputs and returns a sequence of outputs with the same length as the
      argument ``layers``.
    """
    nlayers = len(layers)
    init_funs, apply_funs = zip(*layers, strict=True) if layers else ((), ())

    def init_fun(
        rng: ArrayLike, input_shape: Sequence[Any]
    ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        rngs = random.split(rng, nlayers)
        pairs = [
            init(layer_rng, shape)
            for init, layer_rng, shape in zip(init_funs, rngs, input_shape, strict=True)
        ]
        shapes = tuple(shape for shape, _ in pairs)
        params = tuple(param for _, param in pairs)
        return shapes, params

    def apply_fun(params: Sequence[Any], inputs: Sequence[Any], **kwargs: Any) -> list[Any]:
        rng = kwargs.pop("rng", None)
        rngs = random.split(rng, nlayers) if rng is not None else (None,) * nlayers
        return [
            f(p, x, rng=r, **kwargs)
            for f, p, x, r in zip(apply_funs, params, inputs, rngs, strict=True)
        ]

    return init_fun, apply_fun


def shape_dependent(make_layer: Callable[[Any], Layer]) -> Layer:
    """Combinator to delay layer constructor pair until input shapes are known.

    Args:
      make_layer: a one-argument function that takes an input shape as an argument (a tuple
        of positive integers) and returns an (init_fun, apply_fun) pair.

    Returns:
      A new layer, meaning an (init_fun, apply_fun) pair, representing the same layer as
      returned by ``make_layer`` but with its construction delayed until input shapes are
      known.
    """

    def init_fun(rng: ArrayLike, input_shape: object) -> tuple[Any, Any]:
        return make_layer(input_shape)[0](rng, input_shape)

    def apply_fun(params: Any, inputs: AnyArray, **kwargs: Any) -> Any:
        return make_layer(inputs.shape)[1](params, inputs, **kwargs)

    return init_fun, apply_fun

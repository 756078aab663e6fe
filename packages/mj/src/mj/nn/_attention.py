"""``mj.nn.dot_product_attention``: JAX's ``implementation='xla'`` reference path.

``softmax(scale * Q K^T + bias, masked) V`` per head, as JAX 0.10.2's
``_dot_product_attention_xla``: the logits in ``promote_types(query.dtype, float32)``, masked
entries set to ``-0.7 * finfo.max`` (capped at float32's range, so a float64 mask stays finite
under ``debug_infs``), the softmax in float32, the probabilities back in the key's dtype, and
grouped-query attention by vmapping the core over the ``G = N // K`` query groups. JAX's
``'cudnn'`` implementation is a GPU kernel that mj does not have: asking for it raises.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, overload

import numpy as np

from mj import numpy as mnp
from mj_autodiff import stop_gradient
from mj_batch import vmap
from mj_core.extend import Array, ArrayLike

_finfo: Any = mnp.finfo  # (every float dtype: NumPy's does not know bfloat16)


def _large_negative(dtype: np.dtype[Any]) -> Array:
    dtype_max = min(float(_finfo(dtype).max), float(np.finfo(np.float32).max))
    return mnp.asarray(-0.7 * dtype_max, dtype=dtype)


def _causal_mask(t: int, s: int) -> Array:
    return mnp.tril(mnp.ones((t, s), dtype=bool))[None, None, :, :]


def _window_mask(t: int, s: int, window: tuple[int, int]) -> Array:
    query_pos = mnp.arange(t)
    key_pos = mnp.arange(s)
    left, right = window
    left_mask = query_pos[:, None] <= key_pos[None, :] + left
    right_mask = query_pos[:, None] >= key_pos[None, :] - right
    return mnp.logical_and(right_mask, left_mask)[None, None, :, :]


def _padding_mask_logits(t: int, s: int, q_seqlen: Array | None, kv_seqlen: Array | None) -> Array:
    q_mask: Array | bool = True
    kv_mask: Array | bool = True
    if q_seqlen is not None:
        q_mask = mnp.arange(0, t)[None, :, None] < q_seqlen[:, None, None]
    if kv_seqlen is not None:
        kv_mask = mnp.arange(0, s)[None, None, :] < kv_seqlen[:, None, None]
    return mnp.logical_and(q_mask, kv_mask)[:, None, :, :]


def _apply_masks(
    logits: Array,
    mask: Array | None,
    is_causal: bool,
    q_seqlen: Array | None,
    kv_seqlen: Array | None,
    window: tuple[int, int] | None,
) -> Array:
    nothing = mask is None and q_seqlen is None and kv_seqlen is None and window is None
    if nothing and not is_causal:
        return logits
    combined = mnp.ones_like(logits, dtype=bool)
    if mask is not None:
        combined = mnp.logical_and(combined, mask)
    t, s = logits.shape[2], logits.shape[3]
    if is_causal:
        combined = mnp.logical_and(combined, _causal_mask(t, s))
    if window is not None:
        combined = mnp.logical_and(combined, _window_mask(t, s, window))
    if q_seqlen is not None or kv_seqlen is not None:
        combined = mnp.logical_and(combined, _padding_mask_logits(t, s, q_seqlen, kv_seqlen))
    return mnp.where(combined, logits, _large_negative(logits.dtype))


def _core(
    query: Array,
    key: Array,
    value: Array,
    bias: Array | None,
    mask: Array | None,
    is_causal: bool,
    scale: ArrayLike,
    q_seqlen: Array | None,
    kv_seqlen: Array | None,
    window: tuple[int, int] | None,
    return_residual: bool,
) -> Array | tuple[Array, Array]:
    from mj.nn import logsumexp, softmax  # the package imports this module

    logits_dtype = mnp.promote_types(query.dtype, np.float32)
    logits = mnp.einsum("BTNH,BSNH->BNTS", query, key, preferred_element_type=logits_dtype)
    logits = logits * mnp.array(scale, dtype=logits.dtype)
    if bias is not None:
        logits = (logits + bias).astype(logits.dtype)
    padded = _apply_masks(logits, mask, is_causal, q_seqlen, kv_seqlen, window)
    padded = padded.astype(np.float32)  # the softmax is always float32, as JAX's
    probs = softmax(padded, axis=-1).astype(key.dtype)
    encoded = mnp.einsum("BNTS,BSNH->BTNH", probs, value)
    if q_seqlen is not None:
        q_mask = mnp.arange(0, encoded.shape[1])[None, :] < q_seqlen[:, None]
        encoded = encoded * q_mask[:, :, None, None].astype(encoded.dtype)
    if return_residual:
        lse = logsumexp(padded, axis=-1).astype(key.dtype)
        return encoded, stop_gradient(mnp.transpose(lse, (0, 2, 1)))  # B N T -> B T N
    return encoded


def _attention_xla(
    query: Array,
    key: Array,
    value: Array,
    bias: Array | None,
    mask: Array | None,
    is_causal: bool,
    scale: ArrayLike,
    q_seqlen: Array | None,
    kv_seqlen: Array | None,
    window: tuple[int, int] | None,
    return_residual: bool,
) -> Array | tuple[Array, Array]:
    b, t, n, h = query.shape
    _, _, k, _ = key.shape
    g = n // k
    query = mnp.reshape(query, (b, t, k, g, h))

    def grouped(x: Array | None) -> Array | None:
        if x is None:
            return None
        xb, xn, xt, xs = x.shape
        if xn == 1:
            return mnp.broadcast_to(x[:, :, None, :, :], (xb, xn, g, xt, xs))
        return mnp.reshape(x, (xb, k, g, xt, xs))

    core = vmap(
        _core,
        in_axes=(3, None, None, 2, 2, None, None, None, None, None, None),
        out_axes=3,
    )
    out = core(
        query, key, value, grouped(bias), grouped(mask), is_causal, scale, q_seqlen, kv_seqlen,
        window, return_residual,
    )  # fmt: skip
    if return_residual:
        encoded, lse = out
        return mnp.reshape(encoded, (b, t, n, h)), mnp.reshape(lse, (b, t, n))
    return mnp.reshape(out, (b, t, n, h))


def _ensure_4d(x: ArrayLike) -> Array:
    x = mnp.asarray(x)
    missing = 4 - x.ndim
    return mnp.expand_dims(x, axis=tuple(range(missing))) if missing > 0 else x


def _check(t: Array | None, shape: Sequence[int], dtype: Any, name: str) -> None:
    if t is None:
        return
    if t.ndim != len(shape):
        raise ValueError(f"{name} ndim should be {len(shape)}, but got {t.ndim}")
    if dtype is not None and t.dtype != dtype:
        raise ValueError(f"{name} dtype should be {dtype}, but got {t.dtype}")
    for i in range(t.ndim):
        if shape[i] != -1 and t.shape[i] != shape[i]:
            raise ValueError(f"{name} shape should be {list(shape)}: but got {t.shape}")


@overload
def dot_product_attention(
    query: ArrayLike,
    key: ArrayLike,
    value: ArrayLike,
    bias: ArrayLike | None = ...,
    mask: ArrayLike | None = ...,
    *,
    scale: float | None = ...,
    is_causal: bool = ...,
    query_seq_lengths: ArrayLike | None = ...,
    key_value_seq_lengths: ArrayLike | None = ...,
    local_window_size: int | tuple[int, int] | None = ...,
    implementation: Literal["xla", "cudnn"] | None = ...,
    return_residual: Literal[False] = ...,
) -> Array: ...
@overload
def dot_product_attention(
    query: ArrayLike,
    key: ArrayLike,
    value: ArrayLike,
    bias: ArrayLike | None = ...,
    mask: ArrayLike | None = ...,
    *,
    scale: float | None = ...,
    is_causal: bool = ...,
    query_seq_lengths: ArrayLike | None = ...,
    key_value_seq_lengths: ArrayLike | None = ...,
    local_window_size: int | tuple[int, int] | None = ...,
    implementation: Literal["xla", "cudnn"] | None = ...,
    return_residual: Literal[True],
) -> tuple[Array, Array]: ...
def dot_product_attention(
    query: ArrayLike,
    key: ArrayLike,
    value: ArrayLike,
    bias: ArrayLike | None = None,
    mask: ArrayLike | None = None,
    *,
    scale: float | None = None,
    is_causal: bool = False,
    query_seq_lengths: ArrayLike | None = None,
    key_value_seq_lengths: ArrayLike | None = None,
    local_window_size: int | tuple[int, int] | None = None,
    implementation: Literal["xla", "cudnn"] | None = None,
    return_residual: bool = False,
) -> Array | tuple[Array, Array]:
    """Scaled dot-product attention ``softmax(scale * Q K^T + bias) V`` per head, as JAX's.

    ``query`` is ``(B, T, N, H)`` (or ``(T, N, H)``), ``key`` and ``value`` ``(B, S, K, H)``
    with ``N`` a multiple of ``K`` (grouped-query attention; ``K == 1`` multi-query).
    ``bias`` (added to the logits) and the boolean ``mask`` (``True`` takes part) are 4-D
    (or fewer dimensions, padded in front) broadcastable to ``(B, N, T, S)``. ``scale``
    defaults to ``1 / sqrt(H)``; ``is_causal``, ``query_seq_lengths`` /
    ``key_value_seq_lengths`` (int32 ``(B,)``, padding) and ``local_window_size`` (``(left,
    right)`` or one int for both) mask further. ``return_residual`` also returns the
    logsumexp of the logits, ``(B, T, N)``. Only JAX's ``'xla'`` implementation exists in
    mj (``None`` selects it, as in JAX); ``'cudnn'`` raises ``NotImplementedError``.
    """
    output_shape = mnp.asarray(query).shape
    residual_shape = output_shape[:-1]
    query_arr = _ensure_4d(query)
    key_arr = _ensure_4d(key)
    value_arr = _ensure_4d(value)
    bias_arr = _ensure_4d(bias) if bias is not None else None
    mask_arr = _ensure_4d(mask) if mask is not None else None
    q_seqlen = mnp.asarray(query_seq_lengths) if query_seq_lengths is not None else None
    kv_seqlen = mnp.asarray(key_value_seq_lengths) if key_value_seq_lengths is not None else None
    window = (
        (local_window_size, local_window_size)
        if isinstance(local_window_size, int)
        else local_window_size
    )
    b, s, k, h = key_arr.shape
    _check(value_arr, [b, s, k, h], key_arr.dtype, "value")
    _check(query_arr, [b, -1, -1, h], key_arr.dtype, "query")
    _check(mask_arr, [-1] * 4, np.dtype(bool), "mask")
    _check(bias_arr, [-1] * 4, None, "bias")
    _check(q_seqlen, [b], np.dtype("int32"), "query_seq_lengths")
    _check(kv_seqlen, [b], np.dtype("int32"), "key_value_seq_lengths")
    if query_arr.shape[-2] % k != 0:
        raise ValueError(
            "The number of query heads must be a multiple of key/value heads, but got "
            f"{query_arr.shape[-2]} vs {k}"
        )
    scale_val = (1.0 / np.sqrt(h)) if scale is None else scale
    if implementation == "cudnn":
        raise NotImplementedError(
            "dot_product_attention: mj has no cuDNN kernel; use implementation='xla' or None"
        )
    if implementation not in ("xla", None):
        raise ValueError(f"Unsupported implementation option: {implementation}")
    out = _attention_xla(
        query_arr, key_arr, value_arr, bias_arr, mask_arr, is_causal, scale_val,
        q_seqlen, kv_seqlen, window, return_residual,
    )  # fmt: skip
    if return_residual:
        assert isinstance(out, tuple)
        encoded, residual = out
        return mnp.reshape(encoded, output_shape), mnp.reshape(residual, residual_shape)
    assert not isinstance(out, tuple)
    return mnp.reshape(out, output_shape)

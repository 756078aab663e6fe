"""The argument checks and parameter conversions every ``mj.random`` sampler begins with.

Each check raises with the sampler's public name (``mj.random.uniform: ...``) and the user's
source line; the conversions turn distribution parameters into arrays of the sample dtype and
shape, as JAX does.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

import mj.numpy as mnp
from mj_core import ShapedArray, config, get_aval, is_array, lax
from mj_core.dtypes import canonical_dtype, default_float_dtype, default_int_dtype, is_float
from mj_core.errors import user_location
from mj_core.extend import AnyArray, DTypeLike
from mj_core.extend import Shape as Shape  # (the random modules import it from here)
from mj_core.numpy import finfo as _numpy_finfo

# ``finfo`` of every float dtype (NumPy's does not know bfloat16 or the float8 types)
_finfo: Any = _numpy_finfo


def _default_float() -> np.dtype[Any]:
    """The default float: float32, or float64 with enable_x64 (as JAX's samplers)."""
    return default_float_dtype()


def _default_int() -> np.dtype[Any]:
    """The default integer: int32, or int64 with enable_x64."""
    return default_int_dtype()


def _error(api: str, message: str) -> str:
    where = user_location()
    return f"mj.random.{api}: {message}{' (' + where + ')' if where else ''}"


def _aval(api: str, what: str, x: Any) -> ShapedArray:
    if not is_array(x):
        raise TypeError(_error(api, f"{what} must be an array or scalar, got {type(x).__name__}"))
    return get_aval(x)


_LEGACY_KEY = (
    "Legacy uint32 key array passed as key to jax.random function. Please create keys using "
    'jax.random.key(). If use of a raw key array was intended, set jax_legacy_prng_key="allow".'
)


def _check_key(api: str, key: Any) -> AnyArray:
    """The uint32[2] data of one key: a typed key's data, or a legacy raw key (checked, and
    warned about or refused as the ``legacy_prng_key`` option says)."""
    from mj.random._keyarray import PRNGKeyArray

    if isinstance(key, PRNGKeyArray):
        if key.shape:
            raise ValueError(
                _error(
                    api,
                    f"{api} accepts a single key, but was given a key array of shape "
                    f"{key.shape} != (). Use jax.vmap for batching.",
                )
            )
        return key._base_array
    aval = _aval(api, "the key", key)
    if aval.shape[-1:] != (2,) or aval.dtype != np.uint32:
        raise TypeError(
            _error(
                api,
                "JAX encountered invalid PRNG key data: expected key_data.shape to end with "
                f"(2,) and dtype uint32; got {aval.str_short()} (a single PRNG key is expected: "
                "a typed key from key, split or fold_in, or uint32[2] data from PRNGKey)",
            )
        )
    if aval.shape != (2,):
        raise TypeError(
            _error(
                api,
                "expected a single PRNG key (uint32[2], from PRNGKey, key, split or fold_in), "
                f"got {aval.str_short()}. Use mj.vmap to apply it to a batch of keys.",
            )
        )
    mode = config.legacy_prng_key
    if mode == "error":
        raise ValueError(_error(api, _LEGACY_KEY))
    if mode == "warn":
        warnings.warn(_LEGACY_KEY, UserWarning, stacklevel=3)
    return key


def _shape(api: str, shape: Shape | int) -> tuple[int, ...]:
    dims = (shape,) if isinstance(shape, int | np.integer) else tuple(shape)
    try:
        out = tuple(_operator_index(d) for d in dims)
    except TypeError as err:
        raise TypeError(_error(api, f"shape must be a tuple of ints, got {shape!r}")) from err
    if any(d < 0 for d in out):
        raise ValueError(_error(api, f"shape must be non-negative, got {out}"))
    return out


def _operator_index(d: Any) -> int:
    """``d.__index__()``: a concrete integer (a traced one raises ConcretizationError)."""
    return int(d.__index__())


def _check_param_shapes(api: str, shape: tuple[int, ...], *param_shapes: tuple[int, ...]) -> None:
    try:
        broadcast = np.broadcast_shapes(shape, *param_shapes)
    except ValueError:
        broadcast = None
    if broadcast != shape:
        shown = ", ".join(str(s) for s in param_shapes)
        raise ValueError(
            _error(
                api,
                f"parameter shapes ({shown}) must broadcast to the requested shape {shape}",
            )
        )


def _float_dtype(api: str, dtype: DTypeLike | None) -> np.dtype[Any]:
    dt = _default_float() if dtype is None else canonical_dtype(dtype)
    if not is_float(dt):  # (bfloat16 and the float8 types too: NumPy kind "V")
        raise ValueError(_error(api, f"dtype must be a floating-point dtype, got {dt.name}"))
    return dt


def _convert(x: AnyArray, dtype: np.dtype[Any]) -> AnyArray:
    if isinstance(x, int | float | np.ndarray | np.generic):
        return np.asarray(x, dtype)  # a constant: convert now, not in the jaxpr
    aval = get_aval(x)
    if aval.dtype == dtype and not aval.weak_type:
        return x
    return lax.convert_element_type(x, dtype)


def _params_shape(api: str, shape: Shape | None, *params: Any) -> tuple[int, ...]:
    """The result shape: ``shape`` (the parameters must broadcast to it) or, when ``shape`` is
    None, the parameters' broadcast shape."""
    shapes = [_aval(api, "each parameter", p).shape for p in params]
    if shape is not None:
        out = _shape(api, shape)
        _check_param_shapes(api, out, *shapes)
        return out
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        shown = ", ".join(str(s) for s in shapes)
        raise ValueError(_error(api, f"parameter shapes ({shown}) do not broadcast")) from None


def _check_castable(api: str, dtype: np.dtype[Any], *params: Any) -> None:
    """JAX refuses parameters that the sample dtype cannot hold without losing precision
    (e.g. a float64 array for a float32 sample); weakly typed Python scalars always fit."""
    for p in params:
        aval = get_aval(p)
        if aval.weak_type or (
            np.can_cast(aval.dtype, dtype, "same_kind")
            and (aval.dtype.kind != dtype.kind or aval.dtype.itemsize <= dtype.itemsize)
        ):
            continue
        raise TypeError(
            _error(api, f"cannot safely cast a parameter of type {aval.dtype.name} to {dtype}")
        )


def _float_param(api: str, x: Any, dtype: np.dtype[Any], shape: tuple[int, ...]) -> AnyArray:
    """A distribution parameter converted to the sample dtype and broadcast to ``shape``."""
    x = _convert(x, dtype)
    if tuple(get_aval(x).shape) != shape:
        x = mnp.broadcast_to(x, shape)
    return x


def _const(value: float, dtype: np.dtype[Any]) -> AnyArray:
    return np.asarray(value, dtype)


_STATIC = frozenset({"shape", "dtype", "d", "n", "m", "method", "mode"})


def _compiled(fn: Any) -> Any:
    """``fn`` (a public sampler) run through ``jit`` with its shape, dtype and structural
    arguments static, as JAX's samplers are jitted: an eager call then gives XLA's numbers,
    which are JAX's bit for bit (NumPy's ``log``, ``exp``, ``tan`` ... differ from XLA's by
    an ulp here and there). Arguments that ``jit`` cannot take (a list, a non-array key, an
    unhashable static) call ``fn`` itself, whose checks then give mj's errors; so does a raw
    key while ``legacy_prng_key`` warns or refuses (at every call, not once per trace)."""
    import functools
    import inspect

    from mj.random._keyarray import PRNGKeyArray
    from mj_core import Tracer
    from mj_xla import jit

    sig = inspect.signature(fn)
    static = tuple(name for name in sig.parameters if name in _STATIC)
    jitted = jit(fn, static_argnames=static)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            bound = sig.bind(*args, **kwargs)
        except TypeError:
            return fn(*args, **kwargs)
        arguments = bound.arguments
        if not isinstance(arguments.get("key"), PRNGKeyArray) and config.legacy_prng_key != "allow":
            return fn(*args, **kwargs)  # (warned about or refused at each call, not once a trace)
        for name, value in arguments.items():
            if name in static:
                if isinstance(value, list):
                    arguments[name] = value = tuple(value)
                try:
                    hash(value)
                except TypeError:
                    return fn(*args, **kwargs)
            elif not (isinstance(value, PRNGKeyArray) or is_array(value)):
                return fn(*args, **kwargs)
            elif isinstance(getattr(value, "_base_array", value), Tracer):
                return fn(*args, **kwargs)  # (traced already: XLA computes it, inline)
        return jitted(**arguments)

    return wrapper

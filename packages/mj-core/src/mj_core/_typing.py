"""The typing vocabulary shared by every layer, defined once here.

* :class:`Array`: the type of every mj array, as ``jax.Array`` is JAX's. An abstract base
  class with no behaviour of its own: eager results (``EagerArray``), tracers of every
  transformation and mj-xla's device arrays are registered with it (``Array.register``, by
  the module that owns each class), so ``isinstance(x, Array)`` holds for all of them and
  for no NumPy array or Python scalar. Statically it declares the array interface (metadata,
  operators, the NumPy-level methods) that ``install_array_methods`` gives those classes.
* :data:`ArrayLike`: what a function taking an array accepts (``jax.typing.ArrayLike``): mj
  arrays, NumPy arrays and scalars, Python scalars.
* :data:`DTypeLike`, :data:`DType`, :data:`Shape`, :data:`Axis`: a ``dtype=`` argument, a
  NumPy dtype, a shape argument, an ``axis=`` argument.
* :data:`AnyArray`: ``Any``, for a value flowing through mj's interpreters that may be any of
  the above *or* a NumPy array an impl rule works on (impl, JVP, transpose and batching rules
  see NumPy arrays, mj arrays and tracers alike). Modules not yet annotated with the precise
  types use it too; ``tools/count_any.py`` counts every use.
"""

from __future__ import annotations

import abc
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

import numpy as np

__all__ = [
    "AnyArray",
    "Array",
    "ArrayLike",
    "Axis",
    "DType",
    "DTypeLike",
    "Shape",
]


class Array(abc.ABC):  # noqa: B024 (registered classes only: nothing to implement)
    """The type of every mj array (``jax.Array``): eager results, device arrays, tracers.

    ``isinstance(x, mj.Array)`` is true for each of them and false for NumPy arrays and
    Python scalars. Nothing is inherited from this class at run time; see the module doc.
    """

    __slots__ = ()

    if TYPE_CHECKING:
        # The interface every registered class has (its own attributes, or the ones
        # ``install_array_methods`` sets). Declarations for the type checker only.
        __array_priority__: int

        @property
        def shape(self) -> tuple[int, ...]: ...
        @property
        def dtype(self) -> np.dtype[Any]: ...
        @property
        def ndim(self) -> int: ...
        @property
        def size(self) -> int: ...
        @property
        def weak_type(self) -> bool: ...
        @property
        def itemsize(self) -> int: ...
        @property
        def nbytes(self) -> int: ...
        @property
        def T(self) -> Array: ...  # noqa: N802
        @property
        def mT(self) -> Array: ...  # noqa: N802
        @property
        def real(self) -> Array: ...
        @property
        def imag(self) -> Array: ...
        @property
        def at(self) -> IndexUpdateHelper: ...
        @property
        def flat(self) -> Any: ...

        def __array__(
            self, dtype: DTypeLike | None = ..., copy: bool | None = ...
        ) -> np.ndarray[Any, Any]: ...
        def __len__(self) -> int: ...
        def __iter__(self) -> Iterator[Array]: ...
        def __getitem__(self, key: Any) -> Array: ...
        def __bool__(self) -> bool: ...
        def __int__(self) -> int: ...
        def __float__(self) -> float: ...
        def __complex__(self) -> complex: ...
        def __index__(self) -> int: ...

        def __neg__(self) -> Array: ...
        def __pos__(self) -> Array: ...
        def __abs__(self) -> Array: ...
        def __invert__(self) -> Array: ...
        def __add__(self, other: ArrayLike) -> Array: ...
        def __radd__(self, other: ArrayLike) -> Array: ...
        def __sub__(self, other: ArrayLike) -> Array: ...
        def __rsub__(self, other: ArrayLike) -> Array: ...
        def __mul__(self, other: ArrayLike) -> Array: ...
        def __rmul__(self, other: ArrayLike) -> Array: ...
        def __truediv__(self, other: ArrayLike) -> Array: ...
        def __rtruediv__(self, other: ArrayLike) -> Array: ...
        def __floordiv__(self, other: ArrayLike) -> Array: ...
        def __rfloordiv__(self, other: ArrayLike) -> Array: ...
        def __mod__(self, other: ArrayLike) -> Array: ...
        def __rmod__(self, other: ArrayLike) -> Array: ...
        def __divmod__(self, other: ArrayLike) -> tuple[Array, Array]: ...
        def __rdivmod__(self, other: ArrayLike) -> tuple[Array, Array]: ...
        def __pow__(self, other: ArrayLike) -> Array: ...
        def __rpow__(self, other: ArrayLike) -> Array: ...
        def __matmul__(self, other: ArrayLike) -> Array: ...
        def __rmatmul__(self, other: ArrayLike) -> Array: ...
        def __and__(self, other: ArrayLike) -> Array: ...
        def __rand__(self, other: ArrayLike) -> Array: ...
        def __or__(self, other: ArrayLike) -> Array: ...
        def __ror__(self, other: ArrayLike) -> Array: ...
        def __xor__(self, other: ArrayLike) -> Array: ...
        def __rxor__(self, other: ArrayLike) -> Array: ...
        def __lshift__(self, other: ArrayLike) -> Array: ...
        def __rlshift__(self, other: ArrayLike) -> Array: ...
        def __rshift__(self, other: ArrayLike) -> Array: ...
        def __rrshift__(self, other: ArrayLike) -> Array: ...
        def __lt__(self, other: ArrayLike) -> Array: ...
        def __le__(self, other: ArrayLike) -> Array: ...
        def __gt__(self, other: ArrayLike) -> Array: ...
        def __ge__(self, other: ArrayLike) -> Array: ...
        def __eq__(self, other: object) -> Array: ...  # type: ignore[override]
        def __ne__(self, other: object) -> Array: ...  # type: ignore[override]

        # The NumPy-level methods (``jax.Array``'s): arguments as ``mj.numpy``'s functions.
        def astype(self, dtype: DTypeLike) -> Array: ...
        def reshape(self, *shape: int | Sequence[int], order: str = ...) -> Array: ...
        def transpose(self, *axes: int | Sequence[int]) -> Array: ...
        def ravel(self, order: str = ...) -> Array: ...
        def flatten(self, order: str = ...) -> Array: ...
        def squeeze(self, axis: Axis = ...) -> Array: ...
        def swapaxes(self, axis1: int, axis2: int) -> Array: ...
        def copy(self) -> Array: ...
        def conj(self) -> Array: ...
        def conjugate(self) -> Array: ...
        def view(self, dtype: DTypeLike | None = ..., type: None = ...) -> Array: ...
        def item(self, *args: int) -> bool | int | float | complex: ...
        def tolist(self) -> Any: ...  # nested lists of Python scalars
        def sum(
            self,
            axis: Axis = ...,
            dtype: DTypeLike | None = ...,
            out: None = ...,
            keepdims: bool = ...,
            initial: ArrayLike | None = ...,
            where: ArrayLike | None = ...,
        ) -> Array: ...
        def prod(
            self,
            axis: Axis = ...,
            dtype: DTypeLike | None = ...,
            out: None = ...,
            keepdims: bool = ...,
            initial: ArrayLike | None = ...,
            where: ArrayLike | None = ...,
        ) -> Array: ...
        def mean(
            self,
            axis: Axis = ...,
            dtype: DTypeLike | None = ...,
            out: None = ...,
            keepdims: bool = ...,
            *,
            where: ArrayLike | None = ...,
        ) -> Array: ...
        def var(
            self,
            axis: Axis = ...,
            dtype: DTypeLike | None = ...,
            out: None = ...,
            ddof: int = ...,
            keepdims: bool = ...,
            *,
            where: ArrayLike | None = ...,
        ) -> Array: ...
        def std(
            self,
            axis: Axis = ...,
            dtype: DTypeLike | None = ...,
            out: None = ...,
            ddof: int = ...,
            keepdims: bool = ...,
            *,
            where: ArrayLike | None = ...,
        ) -> Array: ...
        def max(
            self,
            axis: Axis = ...,
            out: None = ...,
            keepdims: bool = ...,
            initial: ArrayLike | None = ...,
            where: ArrayLike | None = ...,
        ) -> Array: ...
        def min(
            self,
            axis: Axis = ...,
            out: None = ...,
            keepdims: bool = ...,
            initial: ArrayLike | None = ...,
            where: ArrayLike | None = ...,
        ) -> Array: ...
        def argmax(
            self, axis: int | None = ..., out: None = ..., keepdims: bool | None = ...
        ) -> Array: ...
        def argmin(
            self, axis: int | None = ..., out: None = ..., keepdims: bool | None = ...
        ) -> Array: ...
        def all(
            self,
            axis: Axis = ...,
            out: None = ...,
            keepdims: bool = ...,
            *,
            where: ArrayLike | None = ...,
        ) -> Array: ...
        def any(
            self,
            axis: Axis = ...,
            out: None = ...,
            keepdims: bool = ...,
            *,
            where: ArrayLike | None = ...,
        ) -> Array: ...
        def cumsum(
            self, axis: int | None = ..., dtype: DTypeLike | None = ..., out: None = ...
        ) -> Array: ...
        def cumprod(
            self, axis: int | None = ..., dtype: DTypeLike | None = ..., out: None = ...
        ) -> Array: ...
        def clip(self, min: ArrayLike | None = ..., max: ArrayLike | None = ...) -> Array: ...
        def round(self, decimals: int = ..., out: None = ...) -> Array: ...
        def dot(
            self,
            other: ArrayLike,
            *,
            precision: Any = ...,
            preferred_element_type: DTypeLike | None = ...,
        ) -> Array: ...
        def sort(
            self,
            axis: int | None = ...,
            *,
            kind: str | None = ...,
            order: None = ...,
            stable: bool = ...,
            descending: bool = ...,
        ) -> Array: ...
        def argsort(
            self,
            axis: int | None = ...,
            *,
            kind: str | None = ...,
            order: None = ...,
            stable: bool = ...,
            descending: bool = ...,
        ) -> Array: ...
        def take(
            self,
            indices: ArrayLike,
            axis: int | None = ...,
            out: None = ...,
            mode: str | None = ...,
            unique_indices: bool = ...,
            indices_are_sorted: bool = ...,
            fill_value: ArrayLike | None = ...,
        ) -> Array: ...
        def repeat(
            self,
            repeats: ArrayLike,
            axis: int | None = ...,
            *,
            total_repeat_length: int | None = ...,
        ) -> Array: ...
        def diagonal(self, offset: int = ..., axis1: int = ..., axis2: int = ...) -> Array: ...
        def trace(
            self,
            offset: int = ...,
            axis1: int = ...,
            axis2: int = ...,
            dtype: DTypeLike | None = ...,
            out: None = ...,
        ) -> Array: ...
        def nonzero(
            self, *, size: int | None = ..., fill_value: ArrayLike | None = ...
        ) -> tuple[Array, ...]: ...
        def searchsorted(
            self,
            v: ArrayLike,
            side: str = ...,
            sorter: ArrayLike | None = ...,
            *,
            method: str = ...,
        ) -> Array: ...
        def block_until_ready(self) -> Array: ...


class IndexUpdateRef(Protocol):
    """``x.at[idx]`` (``mj_core.numpy``'s class of that name): functional updates of the
    elements ``x[idx]`` selects. ``mode`` is ``None``, ``"fill"``, ``"clip"``,
    ``"promise_in_bounds"`` or ``"drop"``."""

    def get(
        self,
        *,
        indices_are_sorted: bool = ...,
        unique_indices: bool = ...,
        mode: str | None = ...,
        fill_value: ArrayLike | None = ...,
    ) -> Array: ...
    def set(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = ...,
        unique_indices: bool = ...,
        mode: str | None = ...,
    ) -> Array: ...
    def add(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = ...,
        unique_indices: bool = ...,
        mode: str | None = ...,
    ) -> Array: ...
    def subtract(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = ...,
        unique_indices: bool = ...,
        mode: str | None = ...,
    ) -> Array: ...
    def multiply(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = ...,
        unique_indices: bool = ...,
        mode: str | None = ...,
    ) -> Array: ...
    def mul(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = ...,
        unique_indices: bool = ...,
        mode: str | None = ...,
    ) -> Array: ...
    def min(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = ...,
        unique_indices: bool = ...,
        mode: str | None = ...,
    ) -> Array: ...
    def max(
        self,
        values: ArrayLike,
        *,
        indices_are_sorted: bool = ...,
        unique_indices: bool = ...,
        mode: str | None = ...,
    ) -> Array: ...


class IndexUpdateHelper(Protocol):
    """``x.at``: ``x.at[idx]`` is an :class:`IndexUpdateRef` (any NumPy index)."""

    def __getitem__(self, index: Any) -> IndexUpdateRef: ...


class SupportsDType(Protocol):
    """Anything with a ``dtype`` (``ml_dtypes.bfloat16``'s scalars, NumPy arrays)."""

    @property
    def dtype(self) -> np.dtype[Any]: ...


class HasAval(Protocol):
    """A value with an abstract value: a tracer of any layer (``is_array``'s rule). Tracers
    are registered :class:`Array` s at run time; this protocol lets the type checker see them,
    which registration does not show it."""

    @property
    def aval(self) -> Any: ...


#: What a function taking an array accepts (``jax.typing.ArrayLike``).
ArrayLike: TypeAlias = (
    Array
    | HasAval
    | np.ndarray[Any, Any]
    | np.bool_
    | np.number[Any]
    | bool
    | int
    | float
    | complex
)
#: A ``dtype=`` argument (``jax.typing.DTypeLike``): a name, a type, a dtype, or anything
#: with a ``dtype``.
DTypeLike: TypeAlias = str | type[Any] | np.dtype[Any] | SupportsDType
#: A NumPy dtype.
DType: TypeAlias = np.dtype[Any]
#: A shape argument.
Shape: TypeAlias = Sequence[int]
#: An ``axis=`` argument: one axis, several, or all of them (``None``).
Axis: TypeAlias = int | Sequence[int] | None
#: A value flowing through the interpreters (see the module doc): deliberately ``Any``.
AnyArray: TypeAlias = Any

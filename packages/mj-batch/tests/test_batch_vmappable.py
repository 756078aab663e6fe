"""vmap of custom types registered with ``register_vmappable`` (JAX's
``batching.register_vmappable``): an array with named axes mapped with a named spec, in
in_axes/out_axes trees next to arrays, nested, with the example index, and the errors for
specs that do not fit the value."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from mj_batch import vmap
from mj_batch.extend import is_vmappable, register_vmappable, unregister_vmappable
from mj_core import lax


class Named:
    """An array with a name per axis (not a pytree: only vmap's registration maps it)."""

    def __init__(self, names: list[str], data: object) -> None:
        assert len(names) == np.ndim(data)
        self.names = list(names)
        self.data = data


class Spec:
    """Map the axis called ``name``, at position ``axis`` (both None: unmapped)."""

    def __init__(self, name: str | None, axis: int | None) -> None:
        self.name, self.axis = name, axis

    def __repr__(self) -> str:
        return f"Spec({self.name!r}, {self.axis!r})"


def named_to_elt(cont, get_idx, x, spec):
    if spec is None or spec.name is None:
        return x
    names = list(x.names)
    if names.pop(spec.axis) != spec.name:
        raise ValueError(f"axis {spec.axis} of {x.names} is not {spec.name}")
    return Named(names, cont(x.data, spec.axis))


def named_from_elt(cont, axis_size, elt, spec):
    data = cont(axis_size, elt.data, spec.axis)
    if spec.axis is None:
        return Named(elt.names, data)
    names = list(elt.names)
    names.insert(spec.axis, spec.name)
    return Named(names, data)


@pytest.fixture
def named() -> Iterator[None]:
    register_vmappable(Named, Spec, int, named_to_elt, named_from_elt, None)
    try:
        yield
    finally:
        unregister_vmappable(Named)


DATA = np.arange(12.0).reshape(3, 4)


def test_in_and_out_axes_with_the_spec_type(named: None) -> None:
    def square(x: Named) -> Named:
        assert x.names == ["j"]
        assert x.data.shape == (4,)
        return Named(x.names, x.data * x.data)

    out = vmap(square, in_axes=Spec("i", 0), out_axes=Spec("i", 1), axis_size=3)(
        Named(["i", "j"], DATA)
    )
    assert type(out) is Named
    assert out.names == ["j", "i"]
    np.testing.assert_allclose(np.asarray(out.data), (DATA**2).T)


def test_next_to_arrays_in_a_tuple_spec(named: None) -> None:
    # the size comes from the array; the named array is mapped along its second axis
    w = np.array([1.0, 10.0, 100.0, 1000.0])

    def scale(x: Named, s: object) -> tuple[Named, object]:
        return Named(x.names, x.data * s), lax.reduce_sum(x.data, (0,))

    out, total = vmap(scale, in_axes=(Spec("j", 1), 0), out_axes=(Spec("j", 0), 0))(
        Named(["i", "j"], DATA), w
    )
    assert out.names == ["j", "i"]
    np.testing.assert_allclose(np.asarray(out.data), DATA.T * w[:, None])
    np.testing.assert_allclose(np.asarray(total), DATA.sum(0))


def test_unmapped_spec_passes_the_value_through(named: None) -> None:
    x = Named(["k"], np.array([2.0, 3.0]))

    def f(x: Named, y: object) -> Named:
        return Named(x.names, x.data * lax.reduce_sum(y, ()))

    out = vmap(f, in_axes=(Spec(None, None), 0), out_axes=Spec("b", 0))(x, np.arange(3.0))
    assert out.names == ["b", "k"]
    np.testing.assert_allclose(np.asarray(out.data), np.outer(np.arange(3.0), [2.0, 3.0]))


def test_nested(named: None) -> None:
    def inner(x: Named) -> Named:
        assert x.names == []
        assert np.shape(x.data) == ()
        return Named([], x.data * 2.0 + 1.0)

    per_row = vmap(inner, in_axes=Spec("j", 0), out_axes=Spec("j", 0), axis_size=4)
    out = vmap(per_row, in_axes=Spec("i", 0), out_axes=Spec("i", 1), axis_size=3)(
        Named(["i", "j"], DATA)
    )
    assert out.names == ["j", "i"]
    np.testing.assert_allclose(np.asarray(out.data), (DATA * 2.0 + 1.0).T)


def test_to_elt_sees_the_example_index() -> None:
    class Offset:  # a batch of offsets whose example i adds i; vmap reads its size from .shape
        def __init__(self, data: object) -> None:
            self.data = data
            self.shape = np.shape(data)

    def to_elt(cont, get_idx, x, spec):
        return cont(x.data, spec) + lax.convert_element_type(get_idx(), np.float64)

    register_vmappable(Offset, int, int, to_elt, None, None)
    try:
        out = vmap(lambda v: v * 10.0)(Offset(np.full((4, 2), 0.5)))
    finally:
        unregister_vmappable(Offset)
    np.testing.assert_allclose(np.asarray(out), (0.5 + np.arange(4.0)[:, None]) * 10.0 * [1, 1])


def test_spec_of_another_type_is_refused(named: None) -> None:
    x = Named(["i", "j"], DATA)
    with pytest.raises(TypeError, match="in_axes entry for a Named must be None or a Spec"):
        vmap(lambda x: x, axis_size=3)(x)  # in_axes=0: an int, not a Spec
    with pytest.raises(TypeError, match="out_axes entry for a Named must be None or a Spec"):
        vmap(lambda x: x, in_axes=Spec("i", 0), axis_size=3)(x)  # out_axes=0
    with pytest.raises(TypeError, match=r"in_axes entry Spec\('i', 0\) .* spec for Named"):
        vmap(lambda a: a, in_axes=Spec("i", 0))(DATA)  # a Spec for an array
    with pytest.raises(TypeError, match=r"out_axes entry Spec\('i', 0\) .* spec for Named"):
        vmap(lambda a: a, out_axes=Spec("i", 0))(DATA)


def test_mapped_output_with_an_unmapped_spec(named: None) -> None:
    x = Named(["i", "j"], DATA)
    f = vmap(lambda x: x, in_axes=Spec("i", 0), out_axes=Spec(None, None), axis_size=3)
    with pytest.raises(ValueError, match="got axis spec None but output was batched on axis 0"):
        f(x)


def test_unregister() -> None:
    class Other:
        pass

    register_vmappable(Named, Spec, int, named_to_elt, named_from_elt, None)
    register_vmappable(Other, Spec, int, named_to_elt, named_from_elt, None)
    unregister_vmappable(Other)
    # Spec is still Named's spec type
    assert not is_vmappable(Other())
    assert is_vmappable(Named([], 1.0))
    out = vmap(lambda x: x, in_axes=Spec("i", 0), out_axes=Spec("i", 0), axis_size=3)(
        Named(["i", "j"], DATA)
    )
    np.testing.assert_allclose(np.asarray(out.data), DATA)
    unregister_vmappable(Named)
    assert not is_vmappable(Named([], 1.0))
    with pytest.raises(TypeError, match="vmap in_axes must be an int, None"):
        vmap(lambda x: x, in_axes=Spec("i", 0))

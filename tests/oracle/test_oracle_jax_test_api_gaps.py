"""Small API behaviours JAX 0.10.2's own tests check (issue 35), each compared with real JAX:
the types ``lax.padtype_to_pads`` returns, the DeprecationWarning of ``jnp.ndim``/``shape``/
``size`` on non-arrays, and the like."""

from __future__ import annotations

import re
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle


@pytest.mark.parametrize("padding", ["VALID", "SAME", "SAME_LOWER"])
def test_padtype_to_pads_gives_python_ints(padding, x64):
    """NumPy integer arrays in, Python ints out (lax_test testPadtypeToPadsReturnsInts); the
    pads themselves as JAX's."""
    args = (
        np.array([5, 6, 7], np.int64),
        np.array([2, 3, 4], np.int64),
        np.array([2, 1, 3], np.int64),
        padding,
    )
    want = jax.lax.padtype_to_pads(*args)
    got = mj.lax.padtype_to_pads(*args)
    assert [tuple(p) for p in got] == [tuple(p) for p in want]
    assert all(type(v) is int for pair in got for v in pair), got


@pytest.mark.parametrize("name", ["ndim", "shape", "size"])
def test_ndim_shape_size_of_a_list_warn_as_jax(name, x64):
    """A list still gets NumPy's answer, with JAX's DeprecationWarning (same text, blamed on
    the caller's line); arrays, scalars and objects with the attribute do not warn."""
    results = []
    for lib in (jnp, mnp):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = getattr(lib, name)([[1, 2, 3], [4, 5, 6]])
        # (JAX's size warns a second time, from its own call of shape: the first is the one)
        assert caught
        assert caught[0].category is DeprecationWarning, caught
        assert caught[0].filename == __file__
        results.append((value, str(caught[0].message)))
    assert results[0] == results[1]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for x in (np.ones((2, 3)), 3.0, np.float32(1), mnp.ones((4,))):
            assert getattr(mnp, name)(x) == getattr(jnp, name)(np.asarray(x))


@pytest.mark.parametrize(
    "dtype", ["int32", "uint16", "int64", "float16", "float32", "float64", "complex64", "bool"]
)
def test_byteswap_traced_and_on_device_arrays_as_jax(dtype, x64):
    """``x.byteswap()`` of a tracer (lax_numpy_test testByteSwap under jit) and of a device
    array: the same bits and dtype as JAX's (and NumPy's)."""
    x = (np.arange(-3, 3) * 37).astype(dtype).reshape(2, 3)
    want = np.asarray(jax.jit(lambda v: v.byteswap())(x))
    got = np.asarray(mj.jit(lambda v: v.byteswap())(x))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    on_device = np.asarray(mj.device_put(mnp.asarray(x)).byteswap())
    np.testing.assert_array_equal(on_device.view(np.uint8), want.view(np.uint8))
    twice = mj.vmap(lambda v: v.byteswap().byteswap())(x)
    np.testing.assert_array_equal(np.asarray(twice), np.asarray(jnp.asarray(x)))


def test_removed_numpy_names_are_out_of_dir_as_in_jax():
    """``fix`` and ``row_stack`` (gone from JAX 0.10) are not listed by ``dir`` (lax_numpy_test
    testWrappedSignaturesMatch); mj still answers them, warning, with trunc's and vstack's
    results. ``fromfile`` exists and refuses with JAX's words."""
    for name in ("fix", "row_stack"):
        assert name not in dir(jnp)
        assert name not in dir(mnp)
    x = np.array([-1.5, -0.5, 0.5, 2.5])
    with pytest.warns(DeprecationWarning, match="use mj.numpy.trunc"):
        fix = mnp.fix
    np.testing.assert_array_equal(np.asarray(fix(x)), np.asarray(jnp.trunc(x)))
    with pytest.warns(DeprecationWarning, match="use mj.numpy.vstack"):
        row_stack = mnp.row_stack
    np.testing.assert_array_equal(np.asarray(row_stack([x, x])), np.asarray(jnp.vstack([x, x])))
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'"):
        _ = mnp.no_such_name
    for lib in (jnp, mnp):
        with pytest.raises(NotImplementedError, match=r"^jnp.fromfile\(\) is not implemented"):
            lib.fromfile("x.bin")


def _while_of_too_big_pmap(lib):
    def body(i, x):
        return lib.pmap(lambda z: lib.lax.psum(lib.numpy.sin(z), "i"), axis_name="i")(x) + x

    return lib.lax.fori_loop(0, 3, body, lib.numpy.ones(2 * lib.device_count()))


def _sharding_of_tracer(lib):
    return lib.jit(lambda x: x.sharding)(lib.numpy.arange(2.0))


_STATIC_PMAP = "pmapped function has static_broadcasted_argnums=\\(1,\\) but was called with only 1"

#: (id, call, error class, regex): JAX's wording, matched where JAX's own test matches it
MESSAGE_CASES = [
    (
        "lax_add_string_array",
        lambda lib: lib.lax.add(lib.numpy.array(7), np.array("hello")),
        TypeError,
        r"^Error interpreting argument to add as a JAX value\. The problematic value is of type "
        r"<class 'numpy\.ndarray'> and was passed to add at position 1\.",
    ),
    (
        "lax_neg_object_array",
        lambda lib: lib.lax.neg(np.array([1, 2], dtype=object)),
        TypeError,
        r"^Error interpreting argument to neg as a JAX value\. .* at position 0\.",
    ),
    (
        "grad_object_array",
        lambda lib: lib.grad(lambda x: x)(np.array([1, 2, 3], dtype=object)),
        TypeError,
        r"^Argument '\[1 2 3\]' of type <class 'numpy\.ndarray'> is not a valid JAX type",
    ),
    (
        "sharding_of_tracer",
        _sharding_of_tracer,
        AttributeError,
        r"^The 'sharding' attribute "
        r"is not available on traced array with shape float(32|64)\[2\]\. .*`jax\.typeof\(x\)`",
    ),
    (
        "numpy_ufunc_under_grad",
        lambda lib: lib.grad(lambda x: np.exp(x).sum())(np.zeros(3, np.float32)),
        TypeError,
        r"^The numpy\.ndarray conversion method __array__\(\) was called on traced array "
        r"with shape float32\[3\]",
    ),
    (
        "np_asarray_under_jit",
        lambda lib: lib.jit(lambda x: np.asarray(x))(np.zeros((2, 3), np.float32)),
        TypeError,
        r"^The numpy\.ndarray conversion method __array__\(\) was called on traced array "
        r"with shape float32\[2,3\]",
    ),
    (
        "pmap_static_by_keyword",
        lambda lib: lib.pmap(lambda a, b: a + b, static_broadcasted_argnums=(1,))(
            lib.numpy.ones((1, 1)), b=1
        ),
        ValueError,
        "^" + _STATIC_PMAP + " positional argument. All static broadcasted arguments must be "
        "passed positionally.",
    ),
    (
        "pmap_too_big_in_while",
        _while_of_too_big_pmap,
        ValueError,
        r"^cannot select an axis to squeeze out which has size not equal to one, got "
        r"shape=\(2,\) and dimensions=\(0,\)",
    ),
    (
        "pmap_too_big_axis_1",
        lambda lib: lib.pmap(lambda z: z, in_axes=1)(lib.numpy.ones((5, 2 * lib.device_count()))),
        ValueError,
        r"^cannot select an axis to squeeze out which has size not equal to one, got "
        r"shape=\(5, 2\) and dimensions=\(1,\)",
    ),
]


@pytest.mark.parametrize(
    ("fn", "error", "regex"), [c[1:] for c in MESSAGE_CASES], ids=[c[0] for c in MESSAGE_CASES]
)
def test_error_wording_as_jax(fn, error, regex):
    """JAX's words first (api_test test_error_for_invalid_dtype, test_grad_object_array_error,
    test_sharding_attr_on_tracer_error, test_unwrapped_numpy,
    test_pmap_static_kwarg_error_message; lax_control_flow_test
    test_while_loop_of_pmap_error_message); mj's context after them."""
    for lib in (jax, mj):
        with pytest.raises(error) as info:
            fn(lib)
        assert re.search(regex, str(info.value)), (lib.__name__, str(info.value))


@pytest.mark.parametrize("placed", [False, True], ids=["eager", "device_put"])
def test_key_array_addressability_as_jax(placed):
    """``PRNGKeyArray.is_fully_addressable``/``is_fully_replicated`` are its data's, as in
    JAX (random_test test_array_impl_attributes), and device arrays answer them too."""
    answers = []
    for lib in (jax, mj):
        keys = lib.random.split(lib.random.key(0), 10)
        if placed:
            keys = lib.device_put(keys)
        base = lib.random.key_data(keys)
        answers.append((keys.is_fully_addressable, keys.is_fully_replicated))
        assert keys.is_fully_addressable == base.is_fully_addressable
        assert lib.device_put(np.ones(3)).is_fully_addressable is True
    assert answers[0] == answers[1]

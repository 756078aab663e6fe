"""Differences from JAX found by running JAX's own ``lax_numpy_test.py`` on mj (issue 35), one
regression test each, compared with JAX 0.10.2 in both dtype modes."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle


def _same(got, want):
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


COMPLEX_SPECIALS = np.array(
    [
        complex(np.nan, 0),
        1 + 1j,
        complex(0, np.nan),
        -1j,
        0j,
        complex(-0.0, 1),
        complex(np.nan, -1),
        complex(1, -np.inf),
        complex(np.inf, np.nan),
    ]
)


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_complex_sort_orders_real_then_imaginary_with_nan_last_in_each(x64, dtype):
    # JAX sorts complex numbers lexicographically, NaN last in each part; NumPy's own order
    # (every value with a NaN part last) is not JAX's
    x = COMPLEX_SPECIALS.astype(dtype)
    pairs = [
        (jnp.sort, mnp.sort),
        (jnp.argsort, mnp.argsort),
        (jax.jit(jnp.sort), mj.jit(mnp.sort)),
        (jax.jit(jnp.argsort), mj.jit(mnp.argsort)),
        (jnp.sort_complex, mnp.sort_complex),
        (lambda a: jnp.sort(a, descending=True), lambda a: mnp.sort(a, descending=True)),
    ]
    for want_f, got_f in pairs:
        _same(got_f(x), want_f(x))
    keys = (x.real, np.zeros(x.shape))
    _same(
        mj.lax.sort((x, np.arange(x.size)), num_keys=1)[1],
        jax.lax.sort((x, np.arange(x.size)), num_keys=1)[1],
    )
    _same(mnp.lexsort(keys), jnp.lexsort(keys))


CREATION = {
    "array": lambda np_, d: np_.array([1, 2, 3], dtype=np.float32, device=d),
    "asarray": lambda np_, d: np_.asarray(np.arange(4), device=d),
    "zeros": lambda np_, d: np_.zeros((2, 3), np.int32, device=d),
    "ones": lambda np_, d: np_.ones(3, device=d),
    "empty": lambda np_, d: np_.empty((0, 2), device=d),
    "full": lambda np_, d: np_.full((2,), 7, device=d),
    "zeros_like": lambda np_, d: np_.zeros_like(np.ones(3, np.int8), device=d),
    "ones_like": lambda np_, d: np_.ones_like(np.ones(3), shape=(2, 2), device=d),
    "empty_like": lambda np_, d: np_.empty_like(np.ones(3, np.float32), device=d),
    "full_like": lambda np_, d: np_.full_like(np.ones(2), 2.5, device=d),
    "arange": lambda np_, d: np_.arange(1, 7, 2, device=d),
    "linspace": lambda np_, d: np_.linspace(0, 1, 5, device=d),
    "linspace_retstep": lambda np_, d: np_.linspace(0, 1, 5, retstep=True, device=d)[0],
    "eye": lambda np_, d: np_.eye(3, 4, 1, device=d),
}


@pytest.mark.parametrize("name", sorted(CREATION))
@pytest.mark.parametrize("as_sharding", [False, True])
def test_creation_functions_place_their_result_on_device(x64, name, as_sharding):
    make = CREATION[name]
    jd, md = jax.devices()[-1], mj.devices()[-1]
    if as_sharding:
        jd = jax.sharding.make_single_device_sharding(jd)
        md = mj.sharding.make_single_device_sharding(md)
    want, got = make(jnp, jd), make(mnp, md)
    _same(got, want)
    assert {d.id for d in got.devices()} == {d.id for d in want.devices()}
    assert got.committed
    if as_sharding:
        assert got.sharding == md


def test_zeros_like_with_a_device_under_jit(x64):
    x = np.array([1, 2, 3], np.int32)
    want = jax.jit(lambda a: jnp.zeros_like(a, device=jax.devices()[0]))(x)
    got = mj.jit(lambda a: mnp.zeros_like(a, device=mj.devices()[0]))(x)
    _same(got, want)
    assert got.sharding == mj.sharding.make_single_device_sharding(mj.devices()[0])


def _close(got, want, rtol=0.0):
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=rtol, atol=rtol)


SPACES = [
    ("linspace", dict(num=5)),
    ("linspace", dict(num=4, endpoint=False, retstep=True)),
    ("linspace", dict(num=1, retstep=True)),
    ("linspace", dict(num=1, endpoint=False, retstep=True)),
    ("linspace", dict(num=0, retstep=True)),
    ("linspace", dict(num=7, dtype=np.int32)),
    ("linspace", dict(num=6, dtype=np.float16)),
    ("logspace", dict(num=5, base=2.0)),
    ("logspace", dict(num=4, endpoint=False, dtype=np.float32)),
    ("geomspace", dict(num=5)),
    ("geomspace", dict(num=3, endpoint=False, dtype=np.complex64)),
]


@pytest.mark.parametrize("axis", [0, 1, -1, 2])
@pytest.mark.parametrize(("name", "kwargs"), SPACES)
def test_spaced_samples_along_any_axis_as_jax(x64, name, kwargs, axis):
    # JAX's formula (start * (1 - t) + stop * t): the same values to the last bit
    start = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], np.float32)
    stop = np.array([7.0, 50.0, 9.0], np.float32)
    # (eagerly, NumPy's float32 arithmetic may differ from XLA's in the last bit, which an
    # integer dtype's floor can turn into a difference of one: compared under jit only)
    want = getattr(jnp, name)(start, stop, axis=axis, **kwargs)
    jitted = mj.jit(lambda a, b: getattr(mnp, name)(a, b, axis=axis, **kwargs))(start, stop)
    for g, w in zip(jitted, want, strict=True) if isinstance(want, tuple) else [(jitted, want)]:
        exact = name == "linspace" and w.dtype != np.float16  # (XLA's f16 rounding varies)
        _close(g, w, rtol=0.0 if exact else 1e-3 if w.dtype == np.float16 else 1e-6)
    if kwargs.get("dtype") is not np.int32:
        got = getattr(mnp, name)(start, stop, axis=axis, **kwargs)
        for g, w in zip(got, want, strict=True) if isinstance(want, tuple) else [(got, want)]:
            _close(g, w, rtol=1e-3 if w.dtype == np.float16 else 1e-6)


PADS = [
    ("constant", {}),
    ("constant", dict(constant_values=((1, 2), (3, 4)))),
    ("edge", {}),
    ("wrap", {}),
    ("reflect", {}),
    ("reflect", dict(reflect_type="odd")),
    ("symmetric", {}),
    ("symmetric", dict(reflect_type="odd")),
    ("linear_ramp", {}),
    ("linear_ramp", dict(end_values=((1, 2), (-3, 5)))),
    ("maximum", {}),
    ("minimum", dict(stat_length=2)),
    ("mean", dict(stat_length=((1, 2), (3, 1)))),
    ("median", {}),
    ("empty", {}),
]


@pytest.mark.parametrize("widths", [((1, 2), (3, 0)), ((5, 7), (8, 2))])
@pytest.mark.parametrize("dtype", [np.float32, np.int32])
@pytest.mark.parametrize(("mode", "kwargs"), PADS)
def test_pad_modes_and_keywords_as_jax(x64, mode, kwargs, dtype, widths):
    # the second widths are longer than the axes: wrap/reflect/symmetric repeat
    x = np.array([[3, 1, 4, 1], [5, 9, 2, 6], [5, 3, 5, 8]], dtype)
    want = jnp.pad(x, widths, mode, **kwargs)
    got = mnp.pad(x, widths, mode, **kwargs)
    jitted = mj.jit(lambda a: mnp.pad(a, widths, mode, **kwargs))(x)
    # (a float ramp may differ from XLA's in the last bit when computed eagerly)
    rtol = 1e-6 if mode == "linear_ramp" and dtype == np.float32 else 0.0
    _close(got, want, rtol)
    _close(jitted, want, rtol)


def test_pad_with_a_function_as_jax():
    def pad_with(vector, pad_width, iaxis, kwargs):
        value = kwargs.get("padder", 10)
        vector = vector.at[: pad_width[0]].set(value)
        return vector.at[-pad_width[1] :].set(value)

    x = np.arange(24).reshape(2, 3, 4)
    _same(mnp.pad(x, 1, pad_with, padder=100), jnp.pad(x, 1, pad_with, padder=100))
    _same(mnp.pad(x[0], 2, pad_with), jnp.pad(x[0], 2, pad_with))


def test_pad_refuses_as_jax():
    x = np.arange(3)
    with pytest.raises(ValueError, match="unsupported keyword arguments for mode 'edge'"):
        mnp.pad(x, 1, "edge", constant_values=0)
    for mode in (1, None, "foo"):
        with pytest.raises(NotImplementedError, match=f"Unimplemented padding mode '{mode}'"):
            mnp.pad(x, 1, mode)
    with pytest.raises(ValueError, match="Cannot apply 'wrap' padding to empty axis"):
        mnp.pad(np.zeros((0, 2)), 1, "wrap")
    with pytest.raises(TypeError, match="`pad_width` must be of integral type"):
        mnp.pad(x, 1.5)


TAKE_X = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)
TAKE_I = np.array([[[0, -1, 3, 2, -4, 1]], [[2, 2, 0, -2, 1, 3]]])  # broadcasts over axis 1


@pytest.mark.parametrize("mode", [None, "fill", "clip", "one_hot", "promise_in_bounds"])
@pytest.mark.parametrize("wrap", [None, True])
def test_take_along_axis_modes_as_jax(x64, mode, wrap):
    kw = {} if wrap is None else dict(wrap_negative_indices=wrap)
    want = jnp.take_along_axis(TAKE_X, TAKE_I, axis=2, mode=mode, **kw)
    _same(mnp.take_along_axis(TAKE_X, TAKE_I, axis=2, mode=mode, **kw), want)
    jitted = mj.jit(lambda a, i: mnp.take_along_axis(a, i, axis=2, mode=mode, **kw))
    _same(jitted(TAKE_X, TAKE_I), want)


def test_take_along_axis_default_axis_empty_axis_and_errors(x64):
    idx = np.array([[3, 0, 1]] * 2)
    _same(mnp.take_along_axis(TAKE_X[0, :2], idx), jnp.take_along_axis(TAKE_X[0, :2], idx))
    empty = np.ones((4, 0, 3), np.int32)
    _same(mnp.take_along_axis(empty, empty, axis=1), jnp.take_along_axis(empty, empty, axis=1))
    with pytest.raises(TypeError, match="take_along_axis indices must be of integer type, got"):
        mnp.take_along_axis(np.arange(5), np.array([3.0], np.float32), axis=0)
    with pytest.raises(ValueError, match="indices and arr must have the same number of dim"):
        mnp.take_along_axis(TAKE_X, idx, axis=0)
    with pytest.raises(ValueError, match="take_along_axis indices must be 1D if axis=None"):
        mnp.take_along_axis(TAKE_X, idx, axis=None)


def _raises_like_jax(jax_call, mj_call):
    """mj raises JAX's exception class, its message starting with JAX's text."""
    with pytest.raises((ValueError, TypeError)) as want:
        jax_call()
    with pytest.raises(type(want.value)) as got:
        mj_call()
    jax_text = str(want.value).split("\n")[0]
    assert str(got.value).startswith(jax_text.rstrip(".")), (str(got.value), jax_text)


REFUSALS = {
    "clip_complex": lambda np_: np_.clip(np.array([1 + 1j], np.complex64)),
    "clip_complex_max": lambda np_: np_.clip(np.array([1.0]), max=np.complex64(1j)),
    "hypot_complex": lambda np_: np_.hypot(np.array([1j]), np.array([1.0])),
    "size_repeated_axis": lambda np_: np_.size(np.ones((2, 3)), axis=(0, -2)),
    "broadcast_to_fewer_dims": lambda np_: np_.broadcast_to(np.ones((3, 4, 5)), (4, 5)),
    "broadcast_to_incompatible": lambda np_: np_.broadcast_to(np.ones((2, 3)), (1, 3)),
    "trace_same_axes": lambda np_: np_.trace(np.ones((2, 3, 2)), axis1=1, axis2=-2),
    "rot90_1d": lambda np_: np_.rot90(np.ones(3)),
    "r_directive": lambda np_: np_.r_["asdfgh", [1, 2]],
    "c_directive": lambda np_: np_.c_["asdfgh", [1, 2]],
    "array_none": lambda np_: np_.array([0.0, None]),
}


@pytest.mark.parametrize("name", sorted(REFUSALS))
def test_refuses_with_jax_class_and_wording(name):
    make = REFUSALS[name]
    _raises_like_jax(lambda: make(jnp), lambda: make(mnp))


SHAPE_REFUSALS = {
    "zeros_float_shape": lambda np_, lib: np_.zeros(1.0),
    "zeros_traced_shape": lambda np_, lib: lib.jit(np_.zeros)(2),
    "tri_traced_n": lambda np_, lib: lib.jit(np_.tri)(3, M=3, k=0),
    "zeros_hint": lambda np_, lib: np_.zeros(2, 3),
    "ones_hint": lambda np_, lib: np_.ones(2, 3),
    "empty_hint": lambda np_, lib: np_.empty(2, 3),
}


@pytest.mark.parametrize("name", sorted(SHAPE_REFUSALS))
def test_shape_arguments_refused_in_jax_words(name):
    make = SHAPE_REFUSALS[name]
    with pytest.raises(TypeError) as want:
        make(jnp, jax)
    with pytest.raises(TypeError) as got:
        make(mnp, mj)
    # the first two lines (a traced value's own repr differs): JAX's text up to "got"
    jax_lines, mj_lines = str(want.value).split("\n"), str(got.value).split("\n")
    assert mj_lines[0].split(" got ")[0] == jax_lines[0].split(" got ")[0]
    for jax_line, mj_line in zip(jax_lines[1:3], mj_lines[1:3], strict=False):
        if not jax_line.startswith("The error occurred"):  # (JAX's tracing context)
            assert mj_line.startswith(jax_line), (mj_line, jax_line)


@pytest.mark.parametrize("k", [-(2**100), -4, -1, 0, 2, 3, 2**100])
def test_eye_offsets_static_huge_and_traced_as_jax(x64, k):
    _same(mnp.eye(3, 4, k=k), jnp.eye(3, 4, k=k))
    if abs(k) < 2**31:
        _same(mj.jit(lambda kk: mnp.eye(3, 4, k=kk))(k), jax.jit(lambda kk: jnp.eye(3, 4, k=kk))(k))


TD_A, TD_B = np.arange(12.0).reshape(3, 2, 2), np.arange(2.0)


@pytest.mark.parametrize("axes", [2, ([0], [0, 1]), ("bad", "axes"), 1.5, ([0],), np.array(1)])
def test_tensordot_axes_refused_in_jax_words(axes):
    _raises_like_jax(
        lambda: jnp.tensordot(TD_A, TD_B, axes), lambda: mnp.tensordot(TD_A, TD_B, axes)
    )


@pytest.mark.parametrize("axes", [-1, 0, 1, (2, 0), ([1, 2], [0, 1])])
def test_tensordot_axes_accepted_as_jax(x64, axes):
    b = np.arange(4.0).reshape(2, 2) if isinstance(axes, tuple) and axes[0] != 2 else TD_B
    _close(mnp.tensordot(TD_A, b, axes), jnp.tensordot(TD_A, b, axes), rtol=1e-6)


def test_take_from_an_empty_axis_as_jax(x64):
    empty = np.ones((2, 0, 4), np.float32)
    none = np.array([], np.int32)
    _same(mnp.take(empty, none, axis=1), jnp.take(empty, none, axis=1))
    _same(mnp.take(none.astype(np.float32), none), jnp.take(none.astype(np.float32), none))
    with pytest.raises(IndexError) as want:
        jnp.take(empty, np.array([0], np.int32), axis=1)
    with pytest.raises(IndexError, match=r"non-empty jnp\.take") as got:
        mnp.take(empty, np.array([0], np.int32), axis=1)
    assert str(got.value) == str(want.value)

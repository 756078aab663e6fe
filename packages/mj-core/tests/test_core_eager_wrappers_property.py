"""The elementwise wrappers' ufunc shortcut (``binds``, :mod:`mj_core._eager.wrappers`) gives
what the general path gives: for every unary and binary wrapper (found by walking ``mj_core.lax``
and ``mj_core.numpy``), every dtype and operand kind, in both dtype modes, the wrapper's result
and the general path's (``bind1`` of the primitive, or the NumPy-level promoting function the
wrapper falls back to, neither of which takes the shortcut) agree in value (NaNs equal), dtype,
weak type and read-only flag; where one raises, the other raises the same class. Operands the
caller owns are left as they were (writable, values unchanged)."""

import inspect
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mj_core.numpy as mnp
from mj_core import EagerArray, config, lax
from mj_core._avals import get_aval, raise_to_shaped
from mj_core._eager import wrappers
from mj_core._eager_array import WeakEagerArray
from mj_core._primitive import abstract_eval_rules

DTYPES = [
    np.dtype(t)
    for t in (
        np.bool_, np.int8, np.uint8, np.int32, np.uint32, np.float16, ml_dtypes.bfloat16,
        np.float32, np.complex64, np.int64, np.uint64, np.float64, np.complex128,
    )
]  # fmt: skip

# Element values per kind (cast to the dtype: ints wrap, floats round), with the awkward ones.
_VALUES = {
    "b": [True, False],
    "i": [0, 1, -1, 2, 7, 127, -128, 3, 2**31 - 1],
    "u": [0, 1, 2, 7, 255, 3, 2**32 - 1],
    "f": [0.0, -0.0, 1.5, -2.0, 0.5, np.nan, np.inf, -np.inf, 1e30, 3.0, 65504.0],
    "c": [0j, 1.5 - 2j, -0.5j, complex(np.nan, 1.0), complex(np.inf, 0.0), 3 + 0j],
}
_SCALARS = [True, False, 0, 1, -3, 7, 300, -129, 2**31, 2**40, 0.5, -0.0, 2.5, np.nan, np.inf]
_SCALARS += [1e39, 2 + 1j, -1j]
KINDS = ["eager", "numpy", "eager_0d", "numpy_0d", "numpy_scalar", "python", "weak"]


def _kind(dtype: np.dtype) -> str:
    return "f" if dtype == ml_dtypes.bfloat16 else dtype.kind


def _wrapper_functions() -> dict[str, tuple]:
    """Every binds wrapper reachable from mj_core.lax and mj_core.numpy, by name: ``(wrapper,
    general path)``."""
    found: dict[int, tuple] = {}
    for module in (lax, mnp):
        for name, f in sorted(vars(module).items()):
            code = getattr(f, "__code__", None)
            if code is None or code.co_filename != wrappers.__file__ or id(f) in found:
                continue
            closure = inspect.getclosurevars(f).nonlocals
            shortcut, general = closure["shortcut"], closure["general"]
            found[id(f)] = (f"{module.__name__}.{name}", f, general, shortcut)
    return {name: (f, general, shortcut) for name, f, general, shortcut in found.values()}


WRAPPERS = _wrapper_functions()
UNARY = sorted(n for n, (f, _, _) in WRAPPERS.items() if f.__code__.co_argcount == 1)
BINARY = sorted(n for n, (f, _, _) in WRAPPERS.items() if f.__code__.co_argcount == 2)


def test_the_wrappers_are_found():
    # the lax unary and binary families and the NumPy-level binary functions
    assert {"mj_core.lax.sin", "mj_core.lax.neg", "mj_core.lax.bitwise_not"} <= set(UNARY)
    assert {"mj_core.lax.add", "mj_core.lax.atan2", "mj_core.numpy.add"} <= set(BINARY)
    assert {"mj_core.numpy.arctan2", "mj_core.numpy.less"} <= set(BINARY)
    assert {"mj_core.numpy.sin", "mj_core.numpy.sqrt"} <= set(UNARY)
    assert len(UNARY) >= 20
    assert len(BINARY) >= 30
    for _, _, shortcut in WRAPPERS.values():
        assert shortcut.ufunc is not None  # the shortcut is on in the default configuration


@st.composite
def operand(draw, dtype: np.dtype, shape: tuple[int, ...]):
    """``(kind, make)``: ``make()`` builds the operand (inside the dtype mode under test)."""
    kind = draw(st.sampled_from(KINDS))
    if kind == "python":
        value = draw(st.sampled_from(_SCALARS))
        return kind, lambda: value
    if kind == "weak":  # (ints that fit int32: mnp.asarray of a bigger one raises in x32)
        value = draw(st.sampled_from([v for v in _SCALARS if v not in (2**31, 2**40)]))
        return kind, lambda: _weak(value)
    if kind in ("eager_0d", "numpy_0d", "numpy_scalar"):
        shape = ()
    values = _VALUES[_kind(dtype)]
    data = [draw(st.sampled_from(values)) for _ in range(int(np.prod(shape)))]

    def host():
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.array(data).astype(dtype).reshape(shape)

    if kind in ("eager", "eager_0d"):
        return kind, lambda: mnp.asarray(host())
    if kind == "numpy_scalar":
        return kind, lambda: host()[()]
    return kind, host


def _weak(value):
    out = mnp.asarray(value)
    if type(value) is not bool:
        assert type(out) is WeakEagerArray
    return out


def _outcome(f, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            return "ok", f(*args)
        except Exception as err:
            return "error", err


def _check_same(name, args, fast, general):
    shown = f"{name}{tuple(type(a).__name__ for a in args)} {args!r}"
    assert fast[0] == general[0], f"{shown}: shortcut {fast[1]!r}, general path {general[1]!r}"
    if fast[0] == "error":
        assert type(fast[1]) is type(general[1]), f"{shown}: {fast[1]!r} vs {general[1]!r}"
        return
    got, want = fast[1], general[1]
    assert type(got) is type(want), shown  # EagerArray / WeakEagerArray: the weak type
    assert isinstance(got, EagerArray), shown
    assert got.dtype == want.dtype, f"{shown}: {got.dtype} vs {want.dtype}"
    assert got.weak_type == want.weak_type, shown
    assert got.shape == want.shape, shown
    assert not got.flags.writeable, shown
    assert not want.flags.writeable, shown
    _assert_same_values(got, want, shown)


def _assert_same_values(got, want, shown=""):
    g, w = np.asarray(got), np.asarray(want)
    if g.dtype == ml_dtypes.bfloat16:  # (NumPy's comparison of its NaNs says unequal)
        g, w = g.astype(np.float32), w.astype(np.float32)
    np.testing.assert_array_equal(g, w, err_msg=shown)  # (NaNs equal)


_SHAPES = st.sampled_from([((3,), (3,)), ((2, 3), (3,)), ((), (3,)), ((3,), (4,))])
_SETTINGS = settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    database=None,
    derandomize=True,  # the same examples on every run: CI is deterministic
)


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@_SETTINGS
@given(data=st.data())
def test_unary_shortcut_matches_general_path(x64, data):
    name = data.draw(st.sampled_from(UNARY))
    dtype = data.draw(st.sampled_from(DTYPES))
    _, make = data.draw(operand(dtype, data.draw(st.sampled_from([(3,), (2, 3), ()]))))
    f, general, _ = WRAPPERS[name]
    with config.override("enable_x64", x64):
        x = make()
        before = np.array(x, copy=True) if type(x) is np.ndarray else None
        fast = _outcome(f, (x,))
        slow = _outcome(general, (x,))
        _check_same(name, (x,), fast, slow)
        if before is not None:  # the caller's array: untouched
            assert x.flags.writeable
            _assert_same_values(x, before)


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@_SETTINGS
@given(data=st.data())
def test_binary_shortcut_matches_general_path(x64, data):
    name = data.draw(st.sampled_from(BINARY))
    shape_x, shape_y = data.draw(_SHAPES)
    if data.draw(st.booleans()):
        shape_x, shape_y = shape_y, shape_x
    dtype_x = data.draw(st.sampled_from(DTYPES))
    dtype_y = dtype_x if data.draw(st.booleans()) else data.draw(st.sampled_from(DTYPES))
    _, make_x = data.draw(operand(dtype_x, shape_x))
    _, make_y = data.draw(operand(dtype_y, shape_y))
    f, general, _ = WRAPPERS[name]
    with config.override("enable_x64", x64):
        x, y = make_x(), make_y()
        fast = _outcome(f, (x, y))
        slow = _outcome(general, (x, y))
        _check_same(name, (x, y), fast, slow)
        for a in (x, y):
            if type(a) is np.ndarray:
                assert a.flags.writeable


@pytest.mark.parametrize("name", UNARY + BINARY)
def test_float32_operands_take_the_shortcut_and_fail_once(name, monkeypatch):
    """Float32 mj arrays never reach eval_primitive where the primitive's typing rule accepts
    them: the shortcut computes them. Where it refuses them (bitwise ops of floats), the
    general path evaluates once and raises the typing rule's error."""
    import mj_core._trace as trace

    calls = []
    real = trace.eval_primitive

    def counting(primitive, args, params):
        calls.append(primitive)
        return real(primitive, args, params)

    f, general, _ = WRAPPERS[name]
    x = mnp.asarray(np.array([0.5, -1.5, 2.0], np.float32))
    args = (x,) * f.__code__.co_argcount
    monkeypatch.setattr(trace, "eval_primitive", counting)
    shortcut = WRAPPERS[name][2]
    accepted = shortcut.accepts(np.dtype(np.float32))
    with config.override("enable_x64", False):
        fast = _outcome(f, args)
        assert calls == ([] if accepted else [shortcut.primitive]), name
        calls.clear()
        slow = _outcome(general, args)
    _check_same(name, args, fast, slow)
    assert (fast[0] == "error") == (not accepted)
    if fast[0] == "error":
        assert len(calls) == 1  # the general path evaluated once (and failed)


def test_a_widening_ufunc_leaves_the_dtype_to_the_typing_rule():
    """NumPy computes ``complex64 ** int`` in complex128; lax.pow's result is complex64 on both
    paths (found by the property test with 64-bit types on)."""
    from mj_core import config
    from mj_core import lax as clax
    from mj_core import numpy as cnp

    with config.override("enable_x64", True):
        for x in (cnp.asarray(np.complex64(-0.5j)), cnp.asarray(np.array([1j, 2], np.complex64))):
            out = clax.pow(x, 0)
            assert out.dtype == np.complex64
            np.testing.assert_allclose(np.asarray(out), np.ones(np.shape(x)))


# EagerArray's binary operators whose method tries the NumPy-level wrapper's shortcut first
# (wrappers.operator_method), with the table's method (mnp's function after the operand check).
_OPERATORS = sorted(
    name
    for name in vars(EagerArray)
    if name.startswith("__")
    and getattr(vars(EagerArray)[name], "__code__", None) is not None
    and vars(EagerArray)[name].__code__.co_filename == wrappers.__file__
    and vars(EagerArray)[name].__code__.co_argcount == 2
)


def test_the_operators_take_the_shortcut():
    assert {"__add__", "__mul__", "__sub__", "__lt__", "__iadd__"} <= set(_OPERATORS)


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@_SETTINGS
@given(data=st.data())
def test_operator_shortcut_matches_the_operator_table(x64, data):
    """``x + y`` for an EagerArray ``x`` gives what the operator table's method gives (the
    NumPy-level function, ``NotImplemented`` for an unknown operand, a TypeError for a list)."""
    from mj_core._array_methods import array_methods

    name = data.draw(st.sampled_from(_OPERATORS))
    table = array_methods[name.replace("__i", "__", 1) if name.startswith("__i") else name]
    shape_x, shape_y = data.draw(_SHAPES)
    dtype_x = data.draw(st.sampled_from(DTYPES))
    dtype_y = dtype_x if data.draw(st.booleans()) else data.draw(st.sampled_from(DTYPES))
    _, make_y = data.draw(operand(dtype_y, shape_y))
    other = data.draw(st.sampled_from(["operand", "list", "none", "object"]))
    with config.override("enable_x64", x64):
        x = mnp.asarray(np.zeros(shape_x, np.float64).astype(dtype_x) + 1)
        y = {"operand": make_y, "list": lambda: [1, 2, 3], "none": lambda: None}.get(
            other, object
        )()
        fast = _outcome(getattr(EagerArray, name), (x, y))
        slow = _outcome(table, (x, y))
        if fast[0] == "ok" and fast[1] is NotImplemented:
            assert slow == fast
            return
        _check_same(name, (x, y), fast, slow)


LAX_WRAPPERS = sorted(n for n in UNARY + BINARY if n.startswith("mj_core.lax."))


@pytest.mark.parametrize("x64", [False, True], ids=["x32", "x64"])
@_SETTINGS
@given(data=st.data())
def test_eager_refuses_what_the_typing_rule_refuses(x64, data):
    """A lax wrapper evaluated eagerly (shortcut or not) accepts exactly the operands its
    primitive's typing rule accepts (what ``jit`` and ``make_jaxpr`` run), with the typing
    rule's error (JAX's wording: ``abs does not accept dtype uint8``), and gives the dtype
    and weak type that rule gives."""
    name = data.draw(st.sampled_from(LAX_WRAPPERS))
    f, _, shortcut = WRAPPERS[name]
    nin = f.__code__.co_argcount
    dtype = data.draw(st.sampled_from(DTYPES))
    dtypes = [dtype] * nin
    if nin == 2 and data.draw(st.booleans()):
        dtypes[1] = data.draw(st.sampled_from(DTYPES))
    makes = [data.draw(operand(d, (3,)))[1] for d in dtypes]
    with config.override("enable_x64", x64):
        args = [make() for make in makes]
        try:
            avals = [raise_to_shaped(get_aval(a)) for a in args]
        except (OverflowError, TypeError):  # a Python int out of range: not this test's
            return
        try:
            (want,) = abstract_eval_rules[shortcut.primitive](*avals)
        except TypeError as err:
            want = err
        got = _outcome(f, tuple(args))
    if isinstance(want, TypeError):
        assert got[0] == "error", f"{name}{avals}: eager gave {got[1]!r}, typing {want}"
        assert isinstance(got[1], TypeError)
        assert str(got[1]).startswith(str(want)), (got[1], want)
        return
    assert got[0] == "ok", f"{name}{avals}: eager raised {got[1]!r}, typing gave {want}"
    assert got[1].dtype == want.dtype, (name, avals)
    assert got[1].weak_type == want.weak_type, (name, avals)

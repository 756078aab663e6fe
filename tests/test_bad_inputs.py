"""Bad-input hardening: hypothesis feeds the public API wrong things and only documented
exception types may come out (TypeError, ValueError, IndexError, mj's own MJError classes),
each with a message that names the API, never an internal AssertionError, KeyError,
AttributeError, RecursionError or a failure inside jaxlib.

Each ``CALLS`` entry places one bad value in one argument of one API. A bad value may happen to
be valid there (e.g. ``-1`` as an axis); then the call simply has to work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mj
import mj.numpy as mnp
from mj import lax
from mj_core.errors import MJError

# OverflowError only for a Python int beyond int64, as in JAX and NumPy.
ALLOWED = (TypeError, ValueError, IndexError, MJError, OverflowError)
FORBIDDEN = (AssertionError, KeyError, AttributeError, RecursionError)

X = np.linspace(-1.0, 1.0, 6).reshape(2, 3)


def _sq(x):
    return mnp.sum(x * x)


def _double(x):
    return x * 2.0


class _Opaque:
    """An object mj knows nothing about."""


bad_values = st.one_of(
    st.sampled_from(
        [
            "abc",
            b"xy",
            _Opaque(),
            print,
            Ellipsis,
            {"a": 1},
            [1, "x"],
            ("a",),
            1.5,
            -1,
            -7,
            3,
            100,
            2**70,
            (0, 0),
            (5, -9),
            (-1, -1),
            (),
            np.array(["a", "b"]),
            np.array([_Opaque()], dtype=object),
            np.ones(4),
            np.ones((3, 2)),
            np.ones((2, 3), np.complex128),
            np.array([1, 2, 3]),
            np.array(True),
            np.float32(np.nan),
            slice(None, None, 0),
            [[1, 2], [3]],
            {1, 2},
        ]
    ),
    st.integers(-20, 20),
    st.tuples(st.integers(-5, 5), st.integers(-5, 5)),
    st.text(max_size=2),
)

# (name, call with the bad value placed in one argument)
CALLS: list[tuple[str, Callable[[Any], Any]]] = [
    ("jit", lambda b: mj.jit(_double)(b)),
    ("jit", lambda b: mj.jit(lambda x: b)(X)),
    ("jit", lambda b: mj.jit(lambda x, s: x, static_argnums=1)(X, b)),
    ("jit", lambda b: mj.jit(_double, static_argnums=b)(X)),
    ("grad", lambda b: mj.grad(_sq)(b)),
    ("grad", lambda b: mj.grad(lambda x: b)(1.0)),
    ("grad", lambda b: mj.grad(lambda x, y: _sq(x * y), argnums=b)(X, X)),
    ("vmap", lambda b: mj.vmap(_double)(b)),
    ("vmap", lambda b: mj.vmap(_double, in_axes=b)(X)),
    ("vmap", lambda b: mj.vmap(_double, out_axes=b)(X)),
    ("vmap", lambda b: mj.vmap(lambda x: b)(X)),
    ("vmap", lambda b: mj.vmap(lambda x, y: x + y)(X, b)),
    ("jvp", lambda b: mj.jvp(_double, (b,), (X,))),
    ("jvp", lambda b: mj.jvp(_double, (X,), (b,))),
    ("jvp", lambda b: mj.jvp(_double, b, (X,))),
    ("vjp", lambda b: mj.vjp(_double, X)[1](b)),
    ("vjp", lambda b: mj.vjp(lambda x: b, X)),
    ("linearize", lambda b: mj.linearize(_double, X)[1](b)),
    ("make_jaxpr", lambda b: mj.make_jaxpr(_double)(b)),
    ("sin", lambda b: mnp.sin(b)),
    ("add", lambda b: mnp.add(X, b)),
    ("sum", lambda b: mnp.sum(X, axis=b)),
    ("reshape", lambda b: mnp.reshape(X, b)),
    ("zeros", lambda b: mnp.zeros(b)),
    ("transpose", lambda b: mnp.transpose(X, b)),
    ("concatenate", lambda b: mnp.concatenate([X, b])),
    ("where", lambda b: mnp.where(b, X, X)),
    ("matmul", lambda b: mnp.matmul(X, b)),
    ("index", lambda b: mnp.asarray(X)[b]),
    ("index", lambda b: mj.jit(lambda x: x[b])(X)),
    ("cond", lambda b: lax.cond(b, _double, lambda x: x, X)),
    ("cond", lambda b: lax.cond(True, lambda x: b, lambda x: x, X)),
    ("scan", lambda b: lax.scan(lambda c, x: (c + x, x), 0.0, b)),
    ("scan", lambda b: lax.scan(lambda c, x: (b, x), 0.0, X)),
    ("while_loop", lambda b: lax.while_loop(lambda c: c < 3.0, lambda c: b, 0.0)),
    ("fori_loop", lambda b: lax.fori_loop(0, b, lambda i, c: c + 1.0, 0.0)),
    ("broadcast_in_dim", lambda b: lax.broadcast_in_dim(X, b, (0, 1))),
    ("reduce_sum", lambda b: lax.reduce_sum(X, b)),
]


def _names_what_was_wrong(msg: str, name: str, bad: Any) -> bool:
    """The message names the API, the offending value, its type or shape, or the user's line."""
    clues = [
        __file__,
        name,
        type(bad).__name__,
        repr(bad)[:12],
        "argument",
        "operand",
        "leaf",
        "indices",
    ]
    if isinstance(bad, np.ndarray):
        clues += [str(bad.shape), str(bad.dtype)]
    return any(c.lower() in msg.lower() for c in clues)


def _raised_by_user_code(err: BaseException) -> bool:
    tb = err.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code.co_filename == __file__


def check_call(name: str, call: Callable[[Any], Any], bad: Any) -> None:
    try:
        call(bad)
    except FORBIDDEN as err:  # an internal error type leaked: always a bug
        raise AssertionError(f"{name}({bad!r}) raised {type(err).__name__}: {err}") from err
    except ALLOWED as err:
        msg = str(err)
        if _raised_by_user_code(err):  # e.g. `x * 2.0` on a tuple passed as a pytree
            return
        if isinstance(err, OverflowError):
            assert "too large to convert" in msg, msg
            assert str(bad) in msg, msg
        assert _names_what_was_wrong(msg, name, bad), f"{name}({bad!r}): unclear message {msg!r}"
    except Exception as err:
        raise AssertionError(
            f"{name}({bad!r}) raised undocumented {type(err).__module__}.{type(err).__name__}:"
            f" {err}"
        ) from err


@settings(
    max_examples=300,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
@given(st.sampled_from(CALLS), bad_values)
def test_only_documented_exceptions(entry: tuple[str, Callable[[Any], Any]], bad: Any) -> None:
    check_call(*entry, bad)


@pytest.mark.parametrize(
    ("name", "call"), CALLS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CALLS)]
)
@pytest.mark.parametrize("bad", ["abc", _Opaque()], ids=["str", "object"])
def test_non_array_leaves_are_rejected_clearly(
    name: str, call: Callable[[Any], Any], bad: Any
) -> None:
    """Every API meets a string and an opaque object at least once."""
    check_call(name, call, bad)


# --- regression tests for what this suite found ------------------------------------------------


def test_python_int_beyond_int64_names_the_value() -> None:
    """Was NumPy's bare 'Python int too large to convert to C long'."""
    for call in (lambda: mnp.sin(2**70), lambda: mj.jit(_double)(2**70)):
        with pytest.raises(OverflowError, match=r"Python int 1180591620717411303424 is too large"):
            call()


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: mnp.sum(X, axis="abc"), r"sum: axis must be an int"),
        (lambda: mnp.sum(X, axis=1.5), r"sum: axis must be an int"),  # was truncated to 1
        (lambda: mnp.reshape(X, "ab"), r"must be an int or a sequence of ints, got 'ab'"),
        (lambda: mnp.zeros(_Opaque()), r"Shapes must be 1D sequences of concrete values of int"),
        (lambda: lax.broadcast_in_dim(X, "ab", (0, 1)), r"mj.lax: .* got 'ab'"),
    ],
)
def test_axis_and_shape_arguments_must_be_ints(call: Callable[[], Any], match: str) -> None:
    """Were 'invalid literal for int()' / 'object is not iterable' / a silent int(1.5)."""
    with pytest.raises(TypeError, match=match):
        call()


def test_jit_static_argnums_must_be_ints() -> None:
    """Was "'<=' not supported between instances of 'int' and 'str'" at call time."""
    with pytest.raises(TypeError, match=r"jit\(_double\): static_argnums must be an int"):
        mj.jit(_double, static_argnums="abc")


def test_jit_output_leaf_that_is_not_an_array() -> None:
    """Was the generic 'not a valid mj array type' without naming jit or the output."""
    want = r"function <lambda> at .* traced for jit returned a value of type <class 'str'> at "
    want += r"output component \[1\].*\(output leaf 1: 'x'"
    with pytest.raises(TypeError, match=want):
        mj.jit(lambda x: [x, "x"])(X)


def test_traced_axis_is_a_concretization_error_not_a_type_complaint() -> None:
    with pytest.raises(mj.errors.ConcretizationError):
        mj.jit(lambda x, a: mnp.sum(x, axis=a))(X, 1)

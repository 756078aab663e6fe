"""Errors whose text JAX's own tests match: mj's message starts with JAX's words (mj's own
context, e.g. the user's source line, follows). Each case raises the same error class on
both and checks that the phrases JAX's test suite matches appear in both messages."""

import re

import jax
import pytest

import mj

pytestmark = pytest.mark.oracle


def _message(lib, fn, error):
    with pytest.raises(getattr(lib.errors, error)) as info:
        fn(lib)
    return str(info.value)


def _both_match(fn, error, *patterns):
    for lib in (jax, mj):
        msg = _message(lib, fn, error)
        for pattern in patterns:
            assert re.search(pattern, msg, re.DOTALL), (lib.__name__, pattern, msg)


def _leak_then_use(lib):
    leaked = []
    lib.jit(lambda x: leaked.append(x) or x)(lib.numpy.zeros((4, 3), "int32"))
    return leaked[0] + 1


def _leak_into_other_trace(lib):
    leaked = []

    def inner(x):
        leaked.append(x)
        return x

    lib.jvp(inner, (1.0,), (1.0,))
    return lib.jit(lambda y: y + leaked[0])(2.0)


def test_escaped_tracer_wording_matches_jax():
    for fn in (_leak_then_use, _leak_into_other_trace):
        _both_match(
            fn, "UnexpectedTracerError", "^Encountered an unexpected tracer", "global state"
        )
    _both_match(_leak_then_use, "UnexpectedTracerError", r"int32\[4,3\]")
    msg = _message(mj, _leak_then_use, "UnexpectedTracerError")
    assert "used after that transformation ended" in msg  # mj's own detail follows

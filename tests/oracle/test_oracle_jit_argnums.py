"""``jit``'s ``static_argnums``/``static_argnames`` and ``donate_*`` resolved as JAX resolves
them: the one not given is inferred from the other through the signature (so a static
argument stays static when passed by keyword), both are validated against the signature at
``jit`` time with JAX's messages, and a static argnum that is not passed positionally (a
default, a keyword) is left alone."""

import re

import jax
import numpy as np
import pytest

import mj

pytestmark = pytest.mark.oracle


def _tracer_flags(lib, **jit_kwargs):
    seen = []

    def f(x, y):
        seen.append((isinstance(x, lib.core.Tracer), isinstance(y, lib.core.Tracer)))
        return 1

    jf = lib.jit(f, **jit_kwargs)
    for args, kwargs in [((2, "foo"), {}), ((1,), {"y": 2}), ((1,), {"y": "foo"})]:
        try:
            jf(*args, **kwargs)
        except TypeError:  # a str traced: not an array
            seen.append("TypeError")
    return seen


@pytest.mark.parametrize(
    "jit_kwargs",
    [
        {"static_argnums": 1},
        {"static_argnames": "y"},
        {"static_argnums": 1, "static_argnames": ()},
        {"static_argnums": (), "static_argnames": "y"},
        {"static_argnums": (1,), "static_argnames": "x"},
    ],
)
def test_static_arguments_by_position_or_keyword_match_jax(jit_kwargs):
    assert _tracer_flags(mj, **jit_kwargs) == _tracer_flags(jax, **jit_kwargs)


def test_static_argnum_passed_by_keyword_or_defaulted_matches_jax():
    for lib in (jax, mj):
        assert lib.jit(lambda x: len(x), static_argnums=0)(x="foo") == 3  # (a str: static)
        assert lib.jit(lambda x=4: x, static_argnums=0)() == 4


def _refusals(lib):
    def f(a, b, c): ...

    def g(a, /, b, *, c): ...

    def h(a, /, b, c, *args, **kwargs): ...

    return [
        lambda: lib.jit(f, static_argnums=(0, 1, 3)),
        lambda: lib.jit(f, donate_argnums=(0, 1, -4)),
        lambda: lib.jit(g, static_argnums=(0, 1, -3)),
        lambda: lib.jit(f, static_argnames=("b", "c", "not_defined")),
        lambda: lib.jit(h, donate_argnames=("a", "c")),
        lambda: lib.jit(h, static_argnames=("args", "c")),
        lambda: lib.jit(lambda x: x, static_argnames="x", donate_argnames="x"),
    ]


def test_argnum_and_argname_refusals_match_jax():
    for want_fn, got_fn in zip(_refusals(jax), _refusals(mj), strict=True):
        with pytest.raises(ValueError) as want:  # noqa: PT011 (the messages are compared)
            want_fn()
        with pytest.raises(ValueError) as got:  # noqa: PT011
            got_fn()
        head = re.sub(r" \(its parameters: .*|( \(in \S+ at \S+\))?\.?$", "", str(got.value))
        assert str(want.value).rstrip(".").startswith(head.rstrip("."))
    for lib in (jax, mj):  # accepted: *args takes any position, **kwargs any name
        lib.jit(lambda a, *args: a, static_argnums=(0, 5))
        lib.jit(lambda a, b, **kw: a, static_argnames=("a", "b", "not_defined"))


def test_donate_argnames_needs_a_signature_like_jax():
    class NoSignature:
        @property
        def __signature__(self):
            raise TypeError("no signature")

        def __call__(self, *args, **kwargs):
            return None

    for lib in (jax, mj):
        with pytest.raises(ValueError, match="Pass donate_argnums instead of donate_argnames"):
            lib.jit(NoSignature(), donate_argnames="a")(np.arange(4), np.arange(4))


def test_jit_refuses_what_jax_refuses_with_its_words():
    def gen(x):
        yield x

    cases = [
        (lambda lib: lib.jit(3), r"^Expected a callable value, got 3"),
        (lambda lib: lib.jit(staticmethod(abs)), "^staticmethod arguments are not supported"),
        (lambda lib: lib.jit(gen), "^Expected a function, got a generator function"),
        (
            lambda lib: lib.jit(lambda x, s: x, static_argnums=1)(1.0, np.arange(2)),
            "^Non-hashable static arguments are not supported",
        ),
    ]
    for fn, pattern in cases:
        for lib in (jax, mj):
            with pytest.raises((TypeError, ValueError), match=pattern):
                fn(lib)


def test_masked_array_refusal_wording_matches_jax():
    masked = np.ma.array([1.0, 2.0], mask=[False, True])
    for lib in (jax, mj):
        with pytest.raises(ValueError, match=r"^numpy masked arrays are not supported") as info:
            lib.jit(lambda x: x)(masked)
        assert "arr.filled()" in str(info.value)

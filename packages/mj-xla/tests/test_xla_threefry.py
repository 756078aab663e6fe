"""``threefry2x32``: Random123's known answers, the same words from the NumPy impl and from
``jit`` (rounds in a loop on the CPU, unrolled elsewhere), and a lowering that emits the hash
once per module and operand types as a private function every use calls."""

import re

import numpy as np
import pytest

import mj_xla.rules.elementwise as xla_ew
from mj_core.prims.elementwise import threefry2x32, threefry2x32_p
from mj_ir import make_jaxpr
from mj_xla import jit

# the CPU rolls the rounds into a loop (as JAX on the CPU): lowered for the CPU on any machine
pytestmark = pytest.mark.usefixtures("on_cpu")

U32 = np.uint32

# Random123's known-answer vectors for Threefry-2x32 with 20 rounds (kat_vectors): key,
# counter, result; the ones JAX's random_test checks.
KNOWN_ANSWERS = [
    ((0, 0), (0, 0), (0x6B200159, 0x99BA4EFE)),
    ((0xFFFFFFFF,) * 2, (0xFFFFFFFF,) * 2, (0x1CB996FC, 0xBB002BE7)),
    ((0x13198A2E, 0x03707344), (0x243F6A88, 0x85A308D3), (0xC4923A9C, 0x483DF7A0)),
]


def _words(*values):
    return [np.asarray(v, U32) for v in values]


@pytest.mark.parametrize(("key", "count", "want"), KNOWN_ANSWERS)
def test_known_answers_eagerly_and_under_jit(key, count, want):
    args = _words(*key, *count)
    for f in (threefry2x32, jit(threefry2x32)):
        got = f(*args)
        assert [int(np.asarray(w)) for w in got] == list(want)
        assert all(np.asarray(w).dtype == U32 for w in got)


def _operands():
    rng = np.random.default_rng(0)
    draw = lambda *shape: rng.integers(0, 2**32, shape, dtype=np.uint64).astype(U32)  # noqa: E731
    return [
        (draw(), draw(), U32(0), draw(7)),  # the PRNG's use: scalar key, high words 0
        (draw(), draw(), draw(2, 3), draw(2, 3)),
        (draw(2, 1), draw(3), draw(1, 3), draw(2, 3)),  # keys and counters broadcast
    ]


@pytest.mark.parametrize("rolled", [True, False], ids=["rolled", "unrolled"])
@pytest.mark.parametrize("case", range(3))
def test_jit_equals_the_numpy_impl(monkeypatch, rolled, case):
    args = _operands()[case]
    if not rolled:
        monkeypatch.setattr(xla_ew, "THREEFRY_ROLLED_PLATFORMS", set())
    fn = jit(lambda *a: threefry2x32(*a))  # a new function: nothing cached
    text = fn.lower(*args).as_text()
    assert ("stablehlo.while" in text) == rolled
    got = fn(*args)
    want = threefry2x32(*args)  # NumPy operands: the impl rule
    shape = np.broadcast_shapes(*(np.shape(a) for a in args))
    for g, w in zip(got, want, strict=True):
        assert np.shape(g) == shape
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))


def test_make_jaxpr_stages_one_equation_with_two_outputs():
    closed = make_jaxpr(threefry2x32)(*_operands()[0])
    (eqn,) = closed.jaxpr.eqns
    assert eqn.primitive is threefry2x32_p
    assert [v.aval.shape for v in eqn.out_binders] == [(7,), (7,)]


def _functions(text):
    """The module's functions by name, each with its body's text."""
    parts = re.split(r"(?=\bfunc\.func )", text)
    return {re.search(r"@(\w+)", p).group(1): p for p in parts if p.startswith("func.func")}


def test_the_hash_is_one_private_function_per_operand_types_called_at_each_use():
    def program(k1, k2, n):
        outs = []
        for i in range(4):  # four uses on 5 counters, two on 3: two functions, six calls
            outs += threefry2x32(k1, k2, U32(i), n)
        for i in range(2):
            outs += threefry2x32(k2, k1, U32(i), n[:3])
        return outs

    k1, k2, _, n = _operands()[0]
    n = n[:5]
    text = jit(program).lower(k1, k2, n).as_text()
    funcs = _functions(text)
    hashes = {name: body for name, body in funcs.items() if name.startswith("threefry2x32")}
    assert len(hashes) == 2
    for body in hashes.values():
        assert "private" in body.splitlines()[0]
        assert body.count("stablehlo.while") == 1
        assert body.count("stablehlo.shift_left") == 4  # one group of four rounds
    assert len(re.findall(r"call @threefry2x32", text)) == 6
    # No constant bigger than the rotation schedules (tensor<4xui32>) is embedded.
    assert not re.search(r"stablehlo.constant dense<\[.{40,}", text)
    got = jit(program)(k1, k2, n)
    want = program(k1, k2, n)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(np.asarray(g), np.asarray(w))

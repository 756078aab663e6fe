"""jit's one cache key: ``JitFunction.signature`` decides every hit and miss, whatever kind of
argument a call passes (device, committed, eager or host arrays of any dtype, Python and NumPy
scalars, pytrees of them); the dispatch memo only finds the entry the signature would find.

Each test calls a jitted function through a sequence of arguments and checks, call by call,
that the function is traced exactly when the signature's key is one not seen before (traces
are counted by a side effect in the traced function), that a repeated kind of call does not
even compute the signature again (the memo), and that the outputs are the arguments' values
in the signature's canonical dtypes (float64 NumPy data narrowed to float32 without
enable_x64, as JAX's transfer does)."""

from collections.abc import Iterator
from typing import Any

import ml_dtypes
import numpy as np
import pytest

import mj_core.numpy as mnp
from mj_core import config
from mj_core.tree_util import tree_leaves, tree_map
from mj_xla import device_put, devices, jit
from mj_xla._array import CommittedArray
from mj_xla._jit import JitFunction


@pytest.fixture(params=[False, True], ids=["x32", "x64"])
def x64(request: Any) -> Iterator[bool]:
    with config.override("enable_x64", request.param):
        yield request.param


class Probe:
    """A jitted identity-like function whose traces and signature computations are counted."""

    def __init__(self, monkeypatch: Any) -> None:
        self.traces = 0
        self.signatures = 0

        def f(*args: Any) -> Any:
            self.traces += 1
            return tree_map(lambda v: v * 1 if v.dtype != np.bool_ else v, args)

        self.jf = jit(f)
        original = JitFunction.signature

        def counted(jit_self: Any, *a: Any, **k: Any) -> Any:
            if jit_self is self.jf:
                self.signatures += 1
            return original(jit_self, *a, **k)

        monkeypatch.setattr(JitFunction, "signature", counted)
        self.seen: set[Any] = set()

    def key(self, *args: Any) -> Any:
        before = self.signatures
        key = self.jf.signature(args, {}).key
        self.signatures = before
        return key

    def call(self, *args: Any) -> tuple[bool, bool]:
        """Call once; check the output; return (traced, signature computed)."""
        key = self.key(*args)
        avals = self.jf.signature(args, {}).avals
        self.signatures -= 1
        traces, signatures = self.traces, self.signatures
        out = self.jf(*args)
        traced = self.traces - traces
        assert traced == (0 if key in self.seen else 1), (args, key in self.seen)
        self.seen.add(key)
        for got, arg, aval in zip(tree_leaves(out), tree_leaves(args), avals, strict=True):
            assert np.asarray(got).dtype == aval.dtype
            assert np.asarray(got).shape == aval.shape
            want = np.asarray(arg).astype(aval.dtype)
            np.testing.assert_array_equal(np.asarray(got), want)
        return bool(traced), self.signatures > signatures


def host_cases(rng: np.random.Generator) -> list[Any]:
    """One value per kind of host or eager leaf (called twice with other values)."""
    cases: list[Any] = []
    for dtype in (
        np.float16,
        np.float32,
        np.float64,
        ml_dtypes.bfloat16,
        np.int8,
        np.int32,
        np.int64,
        np.uint8,
        np.uint32,
        np.bool_,
        np.complex64,
        np.complex128,
    ):
        cases.append(lambda d=dtype: (rng.standard_normal((2, 3)) * 10).astype(d))
    cases += [
        lambda: rng.standard_normal(3).astype(np.float32)[::2],  # not contiguous
        lambda: np.float64(rng.standard_normal()),  # NumPy scalars: strong
        lambda: np.float32(rng.standard_normal()),
        lambda: np.int64(rng.integers(-5, 5)),
        lambda: float(rng.standard_normal()),  # Python scalars: weak
        lambda: int(rng.integers(-5, 5)),
        lambda: bool(rng.integers(0, 2)),  # (not weak)
        lambda: complex(rng.standard_normal(), 1.0),
        lambda: mnp.sin(rng.standard_normal(3)),  # an eager result
        lambda: mnp.asarray(float(rng.standard_normal())),  # a weak eager result
    ]
    return cases


def test_every_kind_of_leaf_hits_and_misses_as_the_signature_says(monkeypatch, x64):
    rng = np.random.default_rng(0)
    probe = Probe(monkeypatch)
    for make in host_cases(rng):
        first, second = make(), make()
        probe.call(first)
        # the same kind: the memo (neither traced nor the signature computed)
        assert probe.call(second) == (False, False), (first, second)
        dev = device_put(first)  # the device array of that value: the same entry
        assert probe.key(dev) == probe.key(first) or type(first) in (float, int, complex)
        probe.call(dev)
        assert probe.call(device_put(second)) == (False, False)


def test_canonical_dtypes_share_entries_in_32_bit_mode(monkeypatch):
    """Without enable_x64, float64 NumPy data is float32 data: the same signature as float32
    NumPy data and float32 device arrays (one trace); a weak Python float is another."""
    with config.override("enable_x64", False):
        probe = Probe(monkeypatch)
        x = np.linspace(0.0, 1.0, 5)
        assert probe.call(x) == (True, True)
        assert probe.call(x.astype(np.float32)) == (False, True)  # new kind, same entry
        assert probe.call(device_put(x)) == (False, True)
        assert probe.call(x + 1.0) == (False, False)
        out = probe.jf(np.full(5, 1 + 2.0**-40))  # narrowed before the transfer
        assert out[0].dtype == np.float32
        assert np.asarray(out[0])[0] == np.float32(1.0)
        assert probe.call(np.float64(0.5)) == (True, True)  # strong scalar
        assert probe.call(0.5) == (True, True)  # weak scalar
        assert probe.call(np.float32(0.25)) == (False, True)
        assert probe.call(2**31 - 1) == (True, True)
        assert probe.call(-(2**31)) == (False, False)
        with pytest.raises(OverflowError):
            probe.jf(2**31)  # not an int32: the signature refuses it (and nothing is memoized)
        assert probe.traces == 3 + 1


def test_pytrees_of_every_kind_of_leaf(monkeypatch, x64):
    """Structure is part of the signature (list vs tuple, dict keys, None); leaves of any kind
    inside them hit the memo as top-level ones do."""
    rng = np.random.default_rng(1)
    probe = Probe(monkeypatch)
    w = device_put(rng.standard_normal((3, 2)).astype(np.float32))

    def trees() -> list[Any]:
        x = rng.standard_normal((4, 3))
        return [
            ([w, x], x.astype(np.float32)),
            ((w, x), x.astype(np.float32)),
            ({"w": w, "b": 2.0}, None),
            ({"w": w, "c": 2.0}, None),
            ({"w": w, "b": [np.int32(3), (x, None)]}, 1),
            ([w, device_put(x)], x.astype(np.float32)),
        ]

    for tree in trees():
        probe.call(*tree)
    for tree in trees():  # other values, same kinds: all memo hits
        assert probe.call(*tree) == (False, False), tree
    assert probe.traces == len(probe.seen)


def test_static_and_keyword_arguments_hit_the_memo(monkeypatch, x64):
    """Static values (positional or by name) and keyword arguments are part of the signature
    and of the memo's key: a retrace exactly when the signature changes, and a call like an
    earlier one computes no signature at all."""
    traces: list[Any] = []

    def ref(x: Any, n: Any, *, scale: Any, mode: str) -> Any:
        return x * n * scale if mode == "mul" else x + n + scale

    def f(x: Any, n: Any, *, scale: Any, mode: str) -> Any:
        traces.append((n, mode))
        return ref(x, n, scale=scale, mode=mode)

    jf = jit(f, static_argnums=-1 + 2, static_argnames="mode")
    signatures: list[int] = []
    original = JitFunction.signature

    def counted(self: Any, *a: Any, **k: Any) -> Any:
        signatures.append(1)
        return original(self, *a, **k)

    rng = np.random.default_rng(3)

    def calls() -> list[tuple[Any, ...]]:
        x = rng.standard_normal(3)
        return [
            (x, 2, {"scale": 1.5, "mode": "mul"}),
            (x, 3, {"scale": 1.5, "mode": "mul"}),  # another static value
            (x, 3.0, {"scale": 1.5, "mode": "mul"}),  # 3.0 == 3: the same static value
            (x, 2, {"scale": np.float32(1.5), "mode": "mul"}),  # a strong scalar
            (x, 2, {"scale": 1.5, "mode": "add"}),  # another static keyword
            (x, 2, {"mode": "mul", "scale": device_put(x)}),  # keyword order is not
            (x.astype(np.float32), 2, {"scale": [1.5][0], "mode": "mul"}),
        ]

    seen: set[Any] = set()
    for round_ in range(2):
        for x, n, kw in calls():
            key = original(jf, (x, n), kw).key
            before = len(traces), len(signatures)
            monkeypatch.setattr(JitFunction, "signature", counted)
            got = jf(x, n, **kw)
            monkeypatch.setattr(JitFunction, "signature", original)
            traced, computed = len(traces) - before[0], len(signatures) - before[1]
            assert traced == (key not in seen), (n, kw)
            if round_ == 1:
                assert computed == 0, (n, kw)  # a kind of call seen before: the memo
            seen.add(key)
            want = ref(
                np.asarray(x),
                n,
                **{k: np.asarray(v) for k, v in kw.items() if k != "mode"},
                mode=kw["mode"],
            )
            np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6)
    assert len(traces) == len(seen)


def test_bad_static_arguments_are_refused_every_time():
    jf = jit(lambda x, n: x * n, static_argnums=1)
    for _ in range(2):  # never memoized: the signature's errors each time
        with pytest.raises(TypeError, match="missing 1 required positional argument: 'n'"):
            jf(np.ones(2))  # (as in JAX: a static argnum not passed is left to the call)
        with pytest.raises(TypeError, match="unhashable"):
            jf(np.ones(2), [2])
    np.testing.assert_array_equal(np.asarray(jf(np.ones(2), 2)), np.full(2, 2.0))


def test_clear_cache_and_mode_switch_empty_the_memo(monkeypatch):
    probe = Probe(monkeypatch)
    with config.override("enable_x64", False):
        x = np.arange(4.0)
        assert probe.call(x) == (True, True)
        assert probe.call(x) == (False, False)
        probe.jf.clear_cache()
        probe.seen.clear()
        assert probe.call(x) == (True, True)  # traced again: the memo went with the cache
    with config.override("enable_x64", True):  # switching mode empties every cache
        probe.seen.clear()
        out = probe.jf(x)
        assert out[0].dtype == np.float64  # not the 32-bit entry the memo named before
        np.testing.assert_array_equal(np.asarray(out[0]), x)


def test_eviction_drops_the_memo(monkeypatch):
    """More signatures than the cache holds: an evicted entry is traced again when called
    again, memo or not (64 entries per function)."""
    probe = Probe(monkeypatch)
    shapes = [(i + 1,) for i in range(70)]
    for s in shapes:
        probe.call(np.zeros(s, np.float32))
    assert probe.jf._cache_size() == 64
    probe.seen = {probe.key(np.zeros(s, np.float32)) for s in shapes[-64:]}
    traced, _ = probe.call(np.zeros(shapes[0], np.float32))
    assert traced  # evicted: traced again
    traced, _ = probe.call(np.zeros(shapes[-1], np.float32))
    assert not traced


def test_committed_arguments_are_their_own_signature(monkeypatch, x64):
    """A committed array's device is part of the key (its outputs are committed too); host
    data and uncommitted arrays beside it are put on that device."""
    rng = np.random.default_rng(2)
    probe = Probe(monkeypatch)
    dev = devices()[0]

    def calls() -> list[Any]:
        x = rng.standard_normal(3)
        return [
            (device_put(x, dev),),
            (device_put(x, dev), x, 1.5),
            (device_put(x, dev), device_put(x)),
            (device_put(x),),
        ]

    for args in calls():
        probe.call(*args)
    for args in calls():
        assert probe.call(*args) == (False, False)
        out = probe.jf(*args)
        committed = type(args[0]) is CommittedArray
        assert all((type(o) is CommittedArray) == committed for o in out)
    assert probe.traces == 4


def test_configuration_that_changes_traces_is_part_of_the_signature():
    """Options that change what tracing produces (dtype and rank promotion, matmul
    precision) are part of the key: a function traced with rank promotion allowed raises once
    it is set to "raise", and finds its first trace again once it is set back."""
    traces = []

    def f(x, y):
        traces.append(1)
        return mnp.add(x, y)

    jf = jit(f)
    x, y = np.ones((2, 3), np.float32), np.ones(3, np.float32)
    np.testing.assert_array_equal(np.asarray(jf(x, y)), x + y)
    with config.override("numpy_rank_promotion", "raise"), pytest.raises(ValueError, match="rank"):
        jf(x, y)
    np.testing.assert_array_equal(np.asarray(jf(x, y)), x + y)
    assert len(traces) == 2


def test_a_body_switching_dtype_promotion_keeps_its_traces():
    """A function whose body runs under ``numpy_dtype_promotion("standard")`` (JAX's tests
    wrap jnp functions so) is traced once: calling it eagerly between two jitted calls
    switches the setting and back, which leaves the jitted function's trace in place."""
    traces = []

    def body(x):
        with config.override("numpy_dtype_promotion", "standard"):
            return mnp.add(x, np.float32(0.5))  # int8 + float32: standard promotion only

    def f(x):
        traces.append(1)
        return body(x)

    x = np.arange(6, dtype=np.int8)
    with config.override("numpy_dtype_promotion", "strict"):
        jf = jit(f)
        first = jf(x)
        eager = body(x)
        again = jf(x)
    np.testing.assert_array_equal(np.asarray(first), x + np.float32(0.5))
    np.testing.assert_array_equal(np.asarray(again), np.asarray(eager))
    assert len(traces) == 1


def test_a_call_like_the_last_one_skips_the_memo_lookup(monkeypatch):
    """A training-loop call (parameters fed back from the previous outputs, a new host batch
    of one shape each time) is recognised by comparison with the last call: no signature and
    no memo lookup once it repeats, a lookup again after a call of another kind, and the
    values are those of the NumPy reference at every step."""

    class CountingMemo(dict[Any, Any]):
        lookups = 0

        def get(self, key: Any, default: Any = None) -> Any:
            CountingMemo.lookups += 1
            return super().get(key, default)

    def step(params: list[Any], x: Any) -> list[Any]:
        return [p - 0.5 * (x.sum() - p.sum()) for p in params]

    jf = jit(step)
    signatures: list[int] = []
    original = JitFunction.signature

    def counted(self: Any, *a: Any, **k: Any) -> Any:
        signatures.append(1)
        return original(self, *a, **k)

    monkeypatch.setattr(JitFunction, "signature", counted)
    jf._memo = CountingMemo()
    rng = np.random.default_rng(5)
    params: list[Any] = [device_put(np.ones(3, np.float32)), device_put(np.zeros(2, np.float32))]
    want = [np.ones(3, np.float32), np.zeros(2, np.float32)]
    for k in range(8):
        x = rng.standard_normal((2, 2) if k in (4, 5) else 4).astype(np.float32)  # (4, 5): other
        lookups, computed = CountingMemo.lookups, len(signatures)
        params = jf(params, x)
        xs = x.sum()
        want = [w - np.float32(0.5) * (xs - w.sum()) for w in want]
        for got, w in zip(params, want, strict=True):
            np.testing.assert_allclose(np.asarray(got), w, rtol=1e-5)
        counts = CountingMemo.lookups - lookups, len(signatures) - computed
        if k in (2, 3, 7):  # like the call before it: neither signature nor lookup
            assert counts == (0, 0), k
        if k == 6:  # back to the loop's kind after another: looked up, found
            assert counts == (1, 0)

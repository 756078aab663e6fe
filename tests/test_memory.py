"""Memory: transformations leave nothing behind (no tracer, trace, jaxpr builder or
intermediate array stays referenced once grad/vmap/jit return), jit caches are bounded, and
a jitted function's compiled executables die with it."""

import gc
import resource
import weakref

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj_core import MainTrace, Tracer
from mj_ir.extend import JaxprBuilder
from mj_xla.extend import Executable

X = np.linspace(-1.0, 1.0, 50)


def _live(kind: type) -> int:
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, kind))


def _live_ids(*kinds: type) -> set[int]:
    """The ids of the live objects of ``kinds``: what a transformation leaves behind is what
    is live after it and was not before (objects an earlier test left may die meanwhile)."""
    gc.collect()
    return {id(o) for o in gc.get_objects() if isinstance(o, kinds)}


def _transformations():
    return {
        "grad": lambda f: mj.grad(lambda x: mnp.sum(f(x))),
        "vmap": lambda f: mj.vmap(f),
        "jvp": lambda f: lambda x: mj.jvp(f, (x,), (x,)),
        "vjp": lambda f: lambda x: mj.vjp(f, x)[1](x),
        "linearize": lambda f: lambda x: mj.linearize(f, x)[1](x),
        "jit": lambda f: mj.jit(f),
        "jit_of_grad": lambda f: mj.jit(mj.grad(lambda x: mnp.sum(f(x)))),
        "vmap_of_grad": lambda f: mj.vmap(mj.grad(lambda x: mnp.sum(f(x)))),
        "make_jaxpr": lambda f: mj.make_jaxpr(f),
    }


@pytest.mark.parametrize("name", sorted(_transformations()))
def test_nothing_stays_referenced_after_a_transformation_returns(name):
    refs: list[weakref.ref] = []

    def f(x):
        big = np.full(x.shape, 3.0)  # an intermediate array of the user's
        refs.append(weakref.ref(big))
        return mnp.sin(x) * big

    before = _live_ids(Tracer, MainTrace, JaxprBuilder)
    transformed = _transformations()[name](f)
    transformed(X)
    del transformed
    left = _live_ids(Tracer, MainTrace, JaxprBuilder) - before
    assert not left, [o for o in gc.get_objects() if id(o) in left]
    if name not in ("jit", "jit_of_grad", "make_jaxpr"):  # those keep constants in the jaxpr
        assert all(r() is None for r in refs), "an intermediate array is still referenced"


def test_jit_constants_and_executables_die_with_the_function():
    refs: list[weakref.ref] = []

    def make():
        big = np.full(1000, 2.0)
        refs.append(weakref.ref(big))
        return mj.jit(lambda x: x * big)

    f = make()
    np.testing.assert_allclose(f(np.ones(1000)), 2.0)
    exe_refs = [weakref.ref(e.executable) for e in f._cache.values()]
    assert exe_refs
    assert exe_refs[0]() is not None
    del f
    gc.collect()
    assert refs[0]() is None, "the jitted function's constant outlived it"
    assert all(r() is None for r in exe_refs), "a compiled executable outlived its function"


def test_jit_executable_cache_is_bounded_per_function():
    # Executables alive before this test (other jitted functions, mj_xla's bounded global
    # cache of closed-jaxpr executables) are not this function's: count only the growth.
    before = _live(Executable)
    f = mj.jit(lambda x: x + 1.0)
    exes: list[weakref.ref] = []
    for n in range(1, 81):
        f(np.ones(n))
        exes.extend(weakref.ref(e.executable) for e in f._cache.values() if e.executable)
    gc.collect()
    assert f._cache_size() <= 64
    assert sum(1 for r in {id(r()): r for r in exes if r() is not None}.values()) <= 64
    assert _live(Executable) - before <= 64, "evicted executables are still alive"


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def test_rss_stays_flat_over_10000_distinct_shapes():
    """Tracing (and caching) 10,000 signatures of one function keeps the peak RSS within a
    generous bound: the per-function cache evicts old signatures."""

    def g(x):
        return mnp.tanh(x * 2.0 + 1.0).sum()

    f = mj.jit(g)
    for n in range(1, 501):  # warm up allocator and caches
        f.lower(mj.ShapeDtypeStruct((n,), np.float64))
    start = _rss_mb()
    for n in range(501, 10_501):
        f.lower(mj.ShapeDtypeStruct((n,), np.float64))
    assert f._cache_size() <= 64
    assert _rss_mb() - start < 50.0, f"peak RSS grew by {_rss_mb() - start:.1f} MB"


def test_eager_grad_loop_keeps_rss_flat():
    def loss(w):
        return mnp.sum(mnp.tanh(w @ w.T))

    w = np.random.default_rng(0).normal(size=(60, 60))
    g = mj.grad(loss)
    for _ in range(20):
        g(w)
    start = _rss_mb()
    for _ in range(300):
        g(w)
    assert _rss_mb() - start < 20.0


def test_lower_accepts_shape_dtype_structs():
    """Regression: jit(f).lower(ShapeDtypeStruct) raised 'an argument leaf is a
    ShapeDtypeStruct, not an array' although lower's docstring (and JAX) accept it."""
    f = mj.jit(lambda x: x * 2.0)
    text = f.lower(mj.ShapeDtypeStruct((3,), np.float32)).as_text()
    assert "tensor<3xf32>" in text
    with pytest.raises(TypeError, match="ShapeDtypeStruct"):
        f(mj.ShapeDtypeStruct((3,), np.float32))  # calling still needs data


# --- creations larger than the machine (issue 24) ----------------------------------------------
HUGE = {
    "zeros": lambda: mnp.zeros((2**40,)),
    "full": lambda: mnp.full((2**40,), 3.0),
    "ones 2-d": lambda: mnp.ones((2**20, 2**20), np.int8),
    "empty_like": lambda: mnp.empty_like(np.ones(1), shape=(2**41,)),
    "broadcast_to": lambda: mnp.broadcast_to(np.ones(1), (2**40,)),
    "eye": lambda: mnp.eye(2**21),
    "arange": lambda: mnp.arange(2**42),
}


@pytest.mark.parametrize("make", HUGE.values(), ids=HUGE.keys())
def test_a_creation_larger_than_memory_fails_at_once_naming_the_size(make):
    """mnp.zeros((2**40,)) returned a lazily mapped view and the process was killed later;
    JAX refuses the allocation (RESOURCE_EXHAUSTED), and so does mj, with the byte count."""
    with pytest.raises(mj.errors.ResourceExhaustedError, match=r"RESOURCE_EXHAUSTED.* \d+ bytes"):
        make()
    assert isinstance(mj.errors.ResourceExhaustedError("x"), MemoryError)


def test_the_guard_counts_bytes_not_elements():
    with pytest.raises(MemoryError, match=r"allocating 4398046511104 bytes"):
        mnp.zeros((2**39,), np.float64)
    assert mnp.zeros((1000, 1000)).sum() == 0.0  # ordinary sizes are untouched

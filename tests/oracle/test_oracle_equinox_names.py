"""Names equinox's own test files use, compared with JAX: ``jnp.save`` / ``savez`` /
``load`` (``eqx.tree_serialise_leaves`` writes every array leaf with ``jnp.save`` and reads
it back with ``jnp.load``), ``jax.effects_barrier`` (called before reading what callbacks
printed) and ``jax.lib.__version__`` (read at import time)."""

import io
import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import mj
import mj.numpy as mnp

pytestmark = pytest.mark.oracle


@pytest.mark.parametrize(
    "make",
    [
        lambda xnp: xnp.arange(6.0).reshape(2, 3),
        lambda xnp: xnp.asarray(3),  # weakly typed
        lambda xnp: xnp.array([1.5, -2.25], dtype=xnp.bfloat16),
        lambda xnp: xnp.array([True, False]),
    ],
    ids=["f32", "weak-int", "bf16", "bool"],
)
def test_save_load_round_trip_as_jax(x64, make):
    def round_trip(xnp):
        f = io.BytesIO()
        xnp.save(f, make(xnp))
        written = f.getvalue()
        f.seek(0)
        return written, xnp.load(f)

    (j_bytes, want), (m_bytes, got) = round_trip(jnp), round_trip(mnp)
    assert m_bytes == j_bytes  # the same .npy file
    assert isinstance(got, mj.Array)
    assert got.dtype == want.dtype
    assert got.shape == want.shape
    assert mj.typeof(got).weak_type == jax.typeof(want).weak_type
    np.testing.assert_array_equal(np.asarray(got), np.asarray(want))


def test_savez_and_npz_load_as_jax():
    def archive(xnp):
        f = io.BytesIO()
        xnp.savez(f, a=xnp.arange(3), b=xnp.ones((2, 2)))
        f.seek(0)
        return xnp.load(f)

    want, got = archive(jnp), archive(mnp)
    # JAX returns NumPy's NpzFile for an archive: the arrays are NumPy's
    assert type(got) is type(want)
    assert sorted(got.files) == sorted(want.files) == ["a", "b"]
    for k in want.files:
        np.testing.assert_array_equal(got[k], want[k])
        assert got[k].dtype == want[k].dtype


def test_save_is_numpys_as_jax():
    assert mnp.save is jnp.save is np.save
    assert mnp.savez is jnp.savez is np.savez


def test_effects_barrier_after_callbacks_as_jax(capsys):
    def run(lib, xnp):
        f = lib.jit(lambda x: (lib.debug.print("x={x}", x=x), x + 1)[1])
        f(xnp.float32(2.0))
        lib.debug.print("eager {y}", y=xnp.arange(2))
        assert lib.effects_barrier() is None
        return capsys.readouterr().out

    want = run(jax, jnp)
    assert run(mj, mnp) == want == "x=2.0\neager [0 1]\n"


def test_as_jax_lib_version():
    code = "import jax.lib, jax; print(jax.lib.__version__ == jax.__version__, jax.lib.__name__)"
    out = subprocess.run(
        [sys.executable, "-m", "mj.as_jax", "-c", code],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["True", "jax.lib"]
    assert jax.lib.__version__ == jax.__version__  # what JAX reports

"""The persistent compilation cache across processes (JAX's jax_compilation_cache_dir): a
second process running the same program loads the executable the first one stored; programs
with Python callbacks are never stored."""

import os
import subprocess
import sys
import textwrap

import numpy as np

import mj
import mj.numpy as mnp
from mj.experimental.compilation_cache import compilation_cache

SCRIPT = textwrap.dedent(
    """
    import sys
    import numpy as np
    import mj, mj.numpy as mnp
    from mj.experimental.compilation_cache import compilation_cache
    from mj_xla import _jaxlib

    compiles = []
    original = _jaxlib._compile_now
    _jaxlib._compile_now = lambda *a: compiles.append(1) or original(*a)
    compilation_cache.set_cache_dir(sys.argv[1])
    mj.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    f = mj.jit(lambda x: mnp.tanh(x @ x.T).sum())
    print(float(f(np.arange(12.0, dtype=np.float32).reshape(3, 4) / 10)), len(compiles))
    """
)


def test_a_second_process_loads_the_stored_executable(tmp_path):
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    runs = [
        subprocess.run(
            [sys.executable, "-c", SCRIPT, str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=120,
            env=env,
            check=True,
        ).stdout.split()
        for _ in range(2)
    ]
    x = np.arange(12.0).reshape(3, 4) / 10
    want = np.tanh(x @ x.T).sum()
    for value, _ in runs:
        np.testing.assert_allclose(float(value), want, rtol=1e-5)
    assert [count for _, count in runs] == ["1", "0"]  # compiled once, then loaded
    assert len([p for p in tmp_path.iterdir() if p.name.startswith("mj-")]) == 1


def test_programs_with_python_callbacks_are_not_stored(tmp_path):
    compilation_cache.set_cache_dir(tmp_path)
    try:
        with mj.config.override("persistent_cache_min_compile_time_secs", 0.0):
            spec = mj.ShapeDtypeStruct((2,), np.float32)
            f = mj.jit(lambda x: mj.pure_callback(lambda v: np.asarray(v) * 2, spec, x) + 1.0)
            np.testing.assert_array_equal(f(mnp.ones(2, np.float32)), [3.0, 3.0])
            assert list(tmp_path.iterdir()) == []
            mj.jit(lambda x: x - 1.0)(mnp.ones(2, np.float32))
            assert len(list(tmp_path.iterdir())) == 1
    finally:
        mj.config.update("compilation_cache_dir", None)

"""With jax installed (this environment), mj must not import it (issue 24): jaxlib's DLPack
import builds each array's aval through ``jax.core``, which pulled in the whole jax package on
mj's first device transfer. A fresh interpreter checks ``sys.modules`` after real work."""

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.oracle

PROGRAM = """
import sys
import numpy as np
import mj, mj.numpy as mnp
x = np.linspace(0.0, 1.0, 5)
y = mj.jit(lambda v: mnp.sin(v) * 2.0)(x)
z = mj.device_put(x) + y
g = mj.grad(lambda v: mnp.sum(mnp.cos(v)))(mj.device_put(x))
assert np.allclose(np.asarray(z), x + 2 * np.sin(x)), z
assert np.allclose(np.asarray(g), -np.sin(x)), g
print(sorted(m for m in sys.modules if m == "jax" or m.startswith("jax.")))
"""


def test_jit_and_device_put_do_not_import_jax():
    import importlib.util

    assert importlib.util.find_spec("jax") is not None  # the premise: jax is importable here
    result = subprocess.run(
        [sys.executable, "-c", PROGRAM],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        check=False,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]", result.stdout

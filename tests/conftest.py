"""Cross-package tests (tests/) configuration.

tests/oracle compares mj against real JAX. jax is installed only in the `oracle` hatch
environment (`hatch run oracle:test`), never in the main test environment, so that no mj
code can come to depend on it by accident; without jax the oracle tests are not collected.
"""

import functools
import importlib.util

import pytest

from mj_core import config

# Most tests compare with NumPy's 64-bit results: they run with 64-bit types. Tests marked
# ``x32`` (the docs, the seeds' examples, the dtype defaults) run in mj's default 32-bit mode.
config.update("enable_x64", True)


@pytest.fixture(autouse=True)
def _dtype_mode(request: pytest.FixtureRequest):
    if request.node.get_closest_marker("x32") is None:
        yield
    else:
        with config.override("enable_x64", False):
            yield


@functools.cache
def _gpu_plugin_installed() -> bool:
    from mj_xla import _plugins  # (finds plugins without starting a backend)

    return bool(_plugins.discover_plugins())


@pytest.fixture(autouse=True)
def _full_precision_products_where_a_gpu_may_compute(request: pytest.FixtureRequest):
    """The suite's float32 expectations are full-precision products; a GPU's default
    precision is TF32, as in JAX (compared with JAX's in oracle/test_oracle_gpu.py, which this
    leaves alone). Nothing changes on the CPU, whose default is full precision."""
    if (
        request.node.get_closest_marker("oracle") is not None
        or request.node.get_closest_marker("default_precision") is not None
        or not _gpu_plugin_installed()
    ):
        yield
    else:
        with config.override("default_matmul_precision", "highest"):
            yield


@pytest.fixture
def cpu_machine():
    """Skips the test where a GPU plugin is installed: it checks what a machine without one
    does (the default backend, the pages' printed output)."""
    if _gpu_plugin_installed():
        pytest.skip("checks a machine without a GPU plugin; this one has one")


@pytest.fixture
def on_cpu():
    """Computations without committed inputs run on the CPU during the test (what only the
    CPU lowers, as in JAX: ``schur``; the CPU's own rounding), also where a GPU is the
    default backend."""
    with config.override("default_device", "cpu"):
        yield


collect_ignore = [] if importlib.util.find_spec("jax") else ["oracle"]

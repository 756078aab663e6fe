"""Cross-package tests (tests/) configuration.

tests/oracle compares mj against real JAX. jax is installed only in the `oracle` hatch
environment (`hatch run oracle:test`), never in the main test environment, so that no mj
code can come to depend on it by accident; without jax the oracle tests are not collected.
"""

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


collect_ignore = [] if importlib.util.find_spec("jax") else ["oracle"]

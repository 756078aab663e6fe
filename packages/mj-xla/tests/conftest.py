"""mj-xla test configuration: every jaxpr a transformation produces is typechecked, and the
helpers shared by the test modules (as fixtures, not importable modules)."""

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from mj_core import config

config.check_jaxprs = True
# These tests compare with NumPy's 64-bit results: they run with 64-bit types; the default
# (32-bit) mode is tested where a test overrides enable_x64.
config.update("enable_x64", True)


def _assert_same(got: Any, want: Any, rtol: float = 1e-6, atol: float = 1e-6) -> None:
    got_np, want_np = np.asarray(got), np.asarray(want)
    assert got_np.shape == want_np.shape, (got_np.shape, want_np.shape)
    assert got_np.dtype == want_np.dtype, (got_np.dtype, want_np.dtype)
    if got_np.dtype.kind in "fc":
        np.testing.assert_allclose(got_np, want_np, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got_np, want_np)


@pytest.fixture
def assert_same() -> Callable[..., None]:
    """``assert_same(got, want)``: same shape, same dtype, equal values (float tolerance)."""
    return _assert_same


@pytest.fixture
def on_cpu() -> Any:
    """Computations without committed inputs run on the CPU during the test: tests of the CPU
    backend's lowering (LAPACK targets, rolled loops) on a machine whose default is a GPU."""
    with config.override("default_device", "cpu"):
        yield


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(0)

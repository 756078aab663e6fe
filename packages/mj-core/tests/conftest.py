"""mj-core tests: every jaxpr produced while testing is typechecked; shared fixtures."""

import numpy as np
import pytest

from mj_core import config

config.check_jaxprs = True
# These tests compare with NumPy's 64-bit results: they run with 64-bit types; the default
# (32-bit) mode is tested where a test overrides enable_x64.
config.update("enable_x64", True)


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(0)


def random_array(rng: np.random.Generator, shape, dtype) -> np.ndarray:
    """Random values of ``dtype`` (small ints, bools, floats in [-2, 2])."""
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return rng.random(shape) < 0.5
    if dtype.kind in "iu":
        lo = 0 if dtype.kind == "u" else -5
        return rng.integers(lo, 6, size=shape).astype(dtype)
    if dtype.kind == "c":
        return (rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)).astype(dtype)
    return rng.uniform(-2, 2, shape).astype(dtype)


@pytest.fixture
def rand(rng):
    def make(shape, dtype=np.float64):
        return random_array(rng, shape, dtype)

    return make

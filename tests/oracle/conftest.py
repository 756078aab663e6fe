"""Oracle tests compare mj with real JAX in 64-bit mode (mj's default float is float64, like
NumPy; JAX needs x64 enabled to agree). Jaxprs mj produces are typechecked here too."""

import math
import os
import zlib
from collections import defaultdict

import jax
import pytest

from mj_core import config

jax.config.update("jax_enable_x64", True)
config.check_jaxprs = True


@pytest.fixture(params=[False, True], ids=["x32", "x64"])
def x64(request):
    """Both modes, JAX's and mj's switched together (tests comparing 32-bit defaults)."""
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", request.param)
    with config.override("enable_x64", request.param):
        yield request.param
    jax.config.update("jax_enable_x64", before)


# --- sampled sweeps ---------------------------------------------------------------------------
#: A test function with at least SWEEP cases is a sweep: the same check over many functions,
#: dtypes or inputs. By default a deterministic sixth of its cases runs (at least SWEEP_KEEP),
#: chosen by a hash of each case's id, so every run on every machine runs the same cases; JAX's
#: own suite samples its generated cases the same way (JAX_NUM_GENERATED_CASES). This keeps
#: `hatch run all` within its 20 minutes on the 2-core CI machine. MJ_ORACLE_CASES=all (or
#: `hatch run oracle:full`) runs every case.
SWEEP = 16
SWEEP_KEEP = 8
SWEEP_FRACTION = 6


def pytest_collection_modifyitems(config, items):
    if os.environ.get("MJ_ORACLE_CASES", "").lower() == "all":
        return
    by_function = defaultdict(list)
    for item in items:
        by_function[item.nodeid.split("[", 1)[0]].append(item)
    dropped = set()
    for cases in by_function.values():
        if len(cases) < SWEEP:
            continue
        keep = max(SWEEP_KEEP, math.ceil(len(cases) / SWEEP_FRACTION))
        ranked = sorted(cases, key=lambda item: zlib.crc32(item.nodeid.encode()))
        dropped.update(id(item) for item in ranked[keep:])
    if dropped:
        config.hook.pytest_deselected(items=[i for i in items if id(i) in dropped])
        items[:] = [i for i in items if id(i) not in dropped]

"""JAX's promotion table, cell by cell, in both x64 modes (issue 18).

Every pair of JAX's dtypes, each strong and weak (a ``weak_type`` value of that dtype, as a
Python scalar or an expression of them produces), goes through ``mj_core``'s lattice and
through ``jax._src.dtypes.result_type``; ``jnp.promote_types`` is compared for every pair of
dtypes and Python scalar types. Any differing cell is printed. Both tables are compared on the
standard lattice and on the strict one (``jax_numpy_dtype_promotion="strict"``).
"""

import functools
import itertools
import warnings

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from jax._src import dtypes as jax_dtypes
from jax._src.lax import lax as jax_lax

from mj_core import _lattice as L  # noqa: N812
from mj_core import config

DTYPES = sorted(L.SUPPORTED_DTYPES, key=str)
jax_result_type = functools.partial(jax_dtypes.result_type, return_weak_type_flag=True)


@pytest.fixture(params=[False, True], ids=["x32", "x64"])
def x64(request):
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", request.param)
    yield request.param
    jax.config.update("jax_enable_x64", before)


@pytest.fixture(params=["standard", "strict"])
def promotion(request):
    before = jax.config.jax_numpy_dtype_promotion
    jax.config.update("jax_numpy_dtype_promotion", request.param)
    with config.override("numpy_dtype_promotion", request.param):
        yield request.param
    jax.config.update("jax_numpy_dtype_promotion", before)


def _outcome(fn, *args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args)
    except Exception as e:  # the exception class is part of the contract
        return type(e).__name__


@pytest.mark.usefixtures("promotion")
def test_result_type_table_matches_jax(x64):
    values = {}
    for dt in DTYPES:
        for weak in (False, True):
            if weak and dt.kind not in "iufc":
                continue
            value = _outcome(jax_lax._convert_element_type, np.zeros((), dt), dt, weak)
            if not isinstance(value, str):  # a dtype this jaxlib cannot hold (e.g. float6)
                values[(dt, weak)] = value
    diffs = []
    for va, vb in itertools.product(values.values(), repeat=2):
        want = _outcome(jax_result_type, va, vb)
        if isinstance(want, tuple):
            want = (np.dtype(want[0]), want[1])
        got = _outcome(L.result_type, [(va.dtype, va.weak_type), (vb.dtype, vb.weak_type)], x64)
        if got != want:
            diffs.append(
                f"{va.dtype}{'*' if va.weak_type else ''} + {vb.dtype}"
                f"{'*' if vb.weak_type else ''}: jax {want}, mj {got}"
            )
    assert not diffs, "\n".join(diffs)


@pytest.mark.usefixtures("promotion")
def test_promote_types_matches_jax(x64):
    diffs = []
    for a, b in itertools.product([*DTYPES, int, float, complex], repeat=2):
        want = _outcome(jnp.promote_types, a, b)
        got = _outcome(L.promote_types, a, b, x64)
        if got != want:
            diffs.append(f"{a} x {b}: jax {want}, mj {got}")
    assert not diffs, "\n".join(diffs)

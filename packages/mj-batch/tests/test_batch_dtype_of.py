"""One answer to "what is this operand's dtype": mj-batch asks mj-core's canonical
``dtype_of`` (a float64 NumPy array is float32 data without enable_x64, as its aval says),
instead of an answer of its own that read the host dtype (issue 38)."""

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import mj_batch.extend as batch_extend
import mj_core.numpy as mnp
from mj_batch import vmap
from mj_batch._jacobian import _std_basis
from mj_core import config, get_aval
from mj_core.dtypes import dtype_of


@pytest.fixture(params=[False, True], ids=["x32", "x64"])
def x64(request: Any) -> Iterator[bool]:
    with config.override("enable_x64", request.param):
        yield request.param


OPERANDS = [
    np.ones(3),  # float64
    np.ones(3, np.int64),
    np.ones(3, np.uint64),
    np.ones(3, np.complex128),
    np.ones(3, np.float16),
    np.ones(3, np.bool_),
    np.float64(1.5),
    np.int64(2),
    1.5,
    2,
    True,
    1j,
]


@pytest.mark.parametrize("operand", OPERANDS, ids=lambda x: f"{type(x).__name__}")
def test_batch_and_core_dtype_of_agree_with_the_aval(operand, x64):
    want = get_aval(operand).dtype
    assert dtype_of(operand) == want
    assert batch_extend.dtype_of(operand) == want
    if not x64 and np.asarray(operand).dtype.itemsize == 8 and not isinstance(operand, bool):
        assert want.itemsize == 4  # narrowed: the answer the old mj-batch helper got wrong


def test_eager_results_and_batch_tracers_agree(x64):
    eager = mnp.sin(np.ones(2))
    assert batch_extend.dtype_of(eager) == dtype_of(eager) == get_aval(eager).dtype
    seen: list[tuple[Any, Any, Any]] = []

    def f(v: Any) -> Any:
        seen.append((v.dtype, batch_extend.dtype_of(v), v.aval.dtype))
        return v * 2.0

    out = vmap(f)(np.ones((3, 2)))
    ((tracer, helper, aval),) = seen
    assert tracer == helper == aval == out.dtype
    assert out.dtype == (np.float64 if x64 else np.float32)


def test_jacobian_basis_has_the_canonical_dtype(x64):
    """jacfwd's standard basis for a float64 NumPy input: float32 without enable_x64."""
    _, (basis,) = _std_basis([np.ones(3)])
    assert basis.dtype == (np.float64 if x64 else np.float32)

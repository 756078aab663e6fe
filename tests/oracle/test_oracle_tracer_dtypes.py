"""One answer to an operand's dtype inside every transformation: what a traced function sees
as ``x.dtype`` (and ``x.aval.dtype``) for NumPy and Python inputs is JAX's canonical dtype
in both dtype modes (a float64 NumPy input is float32 without x64), as vmap, jit, jvp, grad
and make_jaxpr each see it."""

from collections.abc import Callable
from typing import Any

import jax
import numpy as np
import pytest

import mj

pytestmark = pytest.mark.oracle

INPUTS = [
    np.ones(3),  # float64
    np.ones(3, np.float32),
    np.ones(3, np.float16),
    np.float64(2.0),
    2.0,
]


def _seen(api: Any, transform: str, x: Any) -> list[Any]:
    seen: list[Any] = []

    def f(v: Any) -> Any:
        seen.append(np.dtype(v.dtype))
        return (v * v).sum()

    transforms: dict[str, Callable[[], Any]] = {
        "grad": lambda: api.grad(f)(x),
        "jvp": lambda: api.jvp(f, (x,), (np.ones_like(x),)),
        "jit": lambda: api.jit(f)(x),
        "make_jaxpr": lambda: api.make_jaxpr(f)(x),
        "vmap": lambda: api.vmap(f)(np.stack([x, x])),
    }
    transforms[transform]()
    return seen


@pytest.mark.parametrize("transform", ["grad", "jvp", "jit", "make_jaxpr", "vmap"])
@pytest.mark.parametrize("x", INPUTS, ids=lambda x: f"{type(x).__name__}-{np.asarray(x).dtype}")
def test_traced_dtype_is_jaxs(x64, transform, x):
    if transform == "vmap" and np.ndim(x) == 0:
        x = np.asarray(x)
    assert _seen(mj, transform, x) == _seen(jax, transform, x)

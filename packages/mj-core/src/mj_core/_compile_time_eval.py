"""``ensure_compile_time_eval``: evaluate eagerly while a function is being traced.

Tracing is omnistaging: inside ``jit``/``make_jaxpr`` even operations on constants are staged
(the dynamic trace is the tracing one). In this block the dynamic trace is the eval trace
again, so operations on concrete values run now and give concrete results (usable in Python
control flow), while operations on traced values are still staged, as in JAX.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from mj_core._trace import current_trace_stack, new_dynamic

__all__ = ["ensure_compile_time_eval"]


@contextmanager
def ensure_compile_time_eval() -> Iterator[None]:
    """Inside the block, operations on concrete values are evaluated eagerly, even under
    ``jit`` (JAX's ``jax.ensure_compile_time_eval``)."""
    with new_dynamic(current_trace_stack()[0]):
        yield

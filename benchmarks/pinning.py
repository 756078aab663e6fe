"""One thread for every system, set before NumPy, jaxlib or torch are imported.

The comparison is per-core speed: BLAS pools, Eigen's thread pool in XLA's CPU client (mj's
and JAX's, the same jaxlib) and torch's intra-op pool would otherwise race each other and the
neighbours on a shared machine. Environment variables only take effect if they are set before
the library that reads them is loaded, so ``run.py`` calls :func:`pin_threads` first thing;
torch's own pools are pinned when the peer is loaded (``harness.load_peers``).
"""

from __future__ import annotations

import os
import sys

#: Environment read by OpenMP, MKL, OpenBLAS, NumPy's BLAS and XLA's CPU client.
PINNED_ENV = {
    "OMP_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
    "VECLIB_MAXIMUM_THREADS": "1",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
    "JAX_PLATFORMS": "cpu",
    "TF_CPP_MIN_LOG_LEVEL": "2",
}

_LATE = ("numpy", "jaxlib", "jax", "torch")


def pin_threads() -> list[str]:
    """Set :data:`PINNED_ENV` (keeping what the user already set); return the libraries that
    were imported too early for it to apply (empty when called first thing)."""
    for key, value in PINNED_ENV.items():
        current = os.environ.get(key)
        if current is None:
            os.environ[key] = value
        elif key == "XLA_FLAGS" and value not in current:
            os.environ[key] = f"{current} {value}"
    return [name for name in _LATE if name in sys.modules]

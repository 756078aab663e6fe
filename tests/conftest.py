"""Cross-package tests (tests/) configuration.

tests/oracle compares mj against real JAX. jax is installed only in the `oracle` hatch
environment (`hatch run oracle:test`), never in the main test environment, so that no mj
code can come to depend on it by accident; without jax the oracle tests are not collected.
"""

import importlib.util

collect_ignore = [] if importlib.util.find_spec("jax") else ["oracle"]

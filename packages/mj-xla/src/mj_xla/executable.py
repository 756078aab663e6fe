"""TRANSITIONAL: the old path of :mod:`mj_xla._executable` (tests/test_memory.py imports it);
the coordinator deletes this module once that import goes through ``mj_xla.extend``."""

from mj_xla._executable import Executable as Executable

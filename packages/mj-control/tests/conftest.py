"""Test configuration for mj-control: every jaxpr produced in these tests is type-checked."""

from mj_core import config

config.check_jaxprs = True
# These tests compare with NumPy's 64-bit results: they run with 64-bit types; the default
# (32-bit) mode is tested where a test overrides enable_x64.
config.update("enable_x64", True)

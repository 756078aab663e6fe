"""mj-ir tests: every jaxpr produced while testing is typechecked."""

from mj_core import config

config.check_jaxprs = True
# These tests compare with NumPy's 64-bit results: they run with 64-bit types; the default
# (32-bit) mode is tested where a test overrides enable_x64.
config.update("enable_x64", True)

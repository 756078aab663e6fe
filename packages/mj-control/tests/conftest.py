"""Test configuration for mj-control: every jaxpr produced in these tests is type-checked."""

from mj_core import config

config.check_jaxprs = True

"""mj-batch tests: every jaxpr a transformation produces is typechecked."""

from mj_core import config

config.check_jaxprs = True

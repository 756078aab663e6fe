"""mj-ir tests: every jaxpr produced while testing is typechecked."""

from mj_core import config

config.check_jaxprs = True

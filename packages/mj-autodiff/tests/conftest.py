"""Shared test setup for mj-autodiff: every jaxpr a transformation builds is typechecked."""

from __future__ import annotations

from mj_core import config

config.check_jaxprs = True

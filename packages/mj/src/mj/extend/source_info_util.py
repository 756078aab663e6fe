"""``mj.extend.source_info_util``: JAX's ``jax.extend.source_info_util.register_exclusion``.

A library registers its directory so that the source location mj reports for an operation
(in error messages and jaxpr source info) is the user's frame, not the library's.
"""

from mj_core.errors import register_exclusion as register_exclusion

__all__ = ["register_exclusion"]

"""The extension API of mj-control: its primitives, for interpreters and rules written outside.

A custom jaxpr interpreter (seed 004's ``inverse`` example) or a higher layer's rule matches on
these objects; every rule of theirs is registered inside mj-control, so nothing else is needed.
``mj_control``'s ``__init__`` is the user API (``cond``, ``scan``, ...), which JAX's ``lax``
also exports these primitives under.
"""

from mj_control._checkpoint import checkpoint_p as checkpoint_p
from mj_control._checkpoint import remat_p as remat_p
from mj_control._checkpoint_name import name_p as name_p
from mj_control._cond import cond_p as cond_p
from mj_control._linear_solve import linear_solve_p as linear_solve_p
from mj_control._scan import scan_p as scan_p
from mj_control._while import while_p as while_p

"""Layer 6 of mini-JAX (mj): structured control flow.

Owns ``cond``, ``switch``, ``platform_dependent``, ``while_loop``, ``fori_loop``, ``scan``,
``map``, ``checkpoint`` and the implicitly differentiated solvers ``custom_root`` and
``custom_linear_solve``, registering each primitive's rules (impl, abstract eval, jvp, vmap,
partial eval, transpose, lowering) into the lower layers' tables, and the loop of mj-core's
``lax.scatter_apply`` (``x.at[idx].apply``) into ``scatter_apply_rules``. It may import
``mj_xla`` and every layer below it; never ``mj``.
"""

from mj_control import _scatter_apply as _scatter_apply  # registers lax.scatter_apply's loop
from mj_control._checkpoint import checkpoint as checkpoint
from mj_control._checkpoint import checkpoint_p as checkpoint_p
from mj_control._checkpoint import remat as remat
from mj_control._checkpoint import remat_p as remat_p
from mj_control._checkpoint_name import checkpoint_name as checkpoint_name
from mj_control._checkpoint_name import name_p as name_p
from mj_control._checkpoint_policies import checkpoint_policies as checkpoint_policies
from mj_control._cond import cond as cond
from mj_control._cond import cond_p as cond_p
from mj_control._cond import switch as switch
from mj_control._custom_root import custom_root as custom_root
from mj_control._linear_solve import custom_linear_solve as custom_linear_solve
from mj_control._linear_solve import linear_solve_p as linear_solve_p
from mj_control._map import map as map
from mj_control._platform_dependent import platform_dependent as platform_dependent
from mj_control._platform_dependent import platform_index_p as platform_index_p
from mj_control._reduce import reduce as reduce
from mj_control._reduce import reduce_p as reduce_p
from mj_control._reduce import reduce_window as reduce_window
from mj_control._reduce import reduce_window_p as reduce_window_p
from mj_control._scan import scan as scan
from mj_control._scan import scan_p as scan_p
from mj_control._while import fori_loop as fori_loop
from mj_control._while import while_loop as while_loop
from mj_control._while import while_p as while_p
from mj_core.errors import register_exclusion as _register_exclusion

_register_exclusion(__path__[0])  # its frames are never "the user's line" in errors

__version__ = "0.1.0"

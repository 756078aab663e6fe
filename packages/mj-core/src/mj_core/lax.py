"""``mj_core.lax``: the lax namespace, ``jax.lax``'s names and signatures.

Every name is defined once, in the family file of the primitive it binds
(``mj_core/prims/<family>.py``: the primitives and their lax wrappers, which follow
``jax.lax``: array operands positional, metadata as keywords, except that elementwise
operations broadcast and promote like NumPy). This namespace is the union of those families'
``__all__``; the linear-algebra family is ``mj_core.lax.linalg`` (``jax.lax.linalg``) and the
host-callback primitives are not lax API.
"""

from mj_core import lax_linalg as linalg
from mj_core.prims import complex as _complex
from mj_core.prims import contractions as _contractions
from mj_core.prims import conversions as _conversions
from mj_core.prims import convolution as _convolution
from mj_core.prims import elementwise as _elementwise
from mj_core.prims import fft as _fft
from mj_core.prims import indexing as _indexing
from mj_core.prims import parallel as _parallel
from mj_core.prims import reductions as _reductions
from mj_core.prims import sorting as _sorting
from mj_core.prims import special as _special
from mj_core.prims import structural as _structural
from mj_core.prims import tokens as _tokens
from mj_core.prims import windowed as _windowed
from mj_core.prims.complex import *
from mj_core.prims.contractions import *
from mj_core.prims.conversions import *
from mj_core.prims.convolution import *
from mj_core.prims.elementwise import *
from mj_core.prims.fft import *
from mj_core.prims.indexing import *
from mj_core.prims.parallel import *
from mj_core.prims.reductions import *
from mj_core.prims.sorting import *
from mj_core.prims.special import *
from mj_core.prims.structural import *
from mj_core.prims.tokens import *
from mj_core.prims.windowed import *

__all__ = ["linalg"]
__all__ += _complex.__all__
__all__ += _contractions.__all__
__all__ += _conversions.__all__
__all__ += _convolution.__all__
__all__ += _elementwise.__all__
__all__ += _fft.__all__
__all__ += _indexing.__all__
__all__ += _parallel.__all__
__all__ += _reductions.__all__
__all__ += _sorting.__all__
__all__ += _special.__all__
__all__ += _structural.__all__
__all__ += _tokens.__all__
__all__ += _windowed.__all__

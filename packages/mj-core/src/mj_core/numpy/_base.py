"""The base of :mod:`mj_core.numpy`: creation, dtypes, elementwise math, reductions, shapes,
products, ``take`` and ``convolve``, what the lower layers need themselves.

The modules above it in this package (sorting, searching, selection, matrices, tiling: what
the array methods ``x.sort()``, ``x.searchsorted(v)``, ... need) build on this namespace as
``cnp``, as :mod:`mj.numpy`'s modules build on :mod:`mj_core.numpy`; importing the package
itself from inside it would be an import circle.
"""

from mj_core.numpy._convolve import *
from mj_core.numpy._creation import *
from mj_core.numpy._dtypes import *
from mj_core.numpy._indexing import take as take
from mj_core.numpy._math import *
from mj_core.numpy._products import *
from mj_core.numpy._reductions import *
from mj_core.numpy._shape import *

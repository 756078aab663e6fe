"""``mj.scipy``: SciPy-style functions built from mj primitives (``mj.scipy.special``,
``mj.scipy.stats``, ``mj.scipy.linalg``, ``mj.scipy.signal``, ``mj.scipy.ndimage``,
``mj.scipy.integrate``, ``mj.scipy.cluster``)."""

from mj.scipy import cluster as cluster
from mj.scipy import integrate as integrate
from mj.scipy import linalg as linalg
from mj.scipy import ndimage as ndimage
from mj.scipy import signal as signal
from mj.scipy import special as special
from mj.scipy import stats as stats

"""``mj.scipy``: SciPy-style functions built from mj primitives (``mj.scipy.special``)."""

from mj.scipy import special as special

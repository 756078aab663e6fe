"""JVP, transpose and partial-eval rules for every core primitive, one module per family.

Importing this package registers them all (``mj_autodiff`` does so on import).
"""

from mj_autodiff._rules import bessel as bessel
from mj_autodiff._rules import callback as callback
from mj_autodiff._rules import complex as complex
from mj_autodiff._rules import contractions as contractions
from mj_autodiff._rules import convolution as convolution
from mj_autodiff._rules import elementwise as elementwise
from mj_autodiff._rules import fft as fft
from mj_autodiff._rules import incomplete_beta as incomplete_beta
from mj_autodiff._rules import incomplete_gamma as incomplete_gamma
from mj_autodiff._rules import indexing as indexing
from mj_autodiff._rules import linalg as linalg
from mj_autodiff._rules import nextafter as nextafter
from mj_autodiff._rules import reductions as reductions
from mj_autodiff._rules import sorting as sorting
from mj_autodiff._rules import special as special
from mj_autodiff._rules import structural as structural
from mj_autodiff._rules import windowed as windowed

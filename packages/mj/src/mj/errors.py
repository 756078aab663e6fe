"""``mj.errors``: the exceptions mj raises, under mj's names and under JAX's (``jax.errors``),
so that ``except jax.errors.ConcretizationTypeError`` ports as ``except
mj.errors.ConcretizationTypeError``.

mj has one concretization error for every way a traced value meets Python (``bool(x)``,
``int(x)``, ``np.asarray(x)``): JAX's three conversion errors are all that class here.
``UnexpectedTracerError`` is mj's ``TracerLeakError``. ``JaxRuntimeError`` is the class of the
errors XLA raises while running a compiled program (jaxlib's own).
"""

from mj_core.errors import AxisError as AxisError
from mj_core.errors import ConcretizationError as ConcretizationError
from mj_core.errors import MissingRuleError as MissingRuleError
from mj_core.errors import MJError as MJError
from mj_core.errors import NonConcreteBooleanIndexError as NonConcreteBooleanIndexError
from mj_core.errors import ResourceExhaustedError as ResourceExhaustedError
from mj_core.errors import ShapeDtypeError as ShapeDtypeError
from mj_core.errors import TracerLeakError as TracerLeakError
from mj_core.errors import UnhashableStaticArgumentError as UnhashableStaticArgumentError
from mj_xla.extend import JaxRuntimeError as JaxRuntimeError

__all__ = [
    "AxisError",
    "ConcretizationError",
    "ConcretizationTypeError",
    "JaxRuntimeError",
    "MJError",
    "MissingRuleError",
    "NonConcreteBooleanIndexError",
    "ResourceExhaustedError",
    "ShapeDtypeError",
    "TracerArrayConversionError",
    "TracerBoolConversionError",
    "TracerIntegerConversionError",
    "TracerLeakError",
    "UnexpectedTracerError",
    "UnhashableStaticArgumentError",
]

ConcretizationTypeError = ConcretizationError
TracerArrayConversionError = ConcretizationError
TracerBoolConversionError = ConcretizationError
TracerIntegerConversionError = ConcretizationError
UnexpectedTracerError = TracerLeakError

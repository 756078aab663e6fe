"""jit drops the arguments its function does not read, as JAX's ``keep_unused=False`` does
(issue 24): XLA's compile time grows with the parameter count, so ``jit`` of a function taking
a pytree of 100,000 leaves and reading a few took tens of seconds. The dropped arguments are
neither compiled as parameters nor transferred; results, caching and debug_nans are unchanged.
"""

import re

import numpy as np
import pytest

from mj_core import config
from mj_core import numpy as cnp
from mj_xla import jit


def _num_parameters(text: str) -> int:
    signature = re.search(r"func\.func (?:public )?@main\((.*?)\) ->", text).group(1)
    return len(re.findall(r"%arg\d+", signature))


def test_unused_arguments_are_not_parameters():
    f = jit(lambda x, y, z: x * 2.0 + z)
    assert _num_parameters(f.lower(1.0, 2.0, 3.0).as_text()) == 2
    assert float(f(1.0, np.float64(7.0), 3.0)) == 5.0
    assert _num_parameters(f.lower(1.0, 2.0, 3.0).as_text()) == 2  # the compiled module too
    g = jit(lambda x: x)
    assert _num_parameters(g.lower(1.0).as_text()) == 1


def test_a_pytree_with_many_leaves_compiles_only_what_is_read():
    tree = {f"k{i}": np.float64(i) for i in range(5_000)}
    f = jit(lambda t: t["k3"] * 2.0 + t["k7"])
    assert _num_parameters(f.lower(tree).as_text()) == 2
    assert float(f(tree)) == 13.0
    tree["k7"] = np.float64(1.0)
    assert float(f(tree)) == 7.0  # same signature: the cached executable, fed the new leaf


def test_the_fast_path_with_device_arrays_skips_unused_buffers():
    f = jit(lambda a, b, c: c - a)
    a, b, c = (jit(lambda v: v)(np.float64(v)) for v in (1.0, 2.0, 5.0))
    assert float(f(a, b, c)) == 4.0
    assert float(f(a, b, c)) == 4.0  # second call: cached, buffers only


def test_debug_nans_still_sees_every_argument():
    f = jit(lambda x, unused, y: cnp.log(x) + y)
    with config.override("debug_nans", True):
        with pytest.raises(FloatingPointError, match=r"encountered in log"):
            f(-1.0, 5.0, 1.0)
        assert float(f(1.0, 5.0, 2.0)) == 2.0

"""The JAX names added for the libraries of tests/libs (equinox, flax): mapped/unmapped avals,
``linear_util.wrap_init``, ``partial_eval.PartialVal``, ``AbstractMesh``, layout ``Format``,
``source_info_util.register_exclusion``, and ``python -m mj.as_jax -c`` with the private
modules the libraries import."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj.experimental.layout import Format, Layout
from mj.extend import linear_util as lu
from mj.extend import source_info_util
from mj.extend.core import mapped_aval, unmapped_aval
from mj.interpreters import partial_eval as pe
from mj.sharding import AbstractMesh, AxisType, get_abstract_mesh
from mj_core.extend import ShapedArray


@pytest.mark.parametrize("axis", [0, 1, 2, -1, None])
def test_mapped_unmapped_aval_agree_with_vmap(axis: int | None) -> None:
    x = np.zeros((4, 5, 3), np.float32)
    aval = ShapedArray(x.shape, x.dtype)
    if axis is None:
        assert mapped_aval(4, None, aval) is aval
        assert unmapped_aval(4, None, aval) is aval
        return
    size = x.shape[axis]
    one = mapped_aval(size, axis, aval)
    # the shape vmap gives one example
    example_shape = mj.vmap(lambda e: e, in_axes=axis)(x).shape[1:]
    assert one.shape == example_shape
    assert one.dtype == aval.dtype
    back = unmapped_aval(size, axis, one)
    assert back.shape == np.moveaxis(np.zeros(x.shape), axis, axis).shape == x.shape
    with pytest.raises(ValueError, match="is not of size"):
        mapped_aval(size + 1, axis, aval)


def test_wrap_init_binds_params() -> None:
    wrapped = lu.wrap_init(lambda x, *, k: x * k, {"k": 3})
    assert wrapped.call_wrapped(2) == 6
    assert lu.wrap_init(np.sin, debug_info="d").debug_info == "d"


def test_partial_val() -> None:
    aval = ShapedArray((2,), np.float32)
    unknown = pe.PartialVal.unknown(aval)
    known = pe.PartialVal.known(mnp.ones(3))
    assert not unknown.is_known()
    assert unknown.get_aval() is aval
    assert unknown.get_known() is None
    assert known.is_known()
    assert known.get_aval().shape == (3,)
    aval_part, const = known
    assert aval_part is None
    assert np.array_equal(np.asarray(const), np.ones(3))


def test_abstract_mesh() -> None:
    mesh = AbstractMesh((2, 3), ("x", "y"))
    assert mesh.shape == {"x": 2, "y": 3}
    assert mesh.size == 6
    assert not mesh.empty
    assert mesh.axis_types == (AxisType.Auto, AxisType.Auto)
    assert mesh == AbstractMesh((2, 3), ("x", "y")) != AbstractMesh((3, 2), ("x", "y"))
    assert get_abstract_mesh().empty
    with pytest.raises(ValueError, match="axis sizes"):
        AbstractMesh((2,), ("x", "y"))


def test_layout_format_are_descriptions() -> None:
    fmt = Format(Layout((1, 0)), "s")
    assert fmt.layout is not None
    assert fmt.layout.major_to_minor == (1, 0)
    assert fmt.sharding == "s"
    assert Format() == Format(None, None)


def test_register_exclusion_is_mj_core_s() -> None:
    from mj_core.extend import register_exclusion

    assert source_info_util.register_exclusion is register_exclusion


def test_as_jax_dash_c_and_private_modules() -> None:
    code = (
        "import sys, jax, jax._src.dispatch, jax._src.compiler\n"
        "from jax._src import core, dtypes\n"
        "import mj\n"
        "jax._src.dispatch.wait_for_tokens()\n"
        "from jax._src import traceback_util\n"
        "assert traceback_util.include_frame(sys._getframe())\n"
        "print(sys.argv[1:], core is mj.core,"
        " dtypes.TypePromotionError is mj.dtypes.TypePromotionError is not None,"
        " jax.numpy.sum(jax.numpy.arange(4)))"
    )
    out = subprocess.run(
        [sys.executable, "-m", "mj.as_jax", "-c", code, "a", "b"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "['a', 'b'] True True 6"

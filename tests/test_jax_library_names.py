"""The JAX names added for the libraries of tests/libs (equinox, flax): mapped/unmapped avals,
``linear_util.wrap_init``, ``partial_eval.PartialVal``, ``AbstractMesh``, layout ``Format``,
``source_info_util.register_exclusion``, and ``python -m mj.as_jax -c`` with the private
modules the libraries import."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

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
    from mj_core.errors import register_exclusion

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


def test_trace_to_jaxpr_nounits_splits_known_outputs() -> None:
    from mj import api_util
    from mj.tree_util import tree_structure

    def f(x: Any, k: Any) -> Any:
        # 'w' and 'n' need only the known k; 'y' needs the unknown x
        return {"w": k * 2.0, "y": x * k, "n": mnp.sum(k)}

    x = np.ones(3, np.float32)
    k = np.arange(3.0, dtype=np.float32)
    flat, out_tree = api_util.flatten_fun_nokwargs(lu.wrap_init(f), tree_structure((x, k)))
    pvals = [pe.PartialVal.unknown(ShapedArray((3,), np.float32)), pe.PartialVal.known(k)]
    _, out_pvals, _ = pe.trace_to_jaxpr_nounits(flat, pvals)
    outs = mj.tree_util.tree_unflatten(out_tree(), out_pvals)
    assert outs["w"].is_known()
    np.testing.assert_array_equal(np.asarray(outs["w"].get_known()), k * 2)
    assert float(outs["n"].get_known()) == 3.0
    assert not outs["y"].is_known()
    assert outs["y"].get_aval().shape == (3,)
    _, forced, _ = pe.trace_to_jaxpr_nounits(flat, pvals, instantiate=True)
    assert not any(pv.is_known() for pv in forced)


def test_trace_to_jaxpr_nounits_never_materialises_unknown_inputs() -> None:
    """flax's ``lazy_init``: the known outputs are computed from the known inputs alone, so an
    unknown input whose array would need 512 GiB costs nothing."""
    from mj import api_util
    from mj.tree_util import tree_structure

    def f(x: Any, k: Any) -> Any:
        return {"w": mnp.tanh(k) * 3.0, "y": x @ mnp.ones((128, 2)) + k[0]}

    big = ShapedArray((2**30, 128), np.float32)
    k = np.linspace(-1.0, 1.0, 4, dtype=np.float32)
    flat, out_tree = api_util.flatten_fun_nokwargs(lu.wrap_init(f), tree_structure((0, k)))
    _, out_pvals, _ = pe.trace_to_jaxpr_nounits(
        flat, [pe.PartialVal.unknown(big), pe.PartialVal.known(k)]
    )
    outs = mj.tree_util.tree_unflatten(out_tree(), out_pvals)
    np.testing.assert_allclose(np.asarray(outs["w"].get_known()), np.tanh(k) * 3.0, rtol=1e-6)
    assert not outs["y"].is_known()
    assert outs["y"].get_aval().shape == (2**30, 2)


def test_flatten_fun_with_kwargs_and_debug_info() -> None:
    from mj import api_util
    from mj.tree_util import tree_flatten

    def f(a: Any, *, scale: Any) -> Any:
        return (a * scale, [a])

    leaves, in_tree = tree_flatten(((np.float32(2.0),), {"scale": np.float32(3.0)}))
    flat, out_tree = api_util.flatten_fun(lu.wrap_init(f), in_tree)
    with pytest.raises(ValueError, match="not been called"):
        out_tree()
    out = flat.call_wrapped(*leaves)
    assert [float(v) for v in out] == [6.0, 2.0]
    assert out_tree().num_leaves == 2
    info = api_util.debug_info("test", f, (), {})
    assert info.traced_for == "test"
    assert "f" in info.func_src_info
    assert api_util.shaped_abstractify(mj.ShapeDtypeStruct((2,), np.int32)).shape == (2,)
    assert api_util.safe_map(lambda a, b: a + b, [1, 2], [3, 4]) == [4, 6]
    with pytest.raises(ValueError, match="lengths differ"):
        api_util.safe_map(lambda a, b: a, [1], [1, 2])


def test_abstract_value_is_the_avals_base() -> None:
    from mj.core import AbstractValue

    assert isinstance(ShapedArray((2,), np.float32), AbstractValue)
    seen = []
    mj.jit(lambda a: seen.append(isinstance(a.aval, AbstractValue)) or a)(np.ones(2))
    assert seen == [True]


def test_scan_accepts_split_transpose() -> None:
    xs = np.arange(4.0, dtype=np.float32)
    carry, ys = mj.lax.scan(lambda c, x: (c + x, c), 0.0, xs, _split_transpose=False)
    assert float(carry) == 6.0
    np.testing.assert_array_equal(np.asarray(ys), np.cumsum(xs) - xs)


def test_check_tracer_leaks_finds_leaked_tracers() -> None:
    """JAX's leak checker: a tracer kept after its transformation ended is reported when the
    block ends; transformations that keep nothing pass, with their values unchanged."""
    with mj.check_tracer_leaks(False):
        assert mj.check_tracer_leaks.value is False
    with mj.checking_leaks():
        assert mj.config.jax_check_tracer_leaks is True
        assert float(mj.jit(lambda x: x * 3)(1.0)) == 3.0
        assert float(mj.grad(lambda x: x * x)(2.0)) == 4.0
        _, bwd = mj.vjp(mnp.sin, 1.0)
        np.testing.assert_allclose(float(bwd(1.0)[0]), np.cos(1.0), rtol=1e-6)
        del bwd
    assert mj.config.jax_check_tracer_leaks is False
    kept: list[Any] = []

    def leaky(x: Any) -> Any:
        kept.append(x * 2)
        return x + 1

    for transform, arg in [(mj.jit, 1.0), (mj.vmap, np.ones(2, np.float32))]:
        kept.clear()
        with pytest.raises(mj.errors.TracerLeakError, match="Leaked trace"), mj.checking_leaks():
            transform(leaky)(arg)
    kept.clear()
    transform(leaky)(arg)  # the checker off: nothing is checked
    with mj.checking_leaks():  # as JAX, eager differentiation is not checked
        assert float(mj.grad(leaky)(1.0)) == 1.0


def test_xla_bridge_backends_and_xla_flags_device_count() -> None:
    """chex's ``set_n_cpu_devices``: ``jax._src.xla_bridge._backends`` is empty until a
    backend starts, and the CPU backend then has the devices ``XLA_FLAGS`` asked for after
    ``import jax`` (as JAX's: ``jax_num_cpu_devices`` unset defers to XLA's flag)."""
    code = (
        "import os, jax\n"
        "before = dict(jax._src.xla_bridge._backends)\n"
        "os.environ['XLA_FLAGS'] = '--xla_force_host_platform_device_count=3'\n"
        "print(before, jax.device_count(), list(jax._src.xla_bridge._backends))"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("MJ_NUM_CPU_DEVICES", "XLA_FLAGS")}
    out = subprocess.run(
        [sys.executable, "-m", "mj.as_jax", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env={**env, "MJ_PLATFORMS": "cpu"},
    )
    assert out.stdout.strip() == "{} 3 ['cpu']"

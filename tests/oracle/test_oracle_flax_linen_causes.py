"""Fixes for the causes of flax.linen's own tests failing on mj while passing on JAX
(docs/library_tests.md), each compared with JAX."""

import os
import subprocess
import sys
import warnings

import jax
import numpy as np
import pytest
from jax.experimental import mesh_utils as jax_mesh_utils

import mj
from mj.experimental import mesh_utils

pytestmark = pytest.mark.oracle

_FLAGS_PROGRAM = """
import sys
lib = __import__(sys.argv[1])
lib.config.parse_flags_with_absl()
print(lib.config.jax_numpy_rank_promotion, lib.config.jax_enable_x64,
      lib.config.jax_log_compiles)
"""


@pytest.mark.parametrize("lib", ["jax", "mj"])
@pytest.mark.parametrize(
    ("flags", "want"),
    [
        (["--jax_numpy_rank_promotion=raise", "--jax_enable_x64=1"], "raise True False"),
        (["--jax_log_compiles", "--other=3", "--", "--jax_enable_x64=1"], "allow False True"),
        ([], "allow False False"),
    ],
)
def test_config_parse_flags_with_absl_as_jax(lib, flags, want):
    # flax's test files call jax.config.parse_flags_with_absl() when imported: the --jax_*
    # flags of the command line (before a "--") set options, anything else is left alone
    if lib == "jax":
        # (JAX parses them with absl-py, not a dependency of the oracle env: the JAX control
        # runs where it is installed; mj's case below runs and asserts everywhere)
        pytest.importorskip("absl", reason="the JAX control needs absl-py (not an oracle dep)")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JAX_", "MJ_"))}
    env["JAX_PLATFORMS"] = "cpu"
    out = subprocess.run(
        [sys.executable, "-c", _FLAGS_PROGRAM, lib, *flags],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        timeout=120,
    ).stdout.split("\n")[-2]
    assert out == want


@pytest.mark.parametrize("shape", [(1,), (1, 1), (1, 1, 1)])
def test_create_device_mesh_as_jax(shape):
    want = jax_mesh_utils.create_device_mesh(shape)
    got = mesh_utils.create_device_mesh(shape)
    assert got.shape == want.shape
    assert [d.id for d in got.flat] == [d.id for d in want.flat]
    assert [d.platform for d in got.flat] == [d.platform for d in want.flat]
    mesh = mj.sharding.Mesh(got, tuple("abc"[: len(shape)]))
    assert mesh.devices.shape == shape


@pytest.mark.parametrize("shape", [(2,), (3, 1), (0,)])
def test_create_device_mesh_refuses_a_wrong_count_as_jax(shape):
    with pytest.raises(ValueError, match="Number of devices") as want:
        jax_mesh_utils.create_device_mesh(shape, jax.devices()[:1])
    with pytest.raises(ValueError, match="Number of devices") as got:
        mesh_utils.create_device_mesh(shape, mj.devices()[:1])
    assert str(got.value) == str(want.value)


_CONV_CASES = [
    # (lhs shape, filter shape, strides, padding, lhs dilation, rhs dilation, dimension numbers)
    ((2, 3, 9, 8), (3, 2), (1, 1), "VALID", None, None, None),
    ((2, 3, 9, 8), (3, 3), (2, 1), "SAME", None, (1, 2), None),
    ((1, 7, 6, 2), (2, 3), (1, 2), [(1, 0), (2, 1)], (2, 1), None, ("NHWC", "HWIO", "NHWC")),
    ((2, 5, 4), (3,), (1,), "SAME", None, None, ("NWC", "WIO", "NWC")),
    ((1, 6, 5, 3), (2, 2), (1, 1), "VALID", None, None, ("NHWC", "OIHW", "NCHW")),
]


@pytest.mark.parametrize("case", _CONV_CASES)
def test_conv_general_dilated_patches_as_jax(x64, case):
    shape, filt, strides, padding, lhs_dil, rhs_dil, dn = case
    x = np.random.RandomState(0).randn(*shape).astype(np.float32)
    kwargs = dict(lhs_dilation=lhs_dil, rhs_dilation=rhs_dil, dimension_numbers=dn)
    want = jax.lax.conv_general_dilated_patches(x, filt, strides, padding, **kwargs)
    got = mj.jit(
        lambda v: mj.lax.conv_general_dilated_patches(v, filt, strides, padding, **kwargs)
    )(x)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", _CONV_CASES)
def test_conv_general_dilated_local_as_jax(x64, case):
    # flax's nn.ConvLocal: a separate kernel per output location
    shape, filt, strides, padding, lhs_dil, rhs_dil, dn = case
    rng = np.random.RandomState(1)
    x = rng.randn(*shape).astype(np.float32)
    kwargs = dict(lhs_dilation=lhs_dil, rhs_dilation=rhs_dil, dimension_numbers=dn)
    patches = jax.lax.conv_general_dilated_patches(x, filt, strides, padding, **kwargs)
    _, rhs_spec, out_spec = jax.lax.conv_dimension_numbers(x.shape, (1, 1, *filt), dn)
    out_spatial = [patches.shape[d] for d in out_spec[2:]]
    kernel_shape = [0] * len(shape)
    kernel_shape[rhs_spec[0]] = 4  # O
    kernel_shape[rhs_spec[1]] = patches.shape[out_spec[1]]  # I: C times the window
    for d, n in zip(rhs_spec[2:], out_spatial, strict=True):
        kernel_shape[d] = n
    kernel = rng.randn(*kernel_shape).astype(np.float32)
    want = jax.lax.conv_general_dilated_local(x, kernel, strides, padding, filt, **kwargs)
    got = mj.jit(
        lambda v, k: mj.lax.conv_general_dilated_local(v, k, strides, padding, filt, **kwargs)
    )(x, kernel)
    assert got.shape == want.shape
    assert got.dtype == want.dtype
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-5, atol=1e-5)
    # and its gradient, as flax trains ConvLocal
    loss = lambda f, m: lambda v, k: (f(v, k, strides, padding, filt, **kwargs) ** 2).sum()  # noqa: E731
    gw = jax.grad(loss(jax.lax.conv_general_dilated_local, jax), argnums=(0, 1))(x, kernel)
    gm = mj.grad(loss(mj.lax.conv_general_dilated_local, mj), argnums=(0, 1))(x, kernel)
    for a, b in zip(gm, gw, strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-4, atol=1e-4)


def test_partition_spec_unconstrained_as_jax():
    # flax's partitioning rules name dimensions left to the compiler
    jp, mp = jax.sharding.PartitionSpec, mj.sharding.PartitionSpec
    assert repr(mp.UNCONSTRAINED) == repr(jp.UNCONSTRAINED) == "UNCONSTRAINED"
    assert repr(mp("a", mp.UNCONSTRAINED)) == repr(jp("a", jp.UNCONSTRAINED))
    assert mp("a", mp.UNCONSTRAINED) == mp("a", mp.UNCONSTRAINED) != mp("a", None)
    assert type(mp.UNCONSTRAINED)() is mp.UNCONSTRAINED
    # a placement with an unconstrained dimension: mj leaves it unsplit
    mesh = mj.sharding.Mesh(np.array(mj.devices()[:1]), ("a",))
    sharding = mj.sharding.NamedSharding(mesh, mp(mp.UNCONSTRAINED, "a"))
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    y = mj.jit(lambda v: mj.lax.with_sharding_constraint(v * 2, sharding))(x)
    np.testing.assert_array_equal(np.asarray(y), x * 2)


_DTYPE_ARGS = [
    1.0,
    3,
    True,
    1j,
    float,
    int,
    bool,
    complex,
    np.float32,
    np.int8,
    "bfloat16",
    "float16",
    np.dtype("uint16"),
    np.ones(2, np.int16),
    np.float16(1),
]


@pytest.mark.parametrize("arg", _DTYPE_ARGS, ids=repr)
def test_lax_dtype_as_jax(x64, arg):
    assert mj.lax.dtype(arg) == jax.lax.dtype(arg)


@pytest.mark.parametrize("arg", [np.float64, "float64", np.ones(2), np.int64(3)], ids=repr)
def test_lax_dtype_of_64_bit_values_as_jax(x64, arg):
    # an explicit 64-bit request is narrowed without x64 (JAX warns for the dtype spellings)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = jax.lax.dtype(arg)
        got = mj.lax.dtype(arg)
    assert got == want


def test_lax_dtype_of_arrays_and_tracers_as_jax(x64):
    for dt in ["float32", "bfloat16", "int8", "bool"]:
        assert mj.lax.dtype(mj.numpy.ones(2, dt)) == jax.lax.dtype(jax.numpy.ones(2, dt))
        got = mj.jit(lambda v: mj.numpy.zeros((), mj.lax.dtype(v)))(mj.numpy.ones(2, dt))
        assert got.dtype == jax.lax.dtype(jax.numpy.ones(2, dt))
    for bad in [None, "U3", np.array(["a"]), [1, 2], object]:
        with pytest.raises((TypeError, ValueError)) as want:
            jax.lax.dtype(bad)
        with pytest.raises(want.type):
            mj.lax.dtype(bad)


@pytest.mark.parametrize("transform", ["jit", "vmap", "grad"])
def test_checking_leaks_reports_a_leaked_tracer_as_jax(transform):
    # chex's and flax's tests run their programs under jax.checking_leaks(): JAX reports a
    # tracer kept after its transformation as "Leaked trace ..."; mj reports it by the end
    # of the block (TracerLeakError)
    # (JAX checks jaxpr tracing and vmap; its eager grad is not checked, nor is mj's)
    arg = np.ones(2, np.float32) if transform == "vmap" else np.float32(1.0)
    for lib in (jax, mj):
        kept = []

        def leaky(x, kept=kept):
            kept.append(x * 2)
            return x + 1

        if transform == "grad":
            with lib.checking_leaks():
                assert float(lib.grad(leaky)(arg)) == 1.0
        else:
            with pytest.raises(Exception, match=r"^Leaked trace"), lib.checking_leaks():
                getattr(lib, transform)(leaky)(arg)
        kept.clear()


@pytest.mark.parametrize("transform", ["jit", "grad", "vmap"])
def test_checking_leaks_passes_programs_that_keep_nothing_as_jax(x64, transform):
    arg = np.linspace(0.5, 1.5, 3, dtype=np.float32)

    def run(lib):
        f = lambda v: lib.numpy.sum(lib.numpy.sin(v) * v)  # noqa: E731
        with lib.checking_leaks():
            if transform == "vmap":
                return lib.vmap(lib.grad(f))(arg[:, None])
            return getattr(lib, transform)(f)(arg)

    np.testing.assert_allclose(np.asarray(run(mj)), np.asarray(run(jax)), rtol=1e-6)


def test_jitted_function_class_named_as_jax():
    # chex's is_traceable tells a jitted function by its class's name
    def f(x):
        return x * 2

    want, got = jax.jit(f), mj.jit(f)
    assert type(got).__name__ == type(want).__name__ == "PjitFunction"
    assert "PjitFunction" in str(type(got))
    assert float(got(np.float32(1.5))) == float(want(np.float32(1.5))) == 3.0

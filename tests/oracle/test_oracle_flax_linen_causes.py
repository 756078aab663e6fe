"""Fixes for the causes of flax.linen's own tests failing on mj while passing on JAX
(docs/library_tests.md), each compared with JAX."""

import os
import subprocess
import sys

import jax
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
        pytest.importorskip("absl", reason="JAX parses its flags with absl")
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

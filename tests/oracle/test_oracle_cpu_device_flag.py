"""The CPU backend's device count: unset, ``XLA_FLAGS``' ``--xla_force_host_platform_device_count``
read when the backend starts (set after the import, as chex's ``set_n_cpu_devices`` does);
set explicitly, the option wins over the flag. Each case is a fresh interpreter (a backend's
device count is fixed when it starts), JAX's and mj's compared."""

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.oracle

CASES = {
    "flag": "",
    "flag_then_option": "{module}.config.update('{option}', 2)\n",
}


def _device_count(module: str, option: str, setup: str, x64: bool) -> str:
    code = (
        f"import os, {module}\n"
        "os.environ['XLA_FLAGS'] = '--xla_force_host_platform_device_count=3'\n"
        + setup.format(module=module, option=option)
        + f"print({module}.device_count(), {module}.local_device_count(),"
        f" {module}.numpy.zeros(2).dtype)"
    )
    drop = ("MJ_NUM_CPU_DEVICES", "XLA_FLAGS", "JAX_NUM_CPU_DEVICES")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(
        JAX_PLATFORMS="cpu",
        MJ_PLATFORMS="cpu",
        JAX_ENABLE_X64=str(int(x64)),
        MJ_ENABLE_X64=str(int(x64)),
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout.strip()


@pytest.mark.parametrize("case", sorted(CASES))
def test_cpu_device_count_follows_xla_flags_as_jax(case, x64):
    want = _device_count("jax", "jax_num_cpu_devices", CASES[case], x64)
    got = _device_count("mj", "num_cpu_devices", CASES[case], x64)
    assert got == want
    assert want.split()[0] == ("3" if case == "flag" else "2")

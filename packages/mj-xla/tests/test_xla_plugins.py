"""PJRT plugin discovery without jax: a fake ``jax_plugins`` namespace package in a temporary
directory stands in for ``jax-cuda12-plugin``. mj must find it without executing it (its
``__init__`` raises here, as the real one would import jax), warn about a missing or broken
library, and fall back to the CPU, as JAX does."""

import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mj_xla import _jaxlib, _plugins

#: A real GPU plugin installed here outranks the fake ones these tests plant (the GPU's own
#: start is tested by tests/test_gpu.py).
INSTALLED = bool(_plugins.discover_plugins())
without_an_installed_plugin = pytest.mark.skipif(
    INSTALLED, reason="a real PJRT plugin is installed (a GPU machine): tests/test_gpu.py"
)
INIT = "raise ImportError('a plugin module must not be executed: it would import jax')\n"


def _plugin(root: Path, module: str, library: str | None) -> Path:
    folder = root / "jax_plugins" / module
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text(INIT)
    if library is not None:
        (folder / library).write_bytes(b"not a shared library")
    return folder


@pytest.fixture
def plugin_root(tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("PJRT_NAMES_AND_LIBRARY_PATHS", raising=False)
    for name in [m for m in sys.modules if m == "jax_plugins" or m.startswith("jax_plugins.")]:
        monkeypatch.delitem(sys.modules, name)
    return tmp_path


@without_an_installed_plugin
def test_a_cuda_plugin_is_found_by_its_library_without_running_it(plugin_root):
    folder = _plugin(plugin_root, "xla_cuda12", "xla_cuda_plugin.so")
    found = [p for p in _plugins.discover_plugins() if p.module == "jax_plugins.xla_cuda12"]
    assert found == [
        _plugins.Plugin("cuda", str(folder / "xla_cuda_plugin.so"), "jax_plugins.xla_cuda12")
    ]
    assert found[0].priority > 0  # a GPU outranks the CPU
    assert "jax_plugins.xla_cuda12" not in sys.modules


def test_the_newest_cuda_plugin_wins(plugin_root):
    _plugin(plugin_root, "xla_cuda12", "xla_cuda_plugin.so")
    newer = _plugin(plugin_root, "xla_cuda13", "xla_cuda_plugin.so")
    cuda = [p for p in _plugins.discover_plugins() if p.platform == "cuda"]
    assert [p.library_path for p in cuda] == [str(newer / "xla_cuda_plugin.so")]


def test_a_plugin_without_its_library_is_a_warning(plugin_root, caplog):
    _plugin(plugin_root, "xla_cuda13", None)
    with caplog.at_level(logging.WARNING, logger="mj"):
        assert [p for p in _plugins.discover_plugins() if p.platform == "cuda"] == []
    assert "jax_plugins.xla_cuda13 has no library (xla_cuda_plugin.so" in caplog.text
    assert "falls back to the CPU" in caplog.text


def test_an_unknown_plugin_module_is_named_in_a_warning(plugin_root, caplog):
    _plugin(plugin_root, "xla_tpu_like", "lib.so")
    with caplog.at_level(logging.WARNING, logger="mj"):
        _plugins.discover_plugins()
    assert "jax_plugins.xla_tpu_like is not one mj can load without jax" in caplog.text
    assert "PJRT_NAMES_AND_LIBRARY_PATHS" in caplog.text


def test_plugins_named_in_the_environment(plugin_root, monkeypatch, caplog):
    monkeypatch.setenv("PJRT_NAMES_AND_LIBRARY_PATHS", "myaccel:/opt/accel.so,broken")
    with caplog.at_level(logging.WARNING, logger="mj"):
        found = _plugins.discover_plugins()
    assert _plugins.Plugin("myaccel", "/opt/accel.so", "PJRT_NAMES_AND_LIBRARY_PATHS", 400) in found
    assert "'broken' is not <name>:<path>" in caplog.text


@without_an_installed_plugin
def test_a_broken_library_is_left_out_with_a_warning_and_the_cpu_starts(plugin_root, caplog):
    _plugin(plugin_root, "xla_rocm7", "xla_rocm_plugin.so")  # garbage bytes: dlopen fails
    with caplog.at_level(logging.WARNING, logger="mj"):
        clients = _jaxlib._start_backends(None)
    assert list(clients) == ["cpu"]
    assert "the 'rocm' plugin" in caplog.text
    assert "could not be loaded" in caplog.text


@without_an_installed_plugin
def test_requesting_a_platform_that_is_not_there_is_jaxs_error(plugin_root):
    with pytest.raises(RuntimeError, match="Unable to initialize backend 'cuda'") as info:
        _jaxlib._start_backends(["cuda", "cpu"])
    assert "not in the list of known backends: ['cpu']" in str(info.value)
    assert "MJ_PLATFORMS=''" in str(info.value)
    assert list(_jaxlib._start_backends(["cpu"])) == ["cpu"]


@without_an_installed_plugin
def test_a_whole_process_falls_back_to_the_cpu(plugin_root):
    """The user's view: mj imported next to a broken plugin package runs on the CPU."""
    _plugin(plugin_root, "xla_rocm7", "xla_rocm_plugin.so")
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "2"}
    env.pop("MJ_PLATFORMS", None)
    env["PYTHONPATH"] = os.pathsep.join(p for p in [str(plugin_root), *sys.path] if p)
    code = textwrap.dedent("""
        import logging, mj, numpy as np
        logging.basicConfig()
        print(mj.default_backend(), mj.devices(), float(mj.jit(lambda x: x * 2)(np.float32(3))))
    """)
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "cpu [CpuDevice(id=0)] 6.0"
    assert "could not be loaded" in out.stderr


def test_platforms_is_validated_and_fixed_once_the_backends_start():
    from mj_core import config

    _jaxlib.devices()  # the backends have started
    with pytest.raises(ValueError, match="comma-separated list of platform names"):
        config.update("platforms", "cuda,,cpu")
    with pytest.raises(RuntimeError, match="platforms cannot be changed any more: the backends"):
        config.update("platforms", "cuda,cpu")
    assert config.platforms is None
    # naming the default platform changes nothing that started (JAX scripts set
    # jax_platform_name="cpu" this way), and the option can be set back
    with config.override("jax_platform_name", _jaxlib.default_platform()):
        assert config.platforms == _jaxlib.default_platform()
    assert config.platforms is None

"""Installing one layer installs exactly that layer and the layers below it.

Runs tools/check_layer_installs.py: it builds every package's wheel, then for each layer
creates a fresh virtual environment, installs the layer from the local wheels (third-party
dependencies from the package registry or the installer's cache), imports it, and compares
the installed distributions with the expectation. mj-core alone must bring no other mj
layer; mj-batch must bring core, ir and autodiff, and no jaxlib; jaxlib arrives with mj-xla.
"""

import importlib.util
import itertools
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TOOL = ROOT / "tools" / "check_layer_installs.py"

EXPECTED = {
    "mj-core": (["mj-core"], False),
    "mj-ir": (["mj-core", "mj-ir"], False),
    "mj-autodiff": (["mj-core", "mj-ir", "mj-autodiff"], False),
    "mj-batch": (["mj-core", "mj-ir", "mj-autodiff", "mj-batch"], False),
    "mj-xla": (["mj-core", "mj-ir", "mj-autodiff", "mj-batch", "mj-xla"], True),
    "mj-control": (["mj-core", "mj-ir", "mj-autodiff", "mj-batch", "mj-xla", "mj-control"], True),
    "mj": (["mj-core", "mj-ir", "mj-autodiff", "mj-batch", "mj-xla", "mj-control", "mj"], True),
}
LINE = re.compile(r"^(OK|FAIL) (\S+): (?:expected )?layers=(\[.*\]) jaxlib=(True|False)$")


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("check_layer_installs", TOOL)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["check_layer_installs"] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    """Run the real check once for every layer (one fresh venv per layer)."""
    workdir = tmp_path_factory.mktemp("installs")
    result = subprocess.run(
        [sys.executable, str(TOOL), "--workdir", str(workdir)],
        capture_output=True,
        text=True,
        check=False,
    )
    lines = {}
    for line in result.stdout.splitlines():
        match = LINE.match(line)
        if match:
            lines[match.group(2)] = match
    return result, lines


@pytest.mark.slow
@pytest.mark.parametrize("dist", list(EXPECTED))
def test_layer_installs_alone(report, dist):
    result, lines = report
    assert dist in lines, result.stdout + result.stderr
    match = lines[dist]
    layers, jaxlib = EXPECTED[dist]
    assert match.group(1) == "OK", result.stdout
    assert match.group(3) == repr(layers)
    assert match.group(4) == str(jaxlib)


@pytest.mark.slow
def test_whole_check_passes(report):
    result, _ = report
    assert result.returncode == 0, result.stdout + result.stderr


def test_layer_table_matches_package_dependencies(tool):
    """Each package depends on exactly the layer directly below it (exact pin)."""
    layers = tool.discover_layers(ROOT)
    for below, layer in itertools.pairwise(layers):
        project = tomllib.loads((layer.path / "pyproject.toml").read_text())["project"]
        mj_deps = [d for d in project["dependencies"] if d.startswith("mj")]
        assert mj_deps == [f"{below.dist}=={below.version}"], layer.dist


def test_verdict_flags_extra_layers_and_jaxlib(tool):
    layers = tool.discover_layers(ROOT)
    core, batch = layers[0], layers[3]
    assert tool.verdict(core, layers, {"mj-core", "numpy"}) == []
    problems = tool.verdict(core, layers, {"mj-core", "mj-ir", "jaxlib", "numpy"})
    assert "higher layers installed: ['mj-ir']" in problems
    assert any("jaxlib installed" in p for p in problems)
    problems = tool.verdict(batch, layers, {"mj-core", "mj-batch", "numpy"})
    assert "lower layers missing: ['mj-autodiff', 'mj-ir']" in problems
    xla = layers[4]
    assert tool.verdict(xla, layers, {d.dist for d in layers[:5]} | {"jaxlib"}) == []
    assert "jaxlib missing" in tool.verdict(xla, layers, {d.dist for d in layers[:5]})

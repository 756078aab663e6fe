"""The layer rules are enforced: both checkers pass on the real tree and catch violations.

The violations are injected into a temporary copy of packages/*/src, never the real tree.
Two independent mechanisms are exercised:
  * tools/check_layers.py, an AST checker (standard library only);
  * import-linter with the contracts from the root pyproject.toml, run against the copy
    through PYTHONPATH (the copy shadows the editable installs of the real packages).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parent.parent
CHECK_LAYERS = ROOT / "tools" / "check_layers.py"
LAYERS = ["mj_core", "mj_ir", "mj_autodiff", "mj_batch", "mj_xla", "mj_control", "mj"]

# (package the bad module goes into, source of the bad module, line of the bad import,
#  imported name): each is a different way to break the rules.
VIOLATIONS = {
    "core-imports-xla": (
        "mj_core",
        "import mj_xla\n",
        1,
        "mj_xla",
    ),
    "ir-imports-umbrella-from": (
        "mj_ir",
        '"""A module."""\n\nfrom mj import grad\n',
        3,
        "mj",
    ),
    "autodiff-imports-batch-in-function": (
        "mj_autodiff",
        "def f() -> None:\n    from mj_batch import vmap  # noqa\n",
        2,
        "mj_batch",
    ),
    "batch-imports-control-under-type-checking": (
        "mj_batch",
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import mj_control.x\n",
        4,
        "mj_control",
    ),
    "core-imports-jaxlib": (
        "mj_core",
        "import numpy\nimport jaxlib\n",
        2,
        "jaxlib",
    ),
    "batch-imports-jax-numpy": (
        "mj_batch",
        "import jax.numpy as jnp\n",
        1,
        "jax",
    ),
}


def run(cmd: list[str], env: dict[str, str] | None = None, **kwargs):
    env = {**(env or os.environ), "NO_COLOR": "1"}
    return subprocess.run(cmd, capture_output=True, text=True, check=False, env=env, **kwargs)


def package_dir(tree: Path, module: str) -> Path:
    (found,) = tree.glob(f"packages/*/src/{module}")
    return found


@pytest.fixture
def tree_copy(tmp_path: Path) -> Path:
    """A copy of packages/*/src (plus each pyproject.toml), with every package importable."""
    dest = tmp_path / "repo"
    for pkg in sorted((ROOT / "packages").iterdir()):
        if not (pkg / "src").is_dir():
            continue
        shutil.copytree(
            pkg / "src",
            dest / "packages" / pkg.name / "src",
            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"),
        )
        shutil.copy2(pkg / "pyproject.toml", dest / "packages" / pkg.name / "pyproject.toml")
    # import-linter needs regular packages; a layer still being written may lack __init__.py.
    for module in LAYERS:
        init = package_dir(dest, module) / "__init__.py"
        if not init.exists():
            init.write_text("")
    return dest


def inject(tree: Path, module: str, source: str) -> Path:
    bad = package_dir(tree, module) / "_layering_violation.py"
    bad.write_text(source)
    return bad


def check_layers(root: Path) -> subprocess.CompletedProcess[str]:
    return run([sys.executable, str(CHECK_LAYERS), "--root", str(root)])


def lint_imports(tree: Path) -> subprocess.CompletedProcess[str]:
    src_dirs = [str(p) for p in sorted(tree.glob("packages/*/src"))]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(src_dirs)}
    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert exe, "import-linter is not installed in the test environment"
    return run(
        [exe, "--no-logo", "--no-cache", "--config", str(ROOT / "pyproject.toml")],
        cwd=tree,
        env=env,
    )


def test_real_tree_passes_ast_checker():
    result = check_layers(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "check_layers: OK" in result.stdout


def test_clean_copy_passes_both_checkers(tree_copy):
    ast_result = check_layers(tree_copy)
    assert ast_result.returncode == 0, ast_result.stdout
    linter = lint_imports(tree_copy)
    assert linter.returncode == 0, linter.stdout + linter.stderr
    assert "broken" not in linter.stdout.lower().replace("0 broken", "")


@pytest.mark.parametrize("case", list(VIOLATIONS))
def test_ast_checker_names_offending_import_and_line(tree_copy, case):
    package, source, line, target = VIOLATIONS[case]
    bad = inject(tree_copy, package, textwrap.dedent(source))
    result = check_layers(tree_copy)
    assert result.returncode == 1, result.stdout
    rel = bad.relative_to(tree_copy)
    expected = f"{rel}:{line}: {package} imports {target} ("
    assert expected in result.stdout, result.stdout
    assert "1 layering violation(s)" in result.stdout


@pytest.mark.parametrize("case", list(VIOLATIONS))
def test_import_linter_names_offending_import_and_line(tree_copy, case):
    package, source, line, target = VIOLATIONS[case]
    inject(tree_copy, package, textwrap.dedent(source))
    result = lint_imports(tree_copy)
    out = result.stdout + result.stderr
    assert result.returncode == 1, out
    assert "BROKEN" in out
    assert f"{package} is not allowed to import {target}" in out, out
    assert f"{package}._layering_violation -> {target}" in out, out
    assert f"(l.{line})" in out, out


def test_import_linter_checks_mj_cores_inner_order(tree_copy):
    """Inside mj-core a module imports only the layers below it, inside functions too: the
    eager array type must not reach up into mj_core.numpy (its indexing methods are installed
    by _array_methods instead)."""
    eager = package_dir(tree_copy, "mj_core") / "_eager_array.py"
    eager.write_text(
        eager.read_text() + "\n\ndef _upward():\n    from mj_core.numpy import _indexing  # noqa\n"
    )
    out = lint_imports(tree_copy).stdout
    assert "mj_core inner layers" in out, out
    assert "BROKEN" in out, out
    assert "mj_core._eager_array -> mj_core.numpy._indexing" in out, out


def test_import_linter_finds_import_circles(tree_copy):
    """Two sibling modules importing each other (here at function level) break the
    no-circles contract, in any package."""
    pkg = package_dir(tree_copy, "mj_ir")
    (pkg / "_circle_a.py").write_text("def f() -> None:\n    from mj_ir import _circle_b  # noqa\n")
    (pkg / "_circle_b.py").write_text("from mj_ir import _circle_a  # noqa\n")
    out = lint_imports(tree_copy).stdout
    assert "No import circles" in out, out
    assert "BROKEN" in out, out
    assert "No cycles are allowed in mj_ir" in out, out
    assert "._circle_a -> ._circle_b" in out or "._circle_b -> ._circle_a" in out, out


def test_exact_message_for_core_importing_xla(tree_copy):
    """The message a contributor sees for the canonical mistake."""
    inject(tree_copy, "mj_core", "import mj_xla\n")
    result = check_layers(tree_copy)
    assert (
        "packages/mj-core/src/mj_core/_layering_violation.py:1: mj_core imports mj_xla "
        "(layer 1 may only import layers below it; mj_xla is layer 5)"
    ) in result.stdout


def test_relative_and_downward_imports_are_allowed(tree_copy):
    inject(
        tree_copy,
        "mj_xla",
        "from . import _other\nimport mj_core.x\nfrom mj_batch import vmap\nimport jaxlib\n",
    )
    inject(tree_copy, "mj", "import mj_control\nimport mj_core\nimport jax\n")
    result = check_layers(tree_copy)
    assert result.returncode == 0, result.stdout


def test_unknown_package_is_reported(tree_copy):
    extra = tree_copy / "packages" / "mj-extra" / "src" / "mj_extra"
    extra.mkdir(parents=True)
    (extra / "__init__.py").write_text("")
    result = check_layers(tree_copy)
    assert result.returncode == 1
    assert "package mj_extra is not in the layer table" in result.stdout


def test_deptry_flags_undeclared_import(tmp_path):
    """tools/check_deps.py (deptry per package, as `layers:check` runs it) catches an
    import of a distribution the package does not declare."""
    pkg = tmp_path / "mj-core"
    shutil.copytree(
        ROOT / "packages" / "mj-core",
        pkg,
        ignore=shutil.ignore_patterns("__pycache__", "tests"),
    )
    (pkg / "src" / "mj_core" / "_deptry_violation.py").write_text("import hypothesis\n")
    result = run([sys.executable, str(ROOT / "tools" / "check_deps.py"), str(pkg)])
    out = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout + result.stderr)
    assert result.returncode == 1, out
    assert "src/mj_core/_deptry_violation.py:1:" in out, out
    # DEP001 ("missing from the dependency definitions") or, where the environment happens to
    # have it installed through another package, DEP003 ("it is a transitive dependency").
    assert re.search(r"DEP00[13] 'hypothesis' imported but", out), out
    assert "check_deps: dependency problems in mj-core" in out, out


def test_deptry_skips_only_packages_without_imports(tmp_path):
    pkg = tmp_path / "mj-ir"
    (pkg / "src" / "mj_ir").mkdir(parents=True)
    shutil.copy2(ROOT / "packages" / "mj-ir" / "pyproject.toml", pkg / "pyproject.toml")
    init = pkg / "src" / "mj_ir" / "__init__.py"
    init.write_text('"""Docstring only."""\n\n__version__ = "0.1.0"\n')
    tool = str(ROOT / "tools" / "check_deps.py")
    result = run([sys.executable, tool, str(pkg)])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "deptry mj-ir: skipped (no imports in src yet)" in result.stdout
    init.write_text("import numpy\n")  # now checked: mj-core unused, numpy undeclared
    result = run([sys.executable, tool, str(pkg)])
    assert result.returncode == 1, result.stdout + result.stderr


# --- no layer changes a lower layer's classes -----------------------------------------------

# Run in a fresh interpreter: mj_core alone first (mj must not be imported yet), then mj.
_ARRAY_METHODS_SCRIPT = """
import json, sys
import numpy as np
import mj_core.numpy as cnp
from mj_core import EagerArray, Tracer

assert not any(m == "mj" or m.startswith(("mj.", "mj_xla")) for m in sys.modules), sorted(
    m for m in sys.modules if m.startswith("mj")
)
CLASSES = (EagerArray, *EagerArray.__subclasses__(), Tracer)


def results():
    x = cnp.asarray([3.0, 1.0, 2.0, 1.0])
    m = cnp.asarray([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    calls = {
        "sort": x.sort(),
        "sort_descending": x.sort(descending=True),
        "argsort": x.argsort(),
        "argpartition": x.argpartition(1),
        "searchsorted": cnp.asarray([1.0, 2.0, 3.0]).searchsorted(x, side="right"),
        "nonzero": x.nonzero(),
        "nonzero_size": (x - 1.0).nonzero(size=3, fill_value=-1),
        "repeat": x.repeat(2),
        "repeat_axis": m.repeat(cnp.asarray([1, 2]), axis=0),
        "diagonal": m.diagonal(1),
        "trace": m.trace(),
        "choose": cnp.asarray([0, 1, 0]).choose([x[:3], x[1:]]),
        "compress": x.compress(cnp.asarray([True, False, True, True])),
    }
    out = {}
    for name, value in calls.items():
        parts = value if isinstance(value, tuple) else (value,)
        assert all(type(p) is EagerArray for p in parts), (name, [type(p) for p in parts])
        out[name] = [[np.asarray(p).tolist(), np.asarray(p).dtype.name] for p in parts]
    return out


def snapshot():
    return {cls.__name__: dict(vars(cls)) for cls in CLASSES}


before, classes_before = results(), snapshot()
import mj  # noqa: E402

after, classes_after = results(), snapshot()
changed = sorted(
    f"{cls}.{name}"
    for cls, attrs in classes_after.items()
    for name in attrs.keys() | classes_before[cls].keys()
    if attrs.get(name) is not classes_before[cls].get(name)
)
print(json.dumps({"before": before, "after": after, "changed": changed}))
"""


def test_array_methods_are_mj_cores_own():
    """``import mj_core`` alone gives arrays ``jax.Array``'s NumPy-level methods (``x.sort()``,
    ``x.searchsorted(v)``, ...), with NumPy's answers; importing ``mj`` afterwards changes
    neither their results nor any attribute of mj-core's array classes."""
    result = run([sys.executable, "-c", _ARRAY_METHODS_SCRIPT])
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["changed"] == []
    assert report["after"] == report["before"]
    got = report["before"]
    x = np.array([3.0, 1.0, 2.0, 1.0])
    m = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])

    def values(name):
        return [np.array(v) for v, _ in got[name]]

    np.testing.assert_array_equal(values("sort")[0], np.sort(x))
    np.testing.assert_array_equal(values("sort_descending")[0], np.sort(x)[::-1])
    np.testing.assert_array_equal(values("argsort")[0], np.argsort(x, kind="stable"))
    part = values("argpartition")[0]
    assert sorted(part.tolist()) == [0, 1, 2, 3]
    assert x[part[1]] == np.partition(x, 1)[1]
    assert (x[part[:1]] <= x[part[1]]).all()
    np.testing.assert_array_equal(
        values("searchsorted")[0], np.searchsorted([1.0, 2.0, 3.0], x, side="right")
    )
    np.testing.assert_array_equal(values("nonzero")[0], np.nonzero(x)[0])
    np.testing.assert_array_equal(values("nonzero_size")[0], [0, 2, -1])
    np.testing.assert_array_equal(values("repeat")[0], np.repeat(x, 2))
    np.testing.assert_array_equal(values("repeat_axis")[0], np.repeat(m, [1, 2], axis=0))
    np.testing.assert_array_equal(values("diagonal")[0], np.diagonal(m, 1))
    assert values("trace")[0] == np.trace(m)
    np.testing.assert_array_equal(values("choose")[0], np.choose([0, 1, 0], [x[:3], x[1:]]))
    np.testing.assert_array_equal(values("compress")[0], np.compress([1, 0, 1, 1], x))

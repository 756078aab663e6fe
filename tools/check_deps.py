"""Run deptry once per package: declared dependencies must match what the code imports.

deptry runs with each package directory as its working directory, so it reads that
package's own pyproject.toml, and scans only ``src`` (test-only imports such as pytest are
not runtime dependencies). It reports imports of undeclared distributions (DEP001/DEP003)
and declared distributions that are never imported (DEP002).

A package whose sources contain no import statement at all (a layer that is still an empty
shell) cannot use its dependencies yet; it is reported as skipped rather than failed, and is
checked as soon as it imports anything.

Usage: python tools/check_deps.py [PACKAGE_DIR ...]   (default: every packages/*/)
Exit status 1 if deptry fails for any package.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent


def has_imports(src: Path) -> bool:
    """Whether any module under ``src`` imports anything (``__future__`` aside)."""
    for path in src.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                return True
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                return True
    return False


def main(argv: list[str]) -> int:
    deptry = shutil.which("deptry", path=str(Path(sys.executable).parent)) or shutil.which("deptry")
    if deptry is None:
        print("check_deps: deptry is not installed", file=sys.stderr)
        return 2
    packages = [Path(a) for a in argv] or sorted(
        p.parent for p in (REPO_ROOT / "packages").glob("*/pyproject.toml")
    )
    failed: list[str] = []
    for pkg in packages:
        name = pkg.name
        if not has_imports(pkg / "src"):
            print(f"deptry {name}: skipped (no imports in src yet)", flush=True)
            continue
        print(f"deptry {name}:", flush=True)
        if subprocess.run([deptry, "src"], cwd=pkg, check=False).returncode != 0:
            failed.append(name)
    if failed:
        print(f"check_deps: dependency problems in {', '.join(failed)}")
        return 1
    print(f"check_deps: OK, {len(packages)} packages")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

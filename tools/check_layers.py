"""AST layering checker for the mj packages: the second, independent layer check.

import-linter (configured in the root pyproject.toml) is the first mechanism. This script
needs nothing but the standard library and does not import the code it checks, so it works
on any copy of the tree (tests/test_layering.py runs it on a temporary copy with a
deliberate violation).

Rules:
  * a package may import only packages of a lower layer (or itself);
  * jaxlib and jax may be imported only from mj_xla (layer 5) upwards;
  * every package under packages/*/src must appear in the layer table below.

Every kind of import counts: module level, inside functions, under ``if TYPE_CHECKING:``,
``from X import y``, and ``importlib.import_module("X")`` / ``__import__("X")`` with a
literal name. Relative imports stay inside their own package and are always allowed.

Usage: python tools/check_layers.py [--root DIR] [-q]
Exit status 0 when clean, 1 when any violation is found (one line each, ``file:line: ...``).
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

# Lowest layer first: LAYERS[i] is layer i + 1.
LAYERS: tuple[str, ...] = (
    "mj_core",
    "mj_ir",
    "mj_autodiff",
    "mj_batch",
    "mj_xla",
    "mj_control",
    "mj",
)
# External modules that only mj_xla and the layers above it may import.
XLA_ONLY: frozenset[str] = frozenset({"jaxlib", "jax"})
XLA_LAYER: str = "mj_xla"

REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Violation:
    path: Path
    line: int
    message: str

    def format(self, root: Path) -> str:
        try:
            shown = self.path.relative_to(root)
        except ValueError:
            shown = self.path
        return f"{shown}:{self.line}: {self.message}"


def layer_number(package: str) -> int:
    """1-based layer number of an mj package."""
    return LAYERS.index(package) + 1


def imported_modules(tree: ast.AST) -> Iterator[tuple[str, int]]:
    """Yield (absolute module name, line) for every absolute import in ``tree``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0 and node.module:
                yield node.module, node.lineno
        elif (
            isinstance(node, ast.Call)
            and _is_dynamic_import(node.func)
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            value = node.args[0].value
            if isinstance(value, str) and not value.startswith("."):
                yield value, node.lineno


def _is_dynamic_import(func: ast.expr) -> bool:
    if isinstance(func, ast.Name):
        return func.id in {"__import__", "import_module"}
    if isinstance(func, ast.Attribute):
        return (
            func.attr == "import_module"
            and isinstance(func.value, ast.Name)
            and func.value.id == "importlib"
        )
    return False


def check_file(path: Path, package: str) -> list[Violation]:
    """Violations of the layer rules in one source file of ``package``."""
    own = layer_number(package)
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except SyntaxError as exc:
        return [Violation(path, exc.lineno or 0, f"cannot parse: {exc.msg}")]
    found: list[Violation] = []
    for module, line in imported_modules(tree):
        top = module.partition(".")[0]
        if top in LAYERS and layer_number(top) > own:
            found.append(
                Violation(
                    path,
                    line,
                    f"{package} imports {top} "
                    f"(layer {own} may only import layers below it; "
                    f"{top} is layer {layer_number(top)})",
                )
            )
        elif top in XLA_ONLY and own < layer_number(XLA_LAYER):
            found.append(
                Violation(
                    path,
                    line,
                    f"{package} imports {top} "
                    f"(only {XLA_LAYER} (layer {layer_number(XLA_LAYER)}) and the layers "
                    f"above it may import {top}; {package} is layer {own})",
                )
            )
    return found


def source_packages(root: Path) -> Iterator[tuple[str, Path]]:
    """Yield (import name, directory) for every package under root/packages/*/src."""
    for src in sorted((root / "packages").glob("*/src")):
        for pkg_dir in sorted(p for p in src.iterdir() if p.is_dir()):
            if pkg_dir.name.startswith((".", "_")) or pkg_dir.name.endswith(".egg-info"):
                continue
            yield pkg_dir.name, pkg_dir


def check_tree(root: Path) -> tuple[list[Violation], int]:
    """Check every package under ``root``; return the violations and the file count."""
    violations: list[Violation] = []
    n_files = 0
    for package, pkg_dir in source_packages(root):
        if package not in LAYERS:
            violations.append(
                Violation(
                    pkg_dir,
                    0,
                    f"package {package} is not in the layer table "
                    "(add it to LAYERS in tools/check_layers.py and to the "
                    "import-linter contract in pyproject.toml)",
                )
            )
            continue
        for path in sorted(pkg_dir.rglob("*.py")):
            n_files += 1
            violations.extend(check_file(path, package))
    return violations, n_files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check the mj layer rules on packages/*/src.")
    parser.add_argument(
        "--root",
        type=Path,
        default=REPO_ROOT,
        help="repository root containing packages/*/src (default: this repository)",
    )
    parser.add_argument("-q", "--quiet", action="store_true", help="print violations only")
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    if not (root / "packages").is_dir():
        print(f"error: {root} has no packages/ directory", file=sys.stderr)
        return 2
    violations, n_files = check_tree(root)
    for violation in violations:
        print(violation.format(root))
    if violations:
        print(f"check_layers: {len(violations)} layering violation(s)")
        return 1
    if not args.quiet:
        order = " > ".join(reversed(LAYERS))
        print(f"check_layers: OK, {n_files} files respect {order}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

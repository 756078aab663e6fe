"""Count the function annotation slots in packages/*/src that are ``Any``.

A slot is one annotated parameter (positional, ``*args``, keyword-only, ``**kwargs``) or one
return annotation of a ``def``/``async def`` anywhere in a module (methods and nested
functions included). Unannotated parameters (``self``, ``cls``) are not slots.

A slot counts as ``Any`` when its annotation is, to a type checker, ``Any``:

* the name ``Any`` (or ``typing.Any``/``t.Any`` through an imported module);
* an alias of ``Any``: a name bound at module level by ``X: TypeAlias = Any``,
  ``X = Any`` or ``X: Any = ...`` (a variable typed ``Any`` used as a type), followed through
  ``from M import X as Y`` imports and chains of aliases across the whole code base;
* a union one of whose members is ``Any`` (``Any | None``, ``Optional[Any]``,
  ``Union[int, Any]``): such a union accepts anything, as ``Any`` does.

``Sequence[Any]``, ``Callable[..., Any]`` and the like are *not* counted: their outer type
still means something. String annotations are parsed and read the same way.

Only the standard library is used and nothing is imported from the code counted, so it works
on any copy of the tree.

Usage: python tools/count_any.py [--root DIR] [--by-package] [--list]
"""

from __future__ import annotations

import argparse
import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

# Where the name ``Any`` really lives.
_ANY = ("typing", "Any")
_ANY_HOMES = frozenset({"typing", "typing_extensions"})


@dataclass
class Module:
    name: str
    path: Path
    tree: ast.Module
    package: str  # the distribution directory under packages/
    # local name -> (module, attribute) it was imported from (``from M import a as b``)
    imported: dict[str, tuple[str, str]] = field(default_factory=dict)
    # local name -> module it names (``import M as m``)
    modules: dict[str, str] = field(default_factory=dict)
    # local name -> value expression of a module- or class-level binding usable as an alias
    bindings: dict[str, ast.expr] = field(default_factory=dict)


def _module_name(src: Path, path: Path) -> str:
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _resolve_relative(mod: Module, node: ast.ImportFrom) -> str:
    if node.level == 0:
        return node.module or ""
    base = mod.name.split(".")
    if mod.path.name != "__init__.py":
        base.pop()
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def _is_type_alias_annotation(ann: ast.expr) -> bool:
    return (isinstance(ann, ast.Name) and ann.id == "TypeAlias") or (
        isinstance(ann, ast.Attribute) and ann.attr == "TypeAlias"
    )


def _scan_bindings(mod: Module, body: list[ast.stmt]) -> None:
    """Record the imports and alias-like bindings of a module body (and of the ``if``/``try``
    blocks inside it, ``if TYPE_CHECKING:`` included)."""
    for stmt in body:
        if isinstance(stmt, ast.ImportFrom):
            source = _resolve_relative(mod, stmt)
            for alias in stmt.names:
                if alias.name != "*":
                    mod.imported[alias.asname or alias.name] = (source, alias.name)
        elif isinstance(stmt, ast.Import):
            for alias in stmt.names:
                if alias.asname:
                    mod.modules[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    mod.modules[top] = top
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            if _is_type_alias_annotation(stmt.annotation) and stmt.value is not None:
                mod.bindings[stmt.target.id] = stmt.value
            else:  # ``X: Any = ...``: a variable typed Any is Any wherever used as a type
                mod.bindings[stmt.target.id] = stmt.annotation
        elif isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target = stmt.targets[0]
            if isinstance(target, ast.Name):
                mod.bindings[target.id] = stmt.value
        elif isinstance(stmt, ast.If):
            _scan_bindings(mod, stmt.body)
            _scan_bindings(mod, stmt.orelse)
        elif isinstance(stmt, ast.Try):
            _scan_bindings(mod, stmt.body)
            for handler in stmt.handlers:
                _scan_bindings(mod, handler.body)
            _scan_bindings(mod, stmt.orelse)
            _scan_bindings(mod, stmt.finalbody)


class AnyResolver:
    """Decides whether an annotation expression of a given module is ``Any``."""

    def __init__(self, modules: dict[str, Module]) -> None:
        self.modules = modules
        self._cache: dict[tuple[str, str], bool] = {}
        self._active: set[tuple[str, str]] = set()

    def name_is_any(self, module: str, name: str) -> bool:
        """Whether ``name`` as bound in ``module`` is ``Any`` (or an alias of it)."""
        key = (module, name)
        if key in self._cache:
            return self._cache[key]
        if module in _ANY_HOMES:
            return name == _ANY[1]
        if key in self._active:  # an import or alias cycle: not Any
            return False
        self._active.add(key)
        try:
            result = self._lookup(module, name)
        finally:
            self._active.discard(key)
        self._cache[key] = result
        return result

    def _lookup(self, module: str, name: str) -> bool:
        mod = self.modules.get(module)
        if mod is None:  # outside the code base (numpy, jaxlib, ...): not an alias of Any
            return False
        if name in mod.bindings:
            return self.expr_is_any(mod, mod.bindings[name])
        if name in mod.imported:
            source, attr = mod.imported[name]
            return self.name_is_any(source, attr)
        # ``from M import *`` re-exports: follow every star import of this module.
        return any(
            self.name_is_any(_resolve_relative(mod, stmt), name)
            for stmt in ast.walk(mod.tree)
            if isinstance(stmt, ast.ImportFrom) and any(a.name == "*" for a in stmt.names)
        )

    def expr_is_any(self, mod: Module, expr: ast.expr) -> bool:
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            try:
                parsed = ast.parse(expr.value, mode="eval").body
            except SyntaxError:
                return False
            return self.expr_is_any(mod, parsed)
        if isinstance(expr, ast.Name):
            return self.name_is_any(mod.name, expr.id)
        if isinstance(expr, ast.Attribute) and isinstance(expr.value, ast.Name):
            target = mod.modules.get(expr.value.id)
            if target is None and expr.value.id in mod.imported:
                source, attr = mod.imported[expr.value.id]
                target = f"{source}.{attr}"
            if target is not None:
                return self.name_is_any(target, expr.attr)
            return False
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
            return self.expr_is_any(mod, expr.left) or self.expr_is_any(mod, expr.right)
        if isinstance(expr, ast.Subscript) and self._is_union_head(mod, expr.value):
            members = expr.slice.elts if isinstance(expr.slice, ast.Tuple) else [expr.slice]
            return any(self.expr_is_any(mod, m) for m in members)
        return False

    def _is_union_head(self, mod: Module, head: ast.expr) -> bool:
        name = head.id if isinstance(head, ast.Name) else None
        if isinstance(head, ast.Attribute):
            name = head.attr
        if name not in ("Optional", "Union"):
            return False
        if isinstance(head, ast.Name) and head.id in mod.imported:
            return mod.imported[head.id][0] in _ANY_HOMES
        return True


@dataclass
class Counts:
    slots: int = 0
    any_slots: int = 0
    where: list[str] = field(default_factory=list)

    @property
    def percent(self) -> float:
        return 100.0 * self.any_slots / self.slots if self.slots else 0.0


def _slots(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> Iterator[tuple[str, ast.expr]]:
    args = fn.args
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
        if arg.annotation is not None:
            yield arg.arg, arg.annotation
    for star in (args.vararg, args.kwarg):
        if star is not None and star.annotation is not None:
            yield star.arg, star.annotation
    if fn.returns is not None:
        yield "return", fn.returns


def load_modules(root: Path) -> dict[str, Module]:
    modules: dict[str, Module] = {}
    for src in sorted(root.glob("packages/*/src")):
        for path in sorted(src.rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            mod = Module(_module_name(src, path), path, tree, src.parent.name)
            _scan_bindings(mod, tree.body)
            modules[mod.name] = mod
    return modules


def count(root: Path) -> dict[str, Counts]:
    """Per-distribution counts (keys: the directory names under packages/)."""
    modules = load_modules(root)
    resolver = AnyResolver(modules)
    per_package: dict[str, Counts] = {}
    for mod in modules.values():
        counts = per_package.setdefault(mod.package, Counts())
        for node in ast.walk(mod.tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for slot, ann in _slots(node):
                counts.slots += 1
                if resolver.expr_is_any(mod, ann):
                    counts.any_slots += 1
                    rel = mod.path.relative_to(root)
                    counts.where.append(f"{rel}:{ann.lineno}: {node.name}({slot})")
    return per_package


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=REPO_ROOT, help="repository root")
    parser.add_argument("--by-package", action="store_true", help="one line per package")
    parser.add_argument("--list", action="store_true", help="list every Any slot")
    args = parser.parse_args(argv)
    per_package = count(args.root.resolve())
    total = Counts()
    for name in sorted(per_package):
        counts = per_package[name]
        total.slots += counts.slots
        total.any_slots += counts.any_slots
        total.where.extend(counts.where)
        if args.by_package:
            print(f"{name:12} {counts.any_slots:5} / {counts.slots:5}  {counts.percent:5.1f}%")
    if args.list:
        print("\n".join(total.where))
    print(f"Any annotation slots: {total.any_slots} / {total.slots} ({total.percent:.1f}%)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

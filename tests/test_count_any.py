"""tools/count_any.py: which annotation slots it counts as ``Any``, on a small temporary tree."""

from __future__ import annotations

import importlib.util
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("count_any", ROOT / "tools" / "count_any.py")
assert _spec is not None
assert _spec.loader is not None
count_any = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("count_any", count_any)  # its dataclasses look their module up
_spec.loader.exec_module(count_any)


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def test_aliases_imports_and_unions(tmp_path):
    _write(
        tmp_path,
        "packages/a/src/pa/_typing.py",
        """
        from typing import Any, TypeAlias
        Alias: TypeAlias = Any
        Plain = Any
        Typed: Any = object
        Real: TypeAlias = int | str
        """,
    )
    _write(tmp_path, "packages/a/src/pa/__init__.py", "from pa._typing import Alias as A2\n")
    _write(
        tmp_path,
        "packages/b/src/pb/mod.py",
        """
        import typing as t
        from collections.abc import Sequence
        from typing import Any, Optional
        from pa import A2
        from pa._typing import Plain, Real, Typed
        from ._local import Chained

        def f(a: A2, b: Plain, c: Typed, d: Real, e: Sequence[Any], *args: Any) -> t.Any: ...
        class C:
            def m(self, x: Optional[Any], y: int | Any, z: "A2", w: Chained, **kw: int) -> None: ...
        """,
    )
    _write(tmp_path, "packages/b/src/pb/_local.py", "from pa import A2\nChained = A2\n")
    per_package = count_any.count(tmp_path)
    counts = per_package["b"]
    # Slots: f has 6 parameters and a return, m has 5 annotated parameters and a return.
    assert counts.slots == 13
    anys = sorted(line.split(": ", 1)[1] for line in counts.where)
    assert anys == sorted(
        ["f(a)", "f(b)", "f(c)", "f(args)", "f(return)", "m(x)", "m(y)", "m(z)", "m(w)"]
    )
    assert per_package["a"].slots == 0


def test_repository_counts_are_consistent():
    per_package = count_any.count(ROOT)
    assert set(per_package) >= {"mj-core", "mj-batch", "mj"}
    for counts in per_package.values():
        assert 0 <= counts.any_slots <= counts.slots
        assert len(counts.where) == counts.any_slots

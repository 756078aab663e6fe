"""The code blocks of packages/mj-ir/README.md run, in order, in one namespace."""

import re
from pathlib import Path

from mj_core import impl_rules
from mj_ir import abstract_eval_rules

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_code_blocks_run(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert len(blocks) >= 4
    namespace: dict[str, object] = {}
    tables = (impl_rules, abstract_eval_rules)
    before = [dict(t) for t in tables]
    try:
        for block in blocks:
            exec(compile(block, str(README), "exec"), namespace)
    finally:
        # the README registers an example primitive: keep it out of other tests' tables
        for table, saved in zip(tables, before, strict=True):
            table.clear()
            table.update(saved)
    out = capsys.readouterr().out
    assert "(float32[3]) -> (float32[3])" in out

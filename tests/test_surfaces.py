"""One surface per layer (issue 17): the import-linter contracts name every internal module.

``pyproject.toml`` has one ``forbidden`` contract per layer listing the modules higher layers
may not import (everything but ``__init__``, ``extend`` and, for mj-core, its public
namespaces). A module added later must be added there too, or made part of a surface: this
test recomputes the lists from the tree and fails on any difference.
"""

import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LAYERS = {
    "mj_core": "mj-core",
    "mj_ir": "mj-ir",
    "mj_autodiff": "mj-autodiff",
    "mj_batch": "mj-batch",
    "mj_xla": "mj-xla",
    "mj_control": "mj-control",
}
CORE_NAMESPACES = {"numpy", "lax", "lax_linalg", "tree_util", "dtypes", "errors", "prims"}


def internal_modules(pkg: str) -> set[str]:
    src = ROOT / "packages" / LAYERS[pkg] / "src"
    out = set()
    for path in (src / pkg).rglob("*.py"):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if len(parts) == 1 or parts[1] == "extend":
            continue
        public_namespace = pkg == "mj_core" and parts[1] in CORE_NAMESPACES
        if public_namespace and not any(p.startswith("_") for p in parts[2:]):
            continue
        out.add(".".join(parts))
    return out


def contracts() -> dict[str, dict]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    found = {}
    for contract in config["contracts"]:
        if contract["name"].startswith("Surfaces: "):
            found[contract["name"].split()[4]] = contract
    return found


@pytest.mark.parametrize("pkg", list(LAYERS))
def test_surface_contract_lists_every_internal_module(pkg):
    contract = contracts()[pkg]
    assert contract["type"] == "forbidden"
    assert set(contract["forbidden_modules"]) == internal_modules(pkg)
    order = [*LAYERS, "mj"]
    assert contract["source_modules"] == order[order.index(pkg) + 1 :]


def test_every_layer_has_an_extend_module():
    for pkg, dist in LAYERS.items():
        assert (ROOT / "packages" / dist / "src" / pkg / "extend.py").is_file(), pkg

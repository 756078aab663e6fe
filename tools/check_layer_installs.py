"""Prove that installing one mj layer installs exactly that layer and the layers below it.

For each requested layer (default: all seven, lowest first) this script
  1. builds a wheel of every package under packages/ (once, with hatchling),
  2. creates a fresh virtual environment and runs
     ``pip install --find-links <wheels> <dist>==<version>`` in it (the mj wheels come from
     the local directory; third-party dependencies such as numpy from the configured
     package registry or pip's cache),
  3. imports the layer, checks that no higher layer is importable, and
  4. compares ``pip list`` with the expectation: the mj distributions are exactly the layer
     and every layer below it, and jaxlib is present only from mj-xla upwards (jax never).

Usage: python tools/check_layer_installs.py [--wheels DIR] [--workdir DIR] [LAYER ...]
LAYER is a distribution name (mj-core) or an import name (mj_core).
Prints one ``OK``/``FAIL`` line per layer; exit status 1 if any layer fails.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
import venv
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_layers import LAYERS, XLA_LAYER

REPO_ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Layer:
    number: int  # 1-based, lowest first
    dist: str  # normalized distribution name, e.g. "mj-core"
    module: str  # import name, e.g. "mj_core"
    version: str
    path: Path  # package directory (contains pyproject.toml)


def normalize(name: str) -> str:
    """PEP 503 normalization, as pip list reports names (lowercase, '-' separated)."""
    out = name.lower()
    for sep in ("_", "."):
        out = out.replace(sep, "-")
    return out


def discover_layers(root: Path) -> list[Layer]:
    """The mj packages under root/packages, ordered by layer (lowest first)."""
    by_module: dict[str, Layer] = {}
    for pyproject in sorted((root / "packages").glob("*/pyproject.toml")):
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
        dist = normalize(project["name"])
        module = dist.replace("-", "_")
        if module not in LAYERS:
            raise SystemExit(f"{pyproject}: {module} is not in the layer table")
        by_module[module] = Layer(
            number=LAYERS.index(module) + 1,
            dist=dist,
            module=module,
            version=str(project["version"]),
            path=pyproject.parent,
        )
    missing = [m for m in LAYERS if m not in by_module]
    if missing:
        raise SystemExit(f"no package directory for layer(s): {', '.join(missing)}")
    return [by_module[m] for m in LAYERS]


def expected_dists(layer: Layer, layers: list[Layer]) -> list[str]:
    """The mj distributions that installing ``layer`` must bring: itself and all below."""
    return [other.dist for other in layers if other.number <= layer.number]


def expects_jaxlib(layer: Layer) -> bool:
    return layer.number >= LAYERS.index(XLA_LAYER) + 1


def verdict(layer: Layer, layers: list[Layer], installed: set[str]) -> list[str]:
    """Problems with the set of installed (normalized) distribution names; [] if none."""
    problems: list[str] = []
    ours = {layer.dist for layer in layers}
    got = sorted(installed & ours, key=lambda d: [x.dist for x in layers].index(d))
    want = expected_dists(layer, layers)
    if got != want:
        extra = sorted(set(got) - set(want))
        missing = sorted(set(want) - set(got))
        if extra:
            problems.append(f"higher layers installed: {extra}")
        if missing:
            problems.append(f"lower layers missing: {missing}")
    if "jaxlib" in installed and not expects_jaxlib(layer):
        problems.append(f"jaxlib installed, but only {XLA_LAYER} and above may need it")
    if "jaxlib" not in installed and expects_jaxlib(layer):
        problems.append("jaxlib missing")
    if "jax" in installed:
        problems.append("jax installed (no mj layer may depend on jax)")
    return problems


def build_wheels(layers: list[Layer], out: Path) -> None:
    """Build one wheel per package into ``out`` (hatchling in-process env, else pip wheel)."""
    out.mkdir(parents=True, exist_ok=True)
    have_hatchling = importlib.util.find_spec("hatchling") is not None
    for layer in layers:
        if have_hatchling:
            cmd = [sys.executable, "-m", "hatchling", "build", "-t", "wheel", "-d", str(out)]
        else:
            cmd = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), "."]
        built = subprocess.run(cmd, cwd=layer.path, capture_output=True, text=True, check=False)
        if built.returncode != 0:
            raise SystemExit(f"building {layer.dist} failed:\n{built.stdout}{built.stderr}")


def venv_python(env_dir: Path) -> Path:
    if os.name == "nt":
        return env_dir / "Scripts" / "python.exe"
    return env_dir / "bin" / "python"


def find_uv() -> str | None:
    """The uv binary hatch uses ($HATCH_UV), else uv on PATH, else None."""
    candidate = os.environ.get("HATCH_UV") or shutil.which("uv")
    if candidate and Path(candidate).is_file():
        return candidate
    return None


def installer_command(installer: str, python: str) -> list[str]:
    """The command prefix that runs ``pip install``/``pip list`` against ``python``."""
    if installer == "uv":
        uv = find_uv()
        if uv is None:
            raise SystemExit("--installer uv: no uv found ($HATCH_UV or PATH)")
        return [uv, "pip"]
    if importlib.util.find_spec("pip") is not None:
        # Drive the new environment with this interpreter's pip (`pip --python`).
        return [sys.executable, "-m", "pip", "--python", python]
    return [python, "-m", "pip"]


def check_layer(
    layer: Layer, layers: list[Layer], wheels: Path, workdir: Path, installer: str
) -> list[str]:
    env_dir = workdir / f"venv-{layer.dist}"
    # The environment gets a pip of its own only when nothing outside can install into it.
    own_pip = installer == "pip" and importlib.util.find_spec("pip") is None
    venv.EnvBuilder(with_pip=own_pip, clear=True).create(env_dir)
    python = str(venv_python(env_dir))
    pip = installer_command(installer, python)
    target = ["--python", python] if installer == "uv" else []
    env = {**os.environ, "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PYTHONNOUSERSITE": "1"}
    for var in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "UV_PYTHON"):
        env.pop(var, None)
    install = subprocess.run(
        [*pip, "install", *target, "--quiet", "--find-links", str(wheels),
         f"{layer.dist}=={layer.version}"],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    if install.returncode != 0:
        return [f"{installer} pip install failed:\n{install.stdout}{install.stderr}"]
    higher = [other.module for other in layers if other.number > layer.number]
    probe = (
        "import importlib, importlib.util, sys\n"
        f"importlib.import_module({layer.module!r})\n"
        f"bad = [m for m in {higher!r} if importlib.util.find_spec(m) is not None]\n"
        "sys.exit(f'higher layers importable: {bad}' if bad else 0)\n"
    )
    imported = subprocess.run(
        [python, "-I", "-c", probe], env=env, capture_output=True, text=True, check=False
    )
    problems = []
    if imported.returncode != 0:
        problems.append(f"import {layer.module} failed:\n{imported.stdout}{imported.stderr}")
    listed = subprocess.run(
        [*pip, "list", *target, "--format=json"],
        env=env, capture_output=True, text=True, check=True,
    )  # fmt: skip
    installed = {normalize(d["name"]) for d in json.loads(listed.stdout)}
    problems += verdict(layer, layers, installed)
    return problems


def select(layers: list[Layer], names: list[str]) -> list[Layer]:
    if not names:
        return layers
    wanted = {normalize(n) for n in names}
    unknown = wanted - {layer.dist for layer in layers}
    if unknown:
        raise SystemExit(f"unknown layer(s): {sorted(unknown)}")
    return [layer for layer in layers if layer.dist in wanted]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Check that each mj layer installs alone.")
    parser.add_argument("layers", nargs="*", help="layers to check (default: all)")
    parser.add_argument("--root", type=Path, default=REPO_ROOT, help="repository root")
    parser.add_argument("--wheels", type=Path, help="directory of prebuilt mj wheels")
    parser.add_argument("--workdir", type=Path, help="where to put wheels and venvs")
    parser.add_argument(
        "--installer",
        choices=["auto", "uv", "pip"],
        default="auto",
        help="what installs into the fresh environments: uv pip (fast; hatch's own uv) "
        "or pip (default auto: uv when available)",
    )
    args = parser.parse_args(argv)

    layers = discover_layers(args.root.resolve())
    chosen = select(layers, args.layers)
    with tempfile.TemporaryDirectory(prefix="mj-installs-") as tmp:
        workdir = (args.workdir or Path(tmp)).resolve()
        wheels = args.wheels.resolve() if args.wheels else workdir / "wheels"
        if not args.wheels:
            build_wheels(layers, wheels)
        installer = args.installer
        if installer == "auto":
            installer = "uv" if find_uv() else "pip"
        print(f"check_layer_installs: installing with {'uv pip' if installer == 'uv' else 'pip'}")
        failed = 0
        for layer in chosen:
            problems = check_layer(layer, layers, wheels, workdir, installer)
            want = expected_dists(layer, layers)
            jaxlib = expects_jaxlib(layer)
            if problems:
                failed += 1
                print(f"FAIL {layer.dist}: expected layers={want} jaxlib={jaxlib}")
                for problem in problems:
                    print(f"  - {problem}")
            else:
                print(f"OK {layer.dist}: layers={want} jaxlib={jaxlib}")
            sys.stdout.flush()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

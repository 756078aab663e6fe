"""optax / equinox / flax.linen programs, written as their READMEs write them, run on mj
through ``python -m mj.as_jax`` and compared with the loss curves real JAX gives
(and chex's / jaxtyping's checks with the answers JAX gives)
(tests/libs/jax_losses.json, recorded by ``hatch run libs-jax:reference``).

The libraries are not mj dependencies: these tests run in the ``libs`` hatch env
(``hatch run libs:test``) and skip elsewhere.
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
import subprocess
import sys

import numpy as np
import pytest

HERE = pathlib.Path(__file__).parent
REFERENCE = json.loads((HERE / "jax_losses.json").read_text())

# program -> the libraries it needs
PROGRAMS = {
    "optax_adam_mlp": ["optax"],
    "equinox_mlp": ["optax", "equinox"],
    "flax_linen_cnn": ["optax", "flax"],
    "chex_jaxtyping_checks": ["chex", "jaxtyping"],
    "equinox_layers": ["equinox"],
    "flax_linen_layers": ["flax"],
}


def test_every_program_is_compared() -> None:
    on_disk = {path.stem for path in (HERE / "programs").glob("*.py")}
    assert on_disk == set(PROGRAMS)
    assert all(REFERENCE.get(name) for name in _result_names())


def _assert_same_results(got: object, want: object, where: str) -> None:
    """Equal structure and strings (an exception's type); numbers to float32 precision."""
    if isinstance(want, dict):
        assert isinstance(got, dict), where
        assert got.keys() == want.keys(), where
        for key in want:
            _assert_same_results(got[key], want[key], f"{where}.{key}")
    elif isinstance(want, str) or isinstance(got, str):
        assert got == want, where
    elif isinstance(want, list) and any(isinstance(w, dict | str) for w in want):
        assert isinstance(got, list), where
        assert len(got) == len(want), where
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            _assert_same_results(g, w, f"{where}[{i}]")
    else:
        np.testing.assert_allclose(
            np.asarray(got, float), np.asarray(want, float), rtol=1e-5, atol=1e-6, err_msg=where
        )


def _result_names() -> list[str]:
    return [key for key in REFERENCE if key != "jax_version"]


def _missing(libs: list[str]) -> list[str]:
    return [lib for lib in libs if importlib.util.find_spec(lib) is None]


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_program_matches_jax(program: str) -> None:
    missing = _missing(PROGRAMS[program])
    if missing:
        pytest.skip(f"needs {missing} (the libs hatch env)")
    out = subprocess.run(
        [sys.executable, "-m", "mj.as_jax", str(HERE / "programs" / f"{program}.py")],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    curves = json.loads(out.stdout.strip().splitlines()[-1])
    assert curves, "the program printed no loss curve"
    for name, losses in curves.items():
        if isinstance(losses, dict):  # named results: JAX's (numbers to float32 precision)
            _assert_same_results(losses, REFERENCE[name], name)
            continue
        expected = np.asarray(REFERENCE[name])
        got = np.asarray(losses)
        assert got.shape == expected.shape, name
        assert expected[-1] < 0.5 * expected[0], f"{name}: the reference does not train"
        # float32 training over 100 steps: agreement to float32 precision, accumulated
        np.testing.assert_allclose(got, expected, rtol=2e-4, atol=1e-6, err_msg=name)


def test_libraries_import_under_as_jax() -> None:
    missing = _missing(["chex", "equinox", "optax", "jaxtyping", "flax"])
    if missing:
        pytest.skip(f"needs {missing} (the libs hatch env)")
    code = "import chex, equinox, optax, jaxtyping, flax.linen, jax; print(jax.numpy.__name__)"
    out = subprocess.run(
        [sys.executable, "-m", "mj.as_jax", "-c", code], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip() == "mj.numpy"

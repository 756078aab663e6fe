"""Run the library programs on real JAX and record their loss curves (tests/libs/jax_losses.json).

Run in the ``libs-jax`` hatch env (real jax 0.10.2 with the pinned libraries):
``hatch run libs-jax:reference``. tests/libs/test_programs.py compares mj's curves with these.
"""

import json
import pathlib
import subprocess
import sys

HERE = pathlib.Path(__file__).parent
# every program in programs/ (tests/libs/test_programs.py checks each is compared)
PROGRAMS = sorted(path.stem for path in (HERE / "programs").glob("*.py"))


def main() -> None:
    import jax

    curves: dict[str, object] = {"jax_version": jax.__version__}
    for name in PROGRAMS:
        out = subprocess.run(
            [sys.executable, str(HERE / "programs" / f"{name}.py")],
            capture_output=True,
            text=True,
            check=True,
        )
        curves.update(json.loads(out.stdout.strip().splitlines()[-1]))
    (HERE / "jax_losses.json").write_text(json.dumps(curves, indent=1) + "\n")


if __name__ == "__main__":
    main()

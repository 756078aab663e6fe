"""``python -m mj.as_jax script.py [args...]`` (or ``-m module [args...]``, ``-c command
[args...]``): run a JAX program on mj, as ``python script.py [args...]`` would run it on JAX."""

from __future__ import annotations

import os
import runpy
import sys

from mj.as_jax import install

_USAGE = (
    "usage: python -m mj.as_jax script.py [args...]  |  python -m mj.as_jax -m module [args...]"
    "  |  python -m mj.as_jax -c command [args...]"
)


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(_USAGE, file=sys.stderr if not argv else sys.stdout)
        return 2 if not argv else 0
    install()
    if argv[0] in ("-m", "-c") and len(argv) < 2:
        print(_USAGE, file=sys.stderr)
        return 2
    if argv[0] == "-c":  # as `python -c`: sys.argv[0] is "-c", the code runs in __main__
        sys.argv = ["-c", *argv[2:]]
        sys.path.insert(0, "")
        main_globals = {"__name__": "__main__", "__builtins__": __builtins__}
        exec(compile(argv[1], "<string>", "exec"), main_globals)
        return 0
    if argv[0] == "-m":
        if len(argv) < 2:
            print(_USAGE, file=sys.stderr)
            return 2
        sys.argv = [argv[1], *argv[2:]]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    script = argv[0]
    sys.argv = list(argv)
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Every API name seed 004 documents exists in mj, and the small names issue 22 added behave
as JAX's.

``data/seed004_api_reference.txt`` is the seed's "Public API: jax package" reference, verbatim
(from the line of that title to the end). Its lists have two shapes: ``name (signature)`` lines
under a module heading (``jax.numpy package¶``, ``jax.scipy.linalg¶``, ...), each followed by a
one-line description, and ``jax.experimental.stax.`` / ``jax.random.`` qualifier lines followed
by the name. ``jax.X`` is checked as ``mj.X``.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import numpy as np
import pytest

import mj
import mj.numpy as mnp
import mj.scipy.linalg
from mj import lax, nn

REFERENCE = Path(__file__).parent / "data" / "seed004_api_reference.txt"
# The copy keeps the web page's mis-decoded pilcrow ("Â¶") after each heading.
_HEADING = re.compile(r"^(jax(?:\.\w+)*)(?: (?:package|module))?Â?¶$", re.ASCII)
_ENTRY = re.compile(r"^([A-Za-z_]\w*) (?:\(.*\) )?$", re.ASCII)
_QUALIFIER = re.compile(r"^(jax(?:\.\w+)+)\.$", re.ASCII)
# A heading inside ``jax.nn package``'s page that switches back from its initializers list.
_NN_FUNCTIONS = "Activation functions"


def documented_names() -> dict[str, set[str]]:
    """The seed's documented names, by the ``jax`` module that documents them."""
    lines = REFERENCE.read_text(encoding="utf-8").splitlines()
    names: dict[str, set[str]] = {}
    module: str | None = None
    i = 0
    while i < len(lines):
        line = lines[i]
        heading = _HEADING.match(line)
        if heading:
            module = heading.group(1)
        elif line.startswith(_NN_FUNCTIONS):
            module = "jax.nn"
        elif (qualifier := _QUALIFIER.match(line)) and i + 1 < len(lines):
            names.setdefault(qualifier.group(1), set()).add(lines[i + 1].strip())
            i += 2
            continue
        elif (entry := _ENTRY.match(line)) and module is not None:
            names.setdefault(module, set()).add(entry.group(1))
            i += 2  # the description line
            continue
        i += 1
    return names


DOCUMENTED = documented_names()
CASES = sorted((module, name) for module, names in DOCUMENTED.items() for name in names)


def test_the_walk_reads_every_list() -> None:
    # The issue counted 513 documented names over these modules; a parser that skips a
    # list or swallows descriptions as names would change these numbers.
    assert len(CASES) == 513
    assert len(DOCUMENTED["jax.numpy"]) == 217
    assert len(DOCUMENTED["jax.lax"]) == 117
    assert DOCUMENTED["jax.experimental.loops"] == {"Scope"}
    assert DOCUMENTED["jax.scipy.ndimage"] == {"map_coordinates"}
    assert "normalize" in DOCUMENTED["jax.nn"]
    assert "he_normal" in DOCUMENTED["jax.nn.initializers"]


@pytest.mark.parametrize(("module", "name"), CASES, ids=[f"{m}.{n}" for m, n in CASES])
def test_documented_name_exists(module: str, name: str) -> None:
    mj_module = importlib.import_module("mj" + module.removeprefix("jax"))
    present = hasattr(mj_module, name)
    assert present, (
        f"{module}.{name} is documented by seed 004 but mj has no {mj_module.__name__}.{name}"
    )


# --- the small names' behaviour --------------------------------------------------------------
def test_removed_numpy_aliases_compute_what_they_aliased() -> None:
    x = np.array([[3.0, -1.0, 2.0], [0.5, 4.0, -2.0]])
    np.testing.assert_array_equal(np.asarray(mnp.alltrue(x > -3, axis=0)), np.all(x > -3, axis=0))
    np.testing.assert_array_equal(np.asarray(mnp.sometrue(x > 3.5, axis=1)), [False, True])
    np.testing.assert_allclose(np.asarray(mnp.product(x, axis=1)), np.prod(x, axis=1))
    np.testing.assert_allclose(np.asarray(mnp.cumproduct(x)), np.cumprod(x))
    np.testing.assert_array_equal(np.asarray(mnp.msort(x)), np.sort(x, axis=0))
    assert mnp.issubsctype(np.float32, np.floating)
    assert mnp.issubsctype(mnp.zeros(2, mnp.int32), np.signedinteger)
    assert not mnp.issubsctype(mnp.int32, np.floating)


def test_index_take_gathers_slices_at_index_tuples() -> None:
    src = np.arange(24.0).reshape(2, 3, 4)
    rows, cols = np.array([0, 1, -1]), np.array([3, 5, 0])  # wrap around: -1 -> 1, 5 -> 1
    out = lax.index_take(src, (rows, cols), (0, 2))
    np.testing.assert_array_equal(np.asarray(out), src[rows % 2, :, cols % 4])
    grad = mj.grad(lambda s: mnp.sum(lax.index_take(s, (np.array([0, 0]),), (1,))))(src)
    np.testing.assert_array_equal(np.asarray(grad)[0, :, 0], [2.0, 0.0, 0.0])


def test_tie_in_is_the_identity_on_its_second_argument() -> None:
    y = mnp.arange(3.0)
    assert lax.tie_in(mnp.ones(2), y) is y
    np.testing.assert_array_equal(np.asarray(mj.jit(lax.tie_in)(1.0, y)), [0.0, 1.0, 2.0])


def test_scipy_linalg_triangles_and_nn_normalize() -> None:
    m = np.arange(1.0, 10.0).reshape(3, 3)
    np.testing.assert_array_equal(np.asarray(mj.scipy.linalg.tril(m, -1)), np.tril(m, -1))
    np.testing.assert_array_equal(np.asarray(mj.scipy.linalg.triu(m, 1)), np.triu(m, 1))
    x = np.array([[1.0, 2.0, 6.0], [0.0, -3.0, 3.0]])
    want = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(np.asarray(nn.normalize(x)), want, rtol=1e-10)
    assert nn.normalize is nn.standardize


def test_column_stack_of_an_array_stacks_its_rows() -> None:
    assert mnp.column_stack(mnp.arange(3.0)).shape == (1, 3)  # three scalars, as in JAX
    rows = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(np.asarray(mnp.column_stack(rows)), np.column_stack(list(rows)))
    np.testing.assert_array_equal(np.asarray(mnp.column_stack([1.0, 2.0])), [[1.0, 2.0]])
    with pytest.raises(ValueError, match="column_stack: expected a sequence of arrays"):
        mnp.column_stack(mnp.asarray(1.0))

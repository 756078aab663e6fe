"""``lax.scatter_apply`` / ``x.at[idx].apply(func)``: mj-core's function, mj-control's loop
(registered in ``scatter_apply_rules``), the same eagerly, under jit and vmap, whoever imported
what; values against a NumPy loop that applies ``func`` once per occurrence of an index."""

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import mj_control  # noqa: F401 (registers lax.scatter_apply's loop)
from mj_autodiff import grad, jvp
from mj_batch import vmap
from mj_core import lax
from mj_core import numpy as mnp
from mj_core.prims.indexing import ScatterDimensionNumbers
from mj_xla import jit

DNUMS = ScatterDimensionNumbers(
    update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
)


def _reference(x, index, func):
    """``func`` applied once per occurrence of each element ``x[index]`` selects."""
    out = np.array(x)
    positions = np.arange(out.size).reshape(out.shape)[index]
    for p in np.ravel(positions):
        out.flat[p] = func(out.flat[p])
    return out


@pytest.mark.parametrize(
    "index",
    [1, -1, np.array([1, 1, 1]), np.array([0, 5, 0, 2]), slice(1, None, 2), (Ellipsis,)],
    ids=["int", "negative", "repeated", "mixed", "slice", "all"],
)
def test_at_apply_eager_jit_vmap_match_a_numpy_loop(index):
    x = np.linspace(-1.0, 2.0, 6)
    want = _reference(x, index, lambda v: v * 2 - 1)
    f = lambda v: v.at[index].apply(lambda w: w * 2 - 1)  # noqa: E731
    np.testing.assert_allclose(np.asarray(f(mnp.asarray(x))), want, rtol=1e-12)
    np.testing.assert_allclose(np.asarray(jit(f)(x)), want, rtol=1e-12)
    xs = np.stack([x, -x, x**2])
    want_batched = np.stack([_reference(r, index, np.sin) for r in xs])
    got = vmap(lambda v: v.at[index].apply(mnp.sin))(xs)
    np.testing.assert_allclose(np.asarray(got), want_batched, rtol=1e-12)
    got_jit = jit(vmap(lambda v: v.at[index].apply(mnp.sin)))(xs)
    np.testing.assert_allclose(np.asarray(got_jit), want_batched, rtol=1e-12)


def test_lax_scatter_apply_out_of_bounds_dropped_or_clipped():
    x = np.arange(1.0, 5.0)
    idx = np.array([[1], [1], [7]])
    dropped = lax.scatter_apply(x, idx, lambda v: v * 10, DNUMS, update_shape=(3,))
    np.testing.assert_array_equal(np.asarray(dropped), [1.0, 200.0, 3.0, 4.0])
    clipped = jit(
        lambda v: lax.scatter_apply(v, idx, lambda w: w * 10, DNUMS, update_shape=(3,), mode="clip")
    )(x)
    np.testing.assert_array_equal(np.asarray(clipped), [1.0, 200.0, 3.0, 40.0])


def test_at_apply_is_not_differentiable():
    f = lambda v: v.at[1].apply(mnp.sin).sum()  # noqa: E731
    with pytest.raises(NotImplementedError, match="scatter_apply JVP not implemented"):
        grad(f)(np.array([1.0, 2.0]))
    with pytest.raises(NotImplementedError, match="scatter_apply JVP not implemented"):
        jvp(f, (np.array([1.0, 2.0]),), (np.ones(2),))


def _run(code):
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, check=False
    )


def test_at_apply_needs_mj_control_not_mj():
    """The loop is registered by importing mj-control; the umbrella ``mj`` plays no part."""
    done = _run(
        """
        import json, sys
        import numpy as np
        import mj_control
        from mj_core import numpy as mnp
        from mj_xla import jit
        x = np.arange(1.0, 7.0, dtype=np.float32)
        f = lambda v: v.at[np.array([1, 1, 4])].apply(lambda w: w * 2 - 1)
        print(json.dumps([np.asarray(f(mnp.asarray(x))).tolist(), np.asarray(jit(f)(x)).tolist()]))
        assert not any(m == "mj" or m.startswith("mj.") for m in sys.modules)
        """
    )
    assert done.returncode == 0, done.stderr
    want = _reference(np.arange(1.0, 7.0), np.array([1, 1, 4]), lambda v: v * 2 - 1).tolist()
    assert json.loads(done.stdout) == [want, want]


def test_at_apply_without_mj_control_says_where_to_register():
    done = _run(
        """
        import numpy as np
        from mj_core import numpy as mnp
        from mj_core.errors import MissingRuleError
        try:
            mnp.arange(3.0).at[1].apply(lambda v: v * 2)
        except MissingRuleError as e:
            print(e)
        """
    )
    assert done.returncode == 0, done.stderr
    assert "mj_core.extend.scatter_apply_rules[scatter_p]" in done.stdout
    assert "import mj_control" in done.stdout

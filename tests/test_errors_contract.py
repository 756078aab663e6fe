"""DESIGN.md section 3, one test per case: each error's type and the text of its message
(what was expected, what was found, and where the user's code triggered it)."""

import inspect

import numpy as np
import pytest

import mj
import mj.numpy as mnp
from mj import lax
from mj_core.errors import ConcretizationError, MJError, ShapeDtypeError, TracerLeakError

X = np.ones(3)


def _here(offset: int = 1) -> str:
    """``file:line`` of the caller's line plus ``offset``."""
    frame = inspect.currentframe().f_back
    return f"{__file__}:{frame.f_lineno + offset}"


def test_if_on_a_traced_value_under_jit():
    def f(x):
        if x > 0:  # the offending line
            return x
        return -x

    line = f"{__file__}:{f.__code__.co_firstlineno + 1}"
    with pytest.raises(ConcretizationError, match="bool") as info:
        mj.jit(f)(1.0)
    assert line in str(info.value)
    assert "lax.cond" in str(info.value)


def test_int_of_a_traced_value():
    with pytest.raises(ConcretizationError, match=r"int\(\) of a traced f64\[\]") as info:
        mj.jit(lambda x: int(x))(1.0)
    assert str(info.value).startswith(  # JAX's words first
        "Abstract tracer value encountered where concrete value is expected: traced array "
        "with shape float64[]\nThe problem arose with the `int` function."
    )


def test_np_asarray_of_a_tracer():
    with pytest.raises(ConcretizationError, match=r"np\.asarray\(\)") as info:
        mj.jit(lambda x: np.asarray(x))(1.0)
    assert "mj.numpy" in str(info.value)


def test_tracer_leak():
    leaked = []
    mj.jit(lambda x: leaked.append(x) or x)(1.0)
    where = _here(2)
    with pytest.raises(TracerLeakError, match="used after that transformation ended") as info:
        leaked[0] + 1.0
    assert where in str(info.value)
    assert isinstance(info.value, MJError)


def test_shape_error_names_primitive_shapes_dtypes_and_line():
    def f(a, b):
        return a + b

    line = f"{__file__}:{f.__code__.co_firstlineno + 1}"
    with pytest.raises(TypeError) as info:
        mj.jit(f)(np.ones(3, np.float32), np.ones(4, np.float32))
    msg = str(info.value)
    assert msg.startswith("add:")
    assert "(3,)" in msg
    assert "(4,)" in msg
    assert line in msg


def test_dtype_error_names_primitive_and_dtypes():
    where = _here(2)
    with pytest.raises(TypeError, match=r"dot_general.*f64\[2,3\], f64\[4,5\]") as info:
        mnp.dot(np.ones((2, 3)), np.ones((4, 5)))
    assert where in str(info.value)


def test_grad_of_a_non_scalar_output():
    with pytest.raises(TypeError, match=r"scalar-output.*shape: \(3,\)"):
        mj.grad(lambda x: x * 2.0)(X)


def test_jvp_with_mismatched_pytree_structures():
    with pytest.raises(TypeError, match="same tree structure") as info:
        mj.jvp(lambda d: d["a"], ({"a": X},), ({"b": X},))
    assert "'a'" in str(info.value)
    assert "'b'" in str(info.value)


def test_vmap_in_axes_not_matching_the_arguments():
    with pytest.raises(ValueError, match=r"in_axes.*len\(in_axes\)=1, len\(args\)=2"):
        mj.vmap(lambda x, y: x + y, in_axes=(0,))(X, X)


def test_vmap_in_axes_tree_not_a_prefix():
    with pytest.raises(ValueError, match="tree prefix") as info:
        mj.vmap(lambda d: d["a"], in_axes=({"b": 0},))({"a": X})
    assert "'b'" in str(info.value)


def test_vmap_inconsistent_axis_sizes():
    with pytest.raises(ValueError, match="inconsistent sizes") as info:
        mj.vmap(lambda x, y: x + y)(np.ones(3), np.ones(4))
    msg = str(info.value)
    assert "one axis had size 3: axis 0 of argument x of type float64[3]" in msg
    assert "one axis had size 4: axis 0 of argument y of type float64[4]" in msg


def test_unhashable_static_argnums_value():
    with pytest.raises(TypeError, match=r"static argument 1 is unhashable \(a list\)") as info:
        mj.jit(lambda x, s: x, static_argnums=1)(X, [1, 2])
    assert "tuple" in str(info.value)


def test_cond_branches_with_different_output_types():
    with pytest.raises(TypeError, match="cond branches must have equal output types") as info:
        lax.cond(True, lambda x: x, lambda x: x.astype(np.float32), X)
    msg = str(info.value)
    assert "f32[3]" in msg
    assert "f64[3]" in msg


def test_cond_branches_with_different_output_shapes():
    with pytest.raises(TypeError, match=r"f64\[2\]"):
        lax.cond(True, lambda x: x, lambda x: x[:2], X)


def test_shape_errors_are_both_type_and_value_errors_like_jax_broadcasting():
    """Seed 004 catches JAX's broadcasting error as ValueError; DESIGN asks for TypeError."""
    a, b = np.ones((100, 10)), np.ones((1, 100))
    for f in (lambda: mnp.ones((100, 10)) * b, lambda: mj.jit(lambda x, y: x * y)(a, b)):
        with pytest.raises(ValueError, match=r"mul.*\(100, ?10\)") as info:
            f()
        assert isinstance(info.value, TypeError)
        assert isinstance(info.value, ShapeDtypeError)


# --- the user's line is found by package directory, not by the file's name (issue 38) --------

_USER_SCRIPT = """\
import numpy as np
import mj
import mj.numpy as mnp


def add(a, b):
    return a + b


def run_jit():
    return mj.jit(add)(np.ones(3, np.float32), np.ones(4, np.float32))


def run_eager():
    return mnp.dot(np.ones((2, 3)), np.ones((4, 5)))
"""


@pytest.mark.parametrize("directory", ["mj_experiments", "mj", "experiments"])
def test_a_user_script_keeps_its_line_whatever_its_directory_is_called(tmp_path, directory):
    import runpy

    script = tmp_path / directory / "user.py"
    script.parent.mkdir()
    script.write_text(_USER_SCRIPT)
    namespace = runpy.run_path(str(script))
    with pytest.raises(ShapeDtypeError) as info:
        namespace["run_jit"]()
    assert f"in add at {script}:7" in str(info.value)  # the traced function's line
    with pytest.raises(ShapeDtypeError) as info:
        namespace["run_eager"]()
    assert f"in run_eager at {script}:15" in str(info.value)


def test_a_registered_library_directory_is_skipped_like_mj_own(tmp_path):
    import runpy

    from mj_core.errors import register_exclusion

    library = tmp_path / "mylib" / "helpers.py"
    library.parent.mkdir()
    library.write_text("import mj.numpy as mnp\n\n\ndef dot(a, b):\n    return mnp.dot(a, b)\n")
    helpers = runpy.run_path(str(library))
    with pytest.raises(ShapeDtypeError) as info:
        helpers["dot"](np.ones((2, 3)), np.ones((4, 5)))
    assert f"{library}:5" in str(info.value)  # not yet registered: the library's own line
    register_exclusion(str(library.parent))
    where = _here(2)
    with pytest.raises(ShapeDtypeError) as info:
        helpers["dot"](np.ones((2, 3)), np.ones((4, 5)))
    assert str(library) not in str(info.value)
    assert where in str(info.value)

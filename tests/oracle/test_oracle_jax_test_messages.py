"""Error messages that JAX's own test files match with ``assertRaisesRegex`` (issue 35).

Each case is one call from JAX 0.10.2's test suite (lax_test, api_test, lax_numpy_test,
pmap_test) and the regex that test matches. The case runs on real JAX and on mj: both must
raise an error of the same class whose message the regex finds (JAX's wording first; mj's
context, such as the user's source line, comes after it). A message that drifts from JAX's
wording fails here, and a case whose regex JAX itself no longer matches fails too.
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from typing import Any

import jax
import numpy as np
import pytest

import mj

pytestmark = pytest.mark.oracle

F32 = np.float32
I32 = np.int32


def _gather(lib: Any, oshape, ishape, dn: dict, sizes) -> Any:
    dnums = lib.lax.GatherDimensionNumbers(**dn)
    return lib.lax.gather(
        np.ones(oshape, I32), np.zeros(ishape, I32), dnums, sizes, mode="promise_in_bounds"
    )


def _scatter(lib: Any, oshape, ishape, ushape, dn: dict) -> Any:
    dnums = lib.lax.ScatterDimensionNumbers(**dn)
    return lib.lax.scatter_add(
        np.ones(oshape, I32), np.zeros(ishape, I32), np.ones(ushape, I32), dnums
    )


def _gdn(offset, collapsed, start, obatch=(), ibatch=()) -> dict:
    return dict(
        offset_dims=offset,
        collapsed_slice_dims=collapsed,
        start_index_map=start,
        operand_batching_dims=obatch,
        start_indices_batching_dims=ibatch,
    )


def _sdn(window, inserted, to_operand, obatch=(), ibatch=()) -> dict:
    return dict(
        update_window_dims=window,
        inserted_window_dims=inserted,
        scatter_dims_to_operand_dims=to_operand,
        operand_batching_dims=obatch,
        scatter_indices_batching_dims=ibatch,
    )


def _jvp_mismatch(lib: Any) -> Any:
    return lib.jvp(lambda x, y: x * y, (np.float32(2),), [np.float32(2)])


def _grad_no_args(lib: Any) -> Any:
    return lib.grad(lambda x, y: x + y, argnums=0)()


def _returned_str(lib: Any) -> Any:
    return lib.jit(lambda x: [x, "x"])(1.0)


def _eval_shape_bad(lib: Any) -> Any:
    def f(x):
        return (2.0, f)

    return lib.eval_shape(f, 1)


def _jit_str(lib: Any) -> Any:
    def f(x):
        return x

    return lib.jit(f)("foo")


def _linear_transpose(lib: Any) -> Any:
    t = lib.linear_transpose(lambda x: lib.numpy.stack([x, x]), 1.0)
    return t(1.0)


def _pmap_empty(lib: Any) -> Any:
    return lib.pmap(lambda: 1.0)()


def _pmap_unmapped_with_axis_size(lib: Any) -> Any:
    return lib.pmap(lambda x: x + 1, in_axes=None, axis_size=1)(np.float32(1))


def _mesh(lib: Any) -> Any:
    return lib.sharding.Mesh(np.array(lib.devices()[:1]), ("x", "y"))


def _pmap_in_axes(lib: Any) -> Any:
    x = lib.numpy.array([3.14])
    return lib.pmap(lambda x, y: x, in_axes=((0, 0, 0), 0))((x, x), x)


def _pmap_in_axes_kwargs(lib: Any) -> Any:
    x = lib.numpy.array([3.14])
    return lib.pmap(lambda x, y: x, in_axes=((0, 0), 0))(x=(x, x), y=x)


def _pmap_out_axes(lib: Any) -> Any:
    x = lib.numpy.array([3.14])
    return lib.pmap(lambda x, y: ((x, x), x), out_axes=((0, 0, 0), 0))(x, x)


def _pmap_unhashable_static(lib: Any) -> Any:
    f = lib.pmap(lambda x, y: x + 3, static_broadcasted_argnums=(1,))
    return f(np.ones((1, 2)), np.ones(2))


def _float0(lib: Any, via_lax: bool) -> Any:
    f0 = lib.grad(lambda x: x + 0.0, allow_int=True)(1)
    zero = lib.numpy.zeros(())
    return lib.lax.add(f0, zero) if via_lax else f0 + zero


def _pmap_compiled_wrong_type(lib: Any) -> Any:
    f = lib.pmap(lambda x: x - lib.lax.pmean(x, "i"), axis_name="i")
    x = np.arange(4 * lib.device_count()).reshape(lib.device_count(), 4)
    return f.lower(x.astype(np.float32)).compile()(x.astype(np.int32))


def _index_of(lib: Any, make: Callable[[Any], Any], jit: bool) -> Any:
    fn = lib.jit(operator.index) if jit else operator.index
    return fn(make(lib))


# (id, fn(lib), error class, JAX's test regex)
CASES: list[tuple[str, Callable[[Any], Any], type[BaseException], str]] = [
    # lax_test testSqueezeShapeCheck
    (
        "squeeze_repeat",
        lambda lib: lib.lax.squeeze(np.ones((1, 2, 3), F32), (0, 0)),
        ValueError,
        "dimensions are not unique",
    ),
    (
        "squeeze_oob",
        lambda lib: lib.lax.squeeze(np.ones((1, 2, 3), F32), (3,)),
        ValueError,
        "axis 3 is out of bounds",
    ),
    (
        "squeeze_neg_oob",
        lambda lib: lib.lax.squeeze(np.ones((1, 2, 3), F32), (-4,)),
        ValueError,
        "axis -4 is out of bounds",
    ),
    (
        "squeeze_not_one",
        lambda lib: lib.lax.squeeze(np.ones((1, 2, 3), F32), (1,)),
        ValueError,
        "cannot select an axis to squeeze out",
    ),
    (
        "squeeze_none",
        lambda lib: lib.lax.squeeze(np.ones((1, 2, 3), F32), (None,)),
        TypeError,
        "cannot be interpreted as an integer",
    ),
    # lax_test testBroadcastInDimShapeCheck
    (
        "bid_length",
        lambda lib: lib.lax.broadcast_in_dim(np.ones(2, F32), (2, 2), (0, 1)),
        TypeError,
        "broadcast_dimensions must have length equal to operand ndim",
    ),
    (
        "bid_rank",
        lambda lib: lib.lax.broadcast_in_dim(np.ones((2, 2), F32), (2,), (0, 1)),
        TypeError,
        "target broadcast shape must have equal or higher rank to the operand shape",
    ),
    (
        "bid_subset",
        lambda lib: lib.lax.broadcast_in_dim(np.ones(2, F32), (2, 3), (2,)),
        TypeError,
        "broadcast_in_dim broadcast_dimensions must be a subset of output dimensions",
    ),
    (
        "bid_sizes",
        lambda lib: lib.lax.broadcast_in_dim(np.ones(2, F32), (3,), (0,)),
        TypeError,
        "operand dimension sizes must either be 1, or be equal to their corresponding "
        "dimensions in the target broadcast shape",
    ),
    (
        "bid_duplicates",
        lambda lib: lib.lax.broadcast_in_dim(np.ones((2, 2), F32), (2, 2), (0, 0)),
        TypeError,
        "broadcast_in_dim broadcast_dimensions must not contain duplicates",
    ),
    # lax_test testReshapeWithUnusualShapes
    (
        "reshape_array_dim",
        lambda lib: lib.lax.reshape(np.ones(3), (np.array([3, 1]),)),
        TypeError,
        "Shapes must be 1D sequences of concrete values of integer type.*",
    ),
    (
        "reshape_float_dims",
        lambda lib: lib.lax.reshape(np.ones(3), (1.5, 2.0)),
        TypeError,
        "Shapes must be 1D sequences of concrete values of integer type.*",
    ),
    # lax_test testGatherShapeCheckingRule (a selection of the variants)
    (
        "gather_offset_sorted",
        lambda lib: _gather(
            lib,
            (10, 9, 8, 7, 6),
            (5, 4, 3, 2, 5),
            _gdn((4, 3, 2, 1, 0), (), (0, 1, 2, 3, 4)),
            (10, 9, 8, 7, 6),
        ),
        TypeError,
        "offset_dims in gather op must be sorted",
    ),
    (
        "gather_index_map_size",
        lambda lib: _gather(
            lib,
            (10, 9, 8, 7, 6),
            (5, 4, 3, 2, 5),
            _gdn((4, 5, 6, 7, 8), (), (0, 1, 2, 3)),
            (10, 9, 8, 7, 6),
        ),
        TypeError,
        r"Gather op has 4 elements in start_index_map and the bound of dimension "
        r"index_vector_dim=4 of indices is 5. These two numbers must be equal.",
    ),
    (
        "gather_collapse_bound",
        lambda lib: _gather(
            lib,
            (10, 9, 8, 7, 6),
            (5, 4, 3, 2, 5),
            _gdn((4, 5, 6, 7), (1,), (0, 1, 2, 3, 4)),
            (10, 9, 8, 7, 6),
        ),
        TypeError,
        r"Gather op can only collapse slice dims with bound 1, but bound is 9 for index 1 "
        r"at position 0.",
    ),
    (
        "gather_slice_size",
        lambda lib: _gather(
            lib,
            (10, 9, 8, 7, 6),
            (5, 4, 3, 2, 5),
            _gdn((4, 5, 6, 7, 8), (), (0, 1, 2, 3, 4)),
            (10, 9, 8, 100, 6),
        ),
        TypeError,
        "Slice size at index 3 in gather op is out of range",
    ),
    (
        "gather_batching_shape",
        lambda lib: _gather(
            lib,
            (10, 9, 8, 7, 6),
            (10, 9, 3, 2, 3),
            _gdn((4, 5, 6), (1,), (1, 3, 4), (0,), (1,)),
            (1, 1, 8, 1, 1),
        ),
        TypeError,
        "Gather op requires operand batching dimensions and indices batching dimensions to "
        "have the same shape",
    ),
    # lax_test testScatterShapeCheckingRule (a selection of the variants)
    (
        "scatter_updates_rank",
        lambda lib: _scatter(
            lib,
            (50, 49, 48, 47, 46),
            (10, 9, 8, 7, 5),
            (10, 9, 8, 7, 3, 2, 4, 1),
            _sdn((4, 5, 6), (1, 2), (0, 1, 2, 3, 4)),
        ),
        TypeError,
        "Updates tensor must be of rank 7; got 8.",
    ),
    (
        "scatter_window_size",
        lambda lib: _scatter(
            lib,
            (50, 49, 48, 47, 46),
            (10, 9, 8, 7, 4),
            (10, 9, 8, 7, 3, 2, 4),
            _sdn((4, 5, 6), (1,), (0, 1, 2, 3)),
        ),
        TypeError,
        "Scatter op has window of size 4; doesn't match operand of rank 5.",
    ),
    (
        "scatter_window_bounds",
        lambda lib: _scatter(lib, (64, 48), (32, 1), (32, 49), _sdn((1,), (0,), (0,))),
        TypeError,
        "Bounds of the window dimensions",
    ),
    (
        "scatter_scatter_bounds",
        lambda lib: _scatter(
            lib,
            (50, 49, 48, 47, 46),
            (10, 9, 8, 7, 5),
            (9, 9, 8, 7, 3, 2, 4),
            _sdn((4, 5, 6), (1, 2), (0, 1, 2, 3, 4)),
        ),
        TypeError,
        "Bounds of the scatter dimensions of updates must be the same as the bounds of the "
        "corresponding dimensions of scatter indices",
    ),
    # api_test
    (
        "dot_mismatch",
        lambda lib: lib.grad(lambda x, y: lib.numpy.dot(x, y))(np.zeros(3), np.zeros(4)),
        TypeError,
        "dot_general requires contracting dimensions to have the same shape, got "
        "\\(3L?,\\) and \\(4L?,\\).",
    ),
    (
        "jvp_non_tuple",
        lambda lib: lib.jvp(lambda x: x, 0.1, (0.1,)),
        TypeError,
        "primal and tangent arguments to jax.jvp must be tuples or lists; found float and tuple.",
    ),
    (
        "jvp_tree_mismatch",
        _jvp_mismatch,
        TypeError,
        "primal and tangent arguments to jax.jvp must have the same tree structure",
    ),
    (
        "grad_argnums",
        _grad_no_args,
        TypeError,
        "differentiating with respect to argnums=0 requires at least 1 positional arguments "
        "to be passed by the caller, but got only 0 positional arguments.",
    ),
    (
        "index_of_int_vector",
        lambda lib: _index_of(lib, lambda lib: lib.numpy.arange(10), jit=False),
        TypeError,
        "Only integer scalar arrays can be converted to a scalar index.",
    ),
    (
        "index_of_float_scalar_jit",
        lambda lib: _index_of(lib, lambda lib: lib.numpy.float32(0), jit=True),
        TypeError,
        "Only integer scalar arrays can be converted to a scalar index.",
    ),
    (
        "int_of_vector",
        lambda lib: int(lib.numpy.arange(1, dtype="float32")),
        TypeError,
        "Only scalar arrays can be converted to Python scalars",
    ),
    (
        "bool_of_empty",
        lambda lib: bool(lib.numpy.arange(0, dtype="int32")),
        ValueError,
        "The truth value of an empty array is ambiguous.",
    ),
    (
        "jit_str_argument",
        _jit_str,
        TypeError,
        "Error interpreting argument to .* as an abstract array. The problematic value is of "
        "type .* and was passed to the function at path x.",
    ),
    ("jit_returned_str", _returned_str, TypeError, "returned a value of type"),
    (
        "eval_shape_returned_function",
        _eval_shape_bad,
        TypeError,
        r"function f at .*returned a value.*at output component \[1\], which is not a valid "
        r"JAX type",
    ),
    ("linear_transpose", _linear_transpose, TypeError, "cotangent type does not match"),
    (
        "pmap_empty",
        _pmap_empty,
        ValueError,
        "pmap requires at least one argument with a mapped axis.",
    ),
    (
        "pmap_unmapped_with_axis_size",
        _pmap_unmapped_with_axis_size,
        ValueError,
        "pmap requires at least one argument with a mapped axis.",
    ),
    ("mesh_ndim", _mesh, ValueError, "ndim of its first argument"),
    (
        "float0_operator",
        lambda lib: _float0(lib, via_lax=False),
        TypeError,
        "float0s do not support any operations by design",
    ),
    (
        "float0_lax",
        lambda lib: _float0(lib, via_lax=True),
        TypeError,
        "float0s do not support any operations by design",
    ),
    (
        "device_put_prefix_detail",
        lambda lib: lib.device_put(
            {"a": lib.numpy.arange(2), "b": lib.numpy.arange(3)},
            device={"a": None, "b": (None, None)},
        ),
        ValueError,
        r"(?s)device_put device specification must be a tree prefix.*Mismatch details.*"
        r"different types",
    ),
    (
        "device_put_prefix_all",
        lambda lib: lib.device_put(
            {"a": lib.numpy.arange(2), "b": lib.numpy.arange(3)},
            device={"a": [None, None], "b": (None, None)},
        ),
        ValueError,
        r"(?s)Mismatch details \(2 found\)",
    ),
    (
        "device_put_string",
        lambda lib: lib.device_put(lib.numpy.arange(8), "cpu"),
        ValueError,
        r".*Received invalid value.*",
    ),
    # pmap_test
    (
        "pmap_compiled_arg_type",
        _pmap_compiled_wrong_type,
        TypeError,
        r"Argument types differ .*The mismatches are:\nArgument 'flat_args\[0\]' compiled "
        r"with.*float32.*and called with.*int32.*",
    ),
    ("pmap_in_axes_prefix", _pmap_in_axes, ValueError, re.escape("pmap in_axes[0][0]")),
    (
        "pmap_in_axes_kwargs",
        _pmap_in_axes_kwargs,
        ValueError,
        re.escape("each argument passed by keyword is mapped"),
    ),
    (
        "pmap_out_axes_prefix",
        _pmap_out_axes,
        ValueError,
        "pytree structure error: different lengths of tuple at key path.*",
    ),
    (
        "pmap_unhashable_static",
        _pmap_unhashable_static,
        ValueError,
        "Non-hashable static arguments are not supported.*",
    ),
    # lax_numpy_test
    (
        "split_traced_sections",
        lambda lib: lib.jit(lambda i: lib.numpy.split(lib.numpy.zeros((12, 2)), i))(2.0),
        TypeError,
        "Abstract tracer value encountered where concrete value is expected.",
    ),
    (
        "split_traced_index",
        lambda lib: lib.jit(lambda i: lib.numpy.split(lib.numpy.zeros((12, 2)), [2, i]))(2.0),
        TypeError,
        "Abstract tracer value encountered where concrete value is expected.",
    ),
    (
        "interp_left",
        lambda lib: lib.numpy.interp(0.0, np.arange(3.0), np.arange(3.0), left="interpolate"),
        ValueError,
        "^the only valid string value of `left` is 'extrapolate', but got: 'interpolate'$",
    ),
    (
        "interp_complex",
        lambda lib: lib.numpy.interp(1j, 1j * np.arange(3.0), np.arange(3.0)),
        ValueError,
        "^jnp.interp: complex x values not supported.$",
    ),
    (
        "interp_sizes",
        lambda lib: lib.numpy.interp(0.5, np.arange(3.0), np.arange(4.0)),
        ValueError,
        "^xp and fp must be one-dimensional arrays of equal size$",
    ),
    (
        "array_void_dtype",
        lambda lib: lib.numpy.array(3, [("a", "<i4"), ("b", "<i4")]),
        TypeError,
        "JAX only supports number, bool, and string dtypes.*",
    ),
]


@pytest.mark.parametrize(
    ("fn", "error", "regex"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_message_matches_jax_tests_regex(fn, error, regex, x64):
    for lib in (jax, mj):
        with pytest.raises(error) as info:
            fn(lib)
        assert re.search(regex, str(info.value)), (lib.__name__, regex, str(info.value))


def test_device_put_with_a_pytree_of_devices_places_each_subtree():
    """The prefix form the device_put error cases refuse, accepted: each subtree goes to its
    device (committed) or, under ``None``, stays uncommitted, on JAX and on mj."""
    for lib in (jax, mj):
        dev = lib.devices()[0]
        x = {"a": np.arange(3.0), "b": (np.ones(2), np.zeros(2))}
        out = lib.device_put(x, {"a": dev, "b": None})
        np.testing.assert_array_equal(out["a"], x["a"])
        np.testing.assert_array_equal(out["b"][1], x["b"][1])
        assert out["a"].committed, lib.__name__
        assert not out["b"][0].committed, lib.__name__

"""For every core primitive: mj-ir's abstract-eval rule agrees with the impl's actual output
(shape and dtype) on the same inputs, and rejects what the impl rejects."""

import numpy as np
import pytest

from mj_core import bind
from mj_core.extend import (
    FAMILIES,
    HostCallback,
    ShapedArray,
    Token,
    abstract_token,
    elementwise_specs,
    family_of,
    family_primitives,
    get_aval,
    raise_to_shaped,
)
from mj_core.prims.convolution import ConvDimensionNumbers
from mj_core.prims.fft import FftType
from mj_core.prims.indexing import GatherDimensionNumbers as GatherDnums
from mj_core.prims.indexing import ScatterDimensionNumbers as ScatterDnums
from mj_ir import abstract_eval_rules

f32 = np.ones((2, 3), np.float32)
i32 = np.arange(6, dtype=np.int32).reshape(2, 3)
b = np.array([[True, False, True], [False, True, True]])
idx = np.array([[1], [0], [1]], np.int32)

# (primitive name, operands, params)
CASES = [
    ("broadcast", (f32,), {"shape": (4, 2, 3), "broadcast_dimensions": (1, 2)}),
    ("broadcast", (2.0,), {"shape": (3,), "broadcast_dimensions": ()}),
    ("reshape", (i32,), {"new_sizes": (3, 2)}),
    ("transpose", (f32,), {"permutation": (1, 0)}),
    ("squeeze", (f32[:1],), {"dimensions": (0,)}),
    ("rev", (b,), {"dimensions": (0, 1)}),
    ("concatenate", (f32, f32[:1]), {"dimension": 0}),
    ("pad", (i32, 0), {"padding_config": ((1, -1, 1), (0, 2, 0))}),
    ("slice", (f32,), {"start_indices": (0, 1), "limit_indices": (2, 3), "strides": (2, 1)}),
    ("slice", (f32,), {"start_indices": (0, 1), "limit_indices": (2, 3), "strides": None}),
    ("dynamic_slice", (f32, np.int32(1), 5), {"slice_sizes": (1, 2)}),
    ("dynamic_update_slice", (f32, np.ones((1, 2), np.float32), 0, np.int64(1)), {}),
    (
        "gather",
        (f32, idx),
        {
            "dimension_numbers": GatherDnums((1,), (0,), (0,)),
            "slice_sizes": (1, 3),
            "mode": "clip",
            "fill_value": None,
        },
    ),
    (
        "gather",
        (np.ones((3, 4, 2)), np.zeros((3, 5, 1), np.int64)),
        {
            "dimension_numbers": GatherDnums((2,), (1,), (1,), (0,), (0,)),
            "slice_sizes": (1, 1, 2),
            "mode": "fill",
            "fill_value": None,
        },
    ),
    *[
        (
            name,
            (f32, idx, np.ones((3, 3), np.float32)),
            {
                "dimension_numbers": ScatterDnums((1,), (0,), (0,)),
                "indices_are_sorted": False,
                "unique_indices": False,
                "mode": "fill",
            },
        )
        for name in ("scatter", "scatter_add", "scatter_mul", "scatter_min", "scatter_max")
    ],
    ("iota", (), {"dtype": np.dtype(np.int32), "shape": (2, 3), "dimension": 1}),
    ("convert_element_type", (i32,), {"new_dtype": np.dtype(np.float32), "weak_type": False}),
    ("reduce_precision", (f32,), {"exponent_bits": 5, "mantissa_bits": 10}),
    ("copy", (i32,), {}),
    ("geqrf", (f32,), {}),
    ("geqp3", (f32, np.zeros(3, np.int32)), {}),
    (
        "dce_sink",
        (i32,),
        {"prevent_mlir_dce": False},
    ),  # (no outputs: JAX's dce_sink_p keeps its operand alive)
    ("optimization_barrier", (f32, b), {}),
    ("bitcast_convert_type", (f32,), {"new_dtype": np.dtype(np.uint16)}),
    *[(f"reduce_{n}", (f32,), {"axes": (1,)}) for n in ("sum", "max", "min", "prod")],
    *[(f"reduce_{n}", (b,), {"axes": (0, 1)}) for n in ("and", "or")],
    *[(n, (i32,), {"axes": (1,), "index_dtype": np.dtype(np.int32)}) for n in ("argmax", "argmin")],
    *[(n, (f32,), {"axis": 0, "reverse": True}) for n in ("cumsum", "cumprod", "cummax", "cummin")],
    ("sort", (f32, i32), {"dimension": 1, "is_stable": True, "num_keys": 1}),
    ("debug_callback", (f32,), {"callback": HostCallback(lambda x: None, "debug.callback")}),
    (
        "pure_callback",
        (f32,),
        {
            "callback": HostCallback(lambda x: (np.cos(x),), "pure_callback"),
            "result_avals": (ShapedArray((2, 3), np.float32),),
            "vmap_method": None,
        },
    ),
    *[
        (
            f"reduce_window_{n}",
            (f32,),
            {
                "window_dimensions": (2, 2),
                "window_strides": (1, 2),
                "padding": ((0, 1), (1, 0)),
                "base_dilation": (1, 1),
                "window_dilation": (1, 2),
            },
        )
        for n in ("sum", "max", "min")
    ],
    *[(n, (f32.astype(np.complex64),), {}) for n in ("real", "imag")],
    ("conj", (f32,), {"input_dtype": np.dtype(np.float32)}),
    ("complex", (f32, 2.0), {}),
    ("fft", (f32,), {"fft_type": FftType.RFFT, "fft_lengths": (2, 3)}),
    ("fft", (f32.astype(np.complex64),), {"fft_type": FftType.IRFFT, "fft_lengths": (4,)}),
    (
        "dot_general",
        (f32, np.ones((3, 4), np.float32)),
        {
            "dimension_numbers": (((1,), (0,)), ((), ())),
            "precision": None,
            "preferred_element_type": None,
        },
    ),
    (
        "dot_general",
        (i32, i32),
        {
            "dimension_numbers": (((1,), (1,)), ((0,), (0,))),
            "precision": None,
            "preferred_element_type": np.dtype(np.float64),
        },
    ),
    (
        "conv_general_dilated",
        (np.ones((2, 4, 5, 4), np.float32), np.ones((6, 2, 2, 3), np.float32)),
        {
            "window_strides": (2, 1),
            "padding": ((1, 0), (0, 1)),
            "lhs_dilation": (1, 2),
            "rhs_dilation": (2, 1),
            "dimension_numbers": ConvDimensionNumbers(*[(0, 1, 2, 3)] * 3),
            "feature_group_count": 2,
            "batch_group_count": 1,
            "precision": None,
            "preferred_element_type": None,
        },
    ),
    ("cholesky", (2 * np.eye(3, dtype=np.float32),), {}),
    (
        "triangular_solve",
        (np.eye(2, dtype=np.float32), f32),
        {
            "left_side": True,
            "lower": True,
            "transpose_a": False,
            "conjugate_a": False,
            "unit_diagonal": False,
        },
    ),
    (
        "tridiagonal_solve",
        (np.ones(2, np.float32), 3 * np.ones(2, np.float32), np.ones(2, np.float32), f32),
        {"perturb_singular": False},
    ),
    ("lu", (f32,), {}),
    ("eigh", (np.eye(3),), {"lower": True, "sort_eigenvalues": True}),
    (
        "eig",
        (np.eye(3),),
        {
            "compute_left_eigenvectors": True,
            "compute_right_eigenvectors": True,
            "enable_eigvec_derivs": False,
        },
    ),
    ("svd", (f32,), {"full_matrices": True, "compute_uv": True}),
    (
        "schur",
        (np.eye(3),),
        {"compute_schur_vectors": True, "sort_eig_vals": False, "select_callable": None},
    ),
    ("svd", (f32,), {"full_matrices": False, "compute_uv": False}),
    ("qr", (f32,), {"full_matrices": True}),
    ("hessenberg", (np.eye(3, dtype=np.float32),), {}),
    ("householder_product", (np.eye(3, dtype=np.float32), np.ones(2, np.float32)), {}),
    ("tridiagonal", (np.eye(3, dtype=np.float32),), {"lower": True}),
    ("add", (f32, 2.0), {}),
    ("select_n", (b, f32, f32), {}),
    ("integer_pow", (i32,), {"y": 3}),
    ("round", (f32,), {"rounding_method": 1}),
    (
        "threefry2x32",
        (np.uint32(7), np.uint32(9), np.uint32(0), np.arange(6, dtype=np.uint32).reshape(2, 3)),
        {},
    ),
]

CORE = {p.name: p for family in FAMILIES for p in family_primitives(family)}


def _prim(name):
    return CORE[name]


def _shaped(x):
    return raise_to_shaped(get_aval(x))


@pytest.mark.parametrize(("name", "args", "params"), CASES, ids=[c[0] for c in CASES])
def test_abstract_eval_matches_impl(name, args, params):
    prim = _prim(name)
    outs = (
        bind(prim, *args, **params) if prim.multiple_results else [bind(prim, *args, **params)[0]]
    )
    avals = abstract_eval_rules[prim](*[_shaped(a) for a in args], **params)
    assert len(avals) == len(outs)
    for aval, out in zip(avals, outs, strict=True):
        assert type(aval) is ShapedArray
        assert aval.shape == np.shape(out)
        assert aval.dtype == np.asarray(out).dtype


def test_every_catalogue_primitive_is_covered():
    assert all(p in abstract_eval_rules for p in CORE.values())
    # Collectives only run inside a vmap or pmap binding their axis (no eager case):
    # test_ir_parallel.py checks their typing rules.
    # (tokens are no arrays: test_token_primitives_abstract_eval_matches_impl has them)
    non_elementwise = {
        name
        for name, p in CORE.items()
        if p not in elementwise_specs and family_of(p) not in ("parallel", "tokens")
    }
    assert non_elementwise <= {c[0] for c in CASES}


def test_weak_types_propagate_through_structural_rules():
    weak = ShapedArray((), np.float64, weak_type=True)
    (out,) = abstract_eval_rules[_prim("broadcast")](weak, shape=(3,), broadcast_dimensions=())
    assert out.weak_type
    (out,) = abstract_eval_rules[_prim("pad")](
        ShapedArray((2,), np.float32), weak, padding_config=((1, 1, 0),)
    )
    assert out == ShapedArray((4,), np.float32)
    (out,) = abstract_eval_rules[_prim("convert_element_type")](
        ShapedArray((2,), np.int32), new_dtype=np.dtype(np.float32), weak_type=True
    )
    assert out.weak_type
    assert abstract_eval_rules[_prim("copy")](weak) == [weak]  # (JAX's copy_p: its operand's)


@pytest.mark.parametrize(
    ("name", "args", "params"),
    [
        ("reshape", (f32,), {"new_sizes": (4,)}),
        ("concatenate", (f32, i32), {"dimension": 0}),
        (
            "dot_general",
            (f32, f32),
            {
                "dimension_numbers": (((1,), (1,)), ((), ())),
                "precision": None,
                "preferred_element_type": None,
                "extra": 1,
            },
        ),
        ("dynamic_slice", (f32, 1.5, 0), {"slice_sizes": (1, 1)}),
        ("reduce_sum", (b,), {"axes": (0,)}),
        ("threefry2x32", (i32, i32, i32, i32), {}),
        ("threefry2x32", (np.zeros(2, np.uint32),) * 3 + (np.zeros(3, np.uint32),), {}),
    ],
)
def test_abstract_eval_and_impl_reject_the_same_inputs(name, args, params):
    prim = _prim(name)
    with pytest.raises(TypeError, match=name):
        abstract_eval_rules[prim](*[_shaped(a) for a in args], **params)
    with pytest.raises(TypeError, match=name):
        bind(prim, *args, **params)


def test_mj_ir_exposes_mj_cores_one_typing_table():
    import mj_core.extend
    import mj_ir
    import mj_ir.extend

    table = mj_core.extend.abstract_eval_rules
    assert mj_ir.abstract_eval_rules is table
    assert mj_ir.extend.abstract_eval_rules is table
    assert abstract_eval_rules is table


def test_token_primitives_abstract_eval_matches_impl():
    """create_token and after_all are typed by the token type (JAX's abstract_token), and
    evaluate to Tokens; after_all of anything but tokens is JAX's TypeError."""
    tok = bind(_prim("create_token"))[0]
    assert type(tok) is Token
    assert get_aval(tok) is abstract_token
    assert abstract_eval_rules[_prim("create_token")]() == [abstract_token]
    for operands in ((), (tok,), (tok, tok)):
        (out,) = bind(_prim("after_all"), *operands)
        assert type(out) is Token
        avals = [get_aval(t) for t in operands]
        assert abstract_eval_rules[_prim("after_all")](*avals) == [abstract_token]
    with pytest.raises(TypeError, match="Arguments to after_all must be tokens"):
        abstract_eval_rules[_prim("after_all")](abstract_token, _shaped(f32))
    with pytest.raises(TypeError, match="Arguments to after_all must be tokens"):
        bind(_prim("after_all"), tok, f32)

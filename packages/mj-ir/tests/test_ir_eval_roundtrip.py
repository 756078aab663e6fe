"""For every core primitive: eval_jaxpr(make_jaxpr(f)) equals eager f (values, dtypes, shapes),
and typecheck_jaxpr accepts the jaxpr. New primitives of the core families are picked up
automatically: an elementwise one gets generated operands, any other one needs an entry in
``EXAMPLES`` (test_every_primitive_has_an_example fails until it has one)."""

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from mj_core import Primitive, ShapedArray, bind, get_aval
from mj_core.extend import (
    FAMILIES,
    HostCallback,
    collective_prims,
    elementwise_specs,
    family_primitives,
)
from mj_core.prims.convolution import ConvDimensionNumbers
from mj_core.prims.fft import FftType
from mj_core.prims.indexing import GatherDimensionNumbers, ScatterDimensionNumbers
from mj_ir import eval_jaxpr, make_jaxpr, typecheck_jaxpr

RNG = np.random.default_rng(0)
# Collectives need a named axis in scope: test_ir_parallel.py round-trips them under one.
ALL_PRIMS: list[Primitive] = sorted(
    (p for family in FAMILIES for p in family_primitives(family) if p not in collective_prims),
    key=lambda p: p.name,
)


def f64(*shape: int) -> np.ndarray:
    return RNG.uniform(0.1, 0.9, shape)


def i64(*shape: int) -> np.ndarray:
    return RNG.integers(1, 6, shape)


_SCATTER_DN = ScatterDimensionNumbers(
    update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,)
)
_SCATTER = (
    lambda: (f64(5, 3), np.array([[1], [3], [1]]), f64(3, 3)),
    {
        "dimension_numbers": _SCATTER_DN,
        "indices_are_sorted": False,
        "unique_indices": False,
        "mode": "fill",
    },
)


def _spd(batch: int, n: int) -> np.ndarray:
    """A well-conditioned symmetric positive definite batch (for cholesky and eigh)."""
    a = f64(batch, n, n)
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


_REDUCE = (lambda: (f64(2, 3),), {"axes": (1,)})
_CUMULATIVE = (lambda: (f64(3, 4),), {"axis": 1, "reverse": True})

#: primitive name -> (operands factory, params); elementwise primitives are generated below.
EXAMPLES: dict[str, tuple[Callable[[], tuple[Any, ...]], dict[str, Any]]] = {
    "broadcast": (lambda: (f64(3),), {"shape": (2, 3), "broadcast_dimensions": (1,)}),
    "reshape": (lambda: (f64(2, 3),), {"new_sizes": (3, 2)}),
    "transpose": (lambda: (f64(2, 3, 4),), {"permutation": (2, 0, 1)}),
    "squeeze": (lambda: (f64(2, 1, 3),), {"dimensions": (1,)}),
    "rev": (lambda: (f64(2, 3),), {"dimensions": (0, 1)}),
    "concatenate": (lambda: (f64(2, 3), f64(1, 3)), {"dimension": 0}),
    "pad": (lambda: (f64(2, 3), np.float64(0.5)), {"padding_config": ((1, -1, 1), (0, 2, 0))}),
    "slice": (
        lambda: (f64(5, 6),),
        {"start_indices": (1, 0), "limit_indices": (4, 6), "strides": (2, 3)},
    ),
    "dynamic_slice": (lambda: (f64(5, 6), np.int64(1), np.int64(4)), {"slice_sizes": (2, 3)}),
    "dynamic_update_slice": (lambda: (f64(5, 6), f64(2, 2), np.int64(4), np.int64(1)), {}),
    "gather": (
        lambda: (f64(5, 3), np.array([[0], [4], [2], [7]])),
        {
            "dimension_numbers": GatherDimensionNumbers(
                offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)
            ),
            "slice_sizes": (1, 3),
            "mode": "clip",
            "fill_value": None,
        },
    ),
    "scatter": _SCATTER,
    "scatter_add": _SCATTER,
    "scatter_mul": _SCATTER,
    "scatter_min": _SCATTER,
    "scatter_max": _SCATTER,
    "iota": (lambda: (), {"dtype": np.dtype(np.int32), "shape": (2, 3), "dimension": 1}),
    "reduce_precision": (lambda: (f64(2, 3),), {"exponent_bits": 5, "mantissa_bits": 10}),
    "copy": (lambda: (f64(2, 3),), {}),
    "dce_sink": (lambda: (f64(2, 3),), {"prevent_mlir_dce": False}),
    "optimization_barrier": (lambda: (f64(2, 3), f64(4)), {}),
    "convert_element_type": (
        lambda: (f64(4) * 10,),
        {"new_dtype": np.dtype(np.int32), "weak_type": False},
    ),
    "bitcast_convert_type": (lambda: (f64(4),), {"new_dtype": np.dtype(np.int64)}),
    "reduce_sum": _REDUCE,
    "reduce_max": _REDUCE,
    "reduce_min": _REDUCE,
    "reduce_prod": _REDUCE,
    "reduce_and": (lambda: (f64(2, 3) > 0.3,), {"axes": (0,)}),
    "reduce_or": (lambda: (f64(2, 3) > 0.7,), {"axes": (0,)}),
    "argmax": (lambda: (f64(2, 3),), {"axes": (1,), "index_dtype": np.dtype(np.int32)}),
    "argmin": (lambda: (f64(2, 3),), {"axes": (0,), "index_dtype": np.dtype(np.int64)}),
    "cumsum": _CUMULATIVE,
    "cumprod": _CUMULATIVE,
    "cummax": _CUMULATIVE,
    "cummin": _CUMULATIVE,
    "sort": (lambda: (f64(5), i64(5)), {"dimension": 0, "is_stable": True, "num_keys": 1}),
    "debug_callback": (
        lambda: (f64(2, 3),),
        {"callback": HostCallback(lambda x: None, "debug.callback")},
    ),
    "pure_callback": (
        lambda: (f64(2, 3),),
        {
            "callback": HostCallback(lambda x: (np.cos(x),), "pure_callback"),
            "result_avals": (ShapedArray((2, 3), np.float64),),
            "vmap_method": None,
        },
    ),
    **{
        f"reduce_window_{n}": (
            lambda: (f64(4, 5),),
            {
                "window_dimensions": (2, 3),
                "window_strides": (2, 1),
                "padding": ((1, 0), (0, 1)),
                "base_dilation": (1, 2),
                "window_dilation": (1, 1),
            },
        )
        for n in ("sum", "max", "min")
    },
    "real": (lambda: (f64(2, 3) + 1j * f64(2, 3),), {}),
    "imag": (lambda: (f64(2, 3) + 1j * f64(2, 3),), {}),
    "conj": (lambda: (f64(2, 3),), {"input_dtype": np.dtype(np.float64)}),
    "complex": (lambda: (f64(2, 3), f64(3)), {}),
    "fft": (lambda: (f64(2, 4),), {"fft_type": FftType.RFFT, "fft_lengths": (4,)}),
    "conv_general_dilated": (
        lambda: (f64(2, 4, 5, 4), f64(6, 2, 2, 3)),
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
    "cholesky": (lambda: (_spd(2, 3),), {}),
    "eigh": (lambda: (_spd(2, 3),), {"lower": True, "sort_eigenvalues": True}),
    "eig": (  # eigenvalues only: eigenvectors are defined up to a phase
        lambda: (_spd(2, 3),),
        {
            "compute_left_eigenvectors": False,
            "compute_right_eigenvectors": False,
            "enable_eigvec_derivs": False,
        },
    ),
    "lu": (lambda: (f64(2, 3, 3),), {}),
    "schur": (  # the Schur form's diagonal only would be unique; a symmetric input: T diagonal
        lambda: (_spd(2, 3),),
        {"compute_schur_vectors": False, "sort_eig_vals": False, "select_callable": None},
    ),
    "qr": (lambda: (f64(2, 4, 3),), {"full_matrices": False}),
    "hessenberg": (lambda: (f64(2, 4, 4),), {}),
    "householder_product": (lambda: (f64(2, 4, 3), f64(2, 2)), {}),
    "geqrf": (lambda: (f64(2, 4, 3),), {}),
    "geqp3": (lambda: (f64(4, 3), np.zeros(3, np.int32)), {}),
    "tridiagonal": (lambda: (_spd(2, 3),), {"lower": False}),
    "threefry2x32": (
        lambda: (np.uint32(3), np.uint32(2**31 + 5), np.uint32(0), np.arange(5, dtype=np.uint32)),
        {},
    ),
    "svd": (lambda: (f64(2, 4, 3),), {"full_matrices": True, "compute_uv": True}),
    "tridiagonal_solve": (
        lambda: (f64(2, 3), f64(2, 3) + 3, f64(2, 3), f64(2, 3, 4)),
        {"perturb_singular": False},
    ),
    "triangular_solve": (
        lambda: (np.tril(f64(2, 3, 3)) + 2 * np.eye(3), f64(2, 3, 4)),
        {
            "left_side": True,
            "lower": True,
            "transpose_a": False,
            "conjugate_a": False,
            "unit_diagonal": False,
        },
    ),
    "dot_general": (
        lambda: (f64(2, 3, 4), f64(2, 4, 5)),
        {
            "dimension_numbers": (((2,), (1,)), ((0,), (0,))),
            "precision": None,
            "preferred_element_type": None,
        },
    ),
}

_ELEMENTWISE_PARAMS: dict[str, dict[str, Any]] = {
    "round": {"rounding_method": 0},
    "integer_pow": {"y": 3},
}


def _elementwise_example(prim: Primitive, kind: str) -> tuple[tuple[Any, ...], dict[str, Any]]:
    spec = elementwise_specs[prim]
    params = _ELEMENTWISE_PARAMS.get(prim.name, {})
    make = {"f": f64, "i": i64, "b": lambda *s: f64(*s) > 0.5}[kind]
    if spec.first_operand_is_selector:
        return (f64(2, 3) > 0.5, make(2, 3), make(3)), params
    nin = 3 if spec.nin == -1 else spec.nin
    # the second operand broadcasts against the first, as NumPy allows
    shapes = [(2, 3), (3,), (2, 3)][:nin]
    return tuple(make(*s) for s in shapes), params


def _cases() -> list[Any]:
    cases = []
    for prim in ALL_PRIMS:
        if prim in elementwise_specs:
            kinds = [k for k in "fib" if elementwise_specs[prim].accepts(k)]
            cases += [pytest.param(prim, k, id=f"{prim.name}-{k}") for k in kinds]
        elif prim.name in EXAMPLES:
            cases.append(pytest.param(prim, None, id=prim.name))
    return cases


def _assert_same(got: Any, want: Any) -> None:
    got_a, want_a = np.asarray(got), np.asarray(want)
    assert got_a.dtype == want_a.dtype
    assert got_a.shape == want_a.shape
    np.testing.assert_allclose(got_a, want_a, rtol=1e-12, equal_nan=True)


def test_every_primitive_has_an_example():
    # (tokens hold no data to compare: test_token_jaxpr_evaluates_to_tokens has them)
    missing = [
        p.name
        for p in ALL_PRIMS
        if p not in elementwise_specs and p.name not in EXAMPLES and p.name not in _TOKENS
    ]
    assert not missing, f"add examples for {missing} to EXAMPLES in {__file__}"


_TOKENS = ("create_token", "after_all")


def test_token_jaxpr_evaluates_to_tokens():
    """A jaxpr creating and merging tokens typechecks (``Tok`` in, ``Tok`` out) and evaluates
    to a Token, as eagerly."""
    from mj_core.extend import Token, abstract_token
    from mj_core.prims.tokens import after_all, create_token

    tok = create_token()
    closed = make_jaxpr(lambda t: after_all(t, create_token()))(tok)
    jaxpr_type = typecheck_jaxpr(closed)
    assert jaxpr_type.in_types == [abstract_token]
    assert jaxpr_type.out_types == [abstract_token]
    assert [e.primitive.name for e in closed.eqns] == ["create_token", "after_all"]
    (out,) = eval_jaxpr(closed.jaxpr, [*closed.consts, tok])
    assert type(out) is Token


@pytest.mark.parametrize(("prim", "kind"), _cases())
def test_eval_of_jaxpr_matches_eager(prim: Primitive, kind: str | None):
    if kind is None:
        make_args, params = EXAMPLES[prim.name]
        args = make_args()
    else:
        args, params = _elementwise_example(prim, kind)

    def f(*xs: Any) -> list[Any]:
        return bind(prim, *xs, **params)

    with np.errstate(all="ignore"):
        eager = f(*args)
        closed = make_jaxpr(f)(*args)
        jaxpr_type = typecheck_jaxpr(closed)
        staged = eval_jaxpr(closed.jaxpr, [*closed.consts, *args])
    assert [e.primitive for e in closed.eqns] == [prim]
    assert len(staged) == len(eager)
    for got, want, aval in zip(staged, eager, jaxpr_type.out_types, strict=True):
        _assert_same(got, want)
        # the jaxpr's declared output types are what eager evaluation produces
        assert aval.shape == np.shape(want)
        assert aval.dtype == get_aval(want).dtype


def _weak_cases() -> list[Any]:
    binary = [p for p in ALL_PRIMS if p in elementwise_specs and elementwise_specs[p].nin == 2]
    combos = [(np.float32, 2.0), (np.int32, 3), (np.float32, 3)]
    return [
        pytest.param(p, dt, sc, id=f"{p.name}-{np.dtype(dt).name}-{sc!r}")
        for p in binary
        for dt, sc in combos
    ]


@pytest.mark.parametrize(("prim", "dtype", "scalar"), _weak_cases())
def test_weak_scalar_literals_keep_promotion(prim: Primitive, dtype: Any, scalar: Any):
    # the weak scalar takes x's dtype: both operands must accept it (pow: a float base)
    if not elementwise_specs[prim].accepts(np.dtype(dtype).kind):
        pytest.skip(f"{prim.name} does not accept {np.dtype(dtype).name}")
    x = (f64(4) * 4 + 1).astype(dtype)

    def f(x: Any) -> Any:
        return bind(prim, x, scalar)[0]

    with np.errstate(all="ignore"):
        want = f(x)
        closed = make_jaxpr(f)(x)
        (got,) = closed(x)
    assert closed.out_avals[0] == ShapedArray(np.shape(want), get_aval(want).dtype)
    _assert_same(got, want)

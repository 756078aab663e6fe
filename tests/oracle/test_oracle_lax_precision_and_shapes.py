"""``lax.Precision``/``precision=`` and the conv/reduce_window shape helpers against JAX
(issue 23): the same precision_config in the lowered StableHLO, the same values, the same
shapes."""

import re

import jax
import numpy as np
import pytest
from jax import lax as jlax

import mj
from mj import lax as mlax

pytestmark = pytest.mark.oracle

A = np.arange(6.0, dtype=np.float32).reshape(2, 3)
B = np.arange(12.0, dtype=np.float32).reshape(3, 4)


def precisions(text):
    return re.findall(r"precision = \[[A-Z, ]+\]|#stablehlo<precision [A-Z]+>", text)


@pytest.mark.parametrize(
    "precision",
    ["highest", "high", "default", "float32", "tensorfloat32", ("highest", "default")],
)
def test_dot_precision_config_matches_jax(precision):
    def lower(lax, api):
        return api.jit(lambda a, b: lax.dot(a, b, precision=precision)).lower(A, B).as_text()

    assert precisions(lower(mlax, mj)) == precisions(lower(jlax, jax))
    np.testing.assert_allclose(
        mlax.dot(A, B, precision=precision), jlax.dot(A, B, precision=precision)
    )


@pytest.mark.parametrize("name", ["DEFAULT", "HIGH", "HIGHEST"])
def test_precision_enum_matches_jax(name):
    assert str(getattr(mlax.Precision, name)) == str(getattr(jlax.Precision, name))
    for alias in ("bfloat16", "tensorfloat32", "float32", "default", "high", "highest"):
        assert str(mlax.Precision(alias)) == str(jlax.Precision(alias))


def test_conv_precision_config_matches_jax():
    lhs, rhs = np.ones((1, 2, 5, 5), np.float32), np.ones((3, 2, 3, 3), np.float32)

    def lower(lax, api):
        f = api.jit(lambda a, b: lax.conv(a, b, (1, 1), "SAME", precision=lax.Precision.HIGH))
        return f.lower(lhs, rhs).as_text()

    assert precisions(lower(mlax, mj)) == precisions(lower(jlax, jax))


CONVS = [
    ((1, 5, 7, 2), (3, 3, 2, 4), (1, 1), "SAME", ("NHWC", "HWIO", "NHWC")),
    ((1, 5, 7, 2), (3, 3, 2, 4), (2, 3), "VALID", ("NHWC", "HWIO", "NHWC")),
    ((2, 3, 9, 8), (4, 3, 2, 3), (2, 2), [(1, 0), (2, 1)], ("NCHW", "OIHW", "NCHW")),
    ((2, 3, 9), (4, 3, 2), (3,), "SAME", ("NCH", "OIH", "NCH")),
    ((2, 9, 3), (2, 4, 3), (2,), "VALID", ("NWC", "WOI", "NCW")),
]


@pytest.mark.parametrize("args", CONVS)
def test_conv_shape_helpers_match_jax(args):
    assert mlax.conv_general_shape_tuple(*args) == jlax.conv_general_shape_tuple(*args)
    lhs, rhs, _, _, dnums = args
    assert tuple(mlax.conv_dimension_numbers(lhs, rhs, dnums)) == tuple(
        jlax.conv_dimension_numbers(lhs, rhs, dnums)
    )


@pytest.mark.parametrize(
    "args",
    [
        ((1, 5, 7, 2), (3, 3, 4, 2), (2, 2), "SAME", ("NHWC", "HWOI", "NHWC")),
        ((1, 5, 7, 2), (3, 3, 4, 2), (2, 3), "VALID", ("NHWC", "HWOI", "NHWC")),
        ((1, 5, 7, 2), (3, 3, 4, 2), (2, 1), [(1, 1), (0, 2)], ("NHWC", "HWOI", "NHWC")),
    ],
)
def test_conv_transpose_shape_tuple_matches_jax(args):
    assert mlax.conv_transpose_shape_tuple(*args) == jlax.conv_transpose_shape_tuple(*args)


@pytest.mark.parametrize(
    "args",
    [
        ((6, 7), (2, 3), (2, 1), ((0, 0), (1, 1))),
        ((6, 7), (2, 3), (1, 2), ((1, 0), (0, 2)), (2, 1), (1, 2)),
        ((4,), (5,), (1,), ((0, 0),)),
    ],
)
def test_reduce_window_shape_tuple_matches_jax(args):
    got = mlax.reduce_window_shape_tuple(*args)
    assert got == tuple(int(d) for d in jlax.reduce_window_shape_tuple(*args))


def test_conv_shape_tuple_matches_jax():
    args = ((2, 3, 9, 8), (4, 3, 2, 3), (2, 2), "SAME")
    assert mlax.conv_shape_tuple(*args) == tuple(int(d) for d in jlax.conv_shape_tuple(*args))

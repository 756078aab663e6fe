"""JAX's promotion lattice (mj_core._lattice): algebraic properties any correct lattice has.

The full table is compared cell by cell with JAX in tests/oracle/test_oracle_promotion.py; here
the checks need no JAX: the join is commutative, associative and idempotent, it is an upper
bound of its operands, weak Python types never widen a strong operand, and the x64 switch only
ever narrows 64-bit results.
"""

import itertools

import numpy as np
import pytest

from mj_core import _lattice as L  # noqa: N812
from mj_core import config

PROMOTING = sorted(
    (d for d in L.SUPPORTED_DTYPES if d not in L.SMALL_FLOATS and d.itemsize >= 1), key=str
)
PROMOTING = [d for d in PROMOTING if d not in L.UNSIGNED_SUBBYTE + L.SIGNED_SUBBYTE]
WEAK = (int, float, complex)


@pytest.mark.parametrize("x64", [False, True])
def test_join_is_commutative_idempotent_and_an_upper_bound(x64):
    ub = L._UPPER_BOUNDS[x64]
    for a, b in itertools.product(PROMOTING, repeat=2):
        ab = L.promote_types(a, b, x64)
        assert ab == L.promote_types(b, a, x64)
        assert ab in ub[a], (a, b, ab)
        assert ab in ub[b], (a, b, ab)
    for a in PROMOTING:
        assert L.promote_types(a, a, x64) == a


@pytest.mark.parametrize("x64", [False, True])
def test_join_is_associative(x64):
    # on lattice nodes (weak Python types included), before weak results become dtypes
    nodes = [*PROMOTING, *WEAK]

    def lub(*ns):
        return L._least_upper_bound(x64, frozenset(ns))

    for a, b, c in itertools.product(nodes, repeat=3):
        assert lub(lub(a, b), c) == lub(a, b, c) == lub(a, lub(b, c)), (a, b, c)


@pytest.mark.parametrize("x64", [False, True])
def test_weak_scalars_keep_the_strong_operands_width(x64):
    # float32_array * 2.0 stays float32; an int8 array + 1 stays int8; bf16 + 1.0 stays bf16
    for dt in (d for d in PROMOTING if d == L.canonicalize_dtype(d, x64)):
        for weak in WEAK:
            wdt = {int: L.I32, float: L.F32, complex: L.C64}[weak]
            out, out_weak = L.result_type([(dt, False), (wdt, True)], x64)
            keeps = (dt.kind == "c") or (dt.kind == "f" and weak is not complex)
            keeps = keeps or (dt.kind in "iu" and weak is int)
            if keeps:
                assert (out, out_weak) == (dt, False), (dt, weak, out)


def test_mixed_int_float_prefers_the_float():
    # JAX's documented difference from NumPy: int32 + float32 is float32, not float64
    assert L.promote_types(np.int32, np.float32, False) == np.float32
    assert L.promote_types(np.int64, np.float16, True) == np.float16
    assert L.promote_types(L.BF16, np.float16, False) == np.float32


def test_x64_off_never_forms_64_bit_types_from_32_bit_ones():
    narrow = [d for d in PROMOTING if d.itemsize <= 4 and d.kind != "c"] + [L.C64]
    for a, b in itertools.product(narrow, repeat=2):
        out, _ = L.result_type([(a, False), (b, False)], False)
        assert out not in (L.I64, L.U64, L.F64, L.C128), (a, b, out)


def test_python_scalars_alone_are_weak_defaults():
    assert L.result_type([(L.I32, True), (L.F32, True)], False) == (L.F32, True)
    assert L.result_type([(L.I64, True), (L.F64, True)], True) == (L.F64, True)
    assert L.result_type([(L.BOOL, True)], False) == (L.BOOL, False)


def test_low_precision_types_refuse_implicit_promotion():
    f8 = np.dtype(L.SMALL_FLOATS[-3])
    with pytest.raises(L.TypePromotionError, match="float8"):
        L.promote_types(f8, np.float16, False)
    with pytest.raises(L.TypePromotionError, match="4-bit integers"):
        L.promote_types(L.SIGNED_SUBBYTE[-1], np.int8, False)
    assert L.promote_types(f8, f8, False) == f8


def test_canonicalize_narrows_only_without_x64():
    for wide, narrow in (
        (np.int64, np.int32),
        (np.float64, np.float32),
        (np.complex128, np.complex64),
        (np.uint64, np.uint32),
    ):
        assert L.canonicalize_dtype(wide, False) == narrow
        assert L.canonicalize_dtype(wide, True) == wide
    assert L.canonicalize_dtype(L.BF16, False) == L.BF16


def test_strict_promotion_lets_only_weak_values_promote_within_their_kind():
    """JAX's strict lattice, by hand: a weak int joins any int or float, a weak float any
    float or complex, and two different concrete dtypes never meet."""
    f32, i32, u8, bf16 = (np.dtype(t) for t in (np.float32, np.int32, np.uint8, "bfloat16"))
    with config.override("numpy_dtype_promotion", "strict"):
        for x64 in (False, True):
            assert L.result_type([(f32, False), (i32, True)], x64) == (f32, False)
            assert L.result_type([(u8, False), (i32, True)], x64) == (u8, False)
            assert L.result_type([(bf16, False), (f32, True)], x64) == (bf16, False)
            assert L.result_type([(i32, True), (f32, True)], x64)[1] is True  # weak float
            for pair in ([(f32, False), (i32, False)], [(i32, False), (f32, True)]):
                with pytest.raises(L.TypePromotionError, match="numpy_dtype_promotion=strict"):
                    L.result_type(pair, x64)
            with pytest.raises(L.TypePromotionError):
                L.promote_types(np.float16, np.float32, x64)
    assert L.result_type([(f32, False), (i32, False)], False) == (f32, False)  # standard again

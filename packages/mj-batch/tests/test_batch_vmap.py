"""vmap's API: in_axes/out_axes conventions, axis_size, nesting, errors, and staying free of
needless data movement."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest

from mj_batch import vmap
from mj_batch.extend import BatchTracer, not_mapped
from mj_core import TracerLeakError, current_trace_stack, lax
from mj_ir import make_jaxpr

RNG = np.random.default_rng(1)


def add_one_to_a_scalar(scalar):
    assert np.ndim(scalar) == 0
    return 1 + scalar


def test_autodidax_add_one_to_a_scalar() -> None:
    vector_out = vmap(add_one_to_a_scalar, (0,))(np.arange(3.0))
    np.testing.assert_array_equal(vector_out, [1.0, 2.0, 3.0])


def test_matrix_vector_products_by_nested_vmap() -> None:
    m = RNG.normal(size=(4, 3))
    v = RNG.normal(size=(5, 3))

    def vdot(a, b):
        return lax.reduce_sum(a * b, (0,))

    mv = vmap(vmap(vdot, (0, None)), (None, 0))
    np.testing.assert_allclose(mv(m, v), v @ m.T, rtol=1e-12)


def test_log_joint_autobatching_example() -> None:
    # seed 004's "Autobatching log-densities": the unbatched model, vmapped
    rng = np.random.default_rng(10009)
    num_features, num_points = 10, 100
    all_x = rng.normal(size=(num_points, num_features))
    y = (rng.random(num_points) < 0.5).astype(np.float64)

    def log_joint(beta):
        logpdf = -0.5 * beta * beta - 0.5 * np.log(2 * np.pi)
        result = lax.reduce_sum(logpdf, (0,))
        logits = lax.dot(all_x, beta)
        return result + lax.reduce_sum(lax.log(1.0 + lax.exp((2.0 * y - 1.0) * logits)), (0,))

    betas = rng.normal(size=(10, num_features))
    manual = np.sum(-0.5 * betas**2 - 0.5 * np.log(2 * np.pi), axis=1) + np.sum(
        np.log1p(np.exp((2 * y - 1) * (all_x @ betas.T).T)), axis=1
    )
    np.testing.assert_allclose(vmap(log_joint)(betas), manual, rtol=1e-12)


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -2, -3])
def test_in_axes_ints_including_negative(axis: int) -> None:
    x = RNG.normal(size=(2, 3, 4))
    out = vmap(lambda a: lax.sin(a) * 2.0, in_axes=axis)(x)
    np.testing.assert_allclose(out, np.moveaxis(np.sin(x) * 2.0, axis, 0))


@pytest.mark.parametrize("out_axis", [0, 1, 2, -1, -3])
def test_out_axes_ints_including_negative(out_axis: int) -> None:
    x = RNG.normal(size=(4, 2, 3))
    out = vmap(lax.cos, out_axes=out_axis)(x)
    np.testing.assert_allclose(out, np.moveaxis(np.cos(x), 0, out_axis))


def test_pytree_in_axes_prefix_and_none() -> None:
    w = RNG.normal(size=(3,))
    xs = {"a": RNG.normal(size=(5, 3)), "b": RNG.normal(size=(3, 5))}

    def fun(w, d):
        return lax.reduce_sum(w * d["a"] + d["b"], (0,))

    out = vmap(fun, in_axes=(None, {"a": 0, "b": 1}))(w, xs)
    np.testing.assert_allclose(out, (w * xs["a"] + xs["b"].T).sum(axis=1))
    # a whole-argument prefix: every leaf of the dict along axis 0
    ys = {"a": RNG.normal(size=(5, 3)), "b": RNG.normal(size=(5, 3))}
    out = vmap(fun, in_axes=(None, 0))(w, ys)
    np.testing.assert_allclose(out, (w * ys["a"] + ys["b"]).sum(axis=1))


def test_list_in_axes_is_treated_as_a_tuple() -> None:
    out = vmap(lambda a, b: a * b, in_axes=[0, None])(np.arange(3.0), 2.0)
    np.testing.assert_array_equal(out, [0.0, 2.0, 4.0])


def test_keyword_arguments_are_mapped_along_axis_0() -> None:
    out = vmap(lambda a, *, b: a + b, in_axes=(None,))(1.0, b=np.arange(3.0))
    np.testing.assert_array_equal(out, [1.0, 2.0, 3.0])


def test_pytree_outputs_and_out_axes() -> None:
    Pair = namedtuple("Pair", "p q")
    x = RNG.normal(size=(4, 2))

    def fun(a):
        return Pair(a * 2.0, {"s": lax.reduce_sum(a, (0,)), "c": 7.0})

    out = vmap(fun, out_axes=Pair(1, {"s": 0, "c": None}))(x)
    assert isinstance(out, Pair)
    np.testing.assert_allclose(out.p, (x * 2.0).T)
    np.testing.assert_allclose(out.q["s"], x.sum(axis=1))
    assert out.q["c"] == 7.0


def test_unbatched_output_is_broadcast_when_out_axes_is_an_int() -> None:
    out = vmap(lambda a: (a, np.ones(2)), out_axes=(0, 1))(np.arange(3.0))
    np.testing.assert_array_equal(out[1], np.ones((2, 3)))


def test_axis_size_when_nothing_is_mapped() -> None:
    out = vmap(lambda a: a * 2.0, in_axes=None, axis_size=4)(np.ones(2))
    np.testing.assert_array_equal(out, np.full((4, 2), 2.0))


def test_batch_of_size_zero() -> None:
    out = vmap(lambda a, b: a * b + 1.0)(np.zeros((0, 3)), np.zeros((0, 3)))
    assert out.shape == (0, 3)


def test_dtypes_and_weak_types_are_kept() -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out = vmap(lambda a: a * 2.0 + 1)(x)
    assert out.dtype == np.float32
    out = vmap(lambda a: a + 1, in_axes=1)(np.arange(6, dtype=np.int32).reshape(2, 3))
    assert out.dtype == np.int32


def test_nested_vmap_with_different_axes() -> None:
    x = RNG.normal(size=(3, 4, 5))
    out = vmap(vmap(lambda a: lax.reduce_max(a, (0,)), in_axes=1), in_axes=2)(x)
    np.testing.assert_allclose(out, np.transpose(x.max(axis=0)))


def test_tracers_carry_batch_dims() -> None:
    seen = []

    def fun(a, b):
        seen.append((type(a), a.batch_dim, a.shape, b))
        return a

    vmap(fun, in_axes=(1, None))(np.ones((2, 3)), 5.0)
    assert seen == [(BatchTracer, 1, (2,), 5.0)]


# --- keeping the batch axis where it is -----------------------------------------------------


def _primitive_names(closed) -> list[str]:
    return [eqn.primitive.name for eqn in closed.eqns]


def test_no_transpose_for_aligned_elementwise_and_reductions() -> None:
    def fun(a, b):
        return lax.reduce_sum(lax.sin(a) * b + 1.0, (0,))

    batched = vmap(fun, in_axes=(1, 1), out_axes=0)
    closed = make_jaxpr(batched)(np.ones((3, 4)), np.ones((3, 4)))
    assert "transpose" not in _primitive_names(closed)
    x, y = RNG.normal(size=(3, 4)), RNG.normal(size=(3, 4))
    np.testing.assert_allclose(batched(x, y), (np.sin(x) * y + 1.0).sum(axis=0))


def test_dot_general_batches_into_its_batch_dims_without_moving_data() -> None:
    x, y = RNG.normal(size=(2, 7, 3)), RNG.normal(size=(3, 4, 7))
    batched = vmap(lax.dot, in_axes=(1, 2))
    closed = make_jaxpr(batched)(x, y)
    assert _primitive_names(closed) == ["dot_general"]
    np.testing.assert_allclose(batched(x, y), np.einsum("ibk,kjb->bij", x, y), rtol=1e-12)


# --- errors -------------------------------------------------------------------------------------


def test_inconsistent_sizes_list_every_argument() -> None:
    with pytest.raises(ValueError, match="inconsistent sizes") as info:
        vmap(lambda a, b: a + b)(np.ones((3, 2)), np.ones((4, 2)))
    msg = str(info.value)
    assert "one axis had size 3: axis 0 of argument a of type float64[3,2]" in msg
    assert "one axis had size 4: axis 0 of argument b of type float64[4,2]" in msg
    assert "test_batch_vmap.py" in msg  # the user's line


def test_axis_out_of_range() -> None:
    with pytest.raises(ValueError, match="axis 2") as info:
        vmap(lambda a: a, in_axes=2)(np.ones((3, 2)))
    assert "rank should be at least 3, but is only 2" in str(info.value)
    with pytest.raises(ValueError, match="axis 0"):
        vmap(lambda a: a)(1.0)


def test_nothing_mapped_needs_axis_size() -> None:
    with pytest.raises(ValueError, match="axis_size"):
        vmap(lambda a: a, in_axes=None)(np.ones(3))


def test_axis_size_must_agree_with_mapped_sizes() -> None:
    with pytest.raises(ValueError, match="the `axis_size` argument was 5"):
        vmap(lambda a: a, axis_size=5)(np.ones(3))


def test_in_axes_structure_mismatch() -> None:
    with pytest.raises(ValueError, match="tree prefix"):
        vmap(lambda a: a, in_axes=({"x": 0},))((np.ones(3),))
    with pytest.raises(ValueError, match=r"len\(in_axes\)=2, len\(args\)=1"):
        vmap(lambda a: a, in_axes=(0, 0))(np.ones(3))


def test_bad_axis_spec_types() -> None:
    with pytest.raises(TypeError, match="in_axes"):
        vmap(lambda a: a, in_axes=1.5)
    with pytest.raises(TypeError, match="out_axes"):
        vmap(lambda a: a, out_axes="x")
    with pytest.raises(TypeError, match="callable"):
        vmap(3)


def test_mapped_output_with_out_axes_none() -> None:
    with pytest.raises(ValueError, match="got axis spec None but output was batched on axis 0"):
        vmap(lambda a: a * 2.0, out_axes=None)(np.ones(3))
    with pytest.raises(ValueError, match=r"mapped output \(axis_name=i\) but out_axes is None"):
        vmap(lambda a: a * 2.0, out_axes=None, axis_name="i")(np.ones(3))


def test_shape_errors_inside_vmap_name_the_primitive() -> None:
    with pytest.raises(TypeError, match="add"):
        vmap(lambda a, b: a + b)(np.ones((2, 3)), np.ones((2, 4)))


def test_leaked_batch_tracer_is_detected() -> None:
    leaked = []

    def fun(a):
        leaked.append(a)
        return a

    vmap(fun)(np.ones(3))
    with pytest.raises(TracerLeakError, match="vmap"):
        leaked[0] + 1.0


def test_exceptions_leave_the_trace_stack_as_it_was() -> None:
    before = current_trace_stack()

    def bad(a):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        vmap(bad)(np.ones(3))
    assert current_trace_stack() == before


def test_not_mapped_is_a_singleton_sentinel() -> None:
    import copy
    import pickle

    from mj_batch.extend import NotMapped

    assert repr(not_mapped) == "not_mapped"
    assert str(not_mapped) == "not_mapped"
    assert f"{[0, not_mapped]}" == "[0, not_mapped]"
    assert pickle.loads(pickle.dumps(not_mapped)) is not_mapped
    assert copy.deepcopy(not_mapped) is not_mapped
    # The one member of a one-member enum: every way of naming it gives the same object, and
    # it is no int (a batch dim 0 must never compare equal to it).
    assert list(NotMapped) == [not_mapped]
    assert NotMapped("not_mapped") is not_mapped
    assert isinstance(not_mapped, NotMapped)
    assert not isinstance(not_mapped, int)
    assert not_mapped != 0
    assert [0, not_mapped, 1].count(not_mapped) == 1


# --- a user-defined primitive through the public registration API ----------------------------


def test_registering_a_batching_rule_for_a_new_primitive() -> None:
    from mj_batch.extend import align_batched, register_vmap_rule
    from mj_core import Primitive, bind, bind1, impl_rules

    multiply_add_p = Primitive("multiply_add")
    impl_rules[multiply_add_p] = lambda x, y, z: [np.add(np.multiply(x, y), z)]

    def multiply_add_vmap(axis_size, vals_in, dims_in):
        vals, out_dim = align_batched(vals_in, dims_in)
        return bind(multiply_add_p, *vals), [out_dim]

    register_vmap_rule(multiply_add_p, multiply_add_vmap)
    x, y, z = RNG.normal(size=(4, 3)), RNG.normal(size=(3, 4)), RNG.normal(size=(3,))
    out = vmap(lambda a, b, c: bind1(multiply_add_p, a, b, c), in_axes=(0, 1, None))(x, y, z)
    np.testing.assert_allclose(out, x * y.T + z)

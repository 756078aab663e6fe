"""The umbrella re-exports the layers' own objects (not wrappers), and every public module
named in the design is importable."""

import pytest

import mj
import mj_autodiff
import mj_batch
import mj_control
import mj_core
import mj_ir
import mj_xla

SAME_OBJECTS = [
    ("jit", mj_xla.jit),
    ("device_put", mj_xla.device_put),
    ("Array", mj_core.Array),
    ("grad", mj_autodiff.grad),
    ("value_and_grad", mj_autodiff.value_and_grad),
    ("jvp", mj_autodiff.jvp),
    ("vjp", mj_autodiff.vjp),
    ("linearize", mj_autodiff.linearize),
    ("custom_jvp", mj_autodiff.custom_jvp),
    ("custom_vjp", mj_autodiff.custom_vjp),
    ("stop_gradient", mj_autodiff.stop_gradient),
    ("vmap", mj_batch.vmap),
    ("jacfwd", mj_batch.jacfwd),
    ("jacrev", mj_batch.jacrev),
    ("hessian", mj_batch.hessian),
    ("make_jaxpr", mj_ir.make_jaxpr),
    ("eval_jaxpr", mj_ir.eval_jaxpr),
    ("ShapeDtypeStruct", mj_ir.ShapeDtypeStruct),
    ("config", mj_core.config),
    ("jacobian", mj_batch.jacrev),
    ("linear_transpose", mj_autodiff.linear_transpose),
    ("closure_convert", mj_autodiff.closure_convert),
    ("custom_gradient", mj_autodiff.custom_gradient),
    ("float0", mj_autodiff.float0),
    ("device_get", mj_xla.device_get),
    ("default_backend", mj_xla.default_backend),
    ("device_count", mj_xla.device_count),
    ("local_device_count", mj_xla.local_device_count),
    ("local_devices", mj_xla.local_devices),
    ("process_index", mj_xla.process_index),
    ("process_count", mj_xla.process_count),
    ("make_array_from_callback", mj_xla.make_array_from_callback),
    ("make_array_from_process_local_data", mj_xla.make_array_from_process_local_data),
    ("clear_caches", mj_xla.clear_caches),
]


@pytest.mark.parametrize(("name", "obj"), SAME_OBJECTS, ids=[n for n, _ in SAME_OBJECTS])
def test_umbrella_names_are_the_layers_objects(name, obj):
    assert getattr(mj, name) is obj


def test_submodules_reexport_the_same_objects():
    # mj.lax's elementwise functions check operands as jax.lax does, then call the layer's own
    assert mj.lax.add.__wrapped__ is mj_core.lax.add
    assert mj.lax.dot_general is mj_core.lax.dot_general
    assert mj.lax.cond is mj_control.cond
    assert mj.lax.scan is mj_control.scan
    assert mj.lax.while_loop is mj_control.while_loop
    assert mj.lax.fori_loop is mj_control.fori_loop
    assert mj.lax.switch is mj_control.switch
    assert mj.numpy.sin is mj_core.numpy.sin
    assert mj.numpy.sum is mj_core.numpy.sum
    assert mj.tree_util.tree_map is mj_core.tree_util.tree_map
    assert mj.tree_util.register_pytree_node is mj_core.tree_util.register_pytree_node
    assert mj.test_util.check_grads is mj_autodiff.check_grads
    assert mj.errors.ConcretizationError is mj_core.errors.ConcretizationError


def test_public_modules_have_the_documented_names():
    for name in ("relu", "gelu", "sigmoid", "softmax", "log_softmax", "one_hot", "logsumexp"):
        assert callable(getattr(mj.nn, name))
    for name in ("logsumexp", "erf", "erfinv", "expit", "logit"):
        assert callable(getattr(mj.scipy.special, name))
    for name in ("PRNGKey", "key", "split", "fold_in", "bits", "uniform", "normal"):
        assert callable(getattr(mj.random, name))
    for name in ("bernoulli", "categorical", "randint", "permutation"):
        assert callable(getattr(mj.random, name))
    for name in ("tree_flatten", "tree_unflatten", "tree_leaves", "tree_structure"):
        assert callable(getattr(mj.tree_util, name))
    assert callable(mj.tree_util.register_pytree_node_class)


def test_numpy_ndarray_is_mj_array_for_isinstance_checks():
    import numpy as np

    import mj
    import mj.numpy as mnp

    assert mnp.ndarray is mj.Array  # as jnp.ndarray is jax.Array
    assert isinstance(mnp.ones(2), mnp.ndarray)
    assert isinstance(mj.jit(lambda v: v * 2.0)(mnp.ones(2)), mnp.ndarray)
    assert not isinstance(np.ones(2), mnp.ndarray)

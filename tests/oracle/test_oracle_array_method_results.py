"""Every array method's result is an immutable array, as ``jax.Array``'s are (JAX 0.10.2): the
same value and dtype as JAX's, item assignment raises ``TypeError`` and NumPy cannot write
into it through ``np.asarray``. NumPy's own ``ndarray`` methods that mj arrays keep made
writable copies before: ``x.flatten()``, ``x.byteswap()``, and ``x.ravel()`` /
``x.reshape(...)`` of non-contiguous data (``x.T.reshape(-1)``); an unpickled array too.
``x.sort()`` returns the sorted copy, as in JAX."""

import copy
import pickle

import jax.numpy as jnp
import numpy as np
import pytest

import mj.numpy as mnp

pytestmark = pytest.mark.oracle

DATA = np.array([[3.0, -1.5, 2.5, 0.0], [7.0, 5.0, -4.0, 1.5], [0.5, 9.0, 6.0, -2.0]])

#: The arrays methods are applied to: contiguous, transposed (not contiguous), a column.
LAYOUTS = {
    "contiguous": lambda x: x,
    "transposed": lambda x: x.T,
    "column": lambda x: x[:, 1],
}

METHODS = {
    "flatten": lambda x: x.flatten(),
    "flatten_F": lambda x: x.flatten(order="F"),
    "ravel": lambda x: x.ravel(),
    "reshape": lambda x: x.reshape(-1),
    "reshape_tuple": lambda x: x.reshape((1, -1)),
    "byteswap": lambda x: x.byteswap(),
    "astype": lambda x: x.astype(np.int32),
    "astype_same": lambda x: x.astype(x.dtype),
    "squeeze": lambda x: x[None].squeeze(),
    "swapaxes": lambda x: x[None].swapaxes(0, -1),
    "transpose": lambda x: x.transpose(),
    "T": lambda x: x.T,
    "mT": lambda x: x[None].mT,
    "view": lambda x: x.view(),
    "getitem_int": lambda x: x[1],
    "getitem_slice": lambda x: x[::2],
    "getitem_fancy": lambda x: x[np.array([0, 1, 1])],
    "getitem_bool": lambda x: x[np.asarray(x) > 1],
    "getitem_newaxis": lambda x: x[None, ..., None],
    "take": lambda x: x.take(np.array([0, 2])),
    "repeat": lambda x: x.repeat(2),
    "round": lambda x: x.round(),
    "clip": lambda x: x.clip(-1, 4),
    "cumsum": lambda x: x.cumsum(),
    "cumprod": lambda x: x.cumprod(axis=0),
    "conj": lambda x: x.conj(),
    "conjugate": lambda x: x.conjugate(),
    "real": lambda x: x.real,
    "imag": lambda x: x.imag,
    "copy": lambda x: x.copy(),
    "copy.copy": copy.copy,
    "copy.deepcopy": copy.deepcopy,
    "sum": lambda x: x.sum(axis=0),
    "mean": lambda x: x.mean(),
    "max": lambda x: x.max(axis=-1),
    "argmax": lambda x: x.argmax(),
    "prod": lambda x: x.prod(),
    "std": lambda x: x.std(),
    "all": lambda x: x.all(),
    "diagonal": lambda x: (x.reshape(-1)[:2, None] * x.reshape(-1)[:2]).diagonal(),
    "trace": lambda x: (x.reshape(-1)[:2, None] * x.reshape(-1)[:2]).trace(),
    "sort": lambda x: x.sort(),
    "argsort": lambda x: x.argsort(),
    "nonzero": lambda x: x.nonzero(),
    "ptp": lambda x: x.ptp(),
    "dot": lambda x: x.dot(x.T),
    "matmul": lambda x: x @ x.T,
    "add_numpy": lambda x: x + np.ones(x.shape, x.dtype),
    "radd_numpy": lambda x: np.ones(x.shape, x.dtype) + x,
    "mul_scalar": lambda x: x * 2,
    "neg": lambda x: -x,
    "pickle": lambda x: pickle.loads(pickle.dumps(x)),
    "pickle5": lambda x: pickle.loads(pickle.dumps(x, protocol=5)),
}


def _leaves(out):
    return [leaf for o in out for leaf in _leaves(o)] if isinstance(out, tuple) else [out]


def _immutable(y):
    with pytest.raises(TypeError):
        y[(0,) * y.ndim] = 1
    with pytest.raises(ValueError, match="read-only"):
        np.asarray(y)[...] = 1


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("method", METHODS)
def test_array_method_results_are_immutable_like_jax(x64, method, layout):
    results = []
    for np_ in (jnp, mnp):
        x = LAYOUTS[layout](np_.asarray(DATA))
        before = np.array(x)
        out = METHODS[method](x)
        np.testing.assert_array_equal(np.asarray(x), before)  # the array is left as it was
        for leaf in _leaves(out):
            _immutable(leaf)
        results.append(out)
    want, got = results
    assert len(_leaves(got)) == len(_leaves(want))
    for w, g in zip(_leaves(want), _leaves(got), strict=True):
        assert g.dtype == w.dtype
        assert g.shape == w.shape
        np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-6)  # (summation order)


def test_a_copy_numpy_makes_of_an_mj_array_is_numpy_s(x64):
    # np.array/np.asarray with a copy give a NumPy array the caller owns, as for a jax.Array
    x = mnp.asarray(DATA).T
    for y in (np.array(x), np.asarray(x, order="C").copy(), x.__array__(copy=True)):
        assert type(y) is np.ndarray
        assert y.flags.writeable
        y[0, 0] = 100.0
    np.testing.assert_array_equal(np.asarray(x), DATA.T.astype(x.dtype))

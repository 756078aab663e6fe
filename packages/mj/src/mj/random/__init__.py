"""Pseudo-random numbers with explicit, splittable keys (``jax.random``'s design).

There is no hidden global state: every function takes a *key* (a ``uint32[2]`` array) and is
a pure function of it, so the same key always gives the same numbers, also under ``jit`` and
``vmap``. To get fresh randomness, derive new keys with :func:`split` or :func:`fold_in` and
never reuse a key you have consumed::

    key = mj.random.PRNGKey(0)
    key, subkey = mj.random.split(key)
    x = mj.random.normal(subkey, (3,))

Keys, bits and samples are identical to JAX 0.10.2's default Threefry implementation (with
64-bit mode enabled, which is mj's default), so a JAX program ported to mj sees the same
random numbers. The samplers of other distributions (``exponential``, ``gamma``, ``beta``,
``multivariate_normal``, ``choice``, ``poisson``, ...) run JAX's algorithms with JAX's key
use (the rejection samplers too: same key splits, same loops), so they give JAX's samples:
bit for bit under ``jit``, within a few ulps eagerly (NumPy's ``log``/``exp`` are not XLA's).
``key(seed)`` returns a typed key array (dtype ``key<fry>``, shape ``()``), ``PRNGKey(seed)``
its raw ``uint32[2]`` data (JAX's legacy keys): every sampler accepts both, ``split`` and
``fold_in`` return keys of their argument's kind, :func:`key_data` / :func:`wrap_key_data`
convert between them. Typed key arrays are pytree nodes over their data, so they pass
through ``jit``, ``vmap``, ``grad``, ``scan`` and the other transformations (see
``mj.random._keyarray`` for how they differ from JAX's).
"""

from mj.random._bits import bits as bits
from mj.random._bits import gumbel as gumbel
from mj.random._bits import normal as normal
from mj.random._bits import uniform as uniform
from mj.random._choice import choice as choice
from mj.random._continuous import cauchy as cauchy
from mj.random._continuous import double_sided_maxwell as double_sided_maxwell
from mj.random._continuous import exponential as exponential
from mj.random._continuous import laplace as laplace
from mj.random._continuous import logistic as logistic
from mj.random._continuous import lognormal as lognormal
from mj.random._continuous import maxwell as maxwell
from mj.random._continuous import pareto as pareto
from mj.random._continuous import rayleigh as rayleigh
from mj.random._continuous import triangular as triangular
from mj.random._continuous import truncated_normal as truncated_normal
from mj.random._continuous import wald as wald
from mj.random._continuous import weibull_min as weibull_min
from mj.random._counts import binomial as binomial
from mj.random._counts import multinomial as multinomial
from mj.random._counts import poisson as poisson
from mj.random._discrete import bernoulli as bernoulli
from mj.random._discrete import categorical as categorical
from mj.random._discrete import geometric as geometric
from mj.random._discrete import permutation as permutation
from mj.random._discrete import rademacher as rademacher
from mj.random._discrete import randint as randint
from mj.random._gamma import ball as ball
from mj.random._gamma import beta as beta
from mj.random._gamma import chisquare as chisquare
from mj.random._gamma import dirichlet as dirichlet
from mj.random._gamma import f as f
from mj.random._gamma import gamma as gamma
from mj.random._gamma import generalized_normal as generalized_normal
from mj.random._gamma import loggamma as loggamma
from mj.random._gamma import t as t
from mj.random._keys import PRNGKey as PRNGKey
from mj.random._keys import clone as clone
from mj.random._keys import fold_in as fold_in
from mj.random._keys import key as key
from mj.random._keys import key_data as key_data
from mj.random._keys import key_dtype as key_dtype
from mj.random._keys import key_impl as key_impl
from mj.random._keys import split as split
from mj.random._keys import wrap_key_data as wrap_key_data
from mj.random._multivariate import multivariate_normal as multivariate_normal
from mj.random._multivariate import orthogonal as orthogonal

__all__ = [
    "PRNGKey",
    "ball",
    "bernoulli",
    "beta",
    "binomial",
    "bits",
    "categorical",
    "cauchy",
    "chisquare",
    "choice",
    "clone",
    "dirichlet",
    "double_sided_maxwell",
    "exponential",
    "f",
    "fold_in",
    "gamma",
    "generalized_normal",
    "geometric",
    "gumbel",
    "key",
    "key_data",
    "key_dtype",
    "key_impl",
    "laplace",
    "loggamma",
    "logistic",
    "lognormal",
    "maxwell",
    "multinomial",
    "multivariate_normal",
    "normal",
    "orthogonal",
    "pareto",
    "permutation",
    "poisson",
    "rademacher",
    "randint",
    "rayleigh",
    "split",
    "t",
    "triangular",
    "truncated_normal",
    "uniform",
    "wald",
    "weibull_min",
    "wrap_key_data",
]

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
``key`` and ``PRNGKey`` both return raw ``uint32[2]`` key data (mj has no typed key arrays);
:func:`key_data`, :func:`wrap_key_data` and :func:`clone` return their argument.
"""

from __future__ import annotations

from mj._random_base import PRNGKey as PRNGKey
from mj._random_base import bernoulli as bernoulli
from mj._random_base import bits as bits
from mj._random_base import categorical as categorical
from mj._random_base import fold_in as fold_in
from mj._random_base import gumbel as gumbel
from mj._random_base import key as key
from mj._random_base import key_data as key_data
from mj._random_base import normal as normal
from mj._random_base import permutation as permutation
from mj._random_base import randint as randint
from mj._random_base import split as split
from mj._random_base import uniform as uniform
from mj._random_choice import choice as choice
from mj._random_counts import binomial as binomial
from mj._random_counts import multinomial as multinomial
from mj._random_counts import poisson as poisson
from mj._random_gamma import ball as ball
from mj._random_gamma import beta as beta
from mj._random_gamma import chisquare as chisquare
from mj._random_gamma import dirichlet as dirichlet
from mj._random_gamma import f as f
from mj._random_gamma import gamma as gamma
from mj._random_gamma import generalized_normal as generalized_normal
from mj._random_gamma import loggamma as loggamma
from mj._random_gamma import t as t
from mj._random_keys import clone as clone
from mj._random_keys import key_impl as key_impl
from mj._random_keys import wrap_key_data as wrap_key_data
from mj._random_multivariate import multivariate_normal as multivariate_normal
from mj._random_multivariate import orthogonal as orthogonal
from mj._random_transforms import cauchy as cauchy
from mj._random_transforms import double_sided_maxwell as double_sided_maxwell
from mj._random_transforms import exponential as exponential
from mj._random_transforms import geometric as geometric
from mj._random_transforms import laplace as laplace
from mj._random_transforms import logistic as logistic
from mj._random_transforms import lognormal as lognormal
from mj._random_transforms import maxwell as maxwell
from mj._random_transforms import pareto as pareto
from mj._random_transforms import rademacher as rademacher
from mj._random_transforms import rayleigh as rayleigh
from mj._random_transforms import triangular as triangular
from mj._random_transforms import truncated_normal as truncated_normal
from mj._random_transforms import wald as wald
from mj._random_transforms import weibull_min as weibull_min

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

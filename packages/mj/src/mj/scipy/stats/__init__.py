"""``mj.scipy.stats``: log-densities, CDFs and quantiles of common distributions, one module
per distribution like ``jax.scipy.stats``, built from mj operations (so they differentiate,
batch and compile). ``loc``/``scale`` broadcast against ``x``; values outside a support give
``-inf`` log-density (0 density), as in JAX."""

from mj.scipy.stats import bernoulli as bernoulli
from mj.scipy.stats import beta as beta
from mj.scipy.stats import cauchy as cauchy
from mj.scipy.stats import chi2 as chi2
from mj.scipy.stats import dirichlet as dirichlet
from mj.scipy.stats import expon as expon
from mj.scipy.stats import gamma as gamma
from mj.scipy.stats import laplace as laplace
from mj.scipy.stats import logistic as logistic
from mj.scipy.stats import multivariate_normal as multivariate_normal
from mj.scipy.stats import norm as norm
from mj.scipy.stats import poisson as poisson
from mj.scipy.stats import t as t
from mj.scipy.stats import uniform as uniform

"""Workload 39 (issue 39): the first call of jitted programs that draw random numbers several
times, mj vs JAX in one run.

XLA's compile time grows with the module it is given, and a module in which every PRNG use
inlines the ~100-operation Threefry hash compiles many times slower than JAX's, which calls
one private function per operand shape with the rounds in a loop. Each case times a fresh
``jit`` of fresh functions (trace, lower, compile, run) and shows each system's module size
(operations, functions, ``while`` loops) in its label:

* ``PRNG fori_loop``: a ``fori_loop`` whose body splits its key and draws ``bernoulli`` and
  ``normal`` samples.
* ``mnist_vae image_sample``: JAX's ``examples/mnist_vae.py`` ``image_sample`` with its decoder
  (``Dense(512), Relu, Dense(512), Relu, Dense(784)``): a decoder applied to ``normal`` codes,
  ``bernoulli`` pixels and a 10x10 image grid built from 100 slices.
* ``mnist_vae evaluate``: the example's jitted ``evaluate`` (the test ELBO of 500 binarized
  images through the encoder, a gaussian sample and the decoder, then ``image_sample``):
  155 s on mj against JAX's 11 s when issue 39 was filed.

Samples are float32 whatever the dtype mode (JAX may run in another mode than mj's tests).

Every system's answer is checked against mj's eager evaluation (NumPy impl rules) first: the
random bits are the same on all of them.
"""

from __future__ import annotations

import itertools
import re
import types
from collections.abc import Callable
from typing import Any

import numpy as np
from harness import Config, Result, SideBySide, Workload, block, check_close

import mj

CASE_LOOP, CASE_IMAGE = "PRNG fori_loop", "mnist_vae image_sample"
CASE_EVALUATE = "mnist_vae evaluate"


def _namespace(lib: Any) -> types.SimpleNamespace:
    return types.SimpleNamespace(
        jit=lib.jit, jnp=lib.numpy, lax=lib.lax, random=lib.random, PRNGKey=lib.random.PRNGKey
    )


def prng_loop(lib: types.SimpleNamespace, steps: int, size: int) -> Callable[..., Any]:
    """A fresh ``fori_loop`` of ``split``/``bernoulli``/``normal``."""
    jnp, random = lib.jnp, lib.random

    def body(i: Any, carry: Any) -> Any:
        key, acc = carry
        key, k1, k2 = random.split(key, 3)
        hit = random.bernoulli(k1, jnp.float32(0.3), (size,))
        return key, acc + jnp.where(hit, random.normal(k2, (size,), jnp.float32), 0.0)

    def program(key: Any) -> Any:
        return lib.lax.fori_loop(0, steps, body, (key, jnp.zeros(size, jnp.float32)))

    return program


def _dense_stack(jnp: Any, params: Any, x: Any) -> Any:
    """``Dense, Relu, ..., Dense`` (stax): relu after every layer but the last."""
    for i, (w, b) in enumerate(params):
        x = jnp.dot(x, w) + b
        if i < len(params) - 1:
            x = jnp.maximum(x, 0.0)
    return x


def image_sample(lib: types.SimpleNamespace, nrow: int, ncol: int) -> Callable[..., Any]:
    """A fresh copy of mnist_vae's ``image_sample`` (and ``image_grid``) on ``decode``, the
    example's stax decoder written out: its parameters are an argument."""
    jnp, random = lib.jnp, lib.random

    def image_grid(nrow: int, ncol: int, imagevecs: Any, imshape: tuple[int, int]) -> Any:
        images = iter(imagevecs.reshape((-1, *imshape)))
        return jnp.vstack(
            [jnp.hstack([next(images).T for _ in range(ncol)][::-1]) for _ in range(nrow)]
        ).T

    def program(rng: Any, dec_params: Any) -> Any:
        code_rng, img_rng = random.split(rng)
        codes = random.normal(code_rng, (nrow * ncol, 10), jnp.float32)
        logits = _dense_stack(jnp, dec_params, codes)
        sampled_images = random.bernoulli(img_rng, jnp.logaddexp(0.0, logits))
        return image_grid(nrow, ncol, sampled_images, (28, 28))

    return program


def evaluate(lib: types.SimpleNamespace, nrow: int, ncol: int) -> Callable[..., Any]:
    """A fresh copy of mnist_vae's jitted ``evaluate``: the test ELBO of bernoulli-binarized
    images (encoder, a gaussian sample, decoder) and ``image_sample``."""
    jnp, random = lib.jnp, lib.random
    sample_images = image_sample(lib, nrow, ncol)

    def elbo(rng: Any, enc_params: Any, dec_params: Any, images: Any) -> Any:
        trunk, mu_head, sigmasq_head = enc_params
        h = jnp.maximum(_dense_stack(jnp, trunk, images), 0.0)
        mu_z = _dense_stack(jnp, mu_head, h)
        sigmasq_z = jnp.logaddexp(_dense_stack(jnp, sigmasq_head, h), 0.0)  # stax.Softplus
        z = mu_z + jnp.sqrt(sigmasq_z) * random.normal(rng, mu_z.shape, jnp.float32)
        logits_x = _dense_stack(jnp, dec_params, z)
        logpdf = -jnp.sum(jnp.logaddexp(0.0, jnp.where(images, -1.0, 1.0) * logits_x))
        kl = -0.5 * jnp.sum(1.0 + jnp.log(sigmasq_z) - mu_z**2.0 - sigmasq_z)
        return logpdf - kl

    def program(test_rng: Any, enc_params: Any, dec_params: Any, images: Any) -> Any:
        elbo_rng, data_rng, image_rng = random.split(test_rng, 3)
        binarized_test = random.bernoulli(data_rng, images)
        test_elbo = elbo(elbo_rng, enc_params, dec_params, binarized_test) / images.shape[0]
        return test_elbo, sample_images(image_rng, dec_params)

    return program


def _layers(rng: np.random.Generator, sizes: tuple[int, ...]) -> list[tuple[Any, Any]]:
    return [
        (
            (rng.standard_normal((m, n)) / np.sqrt(m)).astype(np.float32),
            (0.1 * rng.standard_normal(n)).astype(np.float32),
        )
        for m, n in itertools.pairwise(sizes)
    ]


def decoder_params(hidden: int) -> list[tuple[np.ndarray, np.ndarray]]:
    return _layers(np.random.default_rng(39), (10, hidden, hidden, 28 * 28))


def encoder_params(hidden: int) -> tuple[Any, Any, Any]:
    """The encoder's trunk (``Dense, Relu, Dense``; its last ``Relu`` is applied after) and
    its two heads (``Dense(10)``, and ``Dense(10)`` before ``Softplus``)."""
    rng = np.random.default_rng(40)
    trunk = _layers(rng, (28 * 28, hidden, hidden))
    return trunk, _layers(rng, (hidden, 10)), _layers(rng, (hidden, 10))


# An operation's line: results, then ``stablehlo.add``, ``"stablehlo.case"``, ``call``, ...
_OP = r"^\s*(?:%\S+ = )?(?:\"?(?:stablehlo|chlo)\.\w+|(?:func\.)?call|(?:func\.)?return)\b"


def module_size(text: str) -> str:
    """``"N ops, F funcs, W whiles"`` of a StableHLO module's text: its operations (the
    functions' bodies, calls and returns included), functions and ``while`` loops."""
    ops = re.findall(_OP, text, re.M)
    return (
        f"{len(ops)} ops, {text.count('func.func')} funcs, {text.count('stablehlo.while')} whiles"
    )


def _case(
    config: Config,
    case: str,
    make: Callable[[types.SimpleNamespace], Callable[..., Any]],
    args: tuple[Any, ...],
    check: Callable[[str, Any, Any], None],
) -> list[Result]:
    """Time the first call of a fresh ``jit(make(lib))`` per system."""
    mj_lib = _namespace(mj)
    key = np.asarray(mj.random.PRNGKey(7))
    want = make(mj_lib)(key, *args)  # eager: NumPy impl rules
    bench = SideBySide(39, case, "s", repeats=config.pick(3, 2, 1), warmup=0, unit_scale=1)
    results: list[Result] = []
    systems = [("mj", mj_lib)]
    jax = config.peers.jax
    if jax is None:
        results.append(config.peers.skip(39, "jax"))
    else:
        systems.append(("jax", _namespace(jax)))
    for system, lib in systems:
        fn = lib.jit(make(lib))
        check(f"workload 39 {case} {system}", fn(key, *args), want)
        size = module_size(lib.jit(make(lib)).lower(key, *args).as_text())

        def first(lib: types.SimpleNamespace = lib) -> Any:
            return block(lib.jit(make(lib))(key, *args))

        bench.add(system, f"{system}.jit ({size})", first)
    return [*bench.run(), *results]


def _close(name: str, got: Any, want: Any) -> None:
    check_close(name, got, want, rtol=1e-5, atol=1e-6)


def _same_pixels(name: str, got: Any, want: Any) -> None:
    """The same image but for the rare pixel whose probability (a float32 matmul, summed in
    another order) lies within an ulp of its uniform draw."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, f"{name}: shape {got.shape}, expected {want.shape}"
    differ = np.count_nonzero(got != want)
    assert differ <= max(2, want.size // 10_000), f"{name}: {differ} of {want.size} pixels differ"


def _elbo_and_pixels(name: str, got: Any, want: Any) -> None:
    check_close(name, got[0], want[0], rtol=1e-4)
    _same_pixels(name, got[1], want[1])


def first_calls(config: Config) -> list[Result]:
    steps, size = config.pick(8, 8, 2), config.pick(16, 16, 4)
    nrow, hidden = config.pick(10, 10, 2), config.pick(512, 512, 16)
    dec, enc = decoder_params(hidden), encoder_params(hidden)
    images = np.random.default_rng(41).random((config.pick(500, 500, 8), 28 * 28), np.float32)
    return [
        *_case(config, CASE_LOOP, lambda lib: prng_loop(lib, steps, size), (), _close),
        *_case(config, CASE_IMAGE, lambda lib: image_sample(lib, nrow, nrow), (dec,), _same_pixels),
        *_case(
            config,
            CASE_EVALUATE,
            lambda lib: evaluate(lib, nrow, nrow),
            (enc, dec, images),
            _elbo_and_pixels,
        ),
    ]


WORKLOADS = (
    Workload(39, "first call of jitted programs drawing random numbers many times", first_calls),
)

"""chex's and jaxtyping's checks as their READMEs use them (chex.dataclass, assert_shape /
assert_rank under jit, assert_trees_all_close; jaxtyping's shape-and-dtype isinstance under
jit and vmap); prints what each check answered as JSON. Runs unchanged on JAX and, via
mj.as_jax, on mj."""

import json

import chex
import jax
import jax.numpy as jnp
from jaxtyping import Array, Float, Int


@chex.dataclass
class Params:
    w: chex.Array
    b: chex.Array


def raises(check, *args):
    try:
        check(*args)
    except AssertionError:
        return True
    return False


def main():
    p = Params(w=jnp.ones((2, 3)), b=jnp.arange(3.0))
    doubled = jax.tree.map(lambda x: 2 * x, p)

    @jax.jit
    def total(p):
        chex.assert_rank(p.w, 2)
        chex.assert_shape(p.b, (3,))
        return jnp.sum(p.w) + jnp.sum(p.b)

    def matches(x):
        return isinstance(x, Float[Array, "2 3"])

    results = {
        "total": float(total(p)),
        "doubled_total": float(total(doubled)),
        "shape_mismatch_raises": raises(chex.assert_shape, p.w, (3, 3)),
        "rank_mismatch_raises": raises(chex.assert_rank, p.b, 2),
        "close_trees_pass": not raises(
            chex.assert_trees_all_close, p, jax.tree.map(lambda x: x * (1 + 1e-7), p)
        ),
        "far_trees_raise": raises(chex.assert_trees_all_close, p, doubled),
        "jaxtyping_float_2x3": matches(p.w),
        "jaxtyping_wrong_shape": matches(p.b),
        "jaxtyping_int": isinstance(jnp.arange(3), Int[Array, " n"]),
        "jaxtyping_under_jit": bool(jax.jit(lambda x: jnp.asarray(matches(x)))(p.w)),
        "jaxtyping_under_vmap": [
            bool(b) for b in jax.vmap(lambda x: jnp.asarray(isinstance(x, Float[Array, " 3"])))(p.w)
        ],
    }
    return results


if __name__ == "__main__":
    print(json.dumps({"chex_jaxtyping_checks": main()}))

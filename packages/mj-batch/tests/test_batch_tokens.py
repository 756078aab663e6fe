"""vmap and tokens: a token is never batched, vmap passes it through unbatched."""

import numpy as np
import pytest

from mj_batch import not_mapped, vmap, vmap_rules
from mj_core.extend import Token
from mj_core.prims.tokens import after_all, after_all_p, create_token, create_token_p


def test_a_token_made_inside_vmap_leaves_unbatched_with_out_axes_none():
    x = np.arange(3.0, dtype=np.float32)
    y, tok = vmap(lambda v: (v * 2, after_all(create_token())), out_axes=(0, None))(x)
    np.testing.assert_array_equal(np.asarray(y), x * 2)
    assert type(tok) is Token


def test_a_token_passed_unbatched_is_merged_unbatched():
    tok = create_token()
    x = np.ones((4, 2), np.float32)
    y, out = vmap(lambda v, t: (v + 1, after_all(t)), in_axes=(0, None), out_axes=(0, None))(x, tok)
    np.testing.assert_array_equal(np.asarray(y), x + 1)
    assert type(out) is Token


def test_a_token_output_with_a_batch_axis_is_refused():
    with pytest.raises(ValueError, match="a token has no batch axis"):
        vmap(lambda v: (v, create_token()))(np.ones(3, np.float32))


def test_the_rules_keep_tokens_unbatched():
    tok = create_token()
    outs, dims = vmap_rules[create_token_p](3, [], [])
    assert type(outs[0]) is Token
    assert dims == [not_mapped]
    outs, dims = vmap_rules[after_all_p](3, [tok, tok], [not_mapped, not_mapped])
    assert type(outs[0]) is Token
    assert dims == [not_mapped]
    with pytest.raises(TypeError, match="Arguments to after_all must be tokens"):
        vmap_rules[after_all_p](3, [np.ones(3)], [0])

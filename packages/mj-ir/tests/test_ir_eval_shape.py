"""eval_shape: output shapes/dtypes without evaluating the function."""

import numpy as np

import mj_core.numpy as mnp
from mj_ir import ShapeDtypeStruct, eval_shape


def test_eval_shape_matches_the_real_outputs_without_running():
    ran = []

    def f(x, y):
        ran.append(True)
        return {"prod": mnp.matmul(x, y), "total": mnp.sum(x) * 2.0}

    x = np.ones((2, 3), np.float32)
    y = ShapeDtypeStruct((3, 5), np.float32)  # placeholders are enough
    out = eval_shape(f, x, y)
    assert out["prod"].shape == (2, 5)
    assert out["prod"].dtype == np.float32
    assert out["total"].shape == ()
    assert out["total"].dtype == np.float32
    real = f(x, np.ones((3, 5), np.float32))
    assert real["prod"].shape == out["prod"].shape
    assert len(ran) == 2  # one trace, one real call: eval_shape did not evaluate numerically

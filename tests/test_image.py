"""mj.image by closed forms (JAX's values are compared in tests/oracle/test_oracle_image.py):
linear resampling keeps a linear ramp linear, area downsampling by two averages pairs,
nearest upsampling repeats, and bad arguments are clear errors."""

import numpy as np
import pytest

import mj.image as mimage
import mj.numpy as mnp


def test_closed_forms():
    ramp = np.arange(8.0, dtype=np.float32)
    up = np.asarray(mimage.resize(ramp, (16,), "linear"))
    # output pixel j samples input position (j + 0.5) / 2 - 0.5; interior samples are exact
    np.testing.assert_allclose(up[1:-1], (np.arange(1, 15) + 0.5) / 2 - 0.5, rtol=1e-6)
    pairs = np.asarray(mimage.resize(ramp, (4,), "area"))
    np.testing.assert_allclose(pairs, ramp.reshape(4, 2).mean(axis=1), rtol=1e-6)
    np.testing.assert_array_equal(mimage.resize(ramp, (16,), "nearest"), np.repeat(ramp, 2))
    same = mimage.resize(np.ones((3, 4), np.float32), (3, 4), "cubic")  # nothing to resize
    np.testing.assert_array_equal(same, np.ones((3, 4)))
    assert mimage.ResizeMethod.from_string("bilinear") is mimage.ResizeMethod.LINEAR
    shifted = mimage.scale_and_translate(ramp, (8,), (0,), mnp.ones(1), mnp.full(1, 1.0), "linear")
    np.testing.assert_allclose(np.asarray(shifted)[1:], ramp[:-1], rtol=1e-6)  # moved right by 1
    assert float(np.asarray(shifted)[0]) == 0.0  # sampled off the image


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="shape must have length equal"):
        mimage.resize(np.ones((2, 2)), (4,), "linear")
    with pytest.raises(ValueError, match='Unknown resize method "bogus"'):
        mimage.resize(np.ones(2), (4,), "bogus")
    with pytest.raises(ValueError, match="Nearest neighbor resampling is not"):
        mimage.scale_and_translate(np.ones(2), (4,), (0,), np.ones(1), np.zeros(1), "nearest")

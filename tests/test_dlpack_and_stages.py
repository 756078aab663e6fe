"""DLPack both ways (``mj.dlpack.from_dlpack``, ``__dlpack__`` on eager and device arrays) and
the jit stage types of ``mj.stages``, as ``jax.dlpack`` and ``jax.stages``."""

import numpy as np
import pytest

import mj
import mj.numpy as mnp


def _arrays():
    values = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    return values, {"eager": mnp.asarray(values) * 1.0, "device": mj.device_put(values)}


@pytest.mark.usefixtures("on_cpu")  # (mj exports DLPack from CPU arrays only)
@pytest.mark.parametrize("kind", ["eager", "device"])
def test_numpy_reads_mj_arrays_through_dlpack_read_only(kind):
    values, arrays = _arrays()
    x = arrays[kind]
    host = np.from_dlpack(x)  # DLPack 1.0: shared, flagged read-only
    np.testing.assert_array_equal(host, values)
    assert not host.flags.writeable
    assert x.__dlpack_device__() == (1, 0)
    legacy = x.__dlpack__()  # a consumer of DLPack < 1.0 cannot be told: it gets a copy
    assert type(legacy).__name__ == "PyCapsule"
    with pytest.raises(BufferError):
        x.__dlpack__(copy=False)  # no copy allowed, and no way to say read-only


def test_from_dlpack_copies_into_an_mj_array():
    source = np.arange(4, dtype=np.int16)
    x = mj.dlpack.from_dlpack(source)
    source[0] = 100  # mj arrays own their data: the change does not show
    assert isinstance(x, mj.Array)
    assert x.dtype == np.int16
    np.testing.assert_array_equal(x, [0, 1, 2, 3])
    _, arrays = _arrays()
    np.testing.assert_array_equal(mj.dlpack.from_dlpack(arrays["device"]), arrays["eager"])
    cpu = mj.devices("cpu")[0]
    assert mj.dlpack.from_dlpack(source, device=cpu).device == cpu
    with pytest.raises(ValueError, match="copy=False"):
        mj.dlpack.from_dlpack(source, copy=False)
    with pytest.raises(TypeError, match="__dlpack__"):
        mj.dlpack.from_dlpack([1, 2])
    assert mj.dlpack.is_supported_dtype(mnp.bfloat16)
    assert not mj.dlpack.is_supported_dtype(np.dtype("U3"))


def test_stage_types():
    f = mj.jit(lambda a: a * 2.0)
    x = np.ones(3, np.float32)
    assert isinstance(f, mj.stages.Wrapped)
    traced = f.trace(x)
    assert isinstance(traced, mj.stages.Traced)
    lowered = f.lower(x)
    assert isinstance(lowered, mj.stages.Lowered)
    assert "stablehlo.multiply" in lowered.as_text()
    compiled = lowered.compile()
    assert isinstance(compiled, mj.stages.Compiled)
    np.testing.assert_array_equal(compiled(x), [2.0, 2.0, 2.0])

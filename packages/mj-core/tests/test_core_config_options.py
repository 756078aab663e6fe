"""Config options JAX programs set that change nothing in mj, or only checks: each accepts
the values mj honours and refuses the rest with an error that says why."""

import pytest

from mj_core import config


def test_traceback_filtering_accepts_off_and_auto_and_refuses_filtering_modes():
    assert config.traceback_filtering == "auto"
    with config.override("jax_traceback_filtering", "off"):
        assert config.jax_traceback_filtering == "off"
    assert config.traceback_filtering == "auto"
    for mode in ("tracebackhide", "remove_frames", "quiet_remove_frames"):
        with pytest.raises(NotImplementedError, match="never removes frames"):
            config.update("jax_traceback_filtering", mode)
    with pytest.raises(ValueError, match="traceback_filtering must be one of"):
        config.update("traceback_filtering", "on")
    assert config.traceback_filtering == "auto"


def test_debug_and_promotion_options_check_their_values():
    with pytest.raises(ValueError, match="numpy_dtype_promotion must be one of"):
        config.update("jax_numpy_dtype_promotion", "loose")
    with config.override("jax_debug_infs", 1):
        assert config.debug_infs is True  # stored as a bool, as JAX's
    assert config.debug_infs is False
    assert config.numpy_dtype_promotion == "standard"

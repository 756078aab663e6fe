"""Transfer guards (JAX's ``jax_transfer_guard*`` options): mj's config options handed to
jaxlib, whose transfers check them, as JAX's do.

What counts as a transfer follows JAX's model, where arrays live on the device: host data
(NumPy arrays, Python scalars) passed to ``jit``/``pmap`` or ``device_put``, device-to-device
copies, and reading device memory back. mj's eager arrays stand for JAX's device arrays, so
passing one to ``jit`` is no transfer, and neither are a program's constants (JAX embeds them).
Eager operations compute on the host with no transfer at all (in JAX, ``x + 1`` puts the ``1``
on the device, which ``"disallow"`` refuses; mj allows it).
"""

from __future__ import annotations

from mj_core import config
from mj_core.extend import on_change
from mj_xla import _jaxlib, _jit

__all__: list[str] = []

_DIRECTIONS = ("host_to_device", "device_to_device", "device_to_host")


def _guards_changed(_: object) -> None:
    """Each direction's level is its own option, else ``transfer_guard``'s."""
    overall = config.transfer_guard
    levels = {d: getattr(config, f"transfer_guard_{d}") or overall for d in _DIRECTIONS}
    _jaxlib.set_transfer_guards(levels)
    _jit.drop_dispatch_memos()  # (their plans exempt eager arrays only while guards are set)


for _name in ("transfer_guard", *(f"transfer_guard_{d}" for d in _DIRECTIONS)):
    on_change(_name, _guards_changed)

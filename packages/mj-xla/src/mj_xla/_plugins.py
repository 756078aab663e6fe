"""Finding PJRT plugins (GPU backends) the way JAX finds them, without importing jax.

JAX imports every module of the ``jax_plugins`` namespace package (and those advertised by
``jax_plugins`` entry points) and calls its ``initialize()``, which registers a shared
library with ``jax._src.xla_bridge``. Those ``initialize()`` functions import jax, so mj
never runs them: it locates the module's directory without executing it
(``importlib.util.find_spec``) and finds the library by the name the plugin package ships
(``xla_cuda_plugin.so`` for ``jax_plugins.xla_cuda12``/``xla_cuda13``). Plugins named in
``PJRT_NAMES_AND_LIBRARY_PATHS`` (``name:path,name:path``, as JAX reads it) are taken as
given. Problems are logged as warnings and the plugin is left out (CPU is always there), as
JAX's discovery does.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import json
import logging
import os
import pkgutil
from pathlib import Path
from typing import NamedTuple

__all__ = ["Plugin", "discover_plugins", "has_visible_nvidia_gpu"]

logger = logging.getLogger("mj")

NAMESPACE = "jax_plugins"

#: The plugin modules mj can load without their ``initialize()``: module-name prefix ->
#: (platform, the library file names the package may ship, preferred first).
_KNOWN: dict[str, tuple[str, tuple[str, ...]]] = {
    "xla_cuda": ("cuda", ("xla_cuda_plugin.so", "pjrt_c_api_gpu_plugin.so")),
    "xla_rocm": ("rocm", ("xla_rocm_plugin.so", "pjrt_c_api_gpu_plugin.so")),
}

#: JAX registers plugins with priority 400 by default and the GPU ones with 500; the CPU
#: backend has 0, so a GPU, when present, is the default backend.
GPU_PRIORITY = 500


class Plugin(NamedTuple):
    """A PJRT plugin found on disk: the platform it serves and its shared library."""

    platform: str
    library_path: str
    module: str
    priority: int = GPU_PRIORITY


def has_visible_nvidia_gpu() -> bool:
    """Whether the machine shows an NVIDIA device (JAX's test before starting ``cuda``)."""
    return any(os.path.exists(d) for d in ("/dev/nvidia0", "/dev/nvidiactl", "/dev/dxg"))


def _plugin_modules() -> list[str]:
    """The module names JAX would import: the namespace's modules, then entry points."""
    names: list[str] = []
    try:
        namespace = importlib.import_module(NAMESPACE)
    except ImportError:
        namespace = None
    if namespace is not None:
        path = getattr(namespace, "__path__", [])
        names += [name for _, name, _ in pkgutil.iter_modules(path, NAMESPACE + ".")]
    for entry in importlib.metadata.entry_points(group=NAMESPACE):
        if entry.value not in names:
            names.append(entry.value)
    # The newest CUDA plugin first when several are installed (as jaxlib's plugin_support).
    return sorted(names, reverse=True)


def _from_module(name: str) -> Plugin | None:
    short = name.rsplit(".", 1)[-1]
    known = next((v for k, v in _KNOWN.items() if short.startswith(k)), None)
    if known is None:
        logger.warning(
            "mj: PJRT plugin module %s is not one mj can load without jax (it knows %s); "
            "name its library in PJRT_NAMES_AND_LIBRARY_PATHS=<platform>:<path> to use it",
            name,
            sorted({p for p, _ in _KNOWN.values()}),
        )
        return None
    platform, libraries = known
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError) as err:
        logger.warning("mj: PJRT plugin module %s could not be found: %s", name, err)
        return None
    if spec is None:
        logger.warning("mj: PJRT plugin module %s does not exist", name)
        return None
    where = list(spec.submodule_search_locations or [])
    if not where and spec.origin:
        where = [str(Path(spec.origin).parent)]
    for folder in where:
        for lib in libraries:
            path = Path(folder) / lib
            if path.exists():
                return Plugin(platform, str(path), name)
    logger.warning(
        "mj: PJRT plugin %s has no library (%s in %s); the %r backend is not available and "
        "mj falls back to the CPU",
        name,
        " or ".join(libraries),
        ", ".join(where) or "?",
        platform,
    )
    return None


def _from_environment() -> list[Plugin]:
    """``PJRT_NAMES_AND_LIBRARY_PATHS``: each path a library, or a JSON file naming one in
    ``library_path`` (as JAX reads it)."""
    plugins = []
    for item in filter(None, os.environ.get("PJRT_NAMES_AND_LIBRARY_PATHS", "").split(",")):
        name, sep, path = item.partition(":")
        if not sep or not name or not path:
            logger.warning(
                "mj: PJRT_NAMES_AND_LIBRARY_PATHS entry %r is not <name>:<path>; ignored", item
            )
            continue
        if path.endswith(".json"):
            try:
                path = str(json.loads(Path(path).read_text())["library_path"])
            except (OSError, ValueError, KeyError) as err:
                logger.warning("mj: PJRT plugin config %s is unusable: %r", path, err)
                continue
        plugins.append(Plugin(name, path, "PJRT_NAMES_AND_LIBRARY_PATHS", 400))
    return plugins


def discover_plugins() -> list[Plugin]:
    """Every usable plugin, one per platform (the environment's first, then the newest)."""
    found: dict[str, Plugin] = {}
    for plugin in _from_environment():
        found.setdefault(plugin.platform, plugin)
    for name in _plugin_modules():
        located = _from_module(name)
        if located is not None:
            found.setdefault(located.platform, located)
    return list(found.values())

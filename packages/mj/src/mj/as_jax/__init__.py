"""``mj.as_jax``: run existing JAX code on mj, for programs that opt in.

``install()`` puts an import hook first on ``sys.meta_path`` that resolves ``import jax`` and
``import jax.<name>`` to mj's modules (``jax.numpy`` *is* ``mj.numpy``, ``jax.interpreters.ad``
*is* ``mj.interpreters.ad``): nothing named ``jax`` is installed, nothing is copied, and a
process that does not call it is unaffected. ``jax`` itself is a thin module whose attributes
are ``mj``'s, with ``__version__`` the JAX release whose API mj follows (``"0.10.2"``), since
libraries branch on it. A JAX module mj has no counterpart for fails to import with a
``ModuleNotFoundError`` naming both.

From the shell, ``python -m mj.as_jax script.py [args...]`` runs ``script.py`` as
``__main__`` (as ``python script.py`` would) with the hook installed; ``python -m mj.as_jax
-m package.module [args...]`` runs a module the same way. In a notebook or a test runner's
``conftest.py``, call ``mj.as_jax.install()`` before the first ``import jax``.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["JAX_VERSION", "install", "installed", "uninstall"]

JAX_VERSION = "0.10.2"
"""The JAX release whose public API mj follows: what ``jax.__version__`` reports."""

_ROOT = "jax"


def _mj_name(jax_name: str) -> str:
    return "mj" + jax_name[len(_ROOT) :]


class _JaxModule(types.ModuleType):
    """The top-level ``jax`` module: ``mj``'s attributes, JAX's version."""

    def __getattr__(self, name: str) -> Any:
        import mj

        try:
            return getattr(mj, name)
        except AttributeError:
            # a submodule ``import mj`` does not import (``jax.interpreters``): import it
            if not name.startswith("_") and importlib.util.find_spec(f"mj.{name}") is not None:
                return importlib.import_module(f"{_ROOT}.{name}")
            if name == "_src":  # JAX's import imports it: jax._src.xla_bridge reads through
                return importlib.import_module(f"{_ROOT}._src")
            raise AttributeError(
                f"module 'jax' has no attribute {name!r}: mj (running this program as JAX "
                f"through mj.as_jax) has no mj.{name}"
            ) from None

    def __dir__(self) -> list[str]:
        import mj

        return sorted(set(dir(mj)) | set(self.__dict__))


def _make_version_module() -> types.ModuleType:
    module = types.ModuleType("jax.version", "JAX's version, as mj.as_jax reports it.")
    module.__version__ = JAX_VERSION  # type: ignore[attr-defined]
    module._version = JAX_VERSION  # type: ignore[attr-defined]
    module.__version_info__ = _version_info()  # type: ignore[attr-defined]
    return module


def _version_info() -> tuple[int, ...]:
    return tuple(int(part) for part in JAX_VERSION.split("."))


_VERSION_MODULE = _make_version_module()


def _api_boundary(fun: object = None, **_: object) -> Any:
    """JAX's traceback-filtering decorator: the function itself (mj filters no frames)."""
    if fun is None:
        return _api_boundary
    return fun


def _include_frame(frame: types.FrameType) -> bool:
    """JAX's test of whether a traceback shows a frame: every frame, as mj filters none."""
    del frame
    return True


def _register_exclusion(path: str) -> None:
    """JAX's traceback-filtering registration: nothing to register on mj."""
    del path


class ExtendedDType:
    """JAX's (private) base class of extended dtype objects: ``type`` (a subclass of
    ``jax.dtypes.extended``) and ``name``. mj has no extended dtypes; flax subclasses it."""

    type: Any
    name: str


class _PrivateDtypes(types.ModuleType):
    """``jax._src.dtypes``: its own attributes, then ``mj.dtypes``'."""

    def __getattr__(self, name: str) -> Any:
        import mj.dtypes

        return getattr(mj.dtypes, name)


class _XlaBridge(types.ModuleType):
    """``jax._src.xla_bridge``: ``_backends``, the backends started so far by platform
    (chex's ``set_n_cpu_devices`` reads it to refuse a device count once the CPU backend
    has started)."""

    def __getattr__(self, name: str) -> Any:
        if name == "_backends":
            from mj_xla.extend import started_backends

            return started_backends()
        raise AttributeError(
            f"module 'jax._src.xla_bridge' has no attribute {name!r}: mj.as_jax provides "
            "only _backends"
        )


def _wait_for_tokens() -> None:
    """JAX's wait for outstanding effect tokens: mj's runtime effects complete in order."""


def _make_private_modules() -> dict[str, types.ModuleType]:
    """The few private JAX modules mj provides, because the libraries import them at import
    time (a library that cannot be imported cannot use anything): see
    docs/running_jax_code.md for the list and why each is harmless.

    - ``jax._src.traceback_util``: ``api_boundary`` / ``register_exclusion`` /
      ``include_frame``, which flax, equinox and jaxtyping call for a cosmetic purpose
      (hiding library frames from tracebacks); here they do nothing (every frame is shown).
    - ``jax._src.dispatch``: ``wait_for_tokens`` (equinox calls it at exit to flush ordered
      effects); mj's effects complete in program order, so it does nothing.
    - ``jax._src.compiler``: imported by chex (``restrict_backends`` patches JAX's compile
      function); empty here, so only ``chex.restrict_backends`` fails, when used.
    - ``jax._src.xla_bridge``: ``_backends`` (the started backends, read-only), which
      chex's ``set_n_cpu_devices`` reads.
    - ``jax.lib``: ``__version__`` only (the jaxlib release paired with the JAX release mj
      follows), which equinox's tests read at import time.
    - ``jax._src.core``: the public ``mj.core``; ``jax._src.dtypes``: the public ``mj.dtypes``
      plus the base class ``ExtendedDType`` (flax's fp8 module subclasses it at import time;
      equinox reads ``TypePromotionError`` through the private path).
    """
    src = types.ModuleType("jax._src", "JAX's private modules: the few listed in mj.as_jax.")
    src.__path__ = []
    traceback_util = types.ModuleType(
        "jax._src.traceback_util", "No-op traceback filtering helpers (see mj.as_jax)."
    )
    traceback_util.api_boundary = _api_boundary  # type: ignore[attr-defined]
    traceback_util.register_exclusion = _register_exclusion  # type: ignore[attr-defined]
    traceback_util.include_frame = _include_frame  # type: ignore[attr-defined]
    dispatch = types.ModuleType("jax._src.dispatch", "wait_for_tokens only (see mj.as_jax).")
    dispatch.wait_for_tokens = _wait_for_tokens  # type: ignore[attr-defined]
    compiler = types.ModuleType("jax._src.compiler", "Empty (see mj.as_jax).")
    dtypes = _PrivateDtypes("jax._src.dtypes", "mj.dtypes, with ExtendedDType (see mj.as_jax).")
    dtypes.ExtendedDType = ExtendedDType  # type: ignore[attr-defined]
    dtypes.DType = np.dtype  # type: ignore[attr-defined]
    xla_bridge = _XlaBridge("jax._src.xla_bridge", "_backends only (see mj.as_jax).")
    lib = types.ModuleType("jax.lib", "jaxlib's version only (see mj.as_jax).")
    lib.__version__ = JAX_VERSION  # type: ignore[attr-defined]
    modules = {
        "jax.lib": lib,
        "jax._src": src,
        "jax._src.xla_bridge": xla_bridge,
        "jax._src.traceback_util": traceback_util,
        "jax._src.dispatch": dispatch,
        "jax._src.compiler": compiler,
        "jax._src.dtypes": dtypes,
    }
    for name, module in modules.items():
        if name.startswith("jax._src."):
            setattr(src, name.rsplit(".", 1)[1], module)
    return modules


_PUBLIC_UNDER_PRIVATE = {"jax._src.core": "mj.core"}
"""Private JAX paths that libraries use to reach public names: mj's public modules."""


_PRIVATE_MODULES = _make_private_modules()


class _AliasLoader(importlib.abc.Loader):
    """Loads ``jax.<name>`` as the already-imported mj module (``create_module`` returns it;
    there is nothing to execute). Importing sets the module's ``__spec__`` to the alias's;
    ``exec_module`` puts mj's own back, so the mj module is left exactly as it was."""

    def __init__(self, module: types.ModuleType) -> None:
        self.module = module
        self.spec = getattr(module, "__spec__", None)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return self.module

    def exec_module(self, module: types.ModuleType) -> None:
        if self.spec is not None:
            module.__spec__ = self.spec


class JaxAliasFinder(importlib.abc.MetaPathFinder):
    """Resolves ``jax`` and ``jax.*`` to mj (see the module docstring)."""

    def find_spec(
        self,
        fullname: str,
        path: Sequence[str] | None = None,
        target: types.ModuleType | None = None,
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname == _ROOT:
            import mj

            root = _JaxModule(_ROOT, mj.__doc__)
            root.__version__ = JAX_VERSION  # type: ignore[attr-defined]
            root.__version_info__ = _version_info()  # type: ignore[attr-defined]
            root.__path__ = list(mj.__path__)
            root.version = _VERSION_MODULE  # type: ignore[attr-defined]
            return importlib.machinery.ModuleSpec(fullname, _AliasLoader(root), is_package=True)
        if not fullname.startswith(_ROOT + "."):
            return None
        if fullname == "jax.version":
            return importlib.machinery.ModuleSpec(fullname, _AliasLoader(_VERSION_MODULE))
        private = _PRIVATE_MODULES.get(fullname)
        if private is not None:
            return importlib.machinery.ModuleSpec(
                fullname, _AliasLoader(private), is_package=hasattr(private, "__path__")
            )
        mj_name = _PUBLIC_UNDER_PRIVATE.get(fullname) or _mj_name(fullname)
        try:
            module = importlib.import_module(mj_name)
        except ModuleNotFoundError as err:
            if err.name is not None and not mj_name.startswith(err.name):
                raise  # something mj's module itself imports is missing
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: mj.as_jax runs JAX programs on mj, and mj has "
                f"no counterpart of this JAX module ({mj_name})",
                name=fullname,
            ) from None
        return importlib.machinery.ModuleSpec(
            fullname,
            _AliasLoader(module),
            is_package=hasattr(module, "__path__"),
        )


_FINDER = JaxAliasFinder()


def installed() -> bool:
    """Whether ``import jax`` resolves to mj in this process."""
    return _FINDER in sys.meta_path


def install() -> None:
    """Make ``import jax`` and ``import jax.<name>`` resolve to mj's modules in this process
    (idempotent). Raises ``RuntimeError`` when a real ``jax`` is already imported."""
    if installed():
        return
    existing = sys.modules.get(_ROOT)
    if existing is not None and not isinstance(existing, _JaxModule):
        raise RuntimeError(
            "mj.as_jax.install(): a real 'jax' is already imported in this process; call "
            "install() before the first 'import jax'"
        )
    sys.meta_path.insert(0, _FINDER)


def uninstall() -> None:
    """Undo :func:`install`: remove the hook and forget the ``jax`` modules it made."""
    if installed():
        sys.meta_path.remove(_FINDER)
    for name in [n for n in sys.modules if n == _ROOT or n.startswith(_ROOT + ".")]:
        del sys.modules[name]

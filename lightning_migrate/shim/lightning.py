"""The shim for the ``lightning`` package's ``lightning.pytorch`` namespace: the same names as
``lightning_migrate.shim`` (``Trainer``, ``install``, ``uninstall``, ``installed``), bound to
``lightning.pytorch.Trainer``. The two namespaces are separate class trees, so code that imports
``lightning.pytorch`` (or ``lightning``) must use this module."""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any

from .namespace import ShimmedNamespace, module_getattr

SHIM = ShimmedNamespace("lightning.pytorch", __name__)


def install() -> None:
    """Patch ``lightning.pytorch.Trainer`` in place so every Trainer built in this process is translated."""
    SHIM.install()


def uninstall() -> None:
    """Restore ``lightning.pytorch.Trainer`` exactly as it was."""
    SHIM.uninstall()


def installed() -> AbstractContextManager[None]:
    """``with installed(): ...``: the shim is installed for the block only."""
    return SHIM.installed()


def __getattr__(name: str) -> Any:
    return module_getattr(SHIM, name)


__all__ = ["SHIM", "Trainer", "install", "installed", "uninstall"]  # noqa: F822 (lazy, see __getattr__)

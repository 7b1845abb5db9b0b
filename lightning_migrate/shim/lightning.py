"""The shim for the ``lightning`` package's ``lightning.pytorch`` namespace: the same names as
``lightning_migrate.shim`` (``Trainer``, ``install``, ``uninstall``, ``installed``), bound to
``lightning.pytorch.Trainer``. The two namespaces are separate class trees, so code that imports
``lightning.pytorch`` (or ``lightning``) must use this module."""

from __future__ import annotations

from typing import Any

from lightning_migrate.shim.namespace import ShimmedNamespace, module_getattr

SHIM = ShimmedNamespace("lightning.pytorch", __name__)
# install() patches `lightning.pytorch.Trainer` in place; uninstall() restores it; `with installed():` a block
install, uninstall, installed = SHIM.install, SHIM.uninstall, SHIM.installed


def __getattr__(name: str) -> Any:
    return module_getattr(SHIM, name)


__all__ = ["SHIM", "Trainer", "install", "installed", "uninstall"]  # noqa: F822 (lazy, see __getattr__)

"""The shim for the ``lightning`` package's ``lightning.pytorch`` namespace: the same names as
``lightning_migrate.shim`` (``Trainer``, ``install``, ``uninstall``, ``installed``), bound to
``lightning.pytorch.Trainer``. The two namespaces are separate class trees, so code that imports
``lightning.pytorch`` (or ``lightning``) must use this module."""

from __future__ import annotations

from typing import Any

from lightning_migrate.shim.arguments import bound
from lightning_migrate.shim.namespace import ShimmedNamespace, module_getattr

SHIM = ShimmedNamespace("lightning.pytorch", __name__)
# install() patches `lightning.pytorch.Trainer` in place; uninstall() restores it; `with installed():` a block
install, uninstall, installed = SHIM.install, SHIM.uninstall, SHIM.installed
# the 1.x argparse helpers 2.0 removed: `add_argparse_args(parser)`, `parse_argparser(parser)`,
# `from_argparse_args(Trainer, args, **overrides)` (see `arguments`)
add_argparse_args, parse_argparser, from_argparse_args = bound(SHIM)


def __getattr__(name: str) -> Any:
    return module_getattr(SHIM, name)


__all__ = [
    "SHIM",
    "Trainer",  # noqa: F822 (lazy, see __getattr__)
    "add_argparse_args",
    "from_argparse_args",
    "install",
    "installed",
    "parse_argparser",
    "uninstall",
]

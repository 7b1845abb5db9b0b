"""The runtime shim: new-style Trainer flags, with the same conflict checks, on every Lightning release.

``from lightning_migrate.shim import Trainer`` is the installed ``pytorch_lightning.Trainer`` (a real
subclass) whose constructor translates the hardware/distribution flags with the semantics model: the call
builds what Lightning 1.5.10 builds from it, on whatever release 1.4 to 2.6 is installed (see
``translate``). ``install()``/``uninstall()``/``installed()`` apply the same to ``pytorch_lightning.Trainer``
itself. Users of the ``lightning`` package import the same names from ``lightning_migrate.shim.lightning``.

Importing this module never imports Lightning; using it without Lightning raises an ImportError that says
what to install.
"""

from __future__ import annotations

from typing import Any

from lightning_migrate.shim.arguments import bound
from lightning_migrate.shim.namespace import ShimmedNamespace, module_getattr

SHIM = ShimmedNamespace("pytorch_lightning", __name__)
# install() patches `pytorch_lightning.Trainer` in place; uninstall() restores it; `with installed():` a block
install, uninstall, installed = SHIM.install, SHIM.uninstall, SHIM.installed
# the 1.x argparse helpers 2.0 removed: `add_argparse_args(parser)`, `parse_argparser(parser)`,
# `from_argparse_args(Trainer, args, **overrides)` (see `arguments`)
add_argparse_args, parse_argparser, from_argparse_args = bound(SHIM)


def __getattr__(name: str) -> Any:
    return module_getattr(SHIM, name)


__all__ = [
    "SHIM",
    "Trainer",
    "add_argparse_args",
    "from_argparse_args",
    "install",
    "installed",
    "parse_argparser",
    "uninstall",
]

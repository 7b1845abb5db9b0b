"""The defaults of the translated ``Trainer.__init__`` keywords, release by release, for the unit tests of
the shim's default-equals-not-given rule (no Lightning there). ``test_shim_cli.py`` checks, in every
real-release environment, that the installed release's signature has exactly these."""

from __future__ import annotations

from typing import Any

from lightning_migrate.semantics.model import Version
from lightning_migrate.semantics.signature import accepts

V16, V20 = Version(1, 6), Version(2, 0)

DEFAULTS_1X: dict[str, Any] = {
    "accelerator": None,
    "strategy": None,  # 1.5+
    "distributed_backend": None,  # 1.4 only
    "plugins": None,
    "devices": None,
    "num_nodes": 1,
    "gpus": None,
    "tpu_cores": None,
    "ipus": None,
    "num_processes": 1,  # None from 1.6
}
DEFAULTS_2X: dict[str, Any] = {
    "accelerator": "auto",
    "strategy": "auto",
    "devices": "auto",
    "num_nodes": 1,
    "plugins": None,
}


def trainer_defaults(version: Version) -> dict[str, Any]:
    """What ``inspect.signature(Trainer.__init__)`` of ``version`` gives the keywords it has."""
    if version >= V20:
        return dict(DEFAULTS_2X)
    defaults = {k: val for k, val in DEFAULTS_1X.items() if accepts(k, version)}
    if version >= V16:
        defaults["num_processes"] = None
    return defaults

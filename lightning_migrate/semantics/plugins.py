"""The constructors of the cluster-environment and checkpoint-IO plugins, per release.

A call keeps these plugins as it wrote them (``Setup.plugins``); what the model checks is that the release
can build them with the keywords written (Python's TypeError otherwise). Checked against each release with
inspect.signature by tests/real/test_plugins_real.py.
"""

from __future__ import annotations

from lightning_migrate.semantics.model import Obj, Version, v
from lightning_migrate.semantics.precision import Constructor, bind

V14, V16, V17, V18 = v("1.4"), v("1.6"), v("1.7"), v("1.8")

_NONE = Constructor(None)  # no __init__ of its own

# name -> constructors, newest first (from the first release that exports the class; see classes.py)
CONSTRUCTORS: dict[str, tuple[tuple[Version, Constructor], ...]] = {
    "LightningEnvironment": ((V14, Constructor("LightningEnvironment")),),
    "SLURMEnvironment": (
        (V18, Constructor("SLURMEnvironment", (("auto_requeue", False), ("requeue_signal", False)))),
        (V16, Constructor("SLURMEnvironment", (("auto_requeue", False),))),
        (V14, _NONE),
    ),
    # 1.6 gave the TorchElastic and Kubeflow environments an __init__ of no arguments (gone again in 1.7)
    "TorchElasticEnvironment": (
        (V17, _NONE),
        (V16, Constructor("TorchElasticEnvironment")),
        (V14, _NONE),
    ),
    "KubeflowEnvironment": (
        (V17, _NONE),
        (V16, Constructor("KubeflowEnvironment")),
        (V14, _NONE),
    ),
    "TorchCheckpointIO": ((V14, _NONE),),
}


def constructor(name: str, version: Version) -> Constructor | None:
    rows = CONSTRUCTORS.get(name, ())
    return next((c for since, c in rows if version >= since), None)


def construct(obj: Obj, version: Version) -> None:
    found = constructor(obj.cls, version)
    if found is not None:
        bind(found, obj)

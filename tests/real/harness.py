"""Build a real Lightning ``Trainer`` for a set of flags under simulated hardware and report what it built.

Used by the differential tests (one tox environment per release). It knows nothing about flag semantics:
it only turns the model's vocabulary (``Obj``, ``Hardware``) into real objects and reads the result back
into the model's vocabulary (``Setup``/``Rejected``) through class names and attributes.

Run as a script to dump what a release does for the whole grid (useful when working on the model):
    python tests/real/harness.py out.json
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import json
import logging
import os
import re
import sys
import tempfile
import warnings
from collections.abc import Iterator
from typing import Any

import torch

from lightning_migrate.semantics.model import Hardware, Obj, Outcome, Rejected, Setup, Strategy, Value

ROOT = os.environ.get("LM_LIGHTNING_ROOT", "pytorch_lightning")

# Strategy classes of every release, mapped to the model's release-independent family and start method.
STRATEGY_FAMILIES: dict[str, tuple[str, str | None]] = {
    "SingleDevicePlugin": ("single_device", None),
    "SingleDeviceStrategy": ("single_device", None),
    "DDPPlugin": ("ddp", "popen"),
    "DDPStrategy": ("ddp", "popen"),
    "DDPSpawnPlugin": ("ddp", "spawn"),
    "DDPSpawnStrategy": ("ddp", "spawn"),
    "DataParallelPlugin": ("dp", None),
    "DataParallelStrategy": ("dp", None),
    "DDP2Plugin": ("ddp2", "popen"),
    "DDP2Strategy": ("ddp2", "popen"),
    "DeepSpeedPlugin": ("deepspeed", "popen"),
    "DeepSpeedStrategy": ("deepspeed", "popen"),
    "HorovodPlugin": ("horovod", None),
    "HorovodStrategy": ("horovod", None),
    "DDPShardedPlugin": ("fairscale_sharded", "popen"),
    "DDPShardedStrategy": ("fairscale_sharded", "popen"),
    "DDPSpawnShardedPlugin": ("fairscale_sharded", "spawn"),
    "DDPSpawnShardedStrategy": ("fairscale_sharded", "spawn"),
    "DDPFullyShardedPlugin": ("fairscale_fsdp", "popen"),
    "DDPFullyShardedStrategy": ("fairscale_fsdp", "popen"),
    "DDPFullyShardedNativeStrategy": ("fsdp", "popen"),
    "FSDPStrategy": ("fsdp", "popen"),
    "TPUSpawnPlugin": ("xla", "spawn"),
    "TPUSpawnStrategy": ("xla", "spawn"),
    "XLAStrategy": ("xla", "spawn"),
    "SingleTPUPlugin": ("single_xla", None),
    "SingleTPUStrategy": ("single_xla", None),
    "SingleDeviceXLAStrategy": ("single_xla", None),
    "IPUPlugin": ("ipu", None),
    "IPUStrategy": ("ipu", None),
    "BaguaStrategy": ("bagua", None),
    "ColossalAIStrategy": ("colossalai", None),
    "HPUParallelStrategy": ("hpu_parallel", "popen"),
    "SingleHPUStrategy": ("hpu_single", None),
}

ACCELERATOR_KINDS = {
    "CPUAccelerator": "cpu",
    "GPUAccelerator": "cuda",
    "CUDAAccelerator": "cuda",
    "TPUAccelerator": "tpu",
    "XLAAccelerator": "tpu",
    "MPSAccelerator": "mps",
    "IPUAccelerator": "ipu",
    "HPUAccelerator": "hpu",
}

# Where a release may export the classes a call names.
OBJECT_MODULES = ("strategies", "plugins", "plugins.environments", "plugins.training_type")


def lightning() -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = importlib.import_module(ROOT)
    for name in (
        "pytorch_lightning",
        "lightning",
        "lightning.pytorch",
        "lightning.fabric",
        "lightning_fabric",
    ):
        logging.getLogger(name).setLevel(logging.ERROR)  # "GPU available: ..." for every Trainer
    return module


def release() -> str:
    return str(lightning().__version__)


@contextlib.contextmanager
def simulated(hardware: Hardware) -> Iterator[None]:
    """Make the release see ``hardware``, the way Lightning's own tests mock device counts.

    Patches torch's CUDA queries and every Lightning-level helper that caches or wraps them
    (``num_cuda_devices``/``is_cuda_available`` moved between modules across releases).
    """
    n = hardware.cuda
    replacements: dict[str, Any] = {
        "num_cuda_devices": lambda: n,
        "is_cuda_available": lambda: n > 0,
        "_device_count_nvml": lambda: n,
    }
    saved: list[tuple[Any, str, Any]] = []

    def patch(owner: Any, name: str, value: Any) -> None:
        saved.append((owner, name, getattr(owner, name)))
        setattr(owner, name, value)

    patch(torch.cuda, "device_count", lambda: n)
    patch(torch.cuda, "is_available", lambda: n > 0)
    if hasattr(torch.backends, "mps"):
        patch(torch.backends.mps, "is_available", lambda: hardware.mps)
    roots = ("pytorch_lightning", "lightning", "lightning_fabric", "lightning_lite")
    for mod_name, module in list(sys.modules.items()):
        if module is None or not mod_name.startswith(roots):
            continue
        for attr, replacement in replacements.items():
            if callable(module.__dict__.get(attr)):
                patch(module, attr, replacement)
    env = dict(os.environ)
    try:
        yield
    finally:
        for owner, name, value in reversed(saved):
            setattr(owner, name, value)
        os.environ.clear()
        os.environ.update(env)


def find_class(name: str) -> Any:
    for sub in OBJECT_MODULES:
        try:
            module = importlib.import_module(f"{ROOT}.{sub}")
        except ImportError:
            continue
        if name in module.__dict__ or hasattr(module, name):
            return getattr(module, name)
    raise ImportError(f"cannot import name {name!r}")


def build_value(value: Value) -> Any:
    if isinstance(value, Obj):
        return find_class(value.cls)(**{k: build_value(v) for k, v in value.kwargs})
    if isinstance(value, (list, tuple)):
        return type(value)(build_value(v) for v in value)
    return value


def observe(flags: dict[str, Value], hardware: Hardware) -> Outcome:
    """What the installed release builds for ``Trainer(**flags)`` on ``hardware``."""
    pl = lightning()
    with simulated(hardware), warnings.catch_warnings(), tempfile.TemporaryDirectory() as tmp:
        warnings.simplefilter("ignore")
        try:
            kwargs = {k: build_value(v) for k, v in flags.items()}
            trainer = pl.Trainer(default_root_dir=tmp, **kwargs)
        except Exception as exc:
            return rejected(exc)
        return read_setup(trainer)


def rejected(exc: BaseException) -> Rejected:
    message = exc.args[0] if isinstance(exc, KeyError) and exc.args else str(exc)
    return Rejected(type(exc).__name__, normalize(str(message)))


def normalize(message: str) -> str:
    """Remove what no model can predict: object addresses and module paths in reprs, and the order of
    the accelerator names 2.6 prints from a set."""
    message = re.sub(r"<(?:[\w.]+\.)?(\w+) object at 0x[0-9a-f]+>", r"<\1 object>", message)
    return re.sub(
        r"(Available names are: )([\w, ]+)",
        lambda m: m.group(1) + ", ".join(sorted(m.group(2).split(", "))),
        message,
    )


def strategy_of(trainer: Any) -> Any:
    # 1.4/1.5 only have `training_type_plugin`; 1.6/1.7 warn on it, so prefer `strategy`.
    if hasattr(type(trainer), "strategy"):
        return trainer.strategy
    return trainer.training_type_plugin


def find_unused_parameters(strategy: Any) -> bool | None:
    """The value torch DDP will get, letting the release fill in its own default."""
    kwargs = getattr(strategy, "_ddp_kwargs", None)
    if kwargs is None:
        return None
    if "find_unused_parameters" not in kwargs and hasattr(strategy, "pre_configure_ddp"):
        probe = copy.copy(strategy)
        probe._ddp_kwargs = dict(kwargs)
        with contextlib.suppress(Exception):  # later lines need a model; the default is set first
            type(strategy).pre_configure_ddp(probe)
        kwargs = probe._ddp_kwargs
    return bool(kwargs.get("find_unused_parameters", False))


def device_indices(strategy: Any) -> tuple[int, ...]:
    devices = getattr(strategy, "parallel_devices", None)
    if devices is None:
        devices = [strategy.root_device]
    indices = []
    for position, device in enumerate(devices):
        if isinstance(device, int):
            indices.append(device)
        elif device.index is None or device.type == "cpu":
            indices.append(position)
        else:
            indices.append(device.index)
    return tuple(indices)


def read_setup(trainer: Any) -> Setup:
    strategy = strategy_of(trainer)
    family, start_method = STRATEGY_FAMILIES[type(strategy).__name__]
    start_method = getattr(strategy, "_start_method", None) or start_method
    accelerator = getattr(trainer, "accelerator", None) or trainer.accelerator_connector.accelerator
    return Setup(
        accelerator=ACCELERATOR_KINDS[type(accelerator).__name__],
        devices=device_indices(strategy),
        strategy=Strategy(
            name=family,
            start_method=start_method,
            find_unused_parameters=find_unused_parameters(strategy) if family == "ddp" else None,
        ),
        num_nodes=int(trainer.num_nodes),
    )


def outcome_to_json(outcome: Outcome) -> dict[str, Any]:
    if isinstance(outcome, Rejected):
        return {"error": outcome.error, "message": outcome.message}
    return {
        "accelerator": outcome.accelerator,
        "devices": list(outcome.devices),
        "num_nodes": outcome.num_nodes,
        "strategy": str(outcome.strategy),
    }


if __name__ == "__main__":
    from grid import HARDWARE, cases

    records = [
        {"hw": h, "case": i, "real": outcome_to_json(observe(flags, hardware))}
        for h, hardware in enumerate(HARDWARE)
        for i, flags in enumerate(cases())
    ]
    with open(sys.argv[1], "w") as out:
        json.dump({"release": release(), "records": records}, out, indent=0)
    print(f"{len(records)} records for {release()}")

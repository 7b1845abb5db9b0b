"""The grid of Trainer calls the differential tests build on every release.

Three independent axes, crossed: the hardware accelerator flag, the distribution spelling (every old and
new way to choose a training type, including the conflicting ones) and the device-count spelling.
The same grid runs on every release: an old spelling on a new release must fail the way the model says.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from lightning_migrate.semantics.model import OPTIONAL_PACKAGES, Hardware, Obj, Value

HARDWARE = (Hardware(), Hardware(cuda=2), Hardware(cuda=4), Hardware(tpu_cores=8))

DEVICE_ACCELERATORS: tuple[str | None, ...] = (None, "cpu", "gpu", "auto")

DISTRIBUTIONS: tuple[dict[str, Value], ...] = (
    {},
    # 1.4 spellings: the training type in `accelerator` / `distributed_backend` / `plugins`
    {"accelerator": "ddp"},
    {"accelerator": "ddp_spawn"},
    {"accelerator": "ddp_cpu"},
    {"accelerator": "dp"},
    {"accelerator": "ddp2"},
    {"accelerator": "DDP_SPAWN"},
    {"accelerator": "tpu_spawn"},
    {"distributed_backend": "ddp"},
    {"distributed_backend": "ddp_cpu"},
    {"plugins": "ddp_find_unused_parameters_false"},
    {"plugins": "ddp_spawn"},
    {"plugins": Obj.of("DDPPlugin", find_unused_parameters=False)},
    {"plugins": [Obj.of("DDPSpawnPlugin"), Obj.of("LightningEnvironment")]},
    {"plugins": Obj.of("LightningEnvironment")},
    {"plugins": [Obj.of("DDPPlugin", find_unused_parameters=False), Obj.of("PrecisionPlugin")]},
    # the strategy flag (1.5+)
    {"strategy": "ddp"},
    {"strategy": "ddp_spawn"},
    {"strategy": "DDP"},
    {"strategy": "dp"},
    {"strategy": "ddp2"},
    {"strategy": "ddp_find_unused_parameters_false"},
    {"strategy": "ddp_find_unused_parameters_true"},
    {"strategy": "ddp_spawn_find_unused_parameters_false"},
    {"strategy": "ddp_fork"},
    {"strategy": "ddp_notebook"},
    {"strategy": "auto"},
    {"strategy": "single_device"},
    {"strategy": "tpu_spawn"},
    {"strategy": "xla"},
    {"strategy": "ddp_cpu"},
    {"strategy": "fsdp"},
    {"strategy": "deepspeed"},
    {"strategy": "horovod"},
    {"strategy": "ddp_sharded"},
    {"strategy": "foo"},
    {"strategy": Obj.of("DDPPlugin", find_unused_parameters=False)},
    {"strategy": Obj.of("DDPStrategy", find_unused_parameters=False)},
    {"strategy": Obj.of("DDPStrategy")},
    {"strategy": Obj.of("DDPSpawnStrategy")},
    {"strategy": Obj.of("DDPStrategy", start_method="spawn")},
    # the conflicts of the strategy flag with the old spellings
    {"accelerator": "ddp", "strategy": "ddp_spawn"},
    {"accelerator": "ddp", "strategy": "ddp"},
    {"accelerator": "ddp_cpu", "strategy": "ddp_spawn"},
    {"accelerator": "ddp_cpu", "strategy": "ddp"},
    {"distributed_backend": "ddp_cpu", "strategy": "ddp_spawn"},
    {"plugins": "ddp_find_unused_parameters_false", "strategy": "ddp_spawn"},
    {"plugins": Obj.of("DDPPlugin"), "strategy": "ddp"},
    {"distributed_backend": "ddp", "accelerator": "ddp_spawn"},
)

DEVICE_COUNTS: tuple[dict[str, Value], ...] = (
    {},
    {"gpus": 2},
    {"gpus": 1},
    {"gpus": 0},
    {"gpus": -1},
    {"gpus": "0,1"},
    {"gpus": "1"},
    {"gpus": [1]},
    {"num_processes": 2},
    {"devices": 2},
    {"devices": 1},
    {"devices": "auto"},
    {"devices": [0, 1]},
    {"devices": 2, "num_nodes": 2},
    {"gpus": 2, "num_nodes": 2},
    {"tpu_cores": 8},
    {"tpu_cores": 1},
    {"tpu_cores": [5]},
    {"devices": [5]},
)


# Precision: every spelling of the flags and the precision plugin objects of each release, on a few
# accelerator/strategy choices (not crossed with the whole grid: the selection depends on the accelerator,
# the strategy family and the flags, not on how the devices were counted).
PRECISION_BASES: tuple[dict[str, Value], ...] = (
    {},
    {"accelerator": "cpu"},
    {"accelerator": "gpu", "devices": 1},
    {"accelerator": "gpu", "devices": 2, "strategy": "ddp"},
    {"gpus": 2, "accelerator": "ddp"},
    {"accelerator": "tpu", "devices": 8},
)

_NATIVE_14 = Obj.of("NativeMixedPrecisionPlugin")
_NATIVE_16 = Obj.of("NativeMixedPrecisionPlugin", precision=16, device="cuda")

PRECISIONS: tuple[dict[str, Value], ...] = (
    *({"precision": p} for p in (16, 32, 64, "bf16", "16", "32", "mixed")),
    *({"precision": p} for p in ("16-mixed", "bf16-mixed", "32-true", "64-true", "16-true", "bf16-true")),
    {"precision": 16, "amp_backend": "apex"},
    {"precision": 16, "amp_backend": "apex", "amp_level": "O1"},
    {"precision": 16, "amp_level": "O2"},
    {"precision": 32, "amp_backend": "NATIVE"},
    {"precision": "bf16", "amp_backend": "native"},
    {"plugins": [_NATIVE_14]},
    {"plugins": [_NATIVE_16]},
    {"plugins": [Obj.of("NativeMixedPrecisionPlugin", precision="bf16", device="cpu")]},
    {"plugins": [Obj.of("MixedPrecisionPlugin", precision=16, device="cuda")]},
    {"plugins": [Obj.of("MixedPrecisionPlugin", precision="16-mixed", device="cuda")]},
    {"plugins": [Obj.of("MixedPrecision", precision="bf16-mixed", device="cpu")]},
    {"plugins": [Obj.of("DoublePrecisionPlugin")]},
    {"plugins": [Obj.of("PrecisionPlugin")]},
    {"plugins": [Obj.of("ApexMixedPrecisionPlugin", amp_level="O1")]},
    {"plugins": [Obj.of("DoublePrecision"), Obj.of("LightningEnvironment")]},
    {"plugins": [Obj.of("TorchCheckpointIO")]},
    # a 1.4 script: the precision said twice (issue 9)
    {"precision": 16, "plugins": [_NATIVE_14]},
    {"precision": 16, "plugins": [Obj.of("DDPPlugin", find_unused_parameters=False), _NATIVE_14]},
    {"precision": 16, "plugins": [Obj.of("DDPPlugin", find_unused_parameters=False), _NATIVE_16]},
    {"precision": "16-mixed", "plugins": [Obj.of("MixedPrecision", precision="16-mixed", device="cuda")]},
)


def precision_cases() -> Iterator[dict[str, Value]]:
    for base in PRECISION_BASES:
        for precision in PRECISIONS:
            flags = dict(base)
            plugins = precision.get("plugins")
            if isinstance(plugins, list) and any(p.cls == "DDPPlugin" for p in plugins if isinstance(p, Obj)):
                if "gpus" not in base:
                    continue  # a training type beside another one: the main grid has those
                del flags["accelerator"]  # the 1.4 script: Trainer(gpus=2, precision=16, plugins=[...])
            flags.update(precision)
            yield flags


def cases() -> Iterator[dict[str, Value]]:
    yield from distribution_cases()
    yield from precision_cases()


def distribution_cases() -> Iterator[dict[str, Value]]:
    for distribution in DISTRIBUTIONS:
        for accelerator in DEVICE_ACCELERATORS:
            if accelerator is not None and "accelerator" in distribution:
                continue
            for counts in DEVICE_COUNTS:
                flags = dict(distribution)
                if accelerator is not None:
                    flags["accelerator"] = accelerator
                flags.update(counts)
                yield flags


# --- optional packages -------------------------------------------------------------------------------------
#
# The strategies that need DeepSpeed, FairScale or Horovod, on machines where those are installed (the harness
# stubs them as Lightning's tests do), in every old and new spelling (names and objects, in `accelerator`,
# `plugins` and `strategy`), crossed with a few device spellings. Small on purpose: it runs on every release.

PACKAGE_HARDWARE = (Hardware(installed=OPTIONAL_PACKAGES), Hardware(cuda=2, installed=OPTIONAL_PACKAGES))

PACKAGE_DISTRIBUTIONS: tuple[dict[str, Value], ...] = (
    {"accelerator": "deepspeed"},
    {"accelerator": "horovod"},
    {"accelerator": "ddp_sharded"},
    {"accelerator": "ddp_sharded_spawn"},
    {"plugins": "deepspeed_stage_2"},
    {"plugins": "deepspeed_stage_3_offload"},
    {"plugins": "ddp_sharded_find_unused_parameters_false"},
    {"plugins": Obj.of("DeepSpeedPlugin", stage=3, offload_optimizer=True)},
    {"plugins": Obj.of("DDPShardedPlugin")},
    {"plugins": Obj.of("HorovodPlugin")},
    {"strategy": "deepspeed"},
    {"strategy": "deepspeed_stage_1"},
    {"strategy": "deepspeed_stage_2_offload"},
    {"strategy": "deepspeed_stage_3"},
    {"strategy": "deepspeed_stage_3_offload_nvme"},
    {"strategy": "horovod"},
    {"strategy": "ddp_sharded"},
    {"strategy": "ddp_sharded_spawn"},
    {"strategy": "ddp_fully_sharded"},
    {"strategy": "fsdp"},
    {"strategy": Obj.of("DeepSpeedPlugin", stage=1)},
    {"strategy": Obj.of("DeepSpeedStrategy", stage=3, offload_optimizer=True)},
    {"strategy": Obj.of("DeepSpeedStrategy", stage=3, offload_parameters=True, remote_device="cpu")},
    {"strategy": Obj.of("DeepSpeedStrategy", zero_optimization=False)},
    {"strategy": Obj.of("DDPShardedStrategy", find_unused_parameters=False)},
    {"strategy": Obj.of("DDPFullyShardedStrategy")},
    {"strategy": Obj.of("HorovodStrategy")},
)

PACKAGE_DEVICES: tuple[dict[str, Value], ...] = (
    {},
    {"gpus": 2},
    {"gpus": 1},
    {"accelerator": "gpu", "devices": 2},
    {"accelerator": "cpu", "devices": 2},
)


def package_cases() -> Iterator[dict[str, Value]]:
    for distribution in PACKAGE_DISTRIBUTIONS:
        for devices in PACKAGE_DEVICES:
            if "accelerator" in distribution and "accelerator" in devices:
                continue
            yield {**distribution, **devices}


def shared(grid: list[dict[str, Value]]) -> list[dict[str, Value]]:
    """The part of ``grid`` this environment builds: all of it, or with ``LM_GRID_SHARE="k/n"`` every n-th
    call from the k-th. CI keeps the whole grid on the releases where the semantics change hands (1.4.9,
    1.5.10, 1.9.5, 2.6.6) and gives the releases between them alternate halves, so that every call is still
    built on at least five releases while the CI stays within its time (each call is a real Trainer)."""
    spec = os.environ.get("LM_GRID_SHARE", "")
    if not spec:
        return grid
    k, n = (int(part) for part in spec.split("/"))
    if not 0 <= k < n:
        raise ValueError(f"LM_GRID_SHARE={spec!r}: want k/n with 0 <= k < n")
    return grid[k::n]

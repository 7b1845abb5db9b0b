"""Registered strategy names, release by release.

1.4 and 1.5 have a small ``TrainingTypePluginsRegistry`` (the plain names ddp, ddp_spawn, dp ... are the
``DistributedType`` enum there, see ``era_1_4``); 1.6 made one ``StrategyRegistry`` of every name. Each row
says which releases register the name and what strategy it builds. Checked against the real registries by
``tests/real/test_registry.py``.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from lightning_migrate.semantics.model import Strategy, Value, Version, v

# Strategy families a release deprecates before removing them, with no strategy that trains the same: a
# call that builds one still runs there, with a warning (spec section 1; code-read, the message is the
# release's own).
DEPRECATED_FAMILIES: Mapping[str, tuple[Version, str]] = MappingProxyType(
    {
        "fairscale_sharded": (
            v("1.9"),
            "PyTorch Lightning's sharded implementation using FairScale (#16353)",
        ),
        "fairscale_fsdp": (v("1.9"), "PyTorch Lightning's sharded implementation using FairScale (#16353)"),
        "horovod": (v("1.9"), "the `HorovodStrategy` (#16141)"),
    }
)


def deprecated_family(family: str, version: Version) -> str | None:
    """What ``version`` deprecates of strategy ``family``, in words, if it does."""
    row = DEPRECATED_FAMILIES.get(family)
    return row[1] if row is not None and version >= row[0] else None


@dataclass(frozen=True)
class Alias:
    name: str
    strategy: Strategy  # find_unused_parameters None: the release's default
    since: Version
    until: Version | None = None  # first release without it

    def registered_in(self, version: Version) -> bool:
        return self.since <= version and (self.until is None or version < self.until)


def _s(family: str, start: str | None = None, fup: bool | None = None, **options: Value) -> Strategy:
    return Strategy(family, start, fup, tuple(sorted(options.items())))


_DDP_START_METHODS = {"ddp": "popen", "ddp_spawn": "spawn", "ddp_fork": "fork", "ddp_notebook": "fork"}

ALIASES: tuple[Alias, ...] = (
    # in the 1.4/1.5 TrainingTypePluginsRegistry already
    Alias("ddp_find_unused_parameters_false", _s("ddp", "popen", False), v("1.4")),
    Alias("ddp_spawn_find_unused_parameters_false", _s("ddp", "spawn", False), v("1.4")),
    Alias(
        "ddp_sharded_find_unused_parameters_false",
        _s("fairscale_sharded", "popen", find_unused_parameters=False),
        v("1.4"),
        v("2.0"),
    ),
    Alias(
        "ddp_sharded_spawn_find_unused_parameters_false",
        _s("fairscale_sharded", "spawn", find_unused_parameters=False),
        v("1.4"),
        v("2.0"),
    ),
    Alias("deepspeed", _s("deepspeed", "popen"), v("1.4")),
    Alias("deepspeed_stage_1", _s("deepspeed", "popen", stage=1), v("1.5")),
    Alias("deepspeed_stage_2", _s("deepspeed", "popen", stage=2), v("1.4")),
    Alias("deepspeed_stage_2_offload", _s("deepspeed", "popen", stage=2, offload_optimizer=True), v("1.4")),
    Alias("deepspeed_stage_3", _s("deepspeed", "popen", stage=3), v("1.4")),
    Alias(
        "deepspeed_stage_3_offload",
        _s("deepspeed", "popen", stage=3, offload_optimizer=True, offload_parameters=True),
        v("1.4"),
    ),
    Alias(
        "deepspeed_stage_3_offload_nvme",
        _s(
            "deepspeed",
            "popen",
            stage=3,
            offload_optimizer=True,
            offload_parameters=True,
            remote_device="nvme",
            offload_params_device="nvme",
            offload_optimizer_device="nvme",
        ),
        v("1.4"),
    ),
    Alias("fsdp", _s("fairscale_fsdp", "popen"), v("1.4"), v("2.0")),  # FairScale until 1.9 ...
    Alias("fsdp", _s("fsdp", "popen"), v("2.0")),  # ... torch-native from 2.0: same name, different strategy
    # TPU spawn strategies launch with xmp.spawn(start_method="fork") from 1.7
    Alias("tpu_spawn_debug", _s("xla", "spawn", debug=True), v("1.4"), v("1.7")),
    Alias("tpu_spawn_debug", _s("xla", "fork", debug=True), v("1.7"), v("2.0")),
    # the StrategyRegistry of 1.6 took in the DistributedType names
    Alias("ddp", _s("ddp", "popen"), v("1.6")),
    Alias("ddp_spawn", _s("ddp", "spawn"), v("1.6")),
    Alias("dp", _s("dp"), v("1.6"), v("2.0")),
    Alias("ddp2", _s("ddp2", "popen"), v("1.6"), v("1.7")),
    Alias("ddp_sharded", _s("fairscale_sharded", "popen"), v("1.6"), v("2.0")),
    Alias("ddp_sharded_spawn", _s("fairscale_sharded", "spawn"), v("1.6"), v("2.0")),
    Alias("ddp_fully_sharded", _s("fairscale_fsdp", "popen"), v("1.6"), v("2.0")),
    Alias("horovod", _s("horovod"), v("1.6"), v("2.0")),
    Alias("bagua", _s("bagua"), v("1.6"), v("2.0")),
    Alias("tpu_spawn", _s("xla", "spawn"), v("1.6"), v("1.7")),
    Alias("tpu_spawn", _s("xla", "fork"), v("1.7"), v("2.0")),
    Alias("single_device", _s("single_device"), v("1.6")),
    Alias("single_tpu", _s("single_xla"), v("1.6")),
    Alias("ipu_strategy", _s("ipu"), v("1.6"), v("2.1")),
    Alias("hpu_parallel", _s("hpu_parallel", "popen"), v("1.6"), v("2.1")),
    Alias("hpu_single", _s("hpu_single"), v("1.6"), v("2.1")),
    # 1.7: fork start methods, torch-native FSDP under a provisional name
    *(
        Alias(f"{name}{suffix}", _s("ddp", start, fup), v("1.7"))
        for name, start in _DDP_START_METHODS.items()
        if start == "fork"
        for suffix, fup in (("", None), ("_find_unused_parameters_false", False))
    ),
    Alias("fsdp_native", _s("fsdp", "popen"), v("1.7"), v("2.0")),
    Alias("fsdp_native_full_shard_offload", _s("fsdp", "popen", cpu_offload=True), v("1.7"), v("2.0")),
    Alias("colossalai", _s("colossalai"), v("1.8"), v("2.0")),
    # 2.0: explicit True spellings (the default became False), XLA names
    *(
        Alias(f"{name}_find_unused_parameters_true", _s("ddp", start, True), v("2.0"))
        for name, start in _DDP_START_METHODS.items()
    ),
    Alias("fsdp_cpu_offload", _s("fsdp", "popen", cpu_offload=True), v("2.0")),
    Alias("xla", _s("xla", "fork"), v("2.0")),
    Alias("xla_debug", _s("xla", "fork", debug=True), v("2.0")),
    Alias("single_xla", _s("single_xla"), v("2.1")),
)


# 1.4/1.5: the `DistributedType` enum names, accepted by `accelerator=`/`distributed_backend=` (1.4) and
# `strategy=` (1.5). `ddp_cpu` (an enum member from 1.5, special-cased in 1.4) is not a strategy of its own:
# it means ddp_spawn on CPU, so it is left to the era modules.
DISTRIBUTED_TYPES: dict[str, Strategy] = {
    "dp": _s("dp"),
    "ddp": _s("ddp", "popen"),
    "ddp2": _s("ddp2", "popen"),
    "ddp_spawn": _s("ddp", "spawn"),
    "tpu_spawn": _s("xla", "spawn"),
    "deepspeed": _s("deepspeed", "popen"),
    "horovod": _s("horovod"),
    "ddp_sharded": _s("fairscale_sharded", "popen"),
    "ddp_sharded_spawn": _s("fairscale_sharded", "spawn"),
    "ddp_fully_sharded": _s("fairscale_fsdp", "popen"),
}


@functools.cache  # asked on every interpretation: once per release is enough
def registered(version: Version) -> Mapping[str, Strategy]:
    """The strategy names ``version``'s registry knows, with what each builds (read-only: it is shared)."""
    return MappingProxyType({alias.name: alias.strategy for alias in ALIASES if alias.registered_in(version)})


def default_find_unused_parameters(version: Version) -> bool:
    """What DDP gets when nobody says: Lightning filled in True until 1.9, torch's False from 2.0."""
    return version < v("2.0")


def resolve(strategy: Strategy, version: Version) -> Strategy:
    """Fill in the release defaults a strategy leaves open."""
    if strategy.name == "ddp" and strategy.find_unused_parameters is None:
        return Strategy(
            strategy.name, strategy.start_method, default_find_unused_parameters(version), strategy.options
        )
    if strategy.name == "deepspeed":
        options = tuple(sorted(deepspeed_options(dict(strategy.options), version).items()))
        return Strategy(strategy.name, "popen", None, options)  # DeepSpeed always re-runs the script
    return strategy


# --- DeepSpeed's options -----------------------------------------------------------------------------------
#
# `DeepSpeedStrategy(...)` (`DeepSpeedPlugin` up to 1.5) turns its keywords into a DeepSpeed config
# (`_create_default_config`); a Setup carries the keywords that change what that config, or the model's first
# placement, does, in a canonical form: the ZeRO stage always, an offload and its device only when it is on,
# `remote_device` only at stage 3 (the only stage that runs `deepspeed.zero.Init(remote_device=...)`), with
# the release's default where the call gives none. Other keywords travel as written. With `config=` the
# object's own keywords no longer make the config: they are all kept as written.

# Defaults every release shares (1.4 to 2.6).
DEEPSPEED_DEFAULTS: dict[str, Value] = {
    "zero_optimization": True,
    "stage": 2,
    "offload_optimizer": False,
    "offload_parameters": False,
    "offload_optimizer_device": "cpu",
    "offload_params_device": "cpu",
    "nvme_path": "/local_nvme",
}
# `remote_device` defaulted to "cpu" up to 2.0 and to None (the GPU) from 2.1.
DEEPSPEED_REMOTE_DEVICE: tuple[tuple[Version, Value], ...] = ((v("2.1"), None), (v("1.4"), "cpu"))
# Which offload switch each device keyword belongs to.
_OFFLOAD_DEVICES = {
    "offload_optimizer_device": "offload_optimizer",
    "offload_params_device": "offload_parameters",
}


def deepspeed_options(kwargs: dict[str, Value], version: Version) -> dict[str, Value]:
    if kwargs.get("config") is not None:
        return kwargs
    given = {**DEEPSPEED_DEFAULTS, **kwargs}
    if not given["zero_optimization"]:  # no ZeRO section at all: stage and offloads are ignored
        zero_keys = {*DEEPSPEED_DEFAULTS, "remote_device"}
        return {"zero_optimization": False, **{k: val for k, val in kwargs.items() if k not in zero_keys}}
    options = {k: val for k, val in kwargs.items() if k not in DEEPSPEED_DEFAULTS and k != "remote_device"}
    options["stage"] = given["stage"]
    offloading = [flag for flag in ("offload_optimizer", "offload_parameters") if given[flag]]
    options.update(dict.fromkeys(offloading, True))
    for device, flag in _OFFLOAD_DEVICES.items():
        if flag in offloading and given[device] != DEEPSPEED_DEFAULTS[device]:
            options[device] = given[device]
    if offloading and given["nvme_path"] != DEEPSPEED_DEFAULTS["nvme_path"]:
        options["nvme_path"] = given["nvme_path"]
    if given["stage"] == 3:
        default = next(device for since, device in DEEPSPEED_REMOTE_DEVICE if version >= since)
        options["remote_device"] = kwargs.get("remote_device", default)
    return options


def deepspeed_keywords(options: dict[str, Value], version: Version) -> dict[str, Value]:
    """The shortest keywords that give ``options`` in ``version``: those ``deepspeed_options`` fills in alone
    (stage 2, the release's ``remote_device``) are left out."""
    if options.get("config") is not None:
        return options
    keywords = dict(options)
    if keywords.get("stage") == DEEPSPEED_DEFAULTS["stage"]:
        del keywords["stage"]
    if "remote_device" in keywords:
        default = next(device for since, device in DEEPSPEED_REMOTE_DEVICE if version >= since)
        if keywords["remote_device"] == default:
            del keywords["remote_device"]
    return keywords

"""``render(setup, version)``: the flags that make ``version`` build ``setup``, in the form it recommends.

Rendering proposes spellings in order of preference (a registered strategy name before a strategy object,
an explicit strategy before relying on a default) and keeps the first one that ``interpret`` maps back to the
very same setup. So a rendering is correct by construction, or it is refused with a reason.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator
from dataclasses import dataclass

from lightning_migrate.semantics import precision as precisions
from lightning_migrate.semantics.classes import CLASSES, START_METHOD_PARAMETER, STRATEGY
from lightning_migrate.semantics.interpret import interpret
from lightning_migrate.semantics.model import (
    FULL_PRECISION,
    OPTIONAL_PACKAGES,
    Hardware,
    Obj,
    Precision,
    Setup,
    Strategy,
    Value,
    Version,
    v,
)
from lightning_migrate.semantics.registry import DISTRIBUTED_TYPES, deepspeed_keywords, registered, resolve

Flags = dict[str, Value]


@dataclass(frozen=True)
class Inexpressible:
    """Why a release cannot build a setup."""

    reason: str

    def __str__(self) -> str:
        return self.reason


# The accelerator name each release wants. From 1.7 "gpu" means MPS on Apple silicon, so CUDA is "cuda".
ACCELERATOR_NAMES: dict[str, tuple[tuple[Version, str], ...]] = {
    "cpu": ((v("1.4"), "cpu"),),
    "cuda": ((v("1.7"), "cuda"), (v("1.4"), "gpu")),
    "tpu": ((v("1.4"), "tpu"),),
    "ipu": ((v("1.4"), "ipu"),),
    "hpu": ((v("1.6"), "hpu"),),
    "mps": ((v("1.7"), "mps"),),
}

# 1.4 has no `strategy`/`devices` pairing: the device count goes in the device's own flag.
DEVICE_FLAGS_1_4 = {"cpu": "num_processes", "cuda": "gpus", "tpu": "tpu_cores", "ipu": "ipus"}


def render(setup: Setup, version: Version | str) -> Flags | Inexpressible:
    version = Version.parse(version) if isinstance(version, str) else version
    accelerator = accelerator_name(setup.accelerator, version)
    if accelerator is None:
        return Inexpressible(f"Lightning {version} has no {setup.accelerator} accelerator")
    hardware = enough_hardware(setup)
    for flags in candidates(setup, version, accelerator):
        result = interpret(flags, version, hardware)
        if result.outcome == setup and not result.deprecations:
            return flags
    return Inexpressible(why_not(setup, version))


def accelerator_name(kind: str, version: Version) -> str | None:
    return next((name for since, name in ACCELERATOR_NAMES.get(kind, ()) if version >= since), None)


def enough_hardware(setup: Setup) -> Hardware:
    top = max(setup.devices, default=0) + 1
    return Hardware(
        cuda=top if setup.accelerator == "cuda" else 0,
        tpu_cores=8 if setup.accelerator == "tpu" or setup.strategy.name in ("xla", "single_xla") else 0,
        mps=setup.accelerator == "mps",
        installed=OPTIONAL_PACKAGES,  # only the strategies that need them ask for them
    )


def candidates(setup: Setup, version: Version, accelerator: str) -> Iterator[Flags]:
    for spelled in precision_spellings(setup.precision, version):
        extra: Flags = {}
        if setup.num_nodes != 1:
            extra["num_nodes"] = setup.num_nodes
        plugins = [*setup.plugins, *_listed(spelled.pop("plugins", None))]
        if plugins:
            extra["plugins"] = plugins
        extra.update(spelled)
        yield from _candidates(setup, version, accelerator, extra)


def _listed(plugins: Value) -> list[Value]:
    return list(plugins) if isinstance(plugins, list) else []


# 1.x spells the precisions of 2.x's words like this (32-bit is the default everywhere).
_LEGACY_PRECISIONS: dict[str, Value] = {"16-mixed": 16, "bf16-mixed": "bf16", "64-true": 64}


def precision_spellings(precision: Precision, version: Version) -> Iterator[Flags]:
    """The precision flags, in the release's recommended form first (``"16-mixed"`` from 2.0, 16 before),
    then a precision plugin object (what a non-default autocast device needs)."""
    if precision == FULL_PRECISION:
        yield {}
        return
    if version >= v("2.0"):
        yield {"precision": precision.value}
        if precision == precisions.TPU_HALF and version < v("2.1"):
            yield {"precision": "bf16-mixed"}  # 2.0 on a TPU: XLA_USE_BF16
    elif precision == precisions.TPU_HALF:
        yield {"precision": "bf16"}  # on a TPU (1.5+)
        yield {"precision": 16}
    elif precision.value in _LEGACY_PRECISIONS:
        flags: Flags = {"precision": _LEGACY_PRECISIONS[precision.value]}
        if precision.backend == "apex":
            flags["amp_backend"] = "apex"
            if precision.amp_level != "O2":  # the default level of every release
                flags["amp_level"] = precision.amp_level
        yield flags
    for obj in precision_objects(precision, version):
        yield {"plugins": [obj]}


def precision_objects(precision: Precision, version: Version) -> Iterator[Obj]:
    kind = {"64-true": precisions.DOUBLE, "32-true": precisions.PLAIN}.get(precision.value, precisions.MIXED)
    if precision.backend == "apex":
        kind = precisions.APEX
    for row in precisions.CLASSES:
        deprecated = row.deprecated is not None and version >= row.deprecated[0]
        if row.kind != kind or not row.exists_in(version) or deprecated:
            continue
        params = [name for name, _ in row.constructor(version).params]
        kwargs: dict[str, Value] = {}
        if "precision" in params:
            legacy = _LEGACY_PRECISIONS.get(precision.value, precision.value)
            kwargs["precision"] = precision.value if version >= v("2.0") else legacy
        if "device" in params and precision.device:
            kwargs["device"] = precision.device
        if "amp_level" in params and precision.amp_level:
            kwargs["amp_level"] = precision.amp_level
        yield Obj.of(row.name, **kwargs)


def _candidates(setup: Setup, version: Version, accelerator: str, extra: Flags) -> Iterator[Flags]:
    strategies = list(strategy_spellings(setup.strategy, version))
    if setup.num_devices == 1 and setup.num_nodes == 1:
        strategies.insert(0, None)  # a single device needs no strategy at all
    else:
        strategies.append(None)  # last resort: the release's default (e.g. TPU spawn in 1.6 to 1.9)
    for devices in device_spellings(setup, version):
        for strategy in strategies:
            if version < v("1.5"):
                yield from _flags_1_4(setup, devices, strategy, extra)
            else:
                flags: Flags = {} if strategy is None else {"strategy": strategy}
                yield {**flags, "accelerator": accelerator, "devices": devices, **extra}


def _flags_1_4(setup: Setup, devices: Value, strategy: Value, extra: Flags) -> Iterator[Flags]:
    device_flag = DEVICE_FLAGS_1_4.get(setup.accelerator)
    if device_flag is None:
        return
    if strategy is None:
        yield {device_flag: devices, **extra}
        return
    if isinstance(strategy, str) and strategy in DISTRIBUTED_TYPES:
        yield {"accelerator": strategy, device_flag: devices, **extra}
    # 1.4 takes registry names and strategy objects in `plugins`, beside the other plugins
    others = extra.get("plugins")
    plugins = [strategy, *others] if isinstance(others, list) else strategy
    yield {device_flag: devices, **extra, "plugins": plugins}


def device_spellings(setup: Setup, version: Version) -> Iterator[Value]:
    count = setup.num_devices
    if setup.accelerator == "tpu" and count == 1:
        if setup.devices == (0,):
            yield 1
        # 1.x and 2.0 pick a single core by its XLA ordinal 1..8, 2.1+ from 0 (#17227)
        if version < v("2.1"):
            yield [setup.devices[0] + 1]
        yield [setup.devices[0]]
        return
    if setup.devices == tuple(range(count)) or setup.accelerator == "cpu":
        yield count
    if setup.accelerator != "cpu":
        yield list[Value](setup.devices)


def strategy_spellings(strategy: Strategy, version: Version) -> Iterator[Value]:
    """Registered names that build ``strategy`` (shortest first), then a strategy object."""
    target = resolve(strategy, version)
    yield from [name for name, built in _names(version) if built == target]
    yield from strategy_objects(target, version)


@functools.lru_cache(maxsize=64)
def _names(version: Version) -> tuple[tuple[str, Strategy], ...]:
    """The strategy names ``version`` takes, shortest first, each with what it builds there (resolved):
    the same for every call, and worked out once (the planner asks for every candidate of every call)."""
    names = dict(registered(version))
    if version < v("1.6"):
        names.update(DISTRIBUTED_TYPES)
    return tuple((n, resolve(names[n], version)) for n in sorted(names, key=lambda n: (len(n), n)))


def strategy_objects(strategy: Strategy, version: Version) -> Iterator[Obj]:
    for row in CLASSES:
        if row.kind != STRATEGY or row.family != strategy.name or not row.exists_in(version):
            continue
        if row.stub_since is not None and version >= row.stub_since:
            continue
        # a keyword forwarded to torch DDP is written as itself (see `classes.ddp_options`)
        kwargs: dict[str, Value] = {k.removeprefix("torch_ddp."): val for k, val in strategy.options}
        if strategy.name == "deepspeed":
            kwargs = deepspeed_keywords(kwargs, version)
        if strategy.find_unused_parameters is not None:
            kwargs["find_unused_parameters"] = strategy.find_unused_parameters
        since = START_METHOD_PARAMETER.get(row.name)
        if since is not None and version >= since and strategy.start_method != row.start_method:
            kwargs["start_method"] = strategy.start_method
        yield Obj.of(row.name, **kwargs)


def why_not(setup: Setup, version: Version) -> str:
    family = setup.strategy.name
    known = any(s.name == family for s in registered(version).values()) or any(
        row.family == family and row.exists_in(version) for row in CLASSES
    )
    if not known:
        return f"Lightning {version} has no {family} strategy"
    where = f"{setup.num_devices} {setup.accelerator} device(s)"
    return f"no spelling of {setup.strategy} on {where} builds it in {version}"

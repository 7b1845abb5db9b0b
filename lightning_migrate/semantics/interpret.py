"""``interpret(flags, version, hardware)``: what a Lightning release builds from a Trainer call."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace
from typing import Callable

from lightning_migrate.semantics import classes, constructors, era_1_4, era_1_6, era_2_0, precision
from lightning_migrate.semantics.model import (
    CPU_ONLY,
    Deprecation,
    Flags,
    Hardware,
    Interpretation,
    Obj,
    Reject,
    Rejected,
    Setup,
    Unmodelled,
    Value,
    Version,
    v,
)
from lightning_migrate.semantics.signature import MODELLED, accepts

OLDEST, NEWEST = v("1.4.0"), v("2.6.99")

Warn = Callable[[str, str], None]
Connector = Callable[[dict[str, Value], Version, Hardware, Warn], Setup]

# Lightning rewrote its accelerator connector twice; each era module models one of them.
ERAS: tuple[tuple[Version, Connector], ...] = (
    (v("2.0"), era_2_0.connect),
    (v("1.6"), era_1_6.connect),
    (v("1.4"), era_1_4.connect),
)


# The 2.x `pytorch-lightning` distribution is generated from `lightning` by rewriting its imports
# (`.actions/assistant.py::copy_replace_imports`); messages that name a module differ by exactly that.
NAMESPACES = ("pytorch_lightning", "lightning.pytorch")


def interpret(
    flags: Flags,
    version: Version | str,
    hardware: Hardware = CPU_ONLY,
    namespace: str = "pytorch_lightning",
) -> Interpretation:
    """What ``Trainer(**flags)`` builds in Lightning ``version`` on ``hardware``, imported from ``namespace``
    (``pytorch_lightning`` or, for the unified ``lightning`` package, ``lightning.pytorch``)."""
    if namespace not in NAMESPACES:
        raise ValueError(f"unknown Lightning namespace {namespace!r}; expected one of {NAMESPACES}")
    result = _interpret(flags, Version.parse(version) if isinstance(version, str) else version, hardware)
    if namespace == "lightning.pytorch" and isinstance(result.outcome, Rejected):
        message = result.outcome.message.replace("pytorch_lightning.", "lightning.pytorch.")
        message = message.replace("lightning_fabric.", "lightning.fabric.")
        result.outcome = Rejected(result.outcome.error, message)
    return result


def _interpret(flags: Flags, version: Version, hardware: Hardware) -> Interpretation:
    if not OLDEST <= version <= NEWEST:
        raise ValueError(f"Lightning {version} is outside the modelled range {OLDEST} to 2.6")
    deprecations: list[Deprecation] = []
    try:
        # Python evaluates the arguments (building any Lightning objects) before Trainer sees them.
        for obj in _objects(flags.values()):
            classes.construct(obj, version)
            if classes.kind_of(obj) == classes.PRECISION:
                precision.construct(obj, version, hardware)
            constructors.construct_plugin(obj, version)
            message = classes.deprecation(obj, version)
            if message:
                deprecations.append(Deprecation(obj.cls, message))
            message = precision.deprecation(obj, version)
            if message:  # a renamed precision class: a matter of precision, not of the training type
                deprecations.append(Deprecation("precision", message))
        for flag in flags:
            if flag in MODELLED and not accepts(flag, version):
                raise Reject("TypeError", f"Trainer.__init__() got an unexpected keyword argument {flag!r}")
        relevant = {k: val for k, val in flags.items() if k in MODELLED}
        _check_counts(relevant)
        connect = next(connector for since, connector in ERAS if version >= since)
        setup = connect(relevant, version, hardware, lambda f, m: deprecations.append(Deprecation(f, m)))
    except Reject as exc:
        return Interpretation(exc.rejected, deprecations)
    kept = _kept_plugins(flags.get("plugins"))
    setup = replace(setup, devices=_tpu_cores_from_zero(setup, version), plugins=kept)
    return Interpretation(setup, deprecations)


# A device count becomes a tuple of device indices: counts beyond any machine's are not modelled (a
# billion CPU processes would be a billion-entry tuple).
MAX_COUNT = 1 << 16
COUNT_FLAGS = ("gpus", "num_processes", "devices", "tpu_cores", "ipus", "num_nodes")


def _check_counts(flags: Flags) -> None:
    for flag in COUNT_FLAGS:
        value = flags.get(flag)
        number: float | None = None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            number = value
        elif isinstance(value, str) and value.strip().lstrip("-").isdigit():
            number = int(value.strip())
        if number is not None and abs(number) > MAX_COUNT:
            raise Unmodelled(flag, value, f"device and node counts up to {MAX_COUNT}")


def _tpu_cores_from_zero(setup: Setup, version: Version) -> tuple[int, ...]:
    """Setups number TPU cores from 0, as 2.1+ does (#17227). Up to 2.0 a single core was picked by its XLA
    ordinal 1..8 (`tpu_cores=[5]` is the fifth core, 4 from 0); `tpu_cores=1` builds on ordinal 0, core 0."""
    if setup.strategy.name == "single_xla" and version < v("2.1"):
        return tuple(max(core - 1, 0) for core in setup.devices)
    return setup.devices


def _kept_plugins(plugins: Value) -> tuple[Obj, ...]:
    """The plugin objects that are neither strategies nor precision plugins (the Setup's precision says what
    those do): every release that accepts them uses them as given."""
    return tuple(
        obj
        for obj in _objects([plugins])
        if classes.kind_of(obj) not in (classes.STRATEGY, classes.PRECISION)
    )


def _objects(values: Iterable[Value]) -> Iterator[Obj]:
    for value in values:
        if isinstance(value, Obj):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from _objects(value)

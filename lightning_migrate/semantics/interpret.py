"""``interpret(flags, version, hardware)``: what a Lightning release builds from a Trainer call."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Callable

from . import classes, era_1_4, era_1_6, era_2_0
from .model import (
    CPU_ONLY,
    Deprecation,
    Flags,
    Hardware,
    Interpretation,
    Obj,
    Reject,
    Setup,
    Value,
    Version,
    v,
)
from .signature import MODELLED, accepts

OLDEST, NEWEST = v("1.4.0"), v("2.6.99")

Warn = Callable[[str, str], None]
Connector = Callable[[dict[str, Value], Version, Hardware, Warn], Setup]

# Lightning rewrote its accelerator connector twice; each era module models one of them.
ERAS: tuple[tuple[Version, Connector], ...] = (
    (v("2.0"), era_2_0.connect),
    (v("1.6"), era_1_6.connect),
    (v("1.4"), era_1_4.connect),
)


def interpret(flags: Flags, version: Version | str, hardware: Hardware = CPU_ONLY) -> Interpretation:
    version = Version.parse(version) if isinstance(version, str) else version
    if not OLDEST <= version <= NEWEST:
        raise ValueError(f"Lightning {version} is outside the modelled range {OLDEST} to 2.6")
    deprecations: list[Deprecation] = []
    try:
        # Python evaluates the arguments (building any Lightning objects) before Trainer sees them.
        for obj in _objects(flags.values()):
            classes.construct(obj, version)
        for flag in flags:
            if flag in MODELLED and not accepts(flag, version):
                raise Reject("TypeError", f"Trainer.__init__() got an unexpected keyword argument {flag!r}")
        relevant = {k: val for k, val in flags.items() if k in MODELLED}
        connect = next(connector for since, connector in ERAS if version >= since)
        setup = connect(relevant, version, hardware, lambda f, m: deprecations.append(Deprecation(f, m)))
    except Reject as exc:
        return Interpretation(exc.rejected, deprecations)
    return Interpretation(setup, deprecations)


def _objects(values: Iterable[Value]) -> Iterator[Obj]:
    for value in values:
        if isinstance(value, Obj):
            yield value
        elif isinstance(value, (list, tuple)):
            yield from _objects(value)

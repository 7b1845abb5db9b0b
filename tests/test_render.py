"""Properties of ``render`` over every setup the modelled releases build from the grid."""

from __future__ import annotations

import functools

import pytest
from grid import HARDWARE, cases

from lightning_migrate.semantics import Hardware, Setup, interpret
from lightning_migrate.semantics.model import RELEASES, Version
from lightning_migrate.semantics.render import Inexpressible, render

# `ddp_cpu` and `tpu_spawn` were training types in `accelerator` that 1.5 and 1.6 exempted from the
# deprecation warning; they are legacy spellings all the same.
DEVICE_NAMES = {None, "cpu", "gpu", "cuda", "tpu", "ipu", "hpu", "mps", "auto"}


@functools.cache
def built(version: Version, legacy: bool = True) -> dict[Setup, Hardware]:
    """Every distinct setup ``version`` builds from a grid call, with a hardware it was built on
    (only from calls without a legacy spelling, unless ``legacy``)."""
    setups: dict[Setup, Hardware] = {}
    for hardware in HARDWARE:
        for flags in cases():
            result = interpret(flags, version, hardware)
            modern = not result.deprecations and flags.get("accelerator") in DEVICE_NAMES
            if isinstance(result.outcome, Setup) and (legacy or modern):
                setups.setdefault(result.outcome, hardware)
    return setups


@pytest.mark.parametrize("version", RELEASES, ids=str)
def test_every_setup_a_release_builds_from_modern_flags_renders_back(version: Version) -> None:
    setups = built(version, legacy=False)
    assert setups, f"{version} builds nothing from the grid"
    for setup, hardware in setups.items():
        flags = render(setup, version)
        assert not isinstance(flags, Inexpressible), f"{setup}: {flags}"
        result = interpret(flags, version, hardware)
        assert result.outcome == setup, flags
        assert result.deprecations == [], flags


@pytest.mark.parametrize("version", RELEASES, ids=str)
def test_setups_only_legacy_spellings_reach_render_without_them_or_say_why(version: Version) -> None:
    for setup, hardware in built(version).items():
        flags = render(setup, version)
        if isinstance(flags, Inexpressible):
            assert str(version) in flags.reason
            continue
        result = interpret(flags, version, hardware)
        assert (result.outcome, result.deprecations) == (setup, []), flags


@pytest.mark.parametrize("target", RELEASES, ids=str)
@pytest.mark.parametrize("source", RELEASES[:6], ids=str)
def test_migrating_a_setup_between_releases_preserves_it_or_says_why(
    source: Version, target: Version
) -> None:
    for setup in built(source):
        flags = render(setup, target)
        if isinstance(flags, Inexpressible):
            assert flags.reason
            continue
        assert interpret(flags, target, max_hardware(setup)).outcome == setup


def max_hardware(setup: Setup) -> Hardware:
    if setup.accelerator == "cuda":
        return Hardware(cuda=4)
    if setup.accelerator == "tpu" or setup.strategy.name in ("xla", "single_xla"):
        return Hardware(tpu_cores=8)
    return Hardware()

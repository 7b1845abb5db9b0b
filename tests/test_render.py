"""Properties of ``render`` over every setup the modelled releases build from the grid."""

from __future__ import annotations

import functools

import pytest
from grid import HARDWARE, cases

from lightning_migrate.semantics import Hardware, Setup, interpret
from lightning_migrate.semantics.model import RELEASES, Version
from lightning_migrate.semantics.render import Inexpressible, render


@functools.cache
def built(version: Version) -> dict[Setup, Hardware]:
    """Every distinct setup ``version`` builds from a grid call, with a hardware it was built on."""
    setups: dict[Setup, Hardware] = {}
    for hardware in HARDWARE:
        for flags in cases():
            outcome = interpret(flags, version, hardware).outcome
            if isinstance(outcome, Setup):
                setups.setdefault(outcome, hardware)
    return setups


@pytest.mark.parametrize("version", RELEASES, ids=str)
def test_every_setup_a_release_builds_renders_back_without_deprecated_flags(version: Version) -> None:
    setups = built(version)
    assert setups, f"{version} builds nothing from the grid"
    for setup, hardware in setups.items():
        flags = render(setup, version)
        assert not isinstance(flags, Inexpressible), f"{setup}: {flags}"
        result = interpret(flags, version, hardware)
        assert result.outcome == setup, flags
        assert result.deprecations == [], flags


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
    return Hardware(cuda=4) if setup.accelerator == "cuda" else Hardware()

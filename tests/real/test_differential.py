"""The model against a real release: build the real Trainer for every grid call on every simulated
hardware and compare what it built (or raised) with what ``interpret`` predicts."""

from __future__ import annotations

import harness
import pytest
from conftest import AGREEMENT
from grid import HARDWARE, PACKAGE_HARDWARE, cases, package_cases, shared

from lightning_migrate.semantics import Hardware, Rejected, interpret

pytestmark = pytest.mark.real

GRID = shared(list(cases()))
PACKAGE_GRID = shared(list(package_cases()))


def predicted(flags: dict, release: str, hardware: Hardware):  # type: ignore[no-untyped-def,type-arg]
    outcome = interpret(flags, release, hardware, harness.ROOT).outcome
    if isinstance(outcome, Rejected):
        return Rejected(outcome.error, harness.normalize(outcome.message))
    return outcome


@pytest.mark.parametrize(
    ("hardware", "grid"),
    [(h, GRID) for h in HARDWARE] + [(h, PACKAGE_GRID) for h in PACKAGE_HARDWARE],
    ids=[h.describe() for h in (*HARDWARE, *PACKAGE_HARDWARE)],
)
def test_model_agrees_with_real_release(hardware: Hardware, grid: list) -> None:  # type: ignore[type-arg]
    release = harness.release()
    mismatches = []
    for flags in grid:
        real = harness.observe(flags, hardware)
        model = predicted(flags, release, hardware)
        if real != model:
            mismatches.append(f"Trainer({flags})\n    real : {real}\n    model: {model}")
    agreed = len(grid) - len(mismatches)
    AGREEMENT.append(f"Lightning {release} on {hardware.describe()}: {agreed}/{len(grid)} combinations agree")
    assert not mismatches, f"{len(mismatches)} disagreements, first ones:\n" + "\n".join(mismatches[:15])

"""The model against a real release: build the real Trainer for every grid call on every simulated
hardware and compare what it built (or raised) with what ``interpret`` predicts."""

from __future__ import annotations

import harness
import pytest
from conftest import AGREEMENT
from grid import HARDWARE, cases

from lightning_migrate.semantics import Hardware, Rejected, interpret

pytestmark = pytest.mark.real

GRID = list(cases())


def predicted(flags: dict, release: str, hardware: Hardware):  # type: ignore[no-untyped-def,type-arg]
    outcome = interpret(flags, release, hardware, harness.ROOT).outcome
    if isinstance(outcome, Rejected):
        return Rejected(outcome.error, harness.normalize(outcome.message))
    return outcome


@pytest.mark.parametrize("hardware", HARDWARE, ids=Hardware.describe)
def test_model_agrees_with_real_release(hardware: Hardware) -> None:
    release = harness.release()
    mismatches = []
    for flags in GRID:
        real = harness.observe(flags, hardware)
        model = predicted(flags, release, hardware)
        if real != model:
            mismatches.append(f"Trainer({flags})\n    real : {real}\n    model: {model}")
    agreed = len(GRID) - len(mismatches)
    AGREEMENT.append(f"Lightning {release} on {hardware.describe()}: {agreed}/{len(GRID)} combinations agree")
    assert not mismatches, f"{len(mismatches)} disagreements, first ones:\n" + "\n".join(mismatches[:15])

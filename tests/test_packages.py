"""Optional packages (DeepSpeed, FairScale, Horovod) as part of the machine: the model's DeepSpeed options and
the planner's judging on machines with the packages (the real releases are the judge in tests/real)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lightning_migrate.plan import planner
from lightning_migrate.plan.decide import plan
from lightning_migrate.plan.planner import MACHINES, PACKAGE_MACHINES, Refusal, Rewrite, Unchanged, machines
from lightning_migrate.semantics import Hardware, Rejected, Setup, interpret
from lightning_migrate.semantics.model import OPTIONAL_PACKAGES, RELEASES, Obj, release
from lightning_migrate.semantics.registry import registered

WITH_PACKAGES = Hardware(cuda=2, installed=OPTIONAL_PACKAGES)


def strategy(flags: dict, version: str):  # type: ignore[no-untyped-def,type-arg]
    outcome = interpret(flags, release(version), WITH_PACKAGES).outcome
    assert isinstance(outcome, Setup), outcome
    return outcome.strategy


@pytest.mark.parametrize("version", ["1.4", "1.5", "1.6", "1.9", "2.0", "2.6"])
def test_every_spelling_of_default_deepspeed_is_the_same_strategy(version: str) -> None:
    cls = "DeepSpeedPlugin" if release(version) < release("1.6") else "DeepSpeedStrategy"
    spellings = [{"strategy": "deepspeed"}, {"strategy": Obj.of(cls)}, {"strategy": Obj.of(cls, stage=2)}]
    if release(version) < release("1.5"):
        spellings = [{"accelerator": "deepspeed"}, {"plugins": "deepspeed_stage_2"}, {"plugins": Obj.of(cls)}]
    devices: dict = {"gpus": 2} if version == "1.4" else {"accelerator": "gpu", "devices": 2}  # type: ignore[type-arg]
    found = {strategy({**flags, **devices}, version) for flags in spellings}
    assert len(found) == 1
    (only,) = found
    assert only.start_method == "popen"
    assert only.option("stage") == 2


def test_stage_3_keeps_where_the_model_is_first_built() -> None:
    # remote_device defaulted to "cpu" up to 2.0 and to None (the GPU) from 2.1: only stage 3 uses it
    flags = {"strategy": "deepspeed_stage_3", "accelerator": "gpu", "devices": 2}
    assert strategy(flags, "2.0").option("remote_device") == "cpu"
    assert strategy(flags, "2.1").option("remote_device") is None
    assert (
        strategy({"strategy": "deepspeed", "accelerator": "gpu", "devices": 2}, "2.0").option("remote_device")
        is None
    )


def test_a_missing_package_still_raises() -> None:
    outcome = interpret({"strategy": "deepspeed"}, release("2.6"), Hardware(cuda=2)).outcome
    assert isinstance(outcome, Rejected)
    assert "DeepSpeed installed" in outcome.message


def test_only_calls_naming_a_package_strategy_are_judged_with_packages() -> None:
    assert machines({"strategy": "ddp", "devices": 2}) == MACHINES
    assert machines({"accelerator": "DeepSpeed"}) == MACHINES + PACKAGE_MACHINES
    assert machines({"plugins": [Obj.of("DDPShardedPlugin")]}) == MACHINES + PACKAGE_MACHINES
    assert machines({"strategy": "fsdp"}) == MACHINES + PACKAGE_MACHINES  # FairScale's name until 1.9


def test_modern_deepspeed_is_not_a_finding() -> None:
    flags = {"strategy": "deepspeed", "accelerator": "gpu", "devices": 2}
    assert isinstance(plan(flags, release("2.6")), Unchanged)


@pytest.mark.parametrize(
    ("flags", "target", "strategy_flag"),
    [
        ({"accelerator": "deepspeed", "gpus": 2}, "1.5", "deepspeed"),
        ({"accelerator": "deepspeed", "gpus": 2}, "2.6", "deepspeed"),
        ({"plugins": "deepspeed_stage_2", "gpus": 2}, "1.9", "deepspeed_stage_2"),
        ({"accelerator": "horovod", "gpus": 1}, "1.9", "horovod"),
        ({"accelerator": "ddp_sharded", "gpus": 2}, "1.6", "ddp_sharded"),
    ],
)
def test_package_calls_migrate(flags: dict, target: str, strategy_flag: str) -> None:  # type: ignore[type-arg]
    decision = plan(flags, release(target))
    assert isinstance(decision, Rewrite), decision
    assert decision.flags["strategy"] == strategy_flag


@pytest.mark.parametrize(
    "flags", [{"accelerator": "horovod", "gpus": 1}, {"accelerator": "ddp_sharded", "gpus": 2}]
)
def test_package_strategies_gone_in_2x_are_refused(flags: dict) -> None:  # type: ignore[type-arg]
    decision = plan(flags, release("2.6"))
    assert isinstance(decision, Refusal), decision
    assert decision.code == "LM103"


def test_calls_without_a_package_strategy_build_the_same_with_the_packages() -> None:
    """Why `machines` leaves the package machines out for other calls: every other registered name builds
    (or fails) the same on a machine with the packages, in every release."""
    names = {name for r in RELEASES for name in registered(r)} | {"auto", None}
    checked = 0
    for name in sorted(names, key=str):
        for devices in ({"gpus": 2}, {"accelerator": "gpu", "devices": 2}, {"num_processes": 2}):
            flags = {**devices, **({} if name is None else {"strategy": name})}
            if machines(flags) != MACHINES:
                continue
            for version in RELEASES:
                for machine in (Hardware(), Hardware(cuda=2)):
                    bare = interpret(flags, version, machine).outcome
                    assert (
                        interpret(flags, version, replace(machine, installed=OPTIONAL_PACKAGES)).outcome
                        == bare
                    )
                    checked += 1
    assert checked > 1000


def test_the_planner_remembers_a_bounded_number_of_answers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Answers are kept per call and forgotten all at once past ``MAX_ANSWERS``: memory stays bounded on a
    tree of any size, and an answer asked again after that is the model's same answer."""
    monkeypatch.setattr(planner, "MAX_ANSWERS", 10)
    monkeypatch.setattr(planner, "_INTERPRETED", planner._Answers())
    asked = [({"gpus": n, "accelerator": "ddp"}, m) for n in range(8) for m in MACHINES]
    first = [planner.interpret(flags, release("1.5"), machine) for flags, machine in asked]
    assert planner._INTERPRETED.count <= 10
    assert [planner.interpret(flags, release("1.5"), machine) for flags, machine in asked] == first
    assert first == [interpret(flags, release("1.5"), machine) for flags, machine in asked]

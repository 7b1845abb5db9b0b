"""Migrated calls on the real release installed here (the target): the codemod rewrites old calls for this
release, the real Trainer builds each rewritten call on simulated hardware, and what it builds must be what
the old call built in the release it was written for.

What the old call built there is ``interpret(old, source)``: every old call below is a member of the
differential grid, whose tests run in that release's own environment in the same tox run and prove the model
equal to the real release for it. The chain real(new, target) == model(old, source) == real(old, source)
is therefore checked on real releases at both ends. Run per release, this covers the target families 1.5
(pl1510), 1.6-1.9 (pl165 ... pl195) and 2.x (pl209 ... pl266, lightning266).
"""

from __future__ import annotations

import warnings
from pathlib import Path

import harness
import pytest
from conftest import AGREEMENT
from grid import HARDWARE, PACKAGE_HARDWARE, cases, package_cases
from runtime_calls import MACHINE_READ, evaluate, holed_calls, machine_facts

from lightning_migrate.cli.callparse import Call, trainer_calls
from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.plan.planner import MUST_STILL_FAIL, comparable, describe
from lightning_migrate.run.runner import CURRENT_BEFORE
from lightning_migrate.semantics import Hardware, Setup, interpret
from lightning_migrate.semantics.model import Version, release

pytestmark = pytest.mark.real

# (the old call's arguments, the release it was written for)
OLD_CALLS = (
    ('accelerator="ddp", gpus=2', "1.4"),
    ('accelerator="ddp_spawn", gpus=2', "1.4"),
    ('distributed_backend="ddp", gpus=2', "1.4"),
    ('accelerator="ddp", gpus=2, num_nodes=2', "1.4"),
    ('accelerator="ddp_cpu", num_processes=2', "1.4"),
    ('accelerator="ddp_cpu", num_processes=2', "1.5"),
    ('accelerator="dp", gpus=2', "1.5"),
    ('accelerator="tpu_spawn", tpu_cores=8', "1.5"),
    ('plugins="ddp_find_unused_parameters_false", gpus=2', "1.5"),
    ("plugins=DDPPlugin(find_unused_parameters=False), gpus=2", "1.5"),
    ("plugins=[DDPSpawnPlugin(), LightningEnvironment()], gpus=2", "1.5"),
    ("strategy=DDPPlugin(find_unused_parameters=False), gpus=2", "1.6"),
    ("gpus=2", "1.6"),
    ('gpus="0,1"', "1.6"),
    ("gpus=-1", "1.7"),
    ("num_processes=2", "1.6"),
    ("tpu_cores=8", "1.6"),
    ('strategy="ddp", gpus=2', "1.9"),
    ('strategy="ddp_spawn", num_processes=2', "1.9"),
    # strategies of optional packages, judged where they are installed
    ('accelerator="deepspeed", gpus=2', "1.4"),
    ('plugins="deepspeed_stage_2", gpus=2', "1.5"),
    ("plugins=DeepSpeedPlugin(stage=3, offload_optimizer=True), gpus=2", "1.5"),
    ('strategy="deepspeed_stage_3", gpus=2', "1.6"),
    ('accelerator="horovod", gpus=1', "1.5"),
    ('accelerator="ddp_sharded", gpus=2', "1.5"),
)
GRID = list(cases()) + list(package_cases())
OBJECTS = ("DDPPlugin", "DDPSpawnPlugin", "LightningEnvironment", "DeepSpeedPlugin")


def source_file(arguments: str) -> str:
    imports = f"import {harness.ROOT} as pl\n"
    if any(name in arguments for name in OBJECTS):
        imports += f"from {harness.ROOT}.plugins import DDPPlugin, DDPSpawnPlugin, DeepSpeedPlugin\n"
        imports += f"from {harness.ROOT}.plugins.environments import LightningEnvironment\n"
    return f"{imports}\ntrainer = pl.Trainer({arguments})\n"


def flags_of(text: str) -> dict:  # type: ignore[type-arg]
    (call,) = trainer_calls(text)
    assert isinstance(call, Call), call
    return call.flags


def _on(code: str, hardware: Hardware) -> dict:  # type: ignore[type-arg]
    """The flags of the migrated call on ``hardware``: a rewrite that reads the machine's GPU count
    (`gpus=-1` for 2.x: `strategy=... if torch.cuda.device_count() > 1 else "auto"`, written with the
    `import torch` it adds) is evaluated with what that machine gives."""
    if not MACHINE_READ.search(code):
        return flags_of(code)
    (call,) = holed_calls(code)
    return evaluate(call, machine_facts(call.text, hardware.cuda))


@pytest.mark.parametrize(("arguments", "written_for"), OLD_CALLS)
def test_migrated_call_builds_what_the_old_call_built(arguments: str, written_for: str) -> None:
    target = Version.parse(harness.release())
    source = release(written_for)
    if source >= target:
        pytest.skip(f"written for {source}: nothing to migrate to {target}")
    if harness.ROOT != "pytorch_lightning" and any(name in arguments for name in OBJECTS):
        pytest.skip("1.x plugin classes never existed in the lightning.pytorch namespace")
    old_text = source_file(arguments)
    old = flags_of(old_text)
    assert old in GRID, "keep the old calls in the differential grid (see the module docstring)"
    result = migrate(old_text, target, source)
    if result.code == old_text:
        assert all(not f.fixable for f in result.findings), result.findings
        pytest.skip(f"not rewritten for {target}: {[f.code for f in result.findings]}")
    compared = 0
    for hardware in HARDWARE + PACKAGE_HARDWARE:
        before = interpret(old, source, hardware, harness.ROOT).outcome
        new = _on(result.code, hardware)
        after = harness.observe(new, hardware)
        if isinstance(before, Setup):
            assert isinstance(after, Setup), f"{new} on {hardware.describe()}: {after}"
            assert comparable(after) == comparable(before), f"{new} on {hardware.describe()}"
            compared += 1
        elif _must_still_fail(hardware):
            assert not isinstance(after, Setup), f"{old} failed in {source}; {new} builds {after}"
    assert compared, "the old call built nothing on any machine"
    AGREEMENT.append(
        f"Lightning {target}: Trainer({arguments}) from {source} -> {result.code.splitlines()[-1].strip()}"
        f" builds the same setup on {compared} machines"
    )


def _must_still_fail(hardware: Hardware) -> bool:
    return hardware in MUST_STILL_FAIL


SHIMMED_SOURCE = """\
import argparse

import {root} as pl


def build(args):
    return pl.Trainer(accelerator=args.accelerator, gpus=args.gpus, logger=False)
"""


def test_a_call_with_runtime_values_runs_through_the_shim_after_migration(tmp_path: Path) -> None:
    """`--shim`: the codemod cannot read `args.accelerator`, routes the call through the runtime shim, and the
    migrated file builds on this release what the old flags built in 1.4 (1.5.10's meaning)."""
    import argparse

    target = Version.parse(harness.release())
    source = SHIMMED_SOURCE.format(root=harness.ROOT)
    result = migrate(source, target, shim=True)
    if target < CURRENT_BEFORE:  # (1.4's own form: `accelerator=` takes the training type there)
        assert (result.code, result.findings) == (source, [])
        pytest.skip(f"nothing to migrate for {target}: the call is in its own form")
    assert "lightning_migrate.shim" in result.code
    assert [f.code for f in result.findings] == ["LM101"]
    namespace: dict[str, object] = {}
    exec(compile(result.code, str(tmp_path / "train.py"), "exec"), namespace)
    args = argparse.Namespace(accelerator="ddp", gpus=2)
    hardware = Hardware(cuda=2)
    with harness.simulated(hardware), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the shim warns once per deprecated spelling, by design
        trainer = namespace["build"](args)  # type: ignore[operator]
        built = harness.read_setup(trainer)
    expected = interpret({"accelerator": "ddp", "gpus": 2}, "1.4.9", hardware).outcome
    assert isinstance(expected, Setup)
    assert comparable(built) == comparable(expected)
    AGREEMENT.append(
        f"Lightning {target}: Trainer(accelerator=args.accelerator, ...) via --shim: {describe(built)}"
    )

"""The shim on a real release: the mission's examples under simulated hardware, the conflict checks,
install/uninstall, and real two-process CPU training through the shim."""

from __future__ import annotations

import importlib
import os
import re
import subprocess
import sys
import tempfile
import time
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import harness
import pytest
from conftest import AGREEMENT

import lightning_migrate
from lightning_migrate.semantics import Hardware, Obj, Setup, Version, interpret
from lightning_migrate.semantics.model import OPTIONAL_PACKAGES
from lightning_migrate.semantics.translate import REFERENCE

pytestmark = pytest.mark.real

SHIM_MODULE = (
    "lightning_migrate.shim.lightning" if harness.ROOT == "lightning.pytorch" else "lightning_migrate.shim"
)
CPU, CUDA4, TPU8 = Hardware(), Hardware(cuda=4), Hardware(tpu_cores=8)
RELEASE = Version.parse(harness.release())


def shim() -> Any:
    return importlib.import_module(SHIM_MODULE)


def ddp_class() -> str:
    """The DDP strategy class of the installed release (what a migrated call names)."""
    return "DDPPlugin" if Version(1, 6) > RELEASE else "DDPStrategy"


EXAMPLES = (
    ({"strategy": "ddp", "accelerator": "gpu", "devices": 4}, CUDA4),
    ({"strategy": "ddp_spawn", "accelerator": "cpu", "devices": 4}, CPU),
    ({"strategy": "ddp_spawn", "accelerator": "tpu", "devices": 8}, TPU8),
    ({"strategy": "ddp", "accelerator": "cpu", "devices": 2}, CPU),
    ({"strategy": "DDP_OBJECT", "accelerator": "gpu", "devices": 4}, CUDA4),
)
IDS = ("ddp-gpu4", "ddp_spawn-cpu4", "ddp_spawn-tpu8", "ddp-cpu2", "ddp_object-gpu4")


def build(flags: dict[str, Any], hardware: Hardware, trainer: Any = None) -> tuple[Any, list[str]]:
    """A shim Trainer (or ``trainer``) built under simulated ``hardware``; the shim's warnings."""
    with harness.simulated(hardware), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with tempfile.TemporaryDirectory() as tmp:
            try:
                built = (trainer or shim().Trainer)(default_root_dir=tmp, logger=False, **flags)
            except Exception as exc:
                built = exc
    return built, [str(w.message) for w in caught if str(w.message).startswith("`Trainer(")]


def expected(flags: dict[str, Any], hardware: Hardware) -> Setup:
    model_flags = {
        k: Obj.of(ddp_class(), find_unused_parameters=False) if v == "DDP_OBJECT" else v
        for k, v in flags.items()
    }
    # a call this release builds as written, without a deprecation, keeps this release's own meaning
    native = interpret(model_flags, RELEASE, hardware, harness.ROOT)
    if isinstance(native.outcome, Setup) and not native.deprecations:
        return native.outcome
    if model_flags["strategy"] != flags["strategy"]:
        model_flags["strategy"] = Obj.of("DDPPlugin", find_unused_parameters=False)  # its 1.5 counterpart
    meaning = interpret(model_flags, REFERENCE, hardware).outcome
    assert isinstance(meaning, Setup)
    return meaning


@pytest.mark.parametrize(("flags", "hardware"), EXAMPLES, ids=IDS)
def test_examples_build_their_meaning(flags: dict[str, Any], hardware: Hardware) -> None:
    real_flags = dict(flags)
    if flags["strategy"] == "DDP_OBJECT":
        real_flags["strategy"] = harness.find_class(ddp_class())(find_unused_parameters=False)
    trainer, deprecations = build(real_flags, hardware)
    assert not isinstance(trainer, Exception), f"{type(trainer).__name__}: {trainer}"
    assert deprecations == []
    assert isinstance(trainer, harness.lightning().Trainer)
    setup = harness.read_setup(trainer)
    meaning = expected(flags, hardware)
    if meaning.strategy.name == "xla":  # the release picks the TPU launcher: spawn up to 1.6, fork from 1.7
        meaning = replace(
            meaning, strategy=replace(meaning.strategy, start_method=setup.strategy.start_method)
        )
    assert setup == meaning
    if flags["strategy"] == "DDP_OBJECT":
        assert harness.strategy_of(trainer) is real_flags["strategy"]  # passed on, not rebuilt


PACKAGES = Hardware(cuda=2, installed=OPTIONAL_PACKAGES)


@pytest.mark.parametrize(
    "flags",
    [{"accelerator": "deepspeed", "gpus": 2}, {"plugins": "deepspeed_stage_3", "gpus": 2}],
    ids=["accelerator", "plugins"],
)
def test_old_deepspeed_calls_build_their_meaning_where_deepspeed_is_installed(flags: dict[str, Any]) -> None:
    """The shim sees the installed packages (``Hardware.installed``), so an old DeepSpeed call is translated
    instead of failing as if DeepSpeed were missing."""
    trainer, _ = build(flags, PACKAGES)
    assert not isinstance(trainer, Exception), f"{type(trainer).__name__}: {trainer}"
    native = interpret(flags, RELEASE, PACKAGES, harness.ROOT)
    kept = isinstance(native.outcome, Setup) and not native.deprecations
    meaning = native.outcome if kept else interpret(flags, REFERENCE, PACKAGES).outcome
    assert harness.read_setup(trainer) == meaning


CONFLICTS = (
    (
        {"distributed_backend": "ddp_cpu", "strategy": "ddp_spawn"},
        "You have passed `Trainer(strategy='ddp_spawn')` but have also passed"
        " `Trainer(distributed_backend='ddp_cpu')`. HINT: Use just `Trainer(strategy='ddp_spawn')` instead.",
    ),
    (
        {"accelerator": "ddp", "strategy": "ddp_spawn"},
        "You have passed `Trainer(strategy='ddp_spawn')` but have also passed `Trainer(accelerator='ddp')`."
        " HINT: Use just `Trainer(strategy='ddp_spawn')` instead.",
    ),
    (
        {"plugins": "ddp_find_unused_parameters_false", "strategy": "ddp_spawn"},
        "You have passed `Trainer(strategy='ddp_spawn')` and you can only specify one training type plugin,"
        " but you have passed ddp_find_unused_parameters_false as a plugin.",
    ),
)


@pytest.mark.parametrize(("flags", "message"), CONFLICTS, ids=["backend", "accelerator", "plugins"])
def test_conflicts_raise_the_same_exception_and_message(flags: dict[str, Any], message: str) -> None:
    error, deprecations = build(flags, CPU)
    assert type(error).__name__ == "MisconfigurationException"
    assert isinstance(
        error, importlib.import_module(f"{harness.ROOT}.utilities.exceptions").MisconfigurationException
    )
    assert str(error) == message
    assert len(deprecations) == 1  # the deprecated spelling, once
    assert deprecations[0].startswith(f"`Trainer({next(iter(flags))}=")


def test_four_tpu_cores_are_refused_by_the_release_itself() -> None:
    """No release builds 4 TPU cores (1, 8 or one core [k]); the shim lets the release say so."""
    error, _ = build({"strategy": "ddp_spawn", "accelerator": "tpu", "devices": 4}, TPU8)
    assert isinstance(error, Exception)
    assert re.search(r"can only be .*1, 8", str(error)), str(error)


# Values the model refuses to judge (`Unmodelled`) in 1.5.10, the shim's reference, or in every release:
# the shim hands them to the real Trainer. (`strategy=True` is not one: 1.5.10 ignores it, and so does the
# shim, as it gives every value a release rejects 1.5.10's meaning.)
UNMODELLED = (
    {"num_nodes": None},
    {"num_nodes": 0, "accelerator": "cpu"},
    {"accelerator": "cpu", "devices": 100_000},
    {"num_processes": 100_000},
)


@pytest.mark.parametrize("flags", UNMODELLED, ids=repr)
def test_what_the_model_does_not_judge_the_real_trainer_decides(flags: dict[str, Any]) -> None:
    """Through the shim, such a call builds what the release builds from it, or raises what it raises."""
    shimmed, _ = build(flags, CPU)
    real, _ = build(flags, CPU, harness.lightning().Trainer)
    assert isinstance(shimmed, Exception) == isinstance(real, Exception), (shimmed, real)
    if isinstance(real, Exception):
        assert (type(shimmed), str(shimmed)) == (type(real), str(real))
    else:
        assert type(harness.strategy_of(shimmed)) is type(harness.strategy_of(real))
        assert harness.device_indices(harness.strategy_of(shimmed)) == harness.device_indices(
            harness.strategy_of(real)
        )


def test_deprecated_spellings_warn_once_each_and_build_the_old_meaning() -> None:
    flags = {"distributed_backend": "ddp_spawn", "num_processes": 2}
    trainer, deprecations = build(flags, CPU)
    assert not isinstance(trainer, Exception), trainer
    assert [d.split("=")[0] for d in deprecations] == [
        "`Trainer(distributed_backend",
        "`Trainer(num_processes",
    ]
    meaning = interpret({"accelerator": "ddp_spawn", "num_processes": 2}, REFERENCE, CPU).outcome
    assert harness.read_setup(trainer) == meaning


def test_install_patches_the_real_trainer_in_place_and_uninstall_restores_it() -> None:
    pl = harness.lightning()
    before = pl.Trainer.__dict__["__init__"]
    flags = {"strategy": "ddp_spawn", "accelerator": "cpu", "devices": 2}
    with shim().installed():
        assert pl.Trainer.__dict__["__init__"] is not before
        trainer, _ = build(flags, CPU, trainer=pl.Trainer)
        assert type(trainer) is pl.Trainer
        assert harness.read_setup(trainer) == expected(flags, CPU)
        error, _ = build(dict(CONFLICTS[1][0]), CPU, trainer=pl.Trainer)
        assert str(error) == CONFLICTS[1][1]
    assert pl.Trainer.__dict__["__init__"] is before
    shim().install()
    shim().install()  # twice: still one layer
    shim().uninstall()
    assert pl.Trainer.__dict__["__init__"] is before


@pytest.mark.skipif(Version(2, 0) <= RELEASE, reason="Trainer.from_argparse_args is gone in 2.0")
def test_from_argparse_args_gets_the_treatment_when_installed() -> None:
    import argparse

    pl = harness.lightning()
    args = argparse.Namespace(strategy="ddp", accelerator="cpu", devices=2, max_epochs=1)
    with shim().installed(), harness.simulated(CPU), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        trainer = pl.Trainer.from_argparse_args(args, logger=False)
    assert harness.read_setup(trainer) == expected(vars(args), CPU)


# --- real training ---------------------------------------------------------------------------------------

SCRIPT = Path(__file__).with_name("shim_train.py")
RESULT = re.compile(  # ranks print concurrently: lines may run together, so every field is delimited
    r"RESULT rank=(\d) world_size=(\d+) global_step=(\d+) loss=([-\d.]+|nan) strategy=([A-Za-z]+)"
    r" start_method=(popen|spawn|fork|None)"
)
# A rank can abort in gloo's teardown after a successful run (runtime matrix section 6): seen with `ddp` on
# 2.6.6 and 1.4.9, and with spawned ranks on 1.8.6 and 2.4.0. The script leaves the process group on each rank
# and skips interpreter teardown; a run that still aborts after both ranks reported is tried once more.
TEARDOWN_ABORT = "terminate called without an active exception"


def train(strategy: str) -> tuple[subprocess.CompletedProcess[str], dict[int, tuple[str, ...]]]:
    env = dict(os.environ, PYTHONPATH=str(Path(lightning_migrate.__file__).parent.parent))
    run = subprocess.run(
        [sys.executable, str(SCRIPT), strategy, "cpu", "2"],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
        check=False,
    )
    return run, {int(m[0]): m for m in RESULT.findall(run.stdout)}


@pytest.mark.parametrize("strategy", ["ddp_spawn", "ddp"])
def test_real_two_process_cpu_training_through_the_shim(strategy: str) -> None:
    start = time.perf_counter()
    run, results = train(strategy)
    retried = run.returncode != 0 and sorted(results) == [0, 1] and TEARDOWN_ABORT in run.stderr
    if retried:
        run, results = train(strategy)
    seconds = time.perf_counter() - start
    note = " (a teardown abort after training, retried once)" if retried else ""
    timing = f"shim `{strategy}` training, 2 CPU processes: {seconds:.1f} s{note}"
    AGREEMENT.append(f"Lightning {RELEASE}: {timing}")
    report = f"rc={run.returncode}\n{run.stdout[-2000:]}\n{run.stderr[-3000:]}"
    assert sorted(results) == [0, 1], report
    family = harness.STRATEGY_FAMILIES
    for _, world_size, global_step, loss, cls, start_method in results.values():
        assert (world_size, global_step) == ("2", "2"), report
        assert float(loss) == float(loss), report  # a number, not nan
        launcher = start_method if start_method != "None" else family[cls][1]
        assert (family[cls][0], launcher) == ("ddp", "popen" if strategy == "ddp" else "spawn"), report
    assert "DONE" in run.stdout, report
    assert run.returncode == 0, report

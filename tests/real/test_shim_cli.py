"""The shim under the tools that pass every Trainer keyword explicitly: LightningCLI (through
``shim.install()`` and with the shim's Trainer as ``trainer_class``) and, on 1.x,
``Trainer.from_argparse_args``.

A modern config builds what the release builds from it without the shim; an old one (``ddp_cpu``,
``gpus``, ``distributed_backend``) builds what Lightning 1.5.10 built. Only the Trainer is built: LightningCLI
runs with ``run=False`` (1.4 has no such argument; its ``fit`` step is a no-op here), no training.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import inspect
import json
import sys
import tempfile
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import harness
import pytest
from conftest import AGREEMENT
from trainer_defaults import trainer_defaults

from lightning_migrate.semantics import Hardware, Outcome, Setup, Version, interpret
from lightning_migrate.semantics.signature import accepts
from lightning_migrate.semantics.translate import REFERENCE, deprecated_spellings, given_flags, translate
from lightning_migrate.shim.namespace import release_defaults

pytestmark = pytest.mark.real

SHIM_MODULE = (
    "lightning_migrate.shim.lightning" if harness.ROOT == "lightning.pytorch" else "lightning_migrate.shim"
)
RELEASE = Version.parse(harness.release())
CPU, CUDA4 = Hardware(), Hardware(cuda=4)
# LightningCLI lives in `utilities.cli` up to 1.6 and in `cli` from 1.7 (1.7-1.9 keep a deprecated alias)
CLI_MODULE = "cli" if Version(1, 7) <= RELEASE else "utilities.cli"

MODERN = (
    ({"accelerator": "cpu", "strategy": "ddp_spawn", "devices": 2}, CPU),
    ({"accelerator": "gpu", "strategy": "ddp", "devices": 2}, CUDA4),
)
OLD = (
    ({"accelerator": "ddp_cpu", "num_processes": 2}, CPU),
    ({"gpus": 2}, CUDA4),
    ({"distributed_backend": "ddp_spawn", "num_processes": 2}, CPU),
)
MODERN_IDS = ("cpu-ddp_spawn-2", "gpu-ddp-2")
OLD_IDS = ("ddp_cpu-num_processes-2", "gpus-2", "distributed_backend-ddp_spawn")
MODES = ("install", "trainer_class")


def shim() -> Any:
    return importlib.import_module(SHIM_MODULE)


def shim_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    """The flags of the shim's deprecation warnings (each reads "`Trainer(flag=...)` is deprecated")."""
    messages = [str(w.message) for w in caught]
    return [m[len("`Trainer(") :].split("=")[0] for m in messages if m.startswith("`Trainer(")]


def build(make: Callable[[str], Any], hardware: Hardware) -> tuple[Outcome, list[str], Any]:
    """``make(tmp)`` (which builds a Trainer in ``tmp``) under simulated ``hardware``: what it built (or the
    release's error), the shim's warnings, and the trainer."""
    with (
        harness.simulated(hardware),
        warnings.catch_warnings(record=True) as caught,
        tempfile.TemporaryDirectory() as tmp,
    ):
        warnings.simplefilter("always")
        try:
            trainer = make(tmp)
        except (Exception, SystemExit) as exc:  # argparse and jsonargparse exit on an unknown option
            return harness.rejected(exc), shim_warnings(caught), None
        return harness.read_setup(trainer), shim_warnings(caught), trainer


def meaning_1_5(flags: dict[str, Any], hardware: Hardware) -> Outcome:
    """What 1.5.10 built (`distributed_backend` read as 1.4 did: as `accelerator`)."""
    given = dict(flags)
    if "distributed_backend" in given:
        given["accelerator"] = given.pop("distributed_backend")
    return interpret(given, REFERENCE, hardware).outcome


def modern_expected(flags: dict[str, Any], without_shim: Outcome, hardware: Hardware) -> Outcome:
    """What the release builds without the shim; where it lacks a keyword (`strategy` on 1.4), what 1.5
    built."""
    if all(accepts(k, RELEASE) for k in flags):
        return without_shim
    assert not isinstance(without_shim, Setup), without_shim
    return meaning_1_5(flags, hardware)


def test_the_unit_tests_know_this_releases_defaults() -> None:
    """The default-equals-not-given rule reads the defaults from the signature; the unit tests use a
    table of them."""
    trainer = harness.lightning().Trainer
    assert release_defaults(trainer.__dict__["__init__"]) == trainer_defaults(RELEASE)


# --- LightningCLI ------------------------------------------------------------------------------------------


class Model(harness.lightning().LightningModule):  # type: ignore[misc]
    """A model with nothing to configure: only the Trainer is built."""


def lightning_cli(trainer_config: dict[str, Any], mode: str | None) -> Callable[[str], Any]:
    """``make(tmp)`` for ``build``: LightningCLI with ``trainer_config`` in a config file, through the shim
    (``mode``: installed, or its Trainer as ``trainer_class``) or without it (None)."""

    def configs(tmp: str) -> list[Path]:
        config = Path(tmp, "config.json")  # JSON is YAML
        trainer = {**trainer_config, "default_root_dir": tmp, "logger": False, "max_epochs": 1}
        config.write_text(json.dumps({"trainer": trainer}))
        return [config]

    return cli_reading(configs, mode)


def cli_reading(configs: Callable[[str], list[Path]], mode: str | None) -> Callable[[str], Any]:
    """``make(tmp)`` for ``build``: LightningCLI reading the config files ``configs(tmp)`` writes (in turn,
    each over the one before), through the shim (``mode``) or not (None); it builds the Trainer only."""
    cli = importlib.import_module(f"{harness.ROOT}.{CLI_MODULE}")
    registry = getattr(cli, "LR_SCHEDULER_REGISTRY", None)
    if registry is not None and not registry:
        # 1.5 registers torch's subclasses of `_LRScheduler` (and asserts that each scheduler is one), which
        # torch 2.x schedulers no longer are: its LightningCLI fails on the empty registry before any Trainer,
        # shim or not. One scheduler of the old kind gives it the registry it had on the torch of its day.
        base = importlib.import_module("torch.optim.lr_scheduler")._LRScheduler
        registry(type("OldStyleScheduler", (base,), {}))

    class CLI(cli.LightningCLI):  # type: ignore[misc,name-defined]
        def fit(self, *args: Any, **kwargs: Any) -> None:
            """1.4 runs `fit` from `__init__`: here nothing is trained."""

    def make(tmp: str) -> Any:
        kwargs: dict[str, Any] = {"save_config_callback": None}
        if "run" in inspect.signature(cli.LightningCLI.__init__).parameters:
            kwargs["run"] = False
        if mode == "trainer_class":
            kwargs["trainer_class"] = shim().Trainer
        argv, sys.argv = sys.argv, ["cli", *(f"--config={path}" for path in configs(tmp))]
        try:
            if mode == "install":
                with shim().installed():
                    return CLI(Model, **kwargs).trainer
            return CLI(Model, **kwargs).trainer
        finally:
            sys.argv = argv

    return make


def check_trainer_class(trainer: Any, mode: str) -> None:
    expected = harness.lightning().Trainer if mode == "install" else shim().Trainer
    assert type(trainer) is expected


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("flags", "hardware"), MODERN, ids=MODERN_IDS)
def test_lightning_cli_builds_a_modern_config_as_the_release_does(
    flags: dict[str, Any], hardware: Hardware, mode: str
) -> None:
    without_shim, _, _ = build(lightning_cli(flags, None), hardware)
    expected = modern_expected(flags, without_shim, hardware)
    outcome, deprecations, trainer = build(lightning_cli(flags, mode), hardware)
    assert outcome == expected
    assert isinstance(outcome, Setup), outcome  # every release builds these
    assert deprecations == []
    check_trainer_class(trainer, mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("flags", "hardware"), OLD, ids=OLD_IDS)
def test_lightning_cli_builds_an_old_config_as_1_5_did(
    flags: dict[str, Any], hardware: Hardware, mode: str
) -> None:
    outcome, deprecations, trainer = build(lightning_cli(flags, mode), hardware)
    assert outcome == meaning_1_5(flags, hardware)
    assert deprecations == [flag for flag, _ in deprecated_spellings(flags)]  # once each
    check_trainer_class(trainer, mode)


@pytest.mark.skipif(Version(1, 5) > RELEASE, reason="1.4 has no ModelSummary callback")
@pytest.mark.parametrize("mode", MODES)
def test_lightning_cli_takes_the_removed_keywords_as_1_5_did(mode: str) -> None:
    """The keywords 1.7 removed, in a LightningCLI config, through the shim (`shim/removed.py`): 1.5.10's
    callbacks (on 1.5/1.6, the release's own)."""
    config = {"weights_summary": "full", "progress_bar_refresh_rate": 5, "checkpoint_callback": False}
    outcome, _, trainer = build(lightning_cli(config, mode), CPU)
    assert trainer is not None, outcome
    check_trainer_class(trainer, mode)
    callbacks = importlib.import_module(f"{harness.ROOT}.callbacks")
    (summary,) = [c for c in trainer.callbacks if isinstance(c, callbacks.ModelSummary)]
    assert summary._max_depth == -1
    (bar,) = [c for c in trainer.callbacks if isinstance(c, callbacks.TQDMProgressBar)]
    assert bar.refresh_rate == 5
    assert not [c for c in trainer.callbacks if isinstance(c, callbacks.ModelCheckpoint)]


# --- Trainer.from_argparse_args (1.x) ----------------------------------------------------------------------

needs_argparse = pytest.mark.skipif(
    Version(2, 0) <= RELEASE, reason="Trainer.add_argparse_args/from_argparse_args are gone in 2.0"
)


def argv(flags: dict[str, Any]) -> list[str]:
    return [item for k, val in flags.items() for item in (f"--{k}", str(val))]


def from_argparse_args(
    flags: dict[str, Any], mode: str | None, parsed: dict[str, Any]
) -> Callable[[str], Any]:
    """``make(tmp)`` for ``build``: the release's own argparse flow, ``flags`` on the command line; the
    values its parser made of them go to ``parsed`` (the release picks their types: 1.4/1.5 read
    `--devices 2` as the string "2")."""

    def make(tmp: str) -> Any:
        with shim().installed() if mode == "install" else contextlib.nullcontext():
            trainer = shim().Trainer if mode == "trainer_class" else harness.lightning().Trainer
            parser = trainer.add_argparse_args(argparse.ArgumentParser())
            args = parser.parse_args(argv(flags))
            parsed.update({k: getattr(args, k) for k in flags})
            return trainer.from_argparse_args(args, default_root_dir=tmp, logger=False)

    return make


@needs_argparse
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("flags", "hardware"), MODERN, ids=MODERN_IDS)
def test_from_argparse_args_builds_modern_flags_as_the_release_does(
    flags: dict[str, Any], hardware: Hardware, mode: str
) -> None:
    without_shim, _, _ = build(from_argparse_args(flags, None, {}), hardware)
    parsed: dict[str, Any] = {}
    outcome, deprecations, trainer = build(from_argparse_args(flags, mode, parsed), hardware)
    assert outcome == modern_expected(parsed, without_shim, hardware)
    assert deprecations == []
    if isinstance(outcome, Setup):
        check_trainer_class(trainer, mode)


@needs_argparse
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(("flags", "hardware"), OLD, ids=OLD_IDS)
def test_from_argparse_args_builds_old_flags_as_1_5_did(
    flags: dict[str, Any], hardware: Hardware, mode: str
) -> None:
    parsed: dict[str, Any] = {}
    outcome, deprecations, trainer = build(from_argparse_args(flags, mode, parsed), hardware)
    assert parsed == flags  # the release's parser reads these as the ints they are
    assert outcome == meaning_1_5(flags, hardware)
    assert deprecations == [flag for flag, _ in deprecated_spellings(flags)]
    check_trainer_class(trainer, mode)


# --- a call the model cannot read --------------------------------------------------------------------------

# `num_processes=None` beside `ddp_cpu`: the model fails on it (a TypeError of its own) where None is not the
# release's default (1.4/1.5); elsewhere None is the default, so the keyword is not given at all.
UNREADABLE = {"accelerator": "ddp_cpu", "num_processes": None}


def test_a_call_the_model_cannot_read_goes_to_the_real_trainer_as_given() -> None:
    pl = harness.lightning()
    given = given_flags(UNREADABLE, release_defaults(pl.Trainer.__dict__["__init__"]))
    try:
        how = translate(dict(given), RELEASE, CPU, harness.ROOT).how
    except Exception as exc:  # the model's own error: the shim must not raise it
        how = f"the model raises {type(exc).__name__}"
    as_given, _, _ = build(lambda tmp: pl.Trainer(default_root_dir=tmp, logger=False, **given), CPU)
    outcome, _, _ = build(lambda tmp: shim().Trainer(default_root_dir=tmp, logger=False, **UNREADABLE), CPU)
    AGREEMENT.append(f"Lightning {RELEASE}: Trainer(**{UNREADABLE}) through the shim: {how}")
    assert outcome == (meaning_1_5(given, CPU) if how.startswith("built") else as_given), how

"""LightningCLI with old-style YAML config files (comments and all), the two ways out of them:

- through the shim (installed, or its Trainer as ``trainer_class``), the config builds what Lightning
  1.5.10 built from it;
- migrated by the codemod for the installed release, the same config builds that without the shim.

Only the Trainer is built (``run=False``; 1.4's ``fit`` step is a no-op here)."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import AGREEMENT
from test_shim_cli import MODES, RELEASE, build, check_trainer_class, cli_reading, meaning_1_5

from lightning_migrate.run.options import Options
from lightning_migrate.run.runner import process_file
from lightning_migrate.semantics import Hardware, Setup
from lightning_migrate.semantics.model import release

pytestmark = pytest.mark.real

CPU, CUDA4 = Hardware(), Hardware(cuda=4)
# (config, the machine, its Trainer flags as 1.5.10 reads them)
CONFIGS = {
    "ddp_cpu": (
        "# a LightningCLI config written for Lightning 1.4\n"
        "trainer:\n"
        "  accelerator: ddp_cpu  # two processes on the CPU\n"
        "  num_processes: 2\n"
        "  max_epochs: 1\n",
        CPU,
        {"accelerator": "ddp_cpu", "num_processes": 2},
    ),
    "gpus": ("trainer:\n  gpus: 2   # two of the four GPUs\n  max_epochs: 1\n", CUDA4, {"gpus": 2}),
    "ddp_gpus": (
        "trainer:\n  accelerator: 'ddp'\n  gpus: 2\nmodel: {}\n",
        CUDA4,
        {"accelerator": "ddp", "gpus": 2},
    ),
    "distributed_backend": (
        "trainer: {distributed_backend: ddp_spawn, num_processes: 2, max_epochs: 1}\n",
        CPU,
        {"distributed_backend": "ddp_spawn", "num_processes": 2},
    ),
}


def cli_with_config(text: str, mode: str | None) -> Callable[[str], Any]:
    """``make(tmp)`` for ``build``: LightningCLI reading the config file ``text``, through the shim
    (``mode``) or not (None)."""

    def configs(tmp: str) -> list[Path]:
        config = Path(tmp, "config.yaml")
        config.write_text(text)
        # A second config, not `--trainer.logger=false`: jsonargparse 4.10 (Lightning 1.6) cannot read a
        # logger from the command line ("Could not generate a config for 'false'").
        extra = Path(tmp, "extra.yaml")
        extra.write_text(f"trainer:\n  default_root_dir: {tmp}\n  logger: false\n")
        return [config, extra]

    return cli_reading(configs, mode)


def migrated(text: str) -> tuple[str, list[str]]:
    """The config as the codemod writes it for the installed release, and its findings."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "config.yaml")
        path.write_text(text)
        result = process_file(path, Options(release(f"{RELEASE.major}.{RELEASE.minor}")))
    assert not result.error, result.error
    new = result.data.decode() if result.data is not None else text
    return new, [f"{f.code}{'' if f.fixable else ' (left)'}" for f in result.findings]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", CONFIGS)
def test_an_old_yaml_config_through_the_shim_builds_what_1_5_built(name: str, mode: str) -> None:
    text, hardware, flags = CONFIGS[name]
    outcome, _, trainer = build(cli_with_config(text, mode), hardware)
    assert outcome == meaning_1_5(flags, hardware)
    check_trainer_class(trainer, mode)


@pytest.mark.parametrize("name", CONFIGS)
def test_the_config_migrated_by_the_codemod_builds_it_without_the_shim(name: str) -> None:
    text, hardware, flags = CONFIGS[name]
    new, findings = migrated(text)
    assert not any(f.endswith("(left)") for f in findings), findings
    outcome, _, _ = build(cli_with_config(new, None), hardware)
    expected = meaning_1_5(flags, hardware)
    assert isinstance(expected, Setup)
    assert outcome == expected, new
    AGREEMENT.append(f"Lightning {RELEASE}: YAML config {name!r} migrated ({', '.join(findings) or 'as is'})")

"""The shim's argparse functions on every release, 1.4 to 2.x, with real command lines on simulated
machines: ``add_argparse_args(parser)``, ``parse_argparser(parser)`` and ``from_argparse_args(Trainer, args,
**overrides)`` build what Lightning 1.5.10 built from the same command line (2.0 removed the Trainer's own
methods). And a 1.x script that builds its Trainer from the command line, migrated for 2.6 with ``--shim``,
runs everywhere and trains as before (its flags are only known at run time: the shim migrates them).
"""

from __future__ import annotations

import argparse
import types
from typing import Any

import harness
import pytest
from test_shim_cli import CPU, CUDA4, build, meaning_1_5, shim

from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.semantics import Hardware, Setup
from lightning_migrate.semantics.model import release

pytestmark = pytest.mark.real

# (command line, machine, the call's own flags): old flags, each trains on the machine in 1.5.10 (a modern
# command line builds what the release itself builds: `test_shim_cli`)
COMMAND_LINES = (
    (["--gpus", "2", "--accelerator", "ddp"], CUDA4, {}),
    (["--num_processes", "2", "--accelerator", "ddp_cpu"], CPU, {}),
    (["--gpus", "2"], CUDA4, {}),
    (["--gpus", "4"], CUDA4, {"distributed_backend": "ddp"}),  # the silent change
    (["--gpus", "0,1", "--precision", "16"], CUDA4, {"accelerator": "ddp_spawn"}),
)
IDS = ("gpus-accelerator-ddp", "ddp_cpu", "gpus", "override-distributed_backend", "gpu-ids-precision")


def _flags_given(args: argparse.Namespace, argv: list[str]) -> dict[str, Any]:
    """The flags the command line set, as the parser typed them."""
    return {word[2:]: getattr(args, word[2:]) for word in argv if word.startswith("--")}


@pytest.mark.parametrize(("argv", "hardware", "own"), COMMAND_LINES, ids=IDS)
def test_the_shims_argparse_functions_build_what_1_5_built(
    argv: list[str], hardware: Hardware, own: dict[str, Any]
) -> None:
    parsed: dict[str, Any] = {}

    def make(tmp: str) -> Any:
        parser = shim().add_argparse_args(argparse.ArgumentParser())
        args = shim().parse_argparser(parser.parse_args([*argv, "--default_root_dir", tmp]))
        parsed.update(_flags_given(args, argv))
        return shim().from_argparse_args(harness.lightning().Trainer, args, logger=False, **own)

    outcome, _, trainer = build(make, hardware)
    assert outcome == meaning_1_5({**parsed, **own}, hardware)
    assert isinstance(outcome, Setup), outcome
    assert isinstance(trainer, harness.lightning().Trainer)


def test_a_bare_boolean_option_is_true_and_a_subclass_is_built() -> None:
    class MyTrainer(harness.lightning().Trainer):  # type: ignore[misc,name-defined]
        pass

    def make(tmp: str) -> Any:
        parser = shim().add_argparse_args(argparse.ArgumentParser(), MyTrainer)
        args = shim().parse_argparser(
            parser.parse_args(["--fast_dev_run", "--default_root_dir", tmp]), MyTrainer
        )
        assert args.fast_dev_run is True
        return shim().from_argparse_args(
            MyTrainer, args, logger=False, num_processes=2, accelerator="ddp_cpu"
        )

    outcome, _, trainer = build(make, CPU)
    assert type(trainer) is MyTrainer
    assert outcome == meaning_1_5({"num_processes": 2, "accelerator": "ddp_cpu"}, CPU)


SCRIPT = """\
from argparse import ArgumentParser

from {root} import Trainer


def build(argv):
    parser = ArgumentParser()
    parser.add_argument("--lr", type=float, default=0.1)
    parser = Trainer.add_argparse_args(parser)
    args = parser.parse_args(argv)
    return Trainer.from_argparse_args(args, logger=False, distributed_backend="ddp")
"""


@pytest.mark.parametrize(
    ("argv", "hardware"), [(["--gpus", "2"], CUDA4), (["--gpus", "4", "--num_nodes", "1"], CUDA4)], ids=str
)
def test_a_1x_script_migrated_for_2_6_with_the_shim_trains_as_before(
    argv: list[str], hardware: Hardware
) -> None:
    source = SCRIPT.format(root=harness.ROOT)
    migrated = migrate(source, release("2.6"), shim=True).code
    module = shim().__name__
    assert f"parser = {module}.add_argparse_args(parser)" in migrated
    assert f"{module}.from_argparse_args(Trainer, args, logger=False" in migrated
    script = types.ModuleType("migrated_script")
    exec(compile(migrated, "migrated_script.py", "exec"), script.__dict__)
    outcome, _, _ = build(lambda tmp: script.build([*argv, "--default_root_dir", tmp]), hardware)
    flags = {"distributed_backend": "ddp", **{argv[i][2:]: int(argv[i + 1]) for i in range(0, len(argv), 2)}}
    assert outcome == meaning_1_5(flags, hardware)  # DDP on the GPUs the command line names, as in 1.x
    assert isinstance(outcome, Setup), outcome

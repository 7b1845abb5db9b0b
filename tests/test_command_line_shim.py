"""Command lines whose options a script reads itself, and command lines handed to the runtime shim (issue 24,
parts 2 and 7): a command line with nothing old for the target gets no finding, whatever the script does with
its words; words of Lightning's parser that reach the shim's `from_argparse_args` (already, or after a
`--shim` run) need no change; and a finding stays wherever the words may reach a Trainer that is not the
shim's, or one the shim cannot build them for."""

from __future__ import annotations

import argparse
import shutil
from pathlib import Path
from typing import Any, List, Union  # noqa: UP035 (the annotations Lightning's signature has)

import pytest

from lightning_migrate.frontends.shell.command_line import argparse_value
from lightning_migrate.plan.planner import PLANNED_FLAGS
from lightning_migrate.plan.trainers import SHIM_KEEPS
from lightning_migrate.project.script_options import BY_LIGHTNING, BY_SHIM, of_script
from lightning_migrate.report.findings import SHIM, Finding
from lightning_migrate.run.file_kinds import BY_SUFFIX
from lightning_migrate.run.options import Options
from lightning_migrate.run.runner import FileResult, process_all, process_file
from lightning_migrate.semantics.model import release
from lightning_migrate.semantics.removed import SHIM_REFUSES, SHIM_TAKES
from lightning_migrate.semantics.translate import TRANSLATED
from lightning_migrate.shim.arguments import _add_arguments
from lightning_migrate.shim.namespace import ADDED, extended_signature

PROJECTS = Path(__file__).parent.parent / "fixtures" / "projects"

PARSER = (
    "import argparse\nimport pytorch_lightning as pl\nparser = argparse.ArgumentParser()\n"
    "parser = pl.Trainer.add_argparse_args(parser)\nargs = parser.parse_args()\n"
)
READS = "n = len(str(args.gpus).split(','))\n"  # the script reads `--gpus` itself
SHIM_PARSER = (
    "import argparse\nimport lightning_migrate.shim\nimport pytorch_lightning as pl\n"
    "parser = lightning_migrate.shim.add_argparse_args(argparse.ArgumentParser())\n"
    "args = parser.parse_args()\n"
)


def write(folder: Path, files: dict[str, str]) -> Path:
    (folder / "setup.py").write_text("")
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def findings(path: Path, target: str = "2.6", shim: bool = False) -> list[Finding]:
    result = process_file(path, Options(release(target), shim=shim))
    assert not result.error, result.error
    assert result.data is None  # a command line of these is never rewritten
    return result.findings


# --- part 2: nothing old for the target, no finding ---------------------------------------------------------

NORMALISES = (
    "if isinstance(args.devices, str):\n    args.devices = [int(d) for d in args.devices.split(',')]\n"
)
MODERN = "python train.py --devices 0 --accelerator gpu --strategy ddp --sync_batchnorm --precision 16\n"


@pytest.mark.parametrize("target", ["1.5", "1.9", "2.6"])
def test_the_targets_own_form_read_by_the_script_gets_no_finding(tmp_path: Path, target: str) -> None:
    train = PARSER + NORMALISES + "pl.Trainer.from_argparse_args(args)\n"
    write(tmp_path, {"train.py": train, "run.sh": MODERN})
    found = of_script(tmp_path / "train.py")
    assert found is not None
    assert "devices" in found.changed
    assert findings(tmp_path / "run.sh", target) == []


@pytest.mark.parametrize(
    ("target", "words"),
    [
        ("2.6", "--devices 0 --num_processes 2"),  # 2.0 removed `num_processes=`
        ("1.9", "--devices 0 --gpus 1"),  # 1.7 deprecates `gpus=`
        ("1.5", "--devices 0 --accelerator ddp"),  # a training type in `accelerator=` is old from 1.5
    ],
)
def test_old_words_read_by_the_script_are_still_reported(tmp_path: Path, target: str, words: str) -> None:
    train = PARSER + NORMALISES + "pl.Trainer.from_argparse_args(args)\n"
    write(tmp_path, {"train.py": train, "run.sh": f"python train.py {words}\n"})
    (finding,) = findings(tmp_path / "run.sh", target)
    assert finding.code == "LM101"
    assert "read by the script too" in finding.message


@pytest.mark.parametrize("target", ["1.5", "2.6"])
def test_the_targets_own_form_of_the_scripts_own_options_gets_no_finding(tmp_path: Path, target: str) -> None:
    train = (
        "import argparse\nparser = argparse.ArgumentParser()\nparser.add_argument('--devices')\n"
        "parser.add_argument('--strategy')\nargs = parser.parse_args()\n"
    )
    write(tmp_path, {"train.py": train, "run.sh": "python train.py --devices 0 --strategy ddp\n"})
    assert findings(tmp_path / "run.sh", target) == []
    (tmp_path / "old.sh").write_text("python train.py --devices 0 --gpus 2\n")
    assert [f.code for f in findings(tmp_path / "old.sh", target)] == (["LM101"] if target == "2.6" else [])


# --- part 7: words handed to the runtime shim ---------------------------------------------------------------


def test_the_shims_own_builder_takes_the_words_as_they_are(tmp_path: Path) -> None:
    train = SHIM_PARSER + READS + "lightning_migrate.shim.from_argparse_args(pl.Trainer, args)\n"
    write(tmp_path, {"train.py": train, "run.sh": "python train.py --gpus 0,1 --accelerator ddp\n"})
    found = of_script(tmp_path / "train.py")
    assert found is not None
    assert found.built == BY_SHIM
    assert findings(tmp_path / "run.sh") == []  # (no `--shim` needed: the script's Trainer is the shim's)
    assert findings(tmp_path / "run.sh", "1.9") == []


def test_a_shim_run_hands_the_words_to_the_shim_it_writes(tmp_path: Path) -> None:
    train = PARSER + READS + "pl.Trainer.from_argparse_args(args, max_epochs=3)\n"
    write(tmp_path, {"train.py": train, "run.sh": "python train.py --gpus 0,1 --accelerator ddp\n"})
    found = of_script(tmp_path / "train.py")
    assert found is not None
    assert found.built == BY_LIGHTNING
    (plain,) = findings(tmp_path / "run.sh")
    assert not plain.fixable
    assert plain.remedy == SHIM
    assert "read by the script too" in plain.message
    (handed,) = findings(tmp_path / "run.sh", shim=True)
    assert handed.fixable
    assert (handed.line, handed.column) == (plain.line, plain.column)
    assert handed.message.endswith("fix: they reach the shim's Trainer")
    assert any("takes every old flag on every release" in d for d in handed.details)
    # before 2.0 `from_argparse_args` is Lightning's and `--shim` does not rewrite it: the finding stays
    (kept,) = findings(tmp_path / "run.sh", "1.9", shim=True)
    assert not kept.fixable
    assert kept.remedy == ""


@pytest.mark.parametrize(
    "build",
    [
        "class MyTrainer(pl.Trainer):\n    pass\nMyTrainer.from_argparse_args(args)\n",  # a subclass's
        "pl.Trainer.from_argparse_args(args)  # noqa: LM105\n",  # kept by a suppression
        "pl.Trainer.from_argparse_args(args)\npl.Trainer(**vars(args))\n",  # a `**` dict of it too
    ],
    ids=["subclass", "noqa", "double-star"],
)
def test_words_that_may_reach_another_trainer_are_not_handed(tmp_path: Path, build: str) -> None:
    write(tmp_path, {"train.py": PARSER + READS + build, "run.sh": "python train.py --gpus 0,1\n"})
    found = of_script(tmp_path / "train.py")
    assert found is not None
    assert found.built == ""
    (finding,) = findings(tmp_path / "run.sh", shim=True)
    assert not finding.fixable
    assert finding.remedy == ""


@pytest.mark.parametrize(
    ("words", "why"),
    [
        ("--gpus 2 --accelerator dp", "has no dp strategy"),  # the shim cannot build what 2.x lacks
        ("--gpus 2 --auto_select_gpus", "read by the script too"),  # the shim's 2.x parser has no option
    ],
)
def test_words_the_shim_cannot_take_stay_reported(tmp_path: Path, words: str, why: str) -> None:
    shimmed = SHIM_PARSER + READS + "lightning_migrate.shim.from_argparse_args(pl.Trainer, args)\n"
    write(tmp_path, {"train.py": shimmed, "run.sh": f"python train.py {words}\n"})
    (finding,) = findings(tmp_path / "run.sh", shim=True)
    assert not finding.fixable
    assert why in "\n".join((finding.message, *finding.details))


def test_the_scripts_option_handed_to_the_shims_trainer_is_followed(tmp_path: Path) -> None:
    train = (
        "import argparse\nimport lightning_migrate.shim\nparser = argparse.ArgumentParser()\n"
        "parser.add_argument('--gpus', default='1')\nargs = parser.parse_args()\n"
        "lightning_migrate.shim.Trainer(gpus=args.gpus)\n"
    )
    write(tmp_path, {"train.py": train, "run.sh": "python train.py --gpus 2\n"})
    found = of_script(tmp_path / "train.py")
    assert found is not None
    assert found.reaching == {"gpus": "gpus"}
    assert findings(tmp_path / "run.sh") == []


def _run(root: Path, **options: Any) -> dict[str, FileResult]:
    paths = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in BY_SUFFIX)
    results = process_all(paths, Options(release("2.6"), root=root, **options), jobs=1)
    assert not [r.error for r in results if r.error]
    return {r.path.relative_to(root).as_posix(): r for r in results}


@pytest.mark.parametrize("case", ["script_shim", "script_reads_options"])
def test_after_a_shim_run_the_command_lines_are_finished(tmp_path: Path, case: str) -> None:
    """The whole project with `--unsafe-fixes --shim`: the Python builds the shim's Trainer, the command
    lines are kept as written, and nothing is left (with the flags or without)."""
    root = tmp_path / case
    shutil.copytree(PROJECTS / case, root)
    first = _run(root, unsafe=True, shim=True)
    assert all(f.fixable for r in first.values() for f in r.findings)
    for name, result in first.items():
        if result.data is not None:
            assert name.endswith(".py"), name  # (the command lines need no change)
            (root / name).write_bytes(result.data)
    assert "lightning_migrate.shim.from_argparse_args(pl.Trainer, args" in (root / "train.py").read_text()
    for flags in ({}, {"unsafe": True, "shim": True}):
        again = _run(root, **flags)
        assert not [(n, f.message) for n, r in again.items() for f in r.findings], flags
        assert not [n for n, r in again.items() if r.data is not None]


# --- what the shim's parser and Trainer take --------------------------------------------------------------


def test_the_shim_translates_the_flags_the_codemod_plans() -> None:
    assert TRANSLATED == PLANNED_FLAGS


class _Trainer2x:
    """Lightning 2.x's signature for the hardware flags (the annotations its `Trainer.__init__` has)."""

    def __init__(
        self,
        accelerator: Union[str, Any] = "auto",  # noqa: UP007
        strategy: Union[str, Any] = "auto",  # noqa: UP007
        devices: Union[List[int], str, int] = "auto",  # noqa: UP006, UP007
        num_nodes: int = 1,
        precision: Union[int, str, None] = None,  # noqa: UP007
        sync_batchnorm: bool = False,
    ) -> None:
        pass


_Trainer2x.__init__.__signature__ = extended_signature(_Trainer2x.__init__)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("flag", "word"),
    [
        ("gpus", "0,1"),
        ("gpus", "2"),
        ("gpus", "-1"),
        ("accelerator", "ddp"),
        ("distributed_backend", "ddp_spawn"),
        ("num_processes", "2"),
        ("tpu_cores", "8"),
        ("devices", "0"),
        ("num_nodes", "2"),
        ("precision", "16"),
    ],
)
def test_the_shims_parser_reads_a_word_as_lightnings_did(flag: str, word: str) -> None:
    """On 2.x the shim's `add_argparse_args` reads each word as 1.x's parser did (``argparse_value``, the
    codemod's reading): a script that reads the option itself gets the same value."""
    parser = _add_arguments(_Trainer2x, argparse.ArgumentParser(), use_argument_group=False)
    parsed = vars(parser.parse_args([f"--{flag}", word]))[flag]
    assert parsed == argparse_value(flag, word)
    assert type(parsed) is type(argparse_value(flag, word))


def test_a_flag_the_call_passes_beside_the_namespace_beats_the_option(tmp_path: Path) -> None:
    """`from_argparse_args(args, accelerator="ddp")`: the call's keyword wins over `--accelerator`, so
    `--gpus 2` is not rewritten to `--accelerator cuda --devices 2`; one the planner does not weigh
    (`replace_sampler_ddp=False`) leaves the rewrite as it was."""
    train = PARSER + "pl.Trainer.from_argparse_args(args, accelerator='ddp')\n"
    write(tmp_path, {"train.py": train, "run.sh": "python train.py --gpus 2\n"})
    (finding,) = findings(tmp_path / "run.sh", "1.9")
    assert not finding.fixable
    assert "`accelerator`" in finding.details[0]
    (tmp_path / "test.py").write_text(
        PARSER + "pl.Trainer.from_argparse_args(args, replace_sampler_ddp=False)\n"
    )
    (tmp_path / "test.sh").write_text("python test.py --gpus 2\n")
    result = process_file(tmp_path / "test.sh", Options(release("1.9")))
    assert result.new == "python test.py --devices 2 --accelerator cuda\n"


def test_the_shims_from_argparse_args_takes_resume_from_checkpoint(tmp_path: Path) -> None:
    """`--shim` writes the shim's `from_argparse_args`, whose Trainer takes `resume_from_checkpoint=` on 2.x
    (`shim/resume.py`): not reported there; without `--shim` it is (the target's Trainer lacks it)."""
    code = (
        "import argparse\nimport pytorch_lightning as pl\n\n"
        "parser = pl.Trainer.add_argparse_args(argparse.ArgumentParser())\n"
        "trainer = pl.Trainer.from_argparse_args(parser.parse_args(), resume_from_checkpoint='a.ckpt')\n"
    )
    (tmp_path / "train.py").write_text(code)
    for shim, reported in ((True, False), (False, True)):
        options = Options(release("2.6"), root=tmp_path, shim=shim)
        result = process_file(tmp_path / "train.py", options)
        assert any(f.code == "LM007" for f in result.findings) is reported, shim
    assert set(SHIM_TAKES) - set(SHIM_REFUSES) == SHIM_KEEPS
    # (the shim's signature offers what the codemod leaves to it, and the keywords it reads where it can)
    assert TRANSLATED | set(SHIM_TAKES) == ADDED


def test_a_call_built_through_the_shim_hands_it_the_removed_keywords_it_takes(tmp_path: Path) -> None:
    """A call `--shim` rewrites to the shim's Trainer hands it the removed keywords no fix here rewrites and
    the shim reads as 1.5 did (`shim/removed.py`): not reported there. `stochastic_weight_avg=` is reported
    either way (the shim raises for a true value on 2.x), saying that no tool can do it; a keyword a fix
    rewrites is still rewritten (`progress_bar_refresh_rate=None`, at its default: removed)."""
    code = (
        "import pytorch_lightning as pl\n\n"
        "def main(args):\n"
        "    return pl.Trainer(accelerator=args.accelerator, weights_summary=args.summary,\n"
        "                      flush_logs_every_n_steps=args.flush, stochastic_weight_avg=args.swa,\n"
        "                      checkpoint_callback=args.ckpt, progress_bar_refresh_rate=None)\n"
    )
    (tmp_path / "train.py").write_text(code)
    gone = {"weights_summary", "flush_logs_every_n_steps", "checkpoint_callback", "stochastic_weight_avg"}
    for shim in (True, False):
        options = Options(release("2.6"), root=tmp_path, shim=shim)
        result = process_file(tmp_path / "train.py", options)
        left = [f for f in result.findings if f.code == "LM007" and not f.fixable]
        reported = {f.message.partition("=")[0].strip("`") for f in left}
        assert reported == (gone if not shim else {"stochastic_weight_avg"}), shim
        (swa,) = [f for f in result.findings if "stochastic_weight_avg" in f.message]
        assert "no tool can do it where it is true" in swa.message  # (False: the shim drops it)
        if shim:
            assert result.new is not None
            assert "lightning_migrate.shim.Trainer(" in result.new
            assert "weights_summary=args.summary" in result.new
            assert "progress_bar_refresh_rate" not in result.new  # (at its default: dropped)


@pytest.mark.parametrize(
    ("target", "no_tool"), [("1.5", False), ("1.6", False), ("1.7", True), ("1.8", True)]
)
def test_no_tool_gives_1_5_s_averaging_from_the_release_that_requires_its_rates(
    tmp_path: Path, target: str, no_tool: bool
) -> None:
    """1.7.0 removed `stochastic_weight_avg=` and made `StochasticWeightAveraging`'s `swa_lrs` required (read
    from the 1.7.0 wheel): from that target on, a true value is one no tool can build as 1.5 did (the shim
    raises there too); 1.5/1.6 take the keyword themselves."""
    (tmp_path / "train.py").write_text(
        "import pytorch_lightning as pl\n\ntrainer = pl.Trainer(stochastic_weight_avg=True)\n"
    )
    result = process_file(tmp_path / "train.py", Options(release(target), root=tmp_path, shim=True))
    said = [f.message for f in result.findings if "stochastic_weight_avg" in f.message]
    assert any("no tool can do it" in m for m in said) is no_tool, said


def test_a_rewritten_call_whose_removed_keyword_only_the_shim_keeps_builds_the_shim(tmp_path: Path) -> None:
    """With `--shim`, a call the run rewrites that also passes a keyword the target lacks, that no fix here
    rewrites and that the shim's Trainer takes (`resume_from_checkpoint=` with no `.fit(` in the file to move
    it to) builds the shim's Trainer: its hardware flags rewritten, that keyword handed to the shim, nothing
    left by hand. Where the path moves to the `.fit(`, or without `--shim`, the call stays Lightning's."""
    built = (
        "import pytorch_lightning as pl\n\n"
        "def build(args):\n"
        "    return pl.Trainer(gpus=2, resume_from_checkpoint=args.ckpt)\n"
    )
    fitted = built.replace("    return pl", "    trainer = pl") + "    trainer.fit(None)\n"
    for name, code, shim, shimmed in (
        ("a.py", built, True, True),
        ("b.py", built, False, False),
        ("c.py", fitted, True, False),
    ):
        (tmp_path / name).write_text(code)
        result = process_file(tmp_path / name, Options(release("2.6"), root=tmp_path, shim=shim))
        assert result.new is not None, name
        assert "devices=2" in result.new, name
        assert "gpus=" not in result.new, name
        assert ("lightning_migrate.shim.Trainer(" in result.new) is shimmed, name
        assert ("resume_from_checkpoint=args.ckpt" in result.new) is not (shim and not shimmed), name
        left = [f for f in result.findings if not f.fixable]
        assert bool(left) is (not shim), (name, left)
        if not shim:  # (the run with `--shim` fixes it, and the finding says so)
            assert [(f.code, f.remedy) for f in left] == [("LM007", "shim")]
            assert "fixable with `--shim`" in left[0].message
        if shimmed:
            (resume,) = [f for f in result.findings if "resume_from_checkpoint" in f.message]
            assert (resume.code, resume.fixable) == ("LM007", True)
            assert "build `lightning_migrate.shim.Trainer`" in resume.message

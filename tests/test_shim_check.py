"""The check after a `--shim` rewrite: the calls of the runtime shim's Trainer are judged by what the shim
does with them on the target (``fixtures/projects/shim_check/``, a project as `--unsafe-fixes --shim`
leaves it). What the shim takes is handed (no finding); every other keyword reaches Lightning's Trainer as
written and is judged as in a call of it; a setup the shim cannot build on the target where Lightning
1.5.10 builds it is LM103, no tool can (``semantics.translate.unbuilt``, the shim's own answer)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from project_runs import migrate_tree, migrated_copy

from lightning_migrate.files.text import Text
from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.plan.locate import locate
from lightning_migrate.plan.prefilter import may_need_migration
from lightning_migrate.plan.trainers import SHIM_KEEPS, shim_takes, shim_unbuilt
from lightning_migrate.semantics import Hardware
from lightning_migrate.semantics.model import RELEASES, release
from lightning_migrate.semantics.removed import SHIM_REFUSES, SHIM_TAKES
from lightning_migrate.semantics.translate import translate, unbuilt

PROJECT = Path(__file__).parent.parent / "fixtures" / "projects" / "shim_check"
TARGET = release("2.6")
V19 = release("1.9")

# (file, line, code, the message's start): every finding of the project, for 2.6
FINDINGS = [
    ("conf/trainer/ddp.yaml", 5, "LM100", "`early_stop_callback=` is in no Lightning release from 1.4"),
    (
        "conf/trainer/dp.yaml",
        2,
        "LM103",
        "`accelerator: 'dp'`, `gpus: 4`: the runtime shim cannot build the dp",
    ),
    ("config.yaml", 3, "LM103", "`distributed_backend='dp'`: the runtime shim cannot build the dp strategy"),
    (
        "evaluate.py",
        10,
        "LM103",
        '`distributed_backend="dp"` and 1 more: the runtime shim cannot build the dp',
    ),
    ("evaluate.py", 14, "LM007", "`stochastic_weight_avg=True` is not in Lightning 2.6.6; no tool can do it"),
    ("evaluate.py", 14, "LM100", "`use_amp=` is in no Lightning release from 1.4"),
    ("evaluate.py", 15, "LM100", "`early_stop_callback=` is in no Lightning release from 1.4"),
    ("train.py", 32, "LM100", "`early_stop_callback=` is in no Lightning release from 1.4"),
    ("train.py", 34, "LM007", "Lightning 2.6.6 has no `amp_level=`"),
    ("train.py", 35, "LM007", "`move_metrics_to_cpu=True` is not in Lightning 2.6.6; no tool can do it"),
]


def _found(results: dict) -> list[tuple[str, int, str, str]]:
    return sorted((name, f.line, f.code, f.message) for name, r in results.items() for f in r.findings)


def _same(found: list[tuple[str, int, str, str]]) -> None:
    assert len(found) == len(FINDINGS), found
    for (name, line, code, message), (want_name, want_line, want_code, start) in zip(found, sorted(FINDINGS)):
        assert (name, line, code) == (want_name, want_line, want_code), (name, line, code, message)
        assert message.startswith(start), message
        assert not [f for f in found if f[2] == "LM103" and "no tool can" not in f[3]]


@pytest.mark.parametrize("options", [{}, {"shim": True, "unsafe": True}])
def test_the_calls_of_the_shims_trainer_are_judged_and_left_as_written(
    tmp_path: Path, options: dict[str, bool]
) -> None:
    """The check, and a second `--unsafe-fixes --shim` run (idempotent: it changes nothing and reports
    the same)."""
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    results = migrate_tree(root, TARGET, **options)
    assert not [name for name, r in results.items() if r.data is not None]
    _same(_found(results))
    no_tool = [f for r in results.values() for f in r.findings if f.code == "LM103"]
    assert all(not f.fixable and not f.remedy for f in no_tool)


def test_the_shims_findings_say_why_no_tool_can(tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    results = migrate_tree(root, TARGET)
    [parallel] = [f for f in results["evaluate.py"].findings if f.code == "LM103"]
    assert parallel.details == (
        "Lightning 1.5.10 builds the dp strategy from `gpus=2, distributed_backend='dp'` (a machine with 2"
        " CUDA GPUs, 0 TPU cores)",
        "the runtime shim's Trainer raises on Lightning 2.6.6: TypeError: Trainer.__init__() got an"
        " unexpected keyword argument 'gpus'",
    )
    [soma] = results["config.yaml"].findings
    assert any(d.endswith("train.py:41 (`cfg.trainer.distributed_backend`)") for d in soma.details)
    assert any("no tool can keep it" in d for d in soma.details)


SHIMMED = {
    "old": "import pytorch_lightning as pl\n\ntrainer = pl.Trainer(accelerator=args.accelerator,"
    " early_stop_callback=None, max_epochs=3)\n",
    "dp": "import pytorch_lightning as pl\n\ndef build(backend):\n    return pl.Trainer(gpus=2,"
    " distributed_backend=backend)\n",
    # what the shim passes on that 2.x lacks: renamed, dropped at its default, or reported (not handed)
    "passed": "import pytorch_lightning as pl\n\ndef build(args):\n    return pl.Trainer(gpus=args.gpus,"
    " amp_level=args.level, replace_sampler_ddp=False, auto_select_gpus=False)\n",
}


@pytest.mark.parametrize("name", sorted(SHIMMED))
def test_what_a_shim_run_leaves_the_check_still_reports(tmp_path: Path, name: str) -> None:
    """A call `--unsafe-fixes --shim` hands to the shim keeps the findings the shim does not settle: the
    check after the run reports what the run reported left, and a second run changes nothing."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(SHIMMED[name])
    root, first = migrated_copy(tmp_path / "src", tmp_path / "project", TARGET, shim=True, unsafe=True)
    assert "lightning_migrate.shim.Trainer(" in (root / "train.py").read_text()
    left = sorted((f.code, f.message) for f in first["train.py"].findings if not f.fixable)
    check = migrate_tree(root, TARGET)
    assert sorted((f.code, f.message) for f in check["train.py"].findings) == left
    again = migrate_tree(root, TARGET, shim=True, unsafe=True)
    assert again["train.py"].data is None
    assert sorted((f.code, f.message) for f in again["train.py"].findings) == left


def test_a_shim_run_judges_what_the_shim_passes_on(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(SHIMMED["passed"])
    root, results = migrated_copy(tmp_path / "src", tmp_path / "project", TARGET, shim=True, unsafe=True)
    assert (
        "lightning_migrate.shim.Trainer(gpus=args.gpus, amp_level=args.level, use_distributed_sampler=False)"
        in (root / "train.py").read_text()
    )
    left = [(f.code, f.message) for f in results["train.py"].findings if not f.fixable]
    assert left == [("LM007", "Lightning 2.6.6 has no `amp_level=`; remove it, or set what it did by hand")]


def test_a_left_ancient_keyword_is_still_reported_after_the_shim_run(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(SHIMMED["old"])
    root, _ = migrated_copy(tmp_path / "src", tmp_path / "project", TARGET, shim=True, unsafe=True)
    [finding] = migrate_tree(root, TARGET)["train.py"].findings
    assert finding.code == "LM100"
    assert "`early_stop_callback=`" in finding.message


# --- one call at a time -------------------------------------------------------------------------------------

HEAD = "import lightning_migrate.shim\nfrom lightning_migrate import shim\n"


@pytest.mark.parametrize(
    "call",
    [
        # every keyword the shim takes, at values 1.5 read, beside old and new hardware flags
        "shim.Trainer(gpus=2, distributed_backend='ddp', checkpoint_callback=False,"
        " progress_bar_refresh_rate=0, process_position=1, weights_summary='full',"
        " flush_logs_every_n_steps=10, resume_from_checkpoint='a.ckpt', stochastic_weight_avg=False,"
        " move_metrics_to_cpu=False)",
        "shim.Trainer(accelerator='gpu', devices=2, strategy='ddp', max_epochs=3)",  # the target's own form
        "shim.Trainer(accelerator=args.accelerator, gpus=args.gpus, plugins=plugins)",  # run-time values
        "shim.Trainer(tpu_cores=8, accelerator='ddp_spawn')",
        "shim.Trainer(**cfg.trainer)",
        "lightning_migrate.shim.Trainer.from_argparse_args(args, checkpoint_callback=True)",
        "shim.from_argparse_args(pl.Trainer, args, weights_summary=None, gpus=2)",
        "functools.partial(shim.Trainer, gpus=1, resume_from_checkpoint=path)",
    ],
)
def test_a_shim_call_with_only_what_the_shim_takes_gets_no_finding(call: str) -> None:
    source = f"{HEAD}import functools\nimport pytorch_lightning as pl\n\ntrainer = {call}\n"
    for target in (TARGET, V19):
        result = migrate(source, target)
        assert result.findings == [], (target, result.findings)
        assert result.code == source


@pytest.mark.parametrize(
    ("call", "code", "said"),
    [
        ("shim.Trainer(gpus=4, accelerator='dp')", "LM103", "the runtime shim cannot build the dp strategy"),
        ("shim.Trainer(gpus=2, accelerator='ddp2')", "LM103", "the runtime shim cannot build the ddp2"),
        ("shim.Trainer(accelerator='gpu', devices=2, strategy='dp')", "LM103", "cannot build the dp"),
        ("shim.Trainer(nb_gpu_nodes=2)", "LM100", "`nb_gpu_nodes=` is in no Lightning release from 1.4"),
        ("shim.Trainer(amp_backend='apex')", "LM007", "Lightning 2.6.6 has no `amp_backend=`"),
        ("shim.Trainer(auto_lr_find=True)", "LM007", "`auto_lr_find=True` is not in Lightning 2.6.6"),
        ("shim.Trainer(move_metrics_to_cpu=flag)", "LM007", "no tool can do it where it is true"),
        ("shim.from_argparse_args(pl.Trainer, args, use_amp=True)", "LM100", "`use_amp=` is in no"),
    ],
)
def test_a_shim_call_is_judged_where_the_shim_does_not_take_it(call: str, code: str, said: str) -> None:
    source = f"{HEAD}import pytorch_lightning as pl\n\ntrainer = {call}\n"
    [finding] = migrate(source, TARGET).findings
    assert (finding.code, finding.fixable) == (code, False)
    assert said in finding.message


def test_a_keyword_the_shim_passes_on_at_its_default_is_dropped() -> None:
    source = f"{HEAD}\ntrainer = shim.Trainer(gpus=2, amp_level='O2', auto_select_gpus=False)\n"
    result = migrate(source, TARGET)
    assert [(f.code, f.fixable) for f in result.findings] == [("LM007", True), ("LM007", True)]
    assert "shim.Trainer(gpus=2)" in result.code
    assert migrate(source, V19).findings == []  # (1.9 has both: the shim passes them on)


def test_a_keyword_a_rename_keeps_is_renamed_in_a_shim_call() -> None:
    source = f"{HEAD}\ntrainer = shim.Trainer(gpus=2, reload_dataloaders_every_epoch=True)\n"
    result = migrate(source, TARGET)
    assert [f.code for f in result.findings] == ["LM007"]
    assert result.findings[0].fixable
    assert "shim.Trainer(gpus=2, reload_dataloaders_every_n_epochs=1)" in result.code
    assert migrate(result.code, TARGET).findings == []


def test_the_shims_trainer_is_found_by_every_name_it_is_imported_under() -> None:
    source = (
        "import lightning_migrate.shim as s\nfrom lightning_migrate.shim import Trainer as T\n"
        "from lightning_migrate.shim.lightning import Trainer\nfrom lightning_migrate import shim\n"
        "import functools\nimport pytorch_lightning as pl\n"
        "s.Trainer(gpus=1)\nT(gpus=1)\nTrainer(gpus=1)\nfunctools.partial(shim.Trainer, gpus=1)\n"
        "shim.from_argparse_args(pl.Trainer, args, gpus=1)\nshim.Trainer.from_argparse_args(args, gpus=1)\n"
        "pl.Trainer(gpus=1)\nother.Trainer(gpus=1)\n"
    )
    import ast

    located = locate(ast.parse(source), Text(source))
    found = [(c.node.lineno, c.skip, c.shim) for c in located.shim_calls]
    assert found == [
        (7, 0, "pytorch_lightning"),
        (8, 0, "pytorch_lightning"),
        (9, 0, "lightning.pytorch"),
        (10, 1, "pytorch_lightning"),
        (11, 2, "pytorch_lightning"),
        (12, 1, "pytorch_lightning"),
    ]
    assert [c.node.lineno for c in located.calls] == [13]  # (Lightning's own: not the shim's)
    builder = next(c for c in located.shim_calls if c.skip == 2)
    assert ast.unparse(builder.namespace) == "args"  # type: ignore[arg-type]


def test_the_prefilter_passes_a_file_that_builds_the_shims_trainer() -> None:
    source = "from lightning_migrate.shim import Trainer\n\nTrainer(early_stop_callback=None)\n"
    assert may_need_migration(source, (TARGET,))
    assert migrate(source, TARGET).findings[0].code == "LM100"


# --- the shim's own answer, shared by the codemod ----------------------------------------------------------


def test_what_the_shim_takes_is_the_shims_table() -> None:
    assert frozenset(SHIM_TAKES) - frozenset(SHIM_REFUSES) == SHIM_KEEPS
    for keyword in SHIM_KEEPS:
        assert shim_takes(keyword, True)
        assert shim_takes(keyword, object())
    for keyword in SHIM_REFUSES:  # (`shim.removed.taken` raises for a true value only)
        assert shim_takes(keyword, False)
        assert shim_takes(keyword, 0)
        assert not shim_takes(keyword, True)
        assert not shim_takes(keyword, object())
    assert not shim_takes("early_stop_callback", None)
    assert not shim_takes("amp_level", "O2")


MACHINES = [Hardware(cuda=n) for n in (0, 1, 2, 4, 8)] + [Hardware(tpu_cores=8)]


@pytest.mark.parametrize(
    "flags",
    [
        {"gpus": 2, "distributed_backend": "dp"},
        {"gpus": 4, "accelerator": "dp"},
        {"gpus": 2, "accelerator": "ddp2"},
        {"gpus": 2, "distributed_backend": "ddp"},
        {"gpus": 2, "accelerator": "ddp_spawn"},
        {"tpu_cores": 8},
        {"distributed_backend": "dp"},
        {"num_processes": 2, "accelerator": "ddp_cpu"},
        {"accelerator": "gpu", "devices": 2, "strategy": "ddp"},
    ],
)
@pytest.mark.parametrize("installed", [r for r in RELEASES if r >= release("1.5")])
def test_unbuilt_is_the_shims_translation_refused_or_rejected_where_1_5_builds_it(
    flags: dict, installed: object
) -> None:
    """``unbuilt`` holds exactly where 1.5.10 builds the call and the shim's answer is a raise, or flags the
    release rejects."""
    from lightning_migrate.semantics import Rejected, interpret

    for machine in MACHINES:
        found = unbuilt(flags, installed, machine, "pytorch_lightning")  # type: ignore[arg-type]
        result = translate(flags, installed, machine, "pytorch_lightning")  # type: ignore[arg-type]
        outcome = result.outcome
        fails = isinstance(outcome, Rejected) or isinstance(
            interpret(outcome, installed, machine).outcome,
            Rejected,  # type: ignore[arg-type]
        )
        assert (found is not None) == (result.meaning is not None and fails), (flags, installed, machine)


def test_the_codemod_asks_the_shim_on_its_machines() -> None:
    found = shim_unbuilt({"gpus": 2, "distributed_backend": "dp"}, TARGET)
    assert found is not None
    assert found[1].meaning.strategy.name == "dp"
    assert shim_unbuilt({"gpus": 2, "distributed_backend": "dp"}, V19) is None  # (1.9 has DataParallel)
    assert shim_unbuilt({"distributed_backend": "dp"}, TARGET) is None  # (1 device: 1.5 built no dp)
    assert shim_unbuilt({"distributed_backend": "dp"}, TARGET, counted=True) is not None

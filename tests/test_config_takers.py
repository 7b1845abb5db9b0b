"""``--shim`` and Trainer configs with no ``_target_`` whose keys other code reads (issue 24, part 7): such a
config is not rewritten where it is, and with ``--shim`` it is handed to the runtime shim where every Trainer
call of the run that may take its flags (``project.takers``: a ``**`` mapping known only at run time, a read
of its keys in the call's arguments) builds the shim's Trainer, as written or once the run has written its
file; its keys stay as they are for the code that reads them. The golden project
``fixtures/projects/shim_takers/`` (``shim_takers.2.6.shim.expected/``: the files that change with
``--shim``) is migrated as one run; what the shim then builds from each config on 2.6 is what the planner's
rewrite of it builds. Where no call takes the config, or one does not build the shim, or the shim cannot
build what 1.5.10 built from it, the finding says why."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from project_runs import migrate_tree, migrated_copy, write_results

from lightning_migrate.frontends.yaml.frontend import (
    HANDED_COMPOSED,
    MERGED,
    NO_TAKER,
    NOT_TAKEN,
    TAKERS_BUILD,
    TAKERS_WRITE,
)
from lightning_migrate.frontends.yaml.read import load, read
from lightning_migrate.plan.callsite import CallSite, Run
from lightning_migrate.plan.planner import Rewrite, builds_the_same
from lightning_migrate.plan.trainers import NO_SUBCLASSES, RunSubclasses
from lightning_migrate.project import takers
from lightning_migrate.project.key_references import Taker
from lightning_migrate.project.star_imports import of_run as of_star_imports
from lightning_migrate.project.star_imports import star_modules
from lightning_migrate.project.subclasses import of_run
from lightning_migrate.project.takers import in_python
from lightning_migrate.report.findings import SHIM
from lightning_migrate.run.runner import FileResult
from lightning_migrate.semantics import Hardware, Rejected
from lightning_migrate.semantics.model import release
from lightning_migrate.semantics.translate import TRANSLATED, translate

FIXTURES = Path(__file__).parent.parent / "fixtures" / "projects"
PROJECT = FIXTURES / "shim_takers"
EXPECTED = FIXTURES / "shim_takers.2.6.shim.expected"
TARGET = release("2.6")
HANDED = ("configs/train.yaml", "configs/eval.yaml")
FIX = "fix: the runtime shim (the Trainer calls that take it build it)"


@pytest.fixture
def shimmed(tmp_path: Path) -> tuple[Path, dict[str, FileResult]]:
    return migrated_copy(PROJECT, tmp_path / "project", TARGET, shim=True)


def test_the_configs_are_handed_to_the_shim_their_keys_as_written(
    shimmed: tuple[Path, dict[str, FileResult]],
) -> None:
    root, results = shimmed
    for name in results:
        want = EXPECTED / name if (EXPECTED / name).is_file() else PROJECT / name
        assert (root / name).read_text() == want.read_text(), name
    for name in HANDED:
        found = results[name].findings
        assert found, name
        assert all(f.fixable for f in found), name
        hardware = [f for f in found if f.code in ("LM001", "LM002", "LM004")]
        assert hardware, name
        assert all(FIX in f.message for f in hardware), name
        assert TAKERS_BUILD in hardware[0].details
        assert any("src/config.py" in d for d in hardware[0].details)  # (the code that reads the keys)
        # the hardware flags stay as written for the code that reads them
        before = read(load((PROJECT / name).read_text())[0]["trainer"])
        after = read(load((root / name).read_text())[0]["trainer"])
        assert {k: v for k, v in after.flags.items() if k in TRANSLATED} == {
            k: v for k, v in before.flags.items() if k in TRANSLATED
        }
    assert any("train.py:13" in d for f in results["configs/train.yaml"].findings for d in f.details)
    assert any("evaluate.py:10" in d for f in results["configs/eval.yaml"].findings for d in f.details)


@pytest.mark.parametrize("name", HANDED)
@pytest.mark.parametrize("gpus", [0, 1, 2, 4])
def test_the_shim_builds_from_each_config_what_the_rewrite_builds(
    shimmed: tuple[Path, dict[str, FileResult]], name: str, gpus: int
) -> None:
    """The config as the run leaves it, through the shim's translation on 2.6 (the keys beside the hardware
    flags as written), builds what the planner's rewrite of the config as it was builds, machine by machine
    (or both fail)."""
    root, _ = shimmed
    old = dict(read(load((PROJECT / name).read_text())[0]["trainer"]).flags)
    new = dict(read(load((root / name).read_text())[0]["trainer"]).flags)
    rewrite = Run(TARGET).plan(CallSite(1, 1, old))  # type: ignore[arg-type]
    assert isinstance(rewrite, Rewrite)
    machine = Hardware(cuda=gpus)
    translated = translate(
        {k: v for k, v in new.items() if k in TRANSLATED}, TARGET, machine, "pytorch_lightning"
    )
    rewritten = {k: v for k, v in new.items() if k not in TRANSLATED}
    if isinstance(translated.outcome, Rejected):  # (too few GPUs: 1.5.10 raises too, as the rewrite does)
        assert (gpus < 2 and name == "configs/train.yaml") or gpus < 1
        return
    assert translated.how.startswith("built as Lightning 1.5.10")
    built = {**rewritten, **translated.outcome}
    assert builds_the_same(built, dict(rewrite.flags), TARGET)  # type: ignore[arg-type]


def test_a_handed_config_is_a_fixed_point(shimmed: tuple[Path, dict[str, FileResult]]) -> None:
    root, _ = shimmed
    for options in ({"shim": True}, {}, {"unsafe": True, "shim": True}):
        again = migrate_tree(root, TARGET, **options)
        assert not [name for name, r in again.items() if r.data is not None], options
        assert not [name for name, r in again.items() if r.findings], options


def test_without_shim_the_findings_name_it_as_their_remedy(tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    results = migrate_tree(root, TARGET)
    assert not [name for name, r in results.items() if r.data is not None]
    for name in HANDED:
        found = results[name].findings
        assert found, name
        assert all(not f.fixable for f in found), name
        assert all(f.remedy == SHIM and TAKERS_WRITE in f.details for f in found), name
        assert all("(not fixed: keys read elsewhere)" in f.message for f in found), name


def test_the_calls_that_take_a_config(tmp_path: Path) -> None:
    text = (
        "import hydra\nimport pytorch_lightning as pl\nfrom lightning_migrate import shim\n"
        "def f(cfg, kw):\n"
        "    pl.Trainer(**cfg.trainer)\n"
        "    pl.Trainer(gpus=cfg.trainer.gpus, max_epochs=1)\n"
        "    pl.Trainer(**{'max_epochs': 1})\n"
        "    pl.Trainer(max_epochs=cfg.trainer.max_epochs)\n"  # (a key no rewrite changes: not one)
        "    shim.Trainer(**kw)\n"
        "    hydra.utils.instantiate(cfg.trainer, logger=False)\n"
        "    cfg.trainer.gpus\n"
    )
    found = in_python(tmp_path / "x.py", text)
    assert [(t.line, t.unpacks, t.sections, t.built, t.instantiates) for t in found] == [
        (5, True, (), False, False),
        (6, False, ("trainer",), False, False),
        (9, True, (), True, False),
        (10, False, ("trainer",), False, True),
    ]


def _project(root: Path, files: dict[str, str]) -> dict[str, FileResult]:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return migrate_tree(root, TARGET, shim=True)


CONFIG = "trainer:\n  gpus: 2\n  accelerator: ddp\n"
READS = "def distributed(cfg):\n    return cfg.trainer.accelerator == 'ddp'\n"  # (a read no rewrite follows)


def test_a_config_no_call_of_the_run_takes_says_why(tmp_path: Path) -> None:
    """The Trainer is built from the config outside the run (a library's code): no rewrite can hand it on."""
    results = _project(tmp_path, {"conf.yaml": CONFIG, "reads.py": READS})
    found = results["conf.yaml"].findings
    assert found
    assert all(not f.fixable and NO_TAKER in f.details for f in found)
    assert results["conf.yaml"].data is None


def test_a_call_that_does_not_build_the_shim_is_named(tmp_path: Path) -> None:
    """`instantiate(cfg.trainer)` builds what the config's `_target_` names (here none of its own)."""
    calls = "import hydra\n\ndef build(cfg):\n    return hydra.utils.instantiate(cfg.trainer, logger=False)\n"
    results = _project(tmp_path, {"conf.yaml": CONFIG, "reads.py": READS, "build.py": calls})
    found = results["conf.yaml"].findings
    assert found
    assert all(not f.fixable and NOT_TAKEN in f.details for f in found)
    assert any("build.py:4 (`hydra.utils.instantiate(cfg.trainer" in d for d in found[0].details)
    assert results["conf.yaml"].data is None


def test_a_strategy_the_target_lacks_is_not_handed_to_the_shim(tmp_path: Path) -> None:
    """1.5.10 builds DataParallel from `distributed_backend: dp` (with the GPUs a call adds beside it); 2.x
    has no such strategy, so the shim would not build what 1.5.10 built: the finding says so."""
    config = "trainer:\n  num_gpus: 4\n  distributed_backend: dp\n"
    script = (
        "import pytorch_lightning as pl\n\ndef main(cfg):\n"
        "    return pl.Trainer(\n"
        "        gpus=cfg.trainer.num_gpus, distributed_backend=cfg.trainer.distributed_backend\n"
        "    )\n"
    )
    results = _project(tmp_path, {"conf.yaml": config, "train.py": script})
    (finding,) = results["conf.yaml"].findings
    assert not finding.fixable
    assert any("cannot build the dp strategy that Lightning 1.5.10 builds" in d for d in finding.details)
    assert results["conf.yaml"].data is None
    # and so once the call builds the shim's Trainer (the run wrote it): still reported, with why
    write_results(tmp_path, results)
    assert "lightning_migrate.shim.Trainer(" in (tmp_path / "train.py").read_text()
    (again,) = migrate_tree(tmp_path, TARGET, shim=True)["conf.yaml"].findings
    assert not again.fixable
    assert any("cannot build the dp strategy" in d for d in again.details)


def test_a_key_beside_the_hardware_flags_that_code_reads_is_kept(tmp_path: Path) -> None:
    """A key the fix would drop (`weights_summary`, removed in 1.7) that code reads stays, reported."""
    config = "trainer:\n  gpus: 1\n  weights_summary: top\n"
    script = (
        "import pytorch_lightning as pl\n\ndef main(cfg):\n"
        "    return pl.Trainer(gpus=cfg.trainer.gpus, weights_summary=cfg.trainer.weights_summary)\n"
    )
    results = _project(tmp_path, {"conf.yaml": config, "train.py": script})
    kept = [f for f in results["conf.yaml"].findings if "weights_summary" in f.message]
    assert kept
    assert all(not f.fixable and "(not fixed: keys read elsewhere)" in f.message for f in kept)
    assert "weights_summary: top" in (tmp_path / "conf.yaml").read_text()


def test_a_config_merged_with_another_is_handed_with_it(tmp_path: Path) -> None:
    """A group file that extends another (`defaults: [default]`) is merged over it, which the run may
    rewrite: it is handed on where its base, taken by the same call, is handed too, so that the composition
    gives the shim's Trainer the hardware flags it gave Lightning's, as written (`_handed_composed`; more in
    tests/test_composed_shim.py)."""
    script = (
        "import hydra\nimport pytorch_lightning as pl\n\n\ndef create_trainer(config):\n    kwargs = {}\n"
        "    if config.trainer.gpus > 1:\n        kwargs['accelerator'] = 'ddp'\n"
        "    kwargs.update(config.trainer)\n    return pl.Trainer(logger=False, **kwargs)\n\n\n"
        "@hydra.main(config_path='configs', config_name='config')\ndef main(config):\n"
        "    create_trainer(config)\n"
    )
    files = {
        "configs/trainer/default.yaml": "gpus: 1\nmax_epochs: 3\n",
        "configs/trainer/debug.yaml": "defaults:\n  - default\n\ngpus: 2\n",
        "configs/trainer/full.yaml": "_target_: pytorch_lightning.Trainer\ngpus: 0\n",
        "configs/config.yaml": "defaults:\n  - trainer: default\n",
        "train.py": script,
    }
    results = _project(tmp_path, files)
    (debug,) = results["configs/trainer/debug.yaml"].findings
    assert debug.fixable
    assert FIX in debug.message
    assert HANDED_COMPOSED in debug.details
    assert MERGED not in debug.details
    assert results["configs/trainer/debug.yaml"].data is None  # (its keys as they are)
    (default,) = results["configs/trainer/default.yaml"].findings
    assert default.fixable
    assert FIX in default.message
    assert results["configs/trainer/default.yaml"].data is None  # (nothing beside its flags to write)


# --- the takers' pass tells the files without a call from their text (`takers._may_hold_taker`) -----------

ROOT = Path(__file__).parent.parent
PYTHON_FILES = sorted(ROOT.glob("fixtures/**/*.py")) + sorted(ROOT.glob("examples/**/*.py"))


def _parsed(path: Path, text: str, subclasses: RunSubclasses = NO_SUBCLASSES) -> list[Taker]:
    """``in_python`` without its text test: every file parsed and its scopes read."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(takers, "_may_hold_taker", lambda *_: True)
        return in_python(path, text, subclasses)


def test_no_fixture_or_example_loses_a_call_to_the_text_test() -> None:
    skipped = 0
    for path in PYTHON_FILES:
        text = path.read_text(encoding="utf-8")
        assert in_python(path, text) == _parsed(path, text), path
        skipped += not takers._may_hold_taker(path, text, NO_SUBCLASSES)
    assert skipped >= 10  # (the test is not vacuous: some files are told apart without a parse)


TAKING = [
    "import pytorch_lightning as pl\npl.Trainer(**cfg)\n",
    "from pytorch_lightning import Trainer as T\nT(gpus=cfg.trainer.gpus)\n",
    "import pytorch_lightning as pl\nfrom functools import partial\n"
    "make = partial(pl.Trainer, max_epochs=1, **kw)\n",
    "from pytorch_lightning import Trainer\nTrainer.from_argparse_args(args, max_epochs=1, **kw)\n",
    "import pytorch_lightning as pl\nclass Mine(pl.Trainer):\n    pass\nMine(**cfg.trainer)\n",
    "from lightning_migrate.shim import Trainer as Shimmed\nShimmed(**kw)\n",
    "from hydra.utils import instantiate as build\nbuild(cfg.trainer)\n",
    "from hydra import utils\nutils.call(cfg['trainer'])\n",
    "import pytorch_lightning as pl\npl.\\\n    Trainer (\n    **cfg)\n",
    "import pytorch_lightning as \uff50l\n\uff50l.\uff34rainer(**cfg)\n",  # (fullwidth: NFKC names)
    # (the leading positional argument that is not a flag does not hide the first keyword)
    "import pytorch_lightning as pl\nfrom functools import partial\nmake = partial(pl.Trainer, **kw)\n",
    "from pytorch_lightning import Trainer\nTrainer.from_argparse_args(args, **cfg.trainer)\n",
]


@pytest.mark.parametrize("text", TAKING)
def test_a_call_that_takes_a_config_is_found_however_it_is_written(tmp_path: Path, text: str) -> None:
    found = in_python(tmp_path / "x.py", text)
    assert found, text
    assert found == _parsed(tmp_path / "x.py", text)


def test_a_call_of_a_subclass_the_run_defines_elsewhere_is_found(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text("import pytorch_lightning as pl\nclass Mine(pl.Trainer):\n    pass\n")
    text = "from mine import Mine\nMine(**cfg)\n"
    (tmp_path / "train.py").write_text(text)
    subclasses = of_run([(tmp_path / "mine.py", (tmp_path / "mine.py").read_text())])
    assert in_python(tmp_path / "train.py", text) == []  # (without the run's subclasses: no Trainer call)
    found = in_python(tmp_path / "train.py", text, subclasses)
    assert [t.line for t in found] == [2]
    assert found == _parsed(tmp_path / "train.py", text, subclasses)


def test_a_name_a_star_import_of_the_run_binds_is_resolved(tmp_path: Path) -> None:
    """``Maker`` is Lightning's Trainer by a star import of the project's module, which the text cannot
    tell: the file is parsed."""
    (tmp_path / "common.py").write_text("from pytorch_lightning import Trainer as Maker\n")
    text = "from common import *\nMaker(**cfg)\n"
    (tmp_path / "train.py").write_text(text)
    python = [tmp_path / "common.py", tmp_path / "train.py"]
    stars = [(path, star_modules(path.read_text())) for path in python]
    subclasses = replace(NO_SUBCLASSES, starred=of_star_imports(stars, python, NO_SUBCLASSES))
    assert subclasses.starred_in(tmp_path / "train.py")
    found = in_python(tmp_path / "train.py", text, subclasses)
    assert [(t.line, t.unpacks) for t in found] == [(2, True)]
    assert found == _parsed(tmp_path / "train.py", text, subclasses)


@pytest.mark.parametrize(
    "text",
    [
        "# a Trainer is built elsewhere\nx = 1\n",
        "from pytorch_lightning import Trainer\n",
        "def f(trainer: 'Trainer') -> None:\n    trainer.fit(**kw)\n",
        "model = build_model(**cfg)  # not a Trainer, nor instantiate\n",
    ],
)
def test_a_file_without_a_call_is_not_parsed(tmp_path: Path, text: str) -> None:
    assert not takers._may_hold_taker(tmp_path / "x.py", text, NO_SUBCLASSES)
    assert in_python(tmp_path / "x.py", text) == _parsed(tmp_path / "x.py", text) == []

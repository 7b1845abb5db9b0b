"""``--shim`` and a Hydra group file that extends another (``defaults: [default]``) whose rewrite cannot be
written (code elsewhere reads its keys, a removed key no fix here rewrites: issue 24, part 7): it is handed to
the runtime shim where every composition of it builds the shim's Trainer and gives it the hardware flags it
gave Lightning's, as written. Two golden projects, each migrated as one run and composed by Hydra before and
after: ``fixtures/projects/shim_extenders/`` (its compositions name Lightning's Trainer: the file gets the
shim's ``_target_`` of its own; one the shim cannot build is not handed, and says why) and
``shim_extenders_takers/`` (no ``_target_``: the ``Trainer(**config.trainer)`` that takes the group builds
the shim's Trainer once the run has written it). ``<name>.2.6.shim.expected/``: the files that change."""

from __future__ import annotations

from pathlib import Path

import pytest
from project_runs import migrate_tree, migrated_copy, trainer_node

from lightning_migrate.frontends.yaml.frontend import (
    HANDED_COMPOSED,
    SHIM_HANDS,
    UNCOMPOSED_SHIM,
)
from lightning_migrate.frontends.yaml.read import load, read
from lightning_migrate.plan.callsite import CallSite, Run
from lightning_migrate.plan.planner import Rewrite
from lightning_migrate.report.findings import SHIM
from lightning_migrate.run.runner import FileResult
from lightning_migrate.semantics import Hardware, Rejected, interpret
from lightning_migrate.semantics.model import release
from lightning_migrate.semantics.translate import REFERENCE as SHIM_REFERENCE
from lightning_migrate.semantics.translate import TRANSLATED, translate

FIXTURES = Path(__file__).parent.parent / "fixtures" / "projects"
TARGET = release("2.6")
PROJECTS = ("shim_extenders", "shim_extenders_takers")
DEBUG = "configs/trainer/debug.yaml"


@pytest.fixture(params=PROJECTS)
def shimmed(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path, dict[str, FileResult]]:
    name: str = request.param
    root, results = migrated_copy(FIXTURES / name, tmp_path / name, TARGET, shim=True)
    return name, root, results


def test_the_extending_file_is_handed_to_the_shim(shimmed: tuple[str, Path, dict[str, FileResult]]) -> None:
    name, root, results = shimmed
    expected = FIXTURES / f"{name}.2.6.shim.expected"
    for file in results:
        want = expected / file if (expected / file).is_file() else FIXTURES / name / file
        assert (root / file).read_text() == want.read_text(), file
    found = results[DEBUG].findings
    assert found
    assert all(f.fixable for f in found)
    handed = [f for f in found if HANDED_COMPOSED in f.details]
    assert {f.code for f in handed} == {"LM004", "LM007"}  # (`gpus`, read elsewhere; `weights_summary`)
    fix = "`_target_: lightning_migrate.shim.Trainer`" if name == "shim_extenders" else "Trainer calls that"
    assert all(fix in f.message for f in handed)
    # the hardware flags as written, for the code that reads them; the removed key the shim takes, kept
    after = read(load((root / DEBUG).read_text())[0]).flags
    assert after["gpus"] == 2
    assert (root / DEBUG).read_text().count("weights_summary: full") == 1


def test_a_file_the_shim_cannot_build_is_not_handed_and_says_why(
    shimmed: tuple[str, Path, dict[str, FileResult]],
) -> None:
    """dp_debug.yaml extends dp.yaml, whose DataParallel 2.x lacks: the shim cannot build it either."""
    name, root, results = shimmed
    if name != "shim_extenders":
        pytest.skip("one project has such a file")
    (finding,) = [f for f in results["configs/trainer/dp_debug.yaml"].findings if f.code == "LM007"]
    assert not finding.fixable
    assert any("cannot build the dp strategy" in d for d in finding.details)
    assert (root / "configs/trainer/dp_debug.yaml").read_text() == (
        FIXTURES / name / "configs/trainer/dp_debug.yaml"
    ).read_text()


def test_a_file_whose_base_the_run_rewrites_is_handed_with_the_base_as_written(
    shimmed: tuple[str, Path, dict[str, FileResult]],
) -> None:
    """cpu_debug.yaml extends cpu.yaml, which the run rewrites in the target's form: the composition gives
    the shim's Trainer those flags (passed on as written) and the removed key it takes."""
    name, root, results = shimmed
    if name != "shim_extenders":
        pytest.skip("one project has such a file")
    assert "_target_: lightning_migrate.shim.Trainer" in (root / "configs/trainer/cpu_debug.yaml").read_text()
    assert all(f.fixable for f in results["configs/trainer/cpu_debug.yaml"].findings)


def test_a_handed_file_is_a_fixed_point(shimmed: tuple[str, Path, dict[str, FileResult]]) -> None:
    _, root, _ = shimmed
    again = migrate_tree(root, TARGET, shim=True)
    assert not [file for file, r in again.items() if r.data is not None]
    assert not again[DEBUG].findings
    assert not again.get("configs/trainer/cpu_debug.yaml", again[DEBUG]).findings


@pytest.mark.parametrize("name", PROJECTS)
def test_without_shim_its_findings_name_it_as_their_remedy(name: str, tmp_path: Path) -> None:
    root, results = migrated_copy(FIXTURES / name, tmp_path / name, TARGET)
    left = [f for f in results[DEBUG].findings if not f.fixable]
    assert {f.code for f in left} == {"LM004", "LM007"}
    assert all(f.remedy == SHIM and SHIM_HANDS in f.details for f in left)
    assert (
        read(load((root / DEBUG).read_text())[0]).flags["gpus"] == 2
    )  # (not rewritten: keys read elsewhere)


@pytest.mark.parametrize("gpus", [0, 2, 4])
def test_each_composition_builds_through_the_shim_what_the_rewrite_builds(
    shimmed: tuple[str, Path, dict[str, FileResult]], gpus: int
) -> None:
    """Composed by Hydra before and after the run (`trainer=debug`): the Trainer node builds the shim's
    Trainer (its `_target_`, or the call that takes it), its hardware flags as written, and the shim's
    translation of them on 2.6 builds what the planner's rewrite of the flags before builds (or both fail:
    too few GPUs)."""
    pytest.importorskip("hydra")
    name, root, _ = shimmed
    before, after = (trainer_node(folder, ["trainer=debug"]) for folder in (FIXTURES / name, root))
    if name == "shim_extenders":
        assert before.pop("_target_") == "pytorch_lightning.Trainer"
        assert after.pop("_target_") == "lightning_migrate.shim.Trainer"
    else:
        assert "lightning_migrate.shim.Trainer(**config.trainer)" in (root / "train.py").read_text()
    assert {k: v for k, v in after.items() if k in TRANSLATED} == {
        k: v for k, v in before.items() if k in TRANSLATED
    }
    old = {k: v for k, v in before.items() if k in TRANSLATED}
    # (the shim's promise: the meaning Lightning 1.5.10 gives them, where `accelerator: gpu` is CUDA)
    rewrite = Run(TARGET, source=SHIM_REFERENCE).plan(CallSite(1, 1, old))  # type: ignore[arg-type]
    assert isinstance(rewrite, Rewrite)
    translated = translate(
        {k: v for k, v in after.items() if k in TRANSLATED}, TARGET, Hardware(cuda=gpus), "pytorch_lightning"
    )
    if isinstance(translated.outcome, Rejected):
        assert gpus < 2  # (1.5.10 raises for 2 GPUs on a machine with fewer, as the rewrite does)
        return
    machine = Hardware(cuda=gpus)  # (on this machine: `accelerator: gpu` is CUDA here, MPS on a Mac)
    built = interpret(dict(translated.outcome), TARGET, machine).outcome
    assert built == interpret(dict(rewrite.flags), TARGET, machine).outcome
    assert after.get("weights_summary") == "full"  # (the shim's Trainer takes it: `shim/removed.py`)


@pytest.mark.parametrize("shim", [True, False])
def test_an_experiment_hydra_cannot_compose_says_why_the_shim_does_not_take_it(
    tmp_path: Path, shim: bool
) -> None:
    """A config merged into the trainer config its defaults select, that no primary config composes (one
    given by `--config-dir` at run time): what its compositions give the Trainer is not known, so `--shim`
    does not hand it on, and says so."""
    experiment = tmp_path / "examples" / "search.yaml"
    experiment.parent.mkdir(parents=True)
    experiment.write_text("defaults:\n  - _self_\n\ntrainer:\n  gpus: 4\n")
    results = migrate_tree(tmp_path, TARGET, shim=shim)
    (finding,) = results["examples/search.yaml"].findings
    assert finding.code == "LM101"
    assert not finding.fixable
    assert (UNCOMPOSED_SHIM in finding.details) == shim

"""``--shim`` and Trainer configs whose flags cannot be rewritten where they are (issue 24, part 7): a Hydra
config that builds Lightning's Trainer itself (its own ``_target_``) but whose keys code elsewhere reads
(``cfg.trainer.gpus``) becomes ``_target_: lightning_migrate.shim.Trainer``, the hardware flags as written
for that code, the keys beside them in the target's form. The golden project ``fixtures/projects/hydra_shim/``
(``hydra_shim.2.6.shim.expected/``: the files that change with ``--shim``) is migrated as one run, composed
by Hydra before and after, and every composition must build in 2.6, through the shim, what the planner's
rewrite builds."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from project_runs import migrate_tree, migrated_copy, trainer_node

from lightning_migrate.frontends.yaml.read import configs, load, read
from lightning_migrate.plan.callsite import CallSite, Run
from lightning_migrate.plan.planner import PLANNED_FLAGS, Rewrite, builds_the_same
from lightning_migrate.plan.trainers import SHIM_TRAINERS, shim_trainer
from lightning_migrate.report.findings import SHIM
from lightning_migrate.run.options import Options
from lightning_migrate.run.runner import FileResult, process_all
from lightning_migrate.semantics import Hardware, Rejected
from lightning_migrate.semantics.model import release
from lightning_migrate.semantics.signature import accepts
from lightning_migrate.semantics.translate import TRANSLATED, translate

FIXTURES = Path(__file__).parent.parent / "fixtures" / "projects"
PROJECT = FIXTURES / "hydra_shim"
EXPECTED = FIXTURES / "hydra_shim.2.6.shim.expected"
TARGET = release("2.6")
SHIMMED = ("configs/trainer/default.yaml", "configs/trainer/ddp.yaml", "configs/experiment/cpu.yaml")
KEPT = "configs/trainer/sampler.yaml"  # a key beside the hardware flags the rewrite changes is read elsewhere
# a group file that extends `default.yaml` (no `_target_` of its own): built by the shim's Trainer through its
# base once the run hands the base to the shim, so nothing to report in that run already (one run reaches the
# fixed point); reported where the run does not write its base
EXTENDS = "configs/trainer/gpu.yaml"
# the project's runs: (overrides of `config.yaml`, the machine they are for)
RUNS = (([], Hardware()), (["trainer=ddp"], Hardware(cuda=4)), (["trainer=sampler"], Hardware(cuda=1)))
RUNS += ((["+experiment=cpu"], Hardware()), (["trainer=gpu"], Hardware(cuda=1)))


@pytest.fixture
def shimmed(tmp_path: Path) -> tuple[Path, dict[str, FileResult]]:
    return migrated_copy(PROJECT, tmp_path / "project", TARGET, shim=True)


def test_the_configs_build_the_shims_trainer(shimmed: tuple[Path, dict[str, FileResult]]) -> None:
    root, results = shimmed
    for name in results:
        want = EXPECTED / name if (EXPECTED / name).is_file() else PROJECT / name
        assert (root / name).read_text() == want.read_text(), name
    for name in SHIMMED:
        found = results[name].findings
        assert found, name
        assert all(f.fixable for f in found), name
        handed = [f for f in found if f.code in ("LM001", "LM004")]
        assert handed, name
        for finding in handed:
            assert "fix: the runtime shim (`_target_: lightning_migrate.shim.Trainer`)" in finding.message
            assert (
                "the shim's Trainer migrates the hardware flags it gets when it is built" in finding.details
            )
    # what the shim cannot take is left, and said so, as without --shim
    kept = results[KEPT].findings
    assert kept
    assert all("(not fixed: keys read elsewhere)" in f.message and not f.fixable for f in kept)
    assert "lightning_migrate" not in (root / KEPT).read_text()
    assert results[EXTENDS].findings == []
    assert results[EXTENDS].data is None


def test_a_shim_config_is_a_fixed_point_with_nothing_to_report(
    shimmed: tuple[Path, dict[str, FileResult]],
) -> None:
    root, _ = shimmed
    for options in ({"shim": True}, {}, {"unsafe": True}):
        again = migrate_tree(root, TARGET, **options)
        assert not [name for name, r in again.items() if r.data is not None], options
        assert {name for name, r in again.items() if r.findings} == {KEPT}, options


def test_a_file_extending_a_base_the_run_does_not_write_is_reported(tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    files = [root / EXTENDS, root / "train.py", root / "src" / "utils.py"]
    results = process_all(files, Options(TARGET, root=root, shim=True), jobs=1)
    (extending,) = [r for r in results if r.path == root / EXTENDS]
    assert extending.findings
    assert all("(not fixed: keys read elsewhere)" in f.message for f in extending.findings)


def test_without_shim_the_findings_name_it_as_their_remedy(tmp_path: Path) -> None:
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    results = migrate_tree(root, TARGET)
    for name in SHIMMED:
        handed = [f for f in results[name].findings if f.code in ("LM001", "LM004")]
        assert handed, name
        assert all(f.remedy == SHIM and "(not fixed: keys read elsewhere)" in f.message for f in handed), name
        assert any("`--shim` makes its `_target_` the runtime shim's Trainer" in d for d in handed[0].details)
    assert not [f for f in results[KEPT].findings if f.remedy == SHIM]
    # (the file extending a base that `--shim` hands to the shim: `--shim` is its remedy too)
    assert results[EXTENDS].findings
    assert all(f.remedy == SHIM for f in results[EXTENDS].findings)


def test_a_shim_target_is_a_trainer_config_whose_hardware_flags_are_the_shims(tmp_path: Path) -> None:
    path = tmp_path / "trainer.yaml"
    text = (
        "_target_: lightning_migrate.shim.lightning.Trainer\ngpus: 2\naccelerator: ddp\n"
        "amp_backend: native\nmax_epochs: 3\n"
    )
    path.write_text(text)
    (config,) = configs(load(text)[0], text, path)
    assert config.shimmed
    results = migrate_tree(tmp_path, TARGET)
    (finding,) = results["trainer.yaml"].findings  # the key the shim passes on, which 2.6 lacks
    assert (finding.code, finding.line, finding.fixable) == ("LM007", 4, False)
    assert "`amp_backend=`, which the runtime shim passes on" in finding.message
    assert shim_trainer("lightning.pytorch.trainer.Trainer") == "lightning_migrate.shim.lightning.Trainer"
    assert shim_trainer("pytorch_lightning.Trainer") == "lightning_migrate.shim.Trainer"
    assert set(SHIM_TRAINERS.values()) == {"pytorch_lightning", "lightning.pytorch"}


def test_a_shim_config_keeps_resume_from_checkpoint_which_the_shim_takes(tmp_path: Path) -> None:
    """2.0 removed `resume_from_checkpoint=`; the shim's Trainer takes it (`shim/resume.py`): no finding."""
    text = "_target_: lightning_migrate.shim.Trainer\ngpus: 2\nresume_from_checkpoint: last.ckpt\n"
    (tmp_path / "trainer.yaml").write_text(text)
    result = migrate_tree(tmp_path, TARGET)["trainer.yaml"]
    assert (result.findings, result.data) == ([], None)
    (tmp_path / "trainer.yaml").write_text(text.replace("lightning_migrate.shim", "pytorch_lightning"))
    found = migrate_tree(tmp_path, TARGET)["trainer.yaml"].findings
    assert any("resume_from_checkpoint" in f.message for f in found)


def test_the_shim_translates_what_the_codemod_plans() -> None:
    """The flags the YAML front end leaves to the shim are the ones the shim translates."""
    assert frozenset(PLANNED_FLAGS) == TRANSLATED


@pytest.mark.parametrize(
    ("overrides", "machine"), RUNS, ids=lambda r: " ".join(r) if isinstance(r, list) else ""
)
def test_every_composition_builds_through_the_shim_what_the_rewrite_builds(
    shimmed: tuple[Path, dict[str, FileResult]], overrides: list[str], machine: Hardware
) -> None:
    """Composed by Hydra before and after the run: the Trainer node names the shim's Trainer (or is left as
    it was), its hardware flags are as written, and the shim's translation of them on 2.6, with the keys
    beside them as written, builds what the planner's rewrite of the flags before builds."""
    pytest.importorskip("hydra")
    root, _ = shimmed
    before, after = trainer_node(PROJECT, overrides), trainer_node(root, overrides)
    if after["_target_"] == before["_target_"]:  # (the config the shim cannot take: as it was)
        assert overrides == ["trainer=sampler"]
        assert after == before
        return
    assert after["_target_"] == "lightning_migrate.shim.Trainer"
    assert {k: v for k, v in after.items() if k in TRANSLATED} == {
        k: v for k, v in before.items() if k in TRANSLATED
    }
    old = dict(read(load(_yaml(before))[0]).flags)
    new = dict(read(load(_yaml(after))[0]).flags)
    assert all(accepts(k, TARGET) for k in new if k not in TRANSLATED)
    rewrite = Run(TARGET).plan(CallSite(1, 1, old))  # type: ignore[arg-type]
    assert isinstance(rewrite, Rewrite)
    translated = translate(
        {k: v for k, v in new.items() if k in TRANSLATED}, TARGET, machine, "pytorch_lightning"
    )
    assert not isinstance(translated.outcome, Rejected)
    built = {**{k: v for k, v in new.items() if k not in TRANSLATED}, **translated.outcome}
    assert builds_the_same(built, dict(rewrite.flags), TARGET)  # type: ignore[arg-type]


def _yaml(node: dict[str, Any]) -> str:
    from omegaconf import OmegaConf

    return OmegaConf.to_yaml(OmegaConf.create(node))


def test_a_config_handed_to_the_shim_hands_it_the_removed_keys_it_takes(tmp_path: Path) -> None:
    """A config `--shim` gives the shim's `_target_` keeps the removed keys the shim reads as 1.5 did
    (`shim/removed.py`: `weights_summary: full`, `progress_bar_refresh_rate: 10`), unreported; a key the shim
    cannot build (`stochastic_weight_avg: true` on 2.x) is reported, saying no tool can do it. Without
    `--shim`, the config builds Lightning's Trainer: each is reported."""
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    default = root / "configs" / "trainer" / "default.yaml"
    keys = "weights_summary: full\nprogress_bar_refresh_rate: 10\nstochastic_weight_avg: true\n"
    default.write_text(default.read_text().replace("weights_summary: null\n", keys))
    reported = {}
    for shim in (True, False):
        found = migrate_tree(root, TARGET, shim=shim)["configs/trainer/default.yaml"]
        # (`max_steps: null`: fixed)
        left = [f for f in found.findings if f.code == "LM007" and not f.fixable]
        reported[shim] = {f.message.partition("=")[0].strip("`") for f in left}
        (swa,) = [f for f in found.findings if "stochastic_weight_avg" in f.message]
        assert "no tool can do it" in swa.message
        assert not swa.fixable
        if shim:
            assert found.data is not None
            text = found.data.decode()
            assert "_target_: lightning_migrate.shim.Trainer" in text
            assert keys in text
    assert reported == {
        True: {"stochastic_weight_avg"},
        False: {"weights_summary", "progress_bar_refresh_rate", "stochastic_weight_avg"},
    }
    # (a shim config, as the next run reads it: the same)
    text = "_target_: lightning_migrate.shim.Trainer\ngpus: 2\n" + keys + "checkpoint_callback: false\n"
    (tmp_path / "trainer.yaml").write_text(text)
    result = migrate_tree(tmp_path, TARGET)["trainer.yaml"]
    assert [f.message.partition("=")[0] for f in result.findings] == ["`stochastic_weight_avg"]

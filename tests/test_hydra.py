"""A Hydra project composed by Hydra itself (``project.hydra``): the golden project of
``fixtures/hydra_project/`` (``project/`` migrated to ``project.<target>.expected/``, which holds the files
that change) is rewritten as a whole, and every composition its scripts and command lines make is composed
with Hydra before and after the rewrite: the Trainer must get, in the target, what it got before."""

from __future__ import annotations

import shlex
import shutil
import warnings
from pathlib import Path

import pytest
from cli_helpers import run
from test_fixtures import assert_flags_kept

from lightning_migrate.files import run_cache
from lightning_migrate.frontends.yaml.read import load, read
from lightning_migrate.project import hydra as hydra_project
from lightning_migrate.semantics.model import RELEASES, Value, release

pytest.importorskip("hydra")

FIXTURES = Path(__file__).parent.parent / "fixtures" / "hydra_project"
PROJECT = FIXTURES / "project"
TARGET = "2.6"
INCLUDE = ("--extend-include", "*.sh", "--extend-include", "*.md")
# the primary configs of the project's scripts, and the configs each takes from a group (the debug configs
# need a different rewrite under each primary: reported, not rewritten)
PRIMARIES = ("train", "evaluate")
SELECTED = ("experiment/four_gpus", "experiment/multi_node")
REPORTED = ("configs/debug/default.yaml", "configs/debug/two_gpus.yaml")


def migrated(tmp_path: Path) -> Path:
    copy = tmp_path / "project"
    shutil.copytree(PROJECT, copy)
    outcome = run(str(copy), "--target-version", TARGET, *INCLUDE)
    assert outcome.code in (0, 1), outcome.err
    return copy


@pytest.fixture(scope="module")
def copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project, migrated (once for the tests that only read it)."""
    return migrated(tmp_path_factory.mktemp("hydra"))


def trainer_flags(
    folder: Path, primary: str, overrides: list[str], configs: str = "configs"
) -> dict[str, Value] | None:
    """What Hydra composes for the Trainer (its modelled flags); None where Hydra cannot compose it."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from omegaconf import OmegaConf

    GlobalHydra.instance().clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with initialize_config_dir(config_dir=str(folder / configs), version_base=None):
                config = compose(primary, overrides)
        except Exception:
            return None
        finally:
            GlobalHydra.instance().clear()
    found = read(load(OmegaConf.to_yaml(config.trainer))[0])
    assert not found.unknown
    return dict(found.flags)  # type: ignore[arg-type]


def selections(primary: str) -> list[list[str]]:
    runs: list[list[str]] = [[]]
    for selected in SELECTED:
        group, name = selected.split("/")
        plain = [f"{group}={name}"]
        runs.append(plain if trainer_flags(PROJECT, primary, plain) is not None else [f"+{group}={name}"])
    return runs


def command_lines(folder: Path) -> list[list[str]]:
    """The overrides of every `python train.py ...` of the project's scripts and README, in order."""
    found = []
    for name in ("run_experiments.sh", "README.md"):
        for line in (folder / name).read_text().splitlines():
            if line.startswith("python train.py"):
                found.append(shlex.split(line)[2:])
    return found


def test_the_project_is_migrated_as_expected(copy: Path) -> None:
    expected = FIXTURES / f"project.{TARGET}.expected"
    for path in sorted(p for p in PROJECT.rglob("*") if p.is_file()):
        relative = path.relative_to(PROJECT)
        want = expected / relative if (expected / relative).exists() else path
        assert (copy / relative).read_text() == want.read_text(), relative


def test_every_composition_gives_the_trainer_what_it_got(copy: Path) -> None:
    target = release(TARGET)
    checked = 0
    runs = [(p, o) for p in PRIMARIES for o in selections(p)]
    changed = [(a, b) for a, b in zip(command_lines(PROJECT), command_lines(copy)) if a != b]
    assert len(changed) == 4
    runs += [("train", o) for o in changed]  # type: ignore[misc]
    for primary, overrides in runs:
        before_words, after_words = overrides if isinstance(overrides, tuple) else (overrides, overrides)
        before = trainer_flags(PROJECT, primary, list(before_words))
        after = trainer_flags(copy, primary, list(after_words))
        label = f"{primary} {' '.join(after_words)}"
        if before is None:  # (a group the project lacks: Hydra refuses it before and after)
            assert after is None, label
            continue
        assert after is not None, label
        if before != after:
            sources = [r for r in RELEASES if r < target]
            assert_flags_kept(before, after, target, sources, label=label)
            checked += 1
    assert checked >= 8
    for reported in REPORTED:
        assert (copy / reported).read_text() == (PROJECT / reported).read_text()


def test_a_second_run_changes_nothing(copy: Path) -> None:
    again = run(str(copy), "--diff", "--target-version", TARGET, *INCLUDE)
    assert again.out == ""


def test_a_config_in_compositions_that_need_different_rewrites_is_reported() -> None:
    outcome = run(
        str(PROJECT / "configs" / "debug" / "two_gpus.yaml"),
        "--check",
        "--show-details",
        "--target-version",
        TARGET,
    )
    assert "compositions that need different rewrites" in outcome.out
    assert "`evaluate.yaml +debug=two_gpus`, `train.yaml +debug=two_gpus`" in outcome.out


def test_an_override_hydra_cannot_compose_is_reported_with_the_reason() -> None:
    outcome = run(
        str(PROJECT / "run_experiments.sh"), "--check", "--show-details", "--target-version", TARGET, *INCLUDE
    )
    assert "Hydra cannot compose `train.yaml experiment=five_gpus trainer.gpus=1`: In 'train'" in outcome.out


def test_without_hydra_the_configs_it_composes_are_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(hydra_project, "available", lambda: False)
    copy = migrated(tmp_path)
    experiment = "configs/experiment/four_gpus.yaml"
    assert (copy / experiment).read_text() == (PROJECT / experiment).read_text()
    assert (copy / "README.md").read_text() == (PROJECT / "README.md").read_text()
    outcome = run(str(copy / experiment), "--check", "--show-details", "--target-version", TARGET)
    assert hydra_project.INSTALL in outcome.out


@pytest.mark.parametrize(
    ("decorator", "call", "expected"),
    [
        ('@hydra.main(config_path="../configs", config_name="train.yaml")', "Trainer(**c.trainer)", "train"),
        ('@hydra.main(config_name="train", config_path="../configs")', "instantiate(c.pl_trainer)", "train"),
        ('@main("../configs", "train")', "pl.Trainer(**config.trainer, logger=False)", "train"),
    ],
)
def test_a_script_names_its_primary_config_and_the_trainer_node(
    tmp_path: Path, decorator: str, call: str, expected: str
) -> None:
    (tmp_path / "configs").mkdir()
    script = tmp_path / "src" / "run.py"
    script.parent.mkdir()
    script.write_text(f"import hydra\n\n{decorator}\ndef main(cfg):\n    trainer = {call}\n")
    primary = hydra_project.script_primary(script)
    assert primary is not None
    assert primary.config_dir == (tmp_path / "configs").resolve()
    assert primary.config_name == expected
    assert primary.key == ("pl_trainer" if "pl_trainer" in call else "trainer")


def test_a_script_without_a_config_name_or_folder_has_no_primary(tmp_path: Path) -> None:
    script = tmp_path / "run.py"
    script.write_text('import hydra\n\n@hydra.main(config_path="missing", config_name="x")\ndef f(c): ...\n')
    assert hydra_project.script_primary(script) is None
    script.write_text("import hydra\n\n@hydra.main()\ndef f(c): ...\n")
    assert hydra_project.script_primary(script) is None


def test_a_group_no_primary_has_is_selected_with_a_plus_in_each() -> None:
    debug = PROJECT / "configs" / "debug" / "default.yaml"
    names = sorted(c.name for c in hydra_project.compositions_of(debug))
    assert names == ["evaluate.yaml +debug=default", "train.yaml +debug=default"]
    experiment = PROJECT / "configs" / "experiment" / "four_gpus.yaml"
    names = sorted(c.name for c in hydra_project.compositions_of(experiment))
    assert names == ["train.yaml experiment=four_gpus"]  # (`evaluate.yaml` has no experiment)


def test_a_config_folder_that_names_a_package_is_not_composed(tmp_path: Path) -> None:
    shutil.copytree(PROJECT / "configs", tmp_path / "configs")
    (tmp_path / "configs" / "hydra.yaml").write_text("hydra:\n  searchpath:\n    - pkg://some.package\n")
    primary = hydra_project.Primary((tmp_path / "configs").resolve(), "train")
    with pytest.raises(hydra_project.ComposeError, match="pkg://"):
        hydra_project.trainer_node(hydra_project.Composition(primary))


def test_a_rewrite_that_composes_otherwise_is_reported(tmp_path: Path) -> None:
    """The trainer config below the experiment is left as it is (``# noqa``): the experiment's rewrite, made
    over that config as migrated, composes into something else, so it is reported, not written."""
    shutil.copytree(PROJECT, tmp_path / "project")
    default = tmp_path / "project" / "configs" / "trainer" / "default.yaml"
    default.write_text(default.read_text().replace("gpus: 0", "gpus: 0  # noqa: LM004"))
    experiment = tmp_path / "project" / "configs" / "experiment" / "four_gpus.yaml"
    before = experiment.read_text()
    outcome = run(str(experiment), str(default), "--show-details", "--target-version", TARGET)
    assert outcome.code == 1
    assert experiment.read_text() == before
    assert "composed by Hydra after the rewrite, `train.yaml experiment=four_gpus` would give" in outcome.out


# --- a command line left as written over a rewritten trainer config -----------------------------------------

LEFT = "python train.py trainer.gpus=4 +trainer.num_nodes=2"  # LM102 (1.4 and 1.6 differ): left as written


def run_lines(folder: Path) -> list[list[str]]:
    """The overrides of every `python train.py ...` of the project's launch script, in order."""
    return [
        shlex.split(x)[2:] for x in (folder / "run_experiments.sh").read_text().splitlines() if "train" in x
    ]


def migrated_to(tmp_path: Path, target: str, launcher: str | None = None) -> tuple[Path, str]:
    copy = tmp_path / "project"
    shutil.copytree(PROJECT, copy)
    if launcher is not None:
        (copy / "run_experiments.sh").write_text(launcher)
    original = tmp_path / "original"
    shutil.copytree(copy, original)
    outcome = run(str(copy), "--show-details", "--target-version", target, *INCLUDE)
    assert outcome.code == 1, outcome.err
    return copy, outcome.out


def test_a_config_below_a_command_line_left_as_written_is_reported_for_1_9(tmp_path: Path) -> None:
    """At 1.9 the left line runs (`gpus` is deprecated); over `accelerator: cpu` Hydra would refuse its
    `trainer.gpus=4` (the key is gone): the trainer config is left, reported with the line named, and every
    command line of the launcher gives the Trainer in 1.9 what it gave before."""
    copy, out = migrated_to(tmp_path, "1.9")
    default = "configs/trainer/default.yaml"
    assert (copy / default).read_text() == (PROJECT / default).read_text()
    assert f"{default}:4:1: LM101 `gpus` is not migrated here; write the flags by hand" in out
    assert "\n    the rewrite would change what the Hydra command line" in out  # (why, under it)
    assert "run_experiments.sh:4 (its overrides left as written" in out
    assert run_lines(copy)[1] == shlex.split(LEFT)[2:]
    checked = 0
    for before_words, after_words in zip(run_lines(PROJECT), run_lines(copy)):
        before = trainer_flags(PROJECT, "train", before_words)
        after = trainer_flags(copy, "train", after_words)
        if before is None:
            assert after is None, after_words
            continue
        assert after is not None, after_words
        if before_words == after_words:  # (left as written: the configs below it give what they gave)
            assert after == before, after_words
        else:
            assert_flags_kept(before, after, release("1.9"), [r for r in RELEASES if r < release("1.9")])
        checked += 1
    assert checked == 4


def test_the_silent_case_a_plus_plus_override_over_accelerator_cpu_is_reported(tmp_path: Path) -> None:
    """`++trainer.gpus=4` composes over any trainer config: over `accelerator: cpu` it would build, in 1.9, a
    CPU Trainer, silently. The config is left and reported."""
    launcher = "#!/bin/bash\npython train.py ++trainer.gpus=4 +trainer.num_nodes=2\n"
    copy, out = migrated_to(tmp_path, "1.9", launcher)
    default = "configs/trainer/default.yaml"
    assert (copy / default).read_text() == (PROJECT / default).read_text()
    assert "run_experiments.sh:2 (its overrides left as written" in out
    words = ["++trainer.gpus=4", "+trainer.num_nodes=2"]
    assert trainer_flags(copy, "train", words) == trainer_flags(PROJECT, "train", words)


def test_at_2_6_the_config_is_rewritten_as_the_left_line_fails_loudly_either_way(tmp_path: Path) -> None:
    """2.x rejects `gpus`: the left line fails before the rewrite (Lightning's TypeError) and after it
    (Hydra: no `trainer.gpus` to override), so the config below it is rewritten, and the line is reported."""
    copy, out = migrated_to(tmp_path, "2.6")
    default = "configs/trainer/default.yaml"
    expected = FIXTURES / f"project.{TARGET}.expected" / default
    assert (copy / default).read_text() == expected.read_text()
    assert "run_experiments.sh:4:17: LM102" in out
    assert run_lines(copy)[1] == shlex.split(LEFT)[2:]
    assert trainer_flags(PROJECT, "train", shlex.split(LEFT)[2:]) == {"gpus": 4, "num_nodes": 2}
    assert trainer_flags(copy, "train", shlex.split(LEFT)[2:]) is None
    launcher = "#!/bin/bash\npython train.py ++trainer.gpus=4 +trainer.num_nodes=2\n"
    copy, _ = migrated_to(tmp_path / "plus", "2.6", launcher)
    assert (copy / default).read_text() == expected.read_text()  # (2.6 rejects `gpus` over any config)


# --- a base of the trainer group, extended by its siblings (`defaults: [default]`) -------------------------

BASE = Path(__file__).parent.parent / "fixtures" / "projects" / "hydra_base"
CHOICES = ("trainer=default", "trainer=fp16", "trainer=deepspeed")


def base_flags(folder: Path, choice: str) -> dict[str, Value] | None:
    """What Hydra composes for the Trainer of ``python train.py <choice>`` (its modelled flags)."""
    return trainer_flags(folder, "config", [choice], configs="conf")


@pytest.mark.parametrize("target", ["1.5", "1.9", "2.6"])
@pytest.mark.parametrize("blocked", [True, False], ids=["sibling-cannot-migrate", "all-migrate"])
def test_a_base_is_rewritten_with_the_siblings_that_extend_it_or_not_at_all(
    tmp_path: Path, target: str, blocked: bool
) -> None:
    """`default.yaml` has no defaults list; `fp16.yaml` and `deepspeed.yaml` extend it and keep `accelerator:
    ddp`. Where every sibling can be rewritten with it (no `deepspeed.yaml`), base and siblings are rewritten
    together and each composition gives the Trainer the planner's flags; where one cannot, the base is not
    rewritten (LM101 naming the composition) and no composition gives the Trainer both a migrated base and a
    sibling's old flag."""
    from lightning_migrate.plan.callsite import CallSite, Run
    from lightning_migrate.plan.planner import Rewrite

    copy = tmp_path / "project"
    shutil.copytree(BASE, copy)
    choices = CHOICES if blocked else CHOICES[:2]
    if not blocked:
        (copy / "conf" / "trainer" / "deepspeed.yaml").unlink()
    original = tmp_path / "original"
    shutil.copytree(copy, original)
    outcome = run(str(copy), "--target-version", target, "--show-details")
    assert outcome.code in (0, 1), outcome.err
    default = "conf/trainer/default.yaml"
    rewritten = (copy / default).read_text() != (original / default).read_text()
    assert rewritten is not blocked
    if blocked:
        (block,) = _finding_blocks(outcome.out, "trainer/default.yaml:", "LM101")
        assert "files of its group extend it" in block.splitlines()[0]
        assert "`trainer/deepspeed.yaml`, `config.yaml trainer=deepspeed` would not give the Trainer" in block
        fp16 = "conf/trainer/fp16.yaml"
        assert (copy / fp16).read_text() == (original / fp16).read_text()
    planner = Run(release(target))
    for choice in choices:
        before, after = base_flags(original, choice), base_flags(copy, choice)
        assert before is not None, choice
        assert after is not None, choice
        assert not ("strategy" in after and after.get("accelerator") == "ddp"), (choice, after)
        if blocked:  # (the plugin's class may be renamed: the hardware flags are as they were)
            assert {k: v for k, v in after.items() if k != "plugins"} == {
                k: v for k, v in before.items() if k != "plugins"
            }, choice
            continue
        decision = planner.plan(CallSite(0, 0, before))
        assert isinstance(decision, Rewrite), choice
        assert after == dict(decision.flags), choice
        assert_flags_kept(before, after, release(target), [r for r in RELEASES if r < release(target)])


def test_a_base_is_judged_on_the_experiments_that_choose_a_file_extending_it(tmp_path: Path) -> None:
    """An experiment over `fp16.yaml` left as written (`# noqa`) is a composition the base feeds too: at 1.9,
    over the rewritten base, its `gpus: 1` would meet `devices: 2`; the base is not rewritten, the experiment
    named, and `python train.py +experiment=one_gpu` gives the Trainer what it gave."""
    copy = tmp_path / "project"
    shutil.copytree(BASE, copy)
    (copy / "conf" / "trainer" / "deepspeed.yaml").unlink()
    (copy / "conf" / "experiment").mkdir()
    experiment = (
        "# @package _global_\ndefaults:\n  - override /trainer: fp16\n\ntrainer:\n  gpus: 1  # noqa\n"
    )
    (copy / "conf" / "experiment" / "one_gpu.yaml").write_text(experiment)
    original = tmp_path / "original"
    shutil.copytree(copy, original)
    outcome = run(str(copy), "--target-version", "1.9", "--show-details")
    assert outcome.code == 1, outcome.err
    default = "conf/trainer/default.yaml"
    assert (copy / default).read_text() == (original / default).read_text()
    (block,) = _finding_blocks(outcome.out, "trainer/default.yaml:", "LM101")
    assert "`config.yaml +experiment=one_gpu` would not give the Trainer" in block
    words = ["+experiment=one_gpu"]
    assert trainer_flags(copy, "config", words, "conf") == trainer_flags(original, "config", words, "conf")


def _finding_blocks(out: str, *words: str) -> list[str]:
    """The findings of a `--show-details` report whose line holds every one of ``words``, each with the
    details indented under it."""
    blocks: list[list[str]] = []
    for line in out.splitlines():
        if line.startswith("    ") and blocks:
            blocks[-1].append(line)
        else:
            blocks.append([line])
    return ["\n".join(b) for b in blocks if all(word in b[0] for word in words)]


def test_the_files_hydra_loads_are_remembered_as_hydra_reads_them(tmp_path: Path) -> None:
    """Every composition of the project, and one over a file that is not YAML and one over a missing file,
    composed through the readers that remember loaded files (twice: the second from memory) and through
    Hydra's own (of the project's files and of its own package's): the same node, or the same error."""
    from hydra._internal.core_plugins.file_config_source import FileConfigSource
    from hydra._internal.core_plugins.importlib_resources_config_source import ImportlibResourcesConfigSource
    from hydra._internal.sources_registry import SourcesRegistry

    configs = tmp_path / "configs"
    shutil.copytree(PROJECT / "configs", configs)
    (configs / "experiment" / "broken.yaml").write_text("trainer: [gpus: 2\n")
    primaries = {name: hydra_project.Primary(configs.resolve(), name) for name in PRIMARIES}
    compositions = [hydra_project.Composition(primary) for primary in primaries.values()]
    compositions += [
        hydra_project.Composition(primaries["train"], (f"experiment={name}",))
        for name in ("four_gpus", "multi_node", "broken", "missing")
    ]
    compositions += [
        hydra_project.Composition(primary, ("+debug=two_gpus", "trainer=ddp"))
        for primary in primaries.values()
    ]

    def composed() -> list[str]:
        found = []
        for composition in compositions:
            try:
                found.append(hydra_project._composed(composition, (), ()))
            except hydra_project.ComposeError as exc:
                found.append(f"error: {exc}")
        return found

    hydra_project._remember_loaded_files()
    types = SourcesRegistry.instance().types
    hydras = {"file": FileConfigSource, "pkg": ImportlibResourcesConfigSource}
    remembering = {scheme: types[scheme] for scheme in hydras}
    assert all(remembering[scheme] is not hydras[scheme] for scheme in hydras)
    first, again = composed(), composed()
    types.update(hydras)
    try:
        plain = composed()
    finally:
        types.update(remembering)
    assert first == again == plain
    assert sum(node.startswith("error: ") for node in plain) == 2


def test_a_composition_over_a_tree_that_changes_no_file_it_reads_is_not_composed_again(
    tmp_path: Path,
) -> None:
    """A composition over a copy of the folder with some files replaced gets the answer it gave over a tree
    whose files it read hold the same texts, without Hydra composing it again (``_traces``); a replaced file
    it reads is composed again, and so is every composition over a folder with a hidden file (its copies
    leave it out)."""
    from unittest import mock

    configs = tmp_path / "configs"
    shutil.copytree(PROJECT / "configs", configs)
    train = hydra_project.Composition(
        hydra_project.Primary(configs.resolve(), "train"), ("experiment=four_gpus",)
    )
    ddp = (configs / "trainer" / "ddp.yaml").resolve()  # (not read by that composition)
    experiment = (configs / "experiment" / "four_gpus.yaml").resolve()
    composed = mock.Mock(wraps=hydra_project._composed)
    with mock.patch.object(hydra_project, "_composed", composed):
        run_cache.forget()
        on_disk = hydra_project.trainer_node(train)
        assert hydra_project.trainer_node(train, {ddp: "accelerator: ddp\ngpus: 8\n"}) == on_disk
        assert composed.call_count == 1
        text = experiment.read_text().replace("gpus: 4", "gpus: 2")
        assert hydra_project.trainer_node(train, {experiment: text}) != on_disk
        assert composed.call_count == 2
        # the tree with the same texts of the files it reads as another, one of those replaced
        assert hydra_project.trainer_node(train, {experiment: text, ddp: "gpus: 3\n"}) != on_disk
        assert composed.call_count == 2

        (configs / ".hidden").mkdir()
        run_cache.forget()
        assert hydra_project.trainer_node(train) == on_disk
        assert hydra_project.trainer_node(train, {ddp: "accelerator: ddp\ngpus: 8\n"}) == on_disk
        assert composed.call_count == 4
    run_cache.forget()

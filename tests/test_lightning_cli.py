"""A LightningCLI's ``trainer_defaults`` judged with the configs the project gives it
(project/lightning_cli.py): which configs are tied to a CLI, how the defaults' old flags move, and where
nothing is rewritten."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import run

from lightning_migrate.plan.callsite import Run
from lightning_migrate.project import lightning_cli
from lightning_migrate.semantics.model import Obj, release

SCRIPT = """from pytorch_lightning.plugins import DDPPlugin
from pytorch_lightning.cli import LightningCLI

LightningCLI(trainer_defaults={defaults}{more})
"""
DDP = '{"plugins": DDPPlugin(find_unused_parameters=False), "max_epochs": 3}'


def project(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def script(defaults: str = DDP, more: str = "") -> str:
    return SCRIPT.format(defaults=defaults, more=more)


def clis(root: Path, target: str = "2.6") -> lightning_cli.RunCLIs:
    files = sorted(p for p in root.rglob("*") if p.is_file())
    texts = [(p, p.read_text()) for p in files]
    scripts = [(p, t) for p, t in texts if lightning_cli.may_build(t)]
    commands = [c for p, t in texts for c in lightning_cli.launch_commands(p, t)]
    return lightning_cli.of_run(scripts, commands, Run(release(target)), files)


def tied(root: Path, target: str = "2.6") -> list[str]:
    return sorted(
        Path(t.path).relative_to(root).as_posix() for c in clis(root, target).calls for t in c.configs
    )


def test_configs_are_tied_by_launch_commands_default_files_and_the_folder_beside_the_script(
    tmp_path: Path,
) -> None:
    root = project(
        tmp_path,
        {
            "main.py": script(more=', parser_kwargs={"fit": {"default_config_files": ["base.yaml"]}}'),
            "base.yaml": "trainer:\n  gpus: 2\n",
            "configs/a.yaml": "trainer:\n  accelerator: ddp\n",
            "exp/b.yml": "trainer:\n  num_nodes: 2\n",
            "scripts/run.sh": "python main.py fit \\\n  --config exp/b.yml\n",
            "other/c.yaml": "trainer:\n  gpus: 1\n",  # named by nothing, but shaped like a CLI config
            "other/d.yaml": "trainer:\n  gpus: 1\nwandb: {}\n",  # a key no LightningCLI has: judged alone
            "configs/not_cli.yaml": "model:\n  lr: 1\n",  # no trainer: nothing to tie
        },
    )
    assert tied(root) == ["base.yaml", "configs/a.yaml", "exp/b.yml", "other/c.yaml"]


def test_the_defaults_move_once_for_every_config_and_each_config_writes_the_rest(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "main.py": script(),
            "configs/a.yaml": "trainer:\n  accelerator: ddp\n  gpus: 0,1,2,3\n",
            "configs/b.yaml": "trainer:\n  gpus: 1\n",
        },
    )
    (cli,) = clis(root).calls
    assert cli.new_flags() == {"strategy": Obj.of("DDPStrategy", find_unused_parameters=False)}
    assert [f.code for f in cli.findings] == ["LM003", "LM005"]
    assert "fixed)." in run("--target-version", "2.6", str(root)).err  # (nothing left)
    assert '"strategy": DDPStrategy(find_unused_parameters=False)' in (root / "main.py").read_text()
    assert (root / "configs/a.yaml").read_text() == "trainer:\n  accelerator: cuda\n  devices: 0,1,2,3\n"
    assert (root / "configs/b.yaml").read_text() == "trainer:\n  devices: 1\n  accelerator: cuda\n"


def test_defaults_their_configs_need_written_differently_are_reported_naming_them(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "main.py": script('{"accelerator": "ddp"}'),
            "configs/gpu.yaml": "trainer:\n  gpus: 2\n",
            "configs/cpu.yaml": "trainer:\n  num_processes: 2\n",
        },
    )
    (cli,) = clis(root).calls
    assert cli.new is None
    (finding,) = cli.findings
    assert finding.code == "LM101"
    assert finding.message.startswith("`trainer_defaults` not rewritten; ")
    assert "`configs/cpu.yaml`, `configs/gpu.yaml`" in finding.details[0]


def test_a_config_given_with_another_in_one_command_is_reported_and_holds_the_defaults(
    tmp_path: Path,
) -> None:
    root = project(
        tmp_path,
        {
            "main.py": script(),
            "a.yaml": "trainer:\n  accelerator: ddp\n",
            "b.yaml": "trainer:\n  gpus: 2\n",
            "run.sh": "python main.py --config a.yaml --config b.yaml\n",
        },
    )
    (cli,) = clis(root).calls
    assert cli.new is None
    assert {t.held != "" for t in cli.configs} == {True}
    before = {name: (root / name).read_text() for name in ("main.py", "a.yaml", "b.yaml")}
    outcome = run(
        "--check", "--show-details", "--target-version", "2.6", "--extend-include", "*.sh", str(root)
    )
    assert "a launch command gives it together with other configs" in outcome.out
    run("--target-version", "2.6", "--extend-include", "*.sh", str(root))
    assert (root / "a.yaml").read_text() == before["a.yaml"]
    assert (root / "b.yaml").read_text() == before["b.yaml"]


def test_a_cli_no_config_of_the_run_is_tied_to_is_reported_and_its_classes_keep_their_names(
    tmp_path: Path,
) -> None:
    root = project(tmp_path, {"main.py": script(), "configs/a.yaml": "trainer:\n  accelerator: ddp\n"})
    assert clis(root).calls[0].configs  # (both in the run: tied)
    before = (root / "main.py").read_text()
    outcome = run(
        "--check", "--show-details", "--target-version", "2.6", str(root / "main.py")
    )  # (no config)
    assert "LM003" not in outcome.out
    assert "no config of the run is tied to this LightningCLI" in outcome.out
    assert "alone, they would be written strategy=DDPStrategy(find_unused_parameters=False)" in outcome.out
    run("--target-version", "2.6", str(root / "main.py"))
    assert (root / "main.py").read_text() == before  # not `plugins=DDPStrategy(...)`, which 2.x rejects


@pytest.mark.parametrize(
    "defaults",
    ['{"accelerator": "gpu", "devices": 2, "max_epochs": 90}', '{"strategy": "ddp", "logger": False}'],
)
def test_modern_defaults_and_configs_get_no_finding(tmp_path: Path, defaults: str) -> None:
    root = project(
        tmp_path,
        {
            "main.py": script(defaults)
            .replace("DDPPlugin", "DDPStrategy")
            .replace(".plugins", ".strategies"),
            "configs/a.yaml": "trainer:\n  precision: 16-mixed\n  devices: 1\n",
        },
    )
    outcome = run("--check", "--target-version", "2.6", str(root))
    assert outcome.code == 0, outcome.out


def test_move_keeps_a_current_default_and_moves_an_old_one() -> None:
    run_ = Run(release("2.6"))
    ddp = Obj.of("DDPPlugin", find_unused_parameters=False)
    new = Obj.of("DDPStrategy", find_unused_parameters=False)
    rewrite = {"strategy": new, "accelerator": "cuda", "devices": 2}
    assert lightning_cli.move({"plugins": ddp, "num_nodes": 2}, rewrite, run_) == {
        "strategy": new,
        "num_nodes": 2,
    }
    assert lightning_cli.move({"gpus": 2}, rewrite, run_) == {"accelerator": "cuda", "devices": 2}
    assert lightning_cli.move({"plugins": ddp}, {"accelerator": "cuda"}, run_) is None


def test_written_over_writes_what_differs_and_refuses_to_unset() -> None:
    base = {"strategy": "ddp", "devices": 4}
    desired = {"strategy": "ddp", "devices": 2, "accelerator": "cuda"}
    assert lightning_cli.written_over(base, {"gpus": 2}, desired) == {"devices": 2, "accelerator": "cuda"}
    assert lightning_cli.written_over({**base, "gpus": 2}, {}, desired) is None


# --- a config no command line ties to a CLI (issue 24 item 6) -----------------------------------------------

CONFIG = "seed_everything: 7\ntrainer:\n  gpus: 0,1,2,3\n  accelerator: ddp\nmodel:\n  lr: 0.1\n"


def test_a_config_shaped_like_a_cli_config_is_judged_with_the_defaults_of_the_run_s_only_cli(
    tmp_path: Path,
) -> None:
    """Rewritten alone, ``accelerator: ddp`` would become ``strategy: ddp_find_unused_parameters_true``, and
    the defaults' ``DDPPlugin(find_unused_parameters=False)`` left for the user: once fixed, it flips."""
    root = project(tmp_path, {"train.py": script(), "config.yaml": CONFIG})
    (cli,) = clis(root).calls
    assert [Path(t.path).name for t in cli.configs] == ["config.yaml"]
    assert cli.new_flags() == {"strategy": Obj.of("DDPStrategy", find_unused_parameters=False)}
    outcome = run("--target-version", "2.6", str(root))
    assert "fixed)." in outcome.err, outcome.err
    assert '"strategy": DDPStrategy(find_unused_parameters=False)' in (root / "train.py").read_text()
    assert (root / "config.yaml").read_text() == CONFIG.replace("gpus", "devices").replace("ddp", "cuda")


@pytest.mark.parametrize(
    "extra",
    [
        "wandb:\n  project: x\n",  # a key no LightningCLI has: some other program's config
        "defaults:\n  - _self_\n",  # a Hydra config
    ],
)
def test_a_config_not_shaped_like_a_cli_config_is_not_tied(tmp_path: Path, extra: str) -> None:
    root = project(tmp_path, {"train.py": script(), "exp.yaml": CONFIG + extra})
    assert tied(root) == []


def test_several_clis_with_the_same_defaults_share_the_config(tmp_path: Path) -> None:
    root = project(tmp_path, {"train.py": script(), "tune.py": script(), "config.yaml": CONFIG})
    found = clis(root).calls
    assert len(found) == 2
    assert all(c.new is not None and not c.findings[0].code.startswith("LM101") for c in found)
    assert {t.held for c in found for t in c.configs} == {""}
    run("--target-version", "2.6", str(root))
    assert "devices: 0,1,2,3" in (root / "config.yaml").read_text()


def test_each_config_is_loaded_once_however_often_the_clis_ask_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two CLIs with different defaults share the config: it is read for its shape, its flags and its keys
    (for each CLI, in each round of ``of_run``), and loaded once; the judgement is the same as when each
    of those loaded it anew."""
    other = script('{"accelerator": "ddp_spawn"}')
    root = project(tmp_path, {"train.py": script(), "predict.py": other, "config.yaml": CONFIG})
    fresh = clis(root)
    loaded: list[str] = []
    load = lightning_cli._loaded
    monkeypatch.setattr(lightning_cli, "_loaded", lambda text: loaded.append(text) or load(text))
    assert clis(root) == fresh
    assert loaded == [CONFIG]
    asked: list[str] = []
    monkeypatch.setattr(lightning_cli, "_Documents", lambda: _Fresh(asked))
    assert clis(root) == fresh
    assert len(asked) >= 3  # (shape, flags and keys, each asked of a document loaded anew: the same answer)


_DOCUMENTS = lightning_cli._Documents


class _Fresh(dict[str, object]):
    """A ``_Documents`` that loads a config anew each time it is asked for (as before it remembered)."""

    def __init__(self, asked: list[str]) -> None:
        super().__init__()
        self.asked = asked

    def __contains__(self, path: object) -> bool:
        return False

    def __getitem__(self, path: str) -> object:
        self.asked.append(path)
        return _DOCUMENTS().__missing__(path)

    def __setitem__(self, path: str, document: object) -> None:
        pass


@pytest.mark.parametrize(
    ("other", "said"),
    [
        (script('{"accelerator": "ddp_spawn"}'), "whose `trainer_defaults` differ"),
        (script("{}"), "whose `trainer_defaults` differ"),  # (defaults with no flag: the config alone)
        (SCRIPT.replace("LightningCLI(trainer_defaults={defaults}{more})", "LightningCLI()"), "differ"),
        (script("make_defaults()"), "of `predict.py:4` are not known here"),
    ],
)
def test_a_config_several_clis_with_different_defaults_may_be_given_is_reported_naming_them(
    tmp_path: Path, other: str, said: str
) -> None:
    root = project(tmp_path, {"train.py": script(), "predict.py": other, "config.yaml": CONFIG})
    before = {p.name: p.read_text() for p in root.iterdir()}
    outcome = run("--check", "--show-details", "--target-version", "2.6", str(root))
    assert outcome.code == 1
    assert "it may be given to several LightningCLIs (`predict.py:4`, `train.py:4`)" in outcome.out
    assert said in outcome.out
    assert "`trainer_defaults` not rewritten" in outcome.out
    run("--target-version", "2.6", str(root))
    assert {p.name: p.read_text() for p in root.iterdir()} == before  # (the classes keep their names too)


def test_a_config_a_command_ties_to_one_cli_is_not_given_to_the_others(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {
            "train.py": script(),
            "predict.py": script('{"accelerator": "ddp_spawn"}'),
            "config.yaml": CONFIG,
            "run.sh": "python train.py --config config.yaml\n",
        },
    )
    by_script = {Path(c.script).name: [Path(t.path).name for t in c.configs] for c in clis(root).calls}
    assert by_script["train.py"] == ["config.yaml"]
    assert by_script.get("predict.py", []) == []


def test_the_config_beside_the_script_is_written_alike_with_and_without_a_command_line() -> None:
    folders = Path(__file__).parent.parent / "fixtures" / "lightning_cli"
    for target in ("1.6", "2.6"):
        beside = (folders / "beside" / f"{target}.expected" / "config.yaml").read_text()
        assert beside == (folders / "launched" / f"{target}.expected" / "config.yaml").read_text()
        assert beside != (folders / "beside" / "project" / "config.yaml").read_text()


# --- the keys of `trainer_defaults` judged as keywords (LM007, LM100) ---------------------------------------


def migrated(source: str, target: str = "2.6") -> tuple[str, list[tuple[int, str, str]]]:
    from lightning_migrate.frontends.python.frontend import migrate
    from lightning_migrate.plan.prefilter import may_need_migration

    result = migrate(source, release(target))
    assert may_need_migration(source, (release(target),)) or not result.findings  # (the prefilter passes it)
    return result.code, [(f.line, f.code, f.message) for f in result.findings]


MODERN = "from pytorch_lightning.cli import LightningCLI\n\n"


@pytest.mark.parametrize(
    "call",
    [
        'LightningCLI(trainer_defaults={"checkpoint_callback": False, "max_epochs": 3})',
        'd = {"checkpoint_callback": False}\nLightningCLI(trainer_defaults=d)',
        "LightningCLI(trainer_defaults=dict(checkpoint_callback=False, **more))",
    ],
)
def test_a_removed_key_of_defaults_no_rewrite_touches_is_reported_not_fixed(call: str) -> None:
    code, findings = migrated(MODERN + call + "\n")
    assert code == MODERN + call + "\n"
    (found,) = findings
    assert found[1] == "LM007"
    assert found[2].startswith("`checkpoint_callback=False` is not in Lightning 2.6.6")
    assert "; fix:" not in found[2]


def test_an_ancient_key_of_defaults_is_reported_for_every_target() -> None:
    for target in ("1.5", "2.6"):
        _, findings = migrated(MODERN + 'LightningCLI(trainer_defaults={"max_nb_epochs": 3})\n', target)
        assert [f[1] for f in findings] == ["LM100"]


@pytest.mark.parametrize(
    "source",
    [
        MODERN + 'LightningCLI(trainer_defaults={"enable_checkpointing": False, "devices": 2})\n',
        # (another Trainer class, which may take keywords of its own)
        MODERN + 'LightningCLI(trainer_class=MyTrainer, trainer_defaults={"checkpoint_callback": False})\n',
        # (a subclass that takes `trainer_defaults` itself)
        MODERN
        + "class CLI(LightningCLI):\n    def __init__(self, trainer_defaults=None, **kwargs):\n"
        + "        super().__init__(**kwargs)\n\n\n"
        + 'CLI(trainer_defaults={"checkpoint_callback": False})\n',
        # (another package's LightningCLI)
        "from flash.core.utilities.lightning_cli import LightningCLI\n\n"
        'LightningCLI(trainer_defaults={"checkpoint_callback": False})\n',
    ],
)
def test_defaults_keys_not_given_to_lightning_s_trainer_or_modern_get_no_finding(source: str) -> None:
    assert migrated(source) == (source, [])


def test_a_removed_key_is_fixed_in_defaults_the_run_rewrites_unless_a_config_writes_it(
    tmp_path: Path,
) -> None:
    defaults = '{"plugins": DDPPlugin(find_unused_parameters=False), "checkpoint_callback": False}'
    root = project(tmp_path, {"main.py": script(defaults), "configs/a.yaml": CONFIG})
    run("--target-version", "2.6", str(root))
    assert '"enable_checkpointing": False' in (root / "main.py").read_text()
    root = project(
        tmp_path / "over",
        {
            "main.py": script(defaults),
            "configs/a.yaml": CONFIG.replace("model", "  checkpoint_callback: true\nmodel"),
        },
    )
    outcome = run("--check", "--show-details", "--target-version", "2.6", str(root))
    assert "a config of this LightningCLI writes `checkpoint_callback` over it" in outcome.out
    run("--target-version", "2.6", str(root))
    assert '"checkpoint_callback": False' in (root / "main.py").read_text()


# --- LightningCLI subclasses of another module (`project.cli_classes`) --------------------------------------

SUBCLASS = """from pytorch_lightning.cli import LightningCLI


class ProjectCLI(LightningCLI):
    def __init__(self, model_class, {params}**kwargs):
        super().__init__(model_class, {passed}**kwargs)
"""
CALLER = """from pytorch_lightning.plugins import DDPPlugin

from project.cli import ProjectCLI

ProjectCLI(Model, trainer_defaults={"plugins": DDPPlugin(find_unused_parameters=False)})
"""


def test_a_subclass_another_module_defines_is_a_cli_whose_defaults_are_judged_with_its_configs(
    tmp_path: Path,
) -> None:
    root = project(
        tmp_path,
        {
            "project/__init__.py": "",
            "project/cli.py": SUBCLASS.format(params="", passed=""),
            "train.py": CALLER,
            "config.yaml": CONFIG,
        },
    )
    assert "fixed)." in run("--target-version", "2.6", str(root)).err
    assert '"strategy": DDPStrategy(find_unused_parameters=False)' in (root / "train.py").read_text()
    assert (root / "config.yaml").read_text() == CONFIG.replace("gpus", "devices").replace("ddp", "cuda")


@pytest.mark.parametrize(
    ("params", "passed"),
    [
        ("trainer_defaults=None, ", ""),  # (the subclass takes them itself)
        ("", 'trainer_defaults={"accelerator": "ddp"}, '),  # (it passes its own)
    ],
)
def test_a_subclass_whose_defaults_are_its_own_is_a_cli_with_defaults_not_known_here(
    tmp_path: Path, params: str, passed: str
) -> None:
    root = project(
        tmp_path,
        {
            "project/__init__.py": "",
            "project/cli.py": SUBCLASS.format(params=params, passed=passed),
            "train.py": CALLER,
            "main.py": script(),
            "config.yaml": CONFIG,
        },
    )
    outcome = run("--check", "--show-details", "--target-version", "2.6", str(root))
    assert "it may be given to several LightningCLIs (`main.py:4`, `train.py:5`)" in outcome.out
    assert "`trainer_defaults` of `train.py:5` are not known here" in outcome.out

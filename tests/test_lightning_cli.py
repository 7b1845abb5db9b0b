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
            "other/c.yaml": "trainer:\n  gpus: 1\n",  # named by nothing: judged alone
            "configs/not_cli.yaml": "model:\n  lr: 1\n",  # no trainer: nothing to tie
        },
    )
    assert tied(root) == ["base.yaml", "configs/a.yaml", "exp/b.yml"]


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

"""Folders a training run writes are not walked (files/run_outputs.py): Lightning's logs and LightningCLI's
saved configs, Hydra's run and sweep folders wherever ``hydra.run.dir`` put them, Weights & Biases, MLflow and
TensorBoard logs; a project's own package of the same name is walked, and ``-v`` says what was skipped."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import CLEAN, run
from test_cli_files import listed

from lightning_migrate.files import run_outputs

SAVED_CONFIG = "trainer:\n  accelerator: ddp\n  gpus: [4, 5, 6, 7]\n"


def make(root: Path, *names: str) -> None:
    for name in names:
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(SAVED_CONFIG if name.endswith(".yaml") else CLEAN)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    make(
        tmp_path,
        "train.py",
        "configs/config.yaml",
        "lightning_logs/version_0/config.yaml",
        "lightning_logs/version_0/hparams.yaml",
        "logs/my_model/version_3/config.yaml",  # LightningCLI's config in a logger's folder
        "outputs/2023-01-02/10-11-12/.hydra/config.yaml",
        "outputs/2023-01-02/10-11-12/train.log",
        "logs/train/runs/2023-01-02_10-11-12/.hydra/config.yaml",  # hydra.run.dir moved elsewhere
        "multirun/2023-01-02/10-11-12/multirun.yaml",
        "multirun/2023-01-02/10-11-12/0/.hydra/config.yaml",
        "wandb/latest-run/files/config.yaml",
        "wandb/run-20230102_101112-abc/files/config.yaml",
        "mlruns/0/meta.yaml",
        "tb_logs/exp/events.out.tfevents.1672654272.host.1.0",
        "tb_logs/exp/hparams.yaml",
        # a project's own packages that share a name with run folders: sources, walked
        "outputs/heads.py",
        "examples/wandb/integration.py",
        "tensorboard/example.py",
        "mlruns_tools/x.py",
        "configs/version_2/trainer.yaml",
    )
    return tmp_path


def test_run_outputs_are_not_walked_and_sources_of_the_same_name_are(project: Path) -> None:
    assert listed(".") == [
        "configs/config.yaml",
        "configs/version_2/trainer.yaml",
        "examples/wandb/integration.py",
        "mlruns_tools/x.py",
        "outputs/heads.py",
        "tensorboard/example.py",
        "train.py",
    ]


def test_verbose_says_what_was_skipped_and_why(project: Path) -> None:
    err = run("--check", "-v", "--target-version", "2.6", ".").err
    skipped = sorted(line for line in err.splitlines() if line.startswith("lightning-migrate: skipped "))
    hydra_run = "a Hydra run folder (it holds .hydra/)"
    assert skipped == [
        f"lightning-migrate: skipped {folder}/: {why}, written by a run"
        for folder, why in [
            ("lightning_logs", "Lightning's log folder"),
            ("logs/my_model/version_3", "a Lightning logger's version folder"),
            ("logs/train/runs/2023-01-02_10-11-12", hydra_run),
            ("mlruns", "an MLflow tracking folder"),
            ("multirun/2023-01-02/10-11-12", "a Hydra sweep folder (it holds multirun.yaml)"),
            ("outputs/2023-01-02/10-11-12", hydra_run),
            ("tb_logs/exp", "a TensorBoard log folder (it holds event files)"),
            ("wandb", "a Weights & Biases run folder"),
        ]
    ]


def test_a_saved_config_is_no_finding_but_read_when_named(project: Path) -> None:
    assert run("--check", "--target-version", "2.6", ".").code == 1  # configs/config.yaml is old
    saved = "lightning_logs/version_0/config.yaml"
    named = run("--check", "--target-version", "2.6", saved)
    assert named.code == 1  # named explicitly: read, as an excluded file is
    assert "LM001" in named.out
    assert listed("--force-exclude", saved, "train.py") == ["train.py"]
    assert listed("--force-exclude", "outputs/heads.py") == ["outputs/heads.py"]


def test_replacing_the_default_excludes_walks_run_outputs_too(project: Path) -> None:
    walked = listed("--exclude", ".git", ".")
    assert "lightning_logs/version_0/config.yaml" in walked
    assert "wandb/latest-run/files/config.yaml" in walked
    assert "lightning_logs/version_0/config.yaml" not in listed("--extend-exclude", "x", ".")


@pytest.mark.parametrize(
    ("name", "dirs", "files", "output"),
    [
        ("lightning_logs", [], [], True),
        ("version_0", [], ["hparams.yaml"], True),
        ("version_12", ["checkpoints"], [], True),
        ("version_0", [], ["model.py"], False),
        ("version_consistency", [], ["config.yaml"], False),
        ("12-00-00", [".hydra"], ["train.log"], True),
        ("10-11-12", ["0", "1"], ["multirun.yaml"], True),
        ("configs", ["trainer"], ["multirun.yaml", "train.yaml"], False),  # a project's own config
        ("outputs", ["2023-01-02"], [], False),  # a date folder of runs: each run is skipped itself
        ("outputs", [], ["__init__.py"], False),
        ("wandb", [], ["integration.py", "README.md"], False),
        ("wandb", ["offline-run-20230102_101112-abc"], [], True),
        ("mlruns", ["0", ".trash"], [], True),
        ("mlruns", [], ["mlruns.py"], False),
        ("tensorboard", [], ["example.py"], False),
        ("logs", [], ["events.out.tfevents.1.host"], True),
    ],
)
def test_what_a_run_output_holds(name: str, dirs: list[str], files: list[str], output: bool) -> None:
    assert (run_outputs.why_output(name, dirs, files) is not None) == output

"""The pre-commit hooks, for real: the `pre-commit` from PyPI installs this project from a snapshot of the
working tree (`pre-commit try-repo`) into a repository with an old training script, a LightningCLI config and
a notebook, and runs both hooks.
Needs git and network access to PyPI (pre-commit builds the hook's environment with pip)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import FIXABLE, FIXED

ROOT = Path(__file__).parent.parent
OLD, NEW = FIXABLE, FIXED
CONFIG = "# LightningCLI\ntrainer:\n  accelerator: ddp  # training type\n  gpus: 2\n"
CONFIG_NEW = (
    "# LightningCLI\ntrainer:\n  strategy: ddp_find_unused_parameters_true  # training type\n"
    "  accelerator: cuda\n  devices: 2\n"
)
CELLS = ["import pytorch_lightning as pl\n", "trainer = pl.Trainer(gpus=1)"]
CELLS_NEW = ["import pytorch_lightning as pl\n", 'trainer = pl.Trainer(accelerator="cuda", devices=1)']


def notebook(source: list[str]) -> str:
    cell = {"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [], "source": source}
    metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    return (
        json.dumps({"cells": [cell], "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}, indent=1)
        + "\n"
    )


GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "test",
    "GIT_AUTHOR_EMAIL": "test@example.com",
    "GIT_COMMITTER_NAME": "test",
    "GIT_COMMITTER_EMAIL": "test@example.com",
}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_IDENTITY}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The working tree as a clean one-commit repository: pre-commit then builds the hook environment once
    (a dirty tree would make `try-repo` build a fresh shadow copy, and an environment, on every call)."""
    snapshot = tmp_path_factory.mktemp("project")
    listed = git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard").split("\0")
    for name in filter(None, listed):
        if (ROOT / name).is_file():
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, snapshot / name)
    git(snapshot, "init", "-q")
    git(snapshot, "add", "-A")
    git(snapshot, "commit", "-q", "-m", "snapshot")
    return snapshot


def pre_commit(work: Path, cache: Path, project: Path, hook: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        **GIT_IDENTITY,
        "PRE_COMMIT_HOME": str(cache / "pre-commit"),  # nothing cached outside the test's folders
        "PIP_CACHE_DIR": str(cache / "pip"),
        "VIRTUALENV_OVERRIDE_APP_DATA": str(cache / "virtualenv"),
    }
    command = [
        sys.executable,
        "-m",
        "pre_commit",
        "try-repo",
        str(project),
        hook,
        "--all-files",
        "--color=never",
    ]
    return subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, check=False)


def test_hooks_fail_rewrite_then_pass(project: Path, tmp_path: Path) -> None:
    work, cache = tmp_path / "work", tmp_path / "cache"
    work.mkdir()
    git(work, "init", "-q")
    (work / "requirements.txt").write_text("pytorch-lightning==2.6.6\n")  # the target: `auto` reads the pin
    script = work / "train.py"
    script.write_text(OLD)
    config = work / "configs" / "cli.yaml"
    config.parent.mkdir()
    config.write_text(CONFIG)
    cells = work / "train.ipynb"
    cells.write_text(notebook(CELLS))
    git(work, "add", "-A")

    check = pre_commit(work, cache, project, "lightning-migrate-check")
    assert check.returncode == 1, check.stdout + check.stderr
    assert "Failed" in check.stdout
    assert "LM001" in check.stdout
    assert "configs/cli.yaml:3:3: LM001" in check.stdout
    assert "train.ipynb:cell 1:2:11: LM004" in check.stdout
    assert script.read_text() == OLD
    assert config.read_text() == CONFIG

    fix = pre_commit(work, cache, project, "lightning-migrate")
    assert fix.returncode == 1, fix.stdout + fix.stderr
    assert "files were modified by this hook" in fix.stdout, fix.stdout
    assert script.read_text() == NEW
    assert config.read_text() == CONFIG_NEW
    assert cells.read_text() == notebook(CELLS_NEW)

    git(work, "add", "-A")
    again = pre_commit(work, cache, project, "lightning-migrate")
    assert again.returncode == 0, again.stdout + again.stderr
    assert "Passed" in again.stdout
    assert script.read_text() == NEW
    checked = pre_commit(work, cache, project, "lightning-migrate-check")
    assert checked.returncode == 0, checked.stdout + checked.stderr

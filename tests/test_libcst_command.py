"""The codemod as a LibCST codemod command (``lightning_migrate.cli.codemod.MigrateTrainerFlags``), run the
way projects run theirs: ``python -m libcst.tool codemod`` in a subprocess, found through the modules of a
``.libcst.codemod.yaml`` or named with ``-x``; the same rewrite and findings as ``lightning-migrate``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import FIXABLE, FIXED_ON_ONE_LINE, UNFIXABLE, run

TIMEOUT_S = 120
CONFIG = "modules:\n  - lightning_migrate.cli\nrepo_root: .\n"


def codemod(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "libcst.tool", "codemod", "--no-format", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT_S, check=False)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / ".libcst.codemod.yaml").write_text(CONFIG)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "train.py").write_text(FIXABLE)
    (tmp_path / "src" / "build.py").write_text(UNFIXABLE)
    return tmp_path


def warnings(stderr: str) -> list[str]:
    return [line.removeprefix("WARNING: ") for line in stderr.splitlines() if line.startswith("WARNING: ")]


@pytest.mark.parametrize(
    "command",
    [("codemod.MigrateTrainerFlags",), ("-x", "lightning_migrate.cli.codemod.MigrateTrainerFlags")],
)
def test_libcst_tool_runs_the_codemod_with_the_same_rewrite_and_findings(
    project: Path, command: tuple[str, ...]
) -> None:
    # the findings are lightning-migrate's, addressed as it addresses them
    expected = run("--check", "--target-version", "2.6", str(project / "src"))
    ours = sorted(line.split(" ", 1)[1] for line in expected.out.splitlines())
    done = codemod(project, *command, "--target-version", "2.6", "src")
    assert done.returncode == 0, done.stderr
    assert (project / "src" / "train.py").read_text() == FIXED_ON_ONE_LINE  # (LibCST's tool: no line length)
    assert (project / "src" / "build.py").read_text() == UNFIXABLE
    assert "Transformed 2 files successfully." in done.stderr
    assert sorted(line.split(" ", 1)[1] for line in warnings(done.stderr)) == ours
    assert {line.split(" ")[1] for line in warnings(done.stderr)} == {"LM001", "LM004", "LM101"}


def test_a_release_the_model_does_not_know_is_refused(project: Path) -> None:
    done = codemod(project, "codemod.MigrateTrainerFlags", "--target-version", "2.6.9", "src")
    assert done.returncode == 2
    assert "argument --target-version: '2.6.9' is not a release lightning-migrate knows" in done.stderr
    assert (project / "src" / "train.py").read_text() == FIXABLE


def test_select_and_unsafe_fixes_are_passed_on(project: Path) -> None:
    args = ("--target-version", "2.6", "--unsafe-fixes", "--select", "LM0")
    done = codemod(project, "codemod.MigrateTrainerFlags", *args, "src")
    assert done.returncode == 0, done.stderr
    assert (
        'pl.Trainer(strategy="ddp", accelerator="cuda", devices=2'
        in (project / "src" / "train.py").read_text()
    )
    assert [line.split(" ")[1] for line in warnings(done.stderr)] == ["LM001", "LM004"]  # (no LM101)


def test_a_file_that_cannot_be_parsed_fails_and_is_left_as_it_was(project: Path) -> None:
    broken = "import pytorch_lightning as pl\n\npl.Trainer(gpus=2)\nprint 'x'\n"
    (project / "src" / "broken.py").write_text(broken)
    done = codemod(project, "codemod.MigrateTrainerFlags", "--target-version", "2.6", "src/broken.py")
    assert "Failed to codemod 1 files." in done.stderr
    assert (project / "src" / "broken.py").read_text() == broken

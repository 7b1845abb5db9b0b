"""The migrate command: every mode and exit code (0 nothing to do, 1 work found or done, 2 error)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from lightning_migrate.cli import main

OLD = 'import pytorch_lightning as pl\n\ntrainer = pl.Trainer(accelerator="ddp", gpus=2, max_epochs=3)\n'
NEW = (
    "import pytorch_lightning as pl\n\n"
    'trainer = pl.Trainer(strategy="ddp_find_unused_parameters_true", accelerator="cuda", devices=2,'
    " max_epochs=3)\n"
)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "train.py").write_text(OLD)
    (tmp_path / "notes.txt").write_text('Trainer(accelerator="ddp")\n')
    (tmp_path / "clean.py").write_text("import pytorch_lightning as pl\n\npl.Trainer(max_epochs=1)\n")
    return tmp_path


def test_rewrite_in_place(project: Path) -> None:
    code, out, err = run(str(project), "--target-version", "2.6")
    assert code == 1
    assert (project / "train.py").read_text() == NEW
    assert (project / "notes.txt").read_text() == 'Trainer(accelerator="ddp")\n'  # not Python: skipped
    assert "target Lightning 2.6.6" in err
    assert "train.py:3:11: LM001" in out
    assert out.rstrip().endswith("[*]")
    # a second run finds nothing left to do
    assert run(str(project), "--target-version", "2.6")[0] == 0


def test_check_reports_and_changes_nothing(project: Path) -> None:
    code, out, err = run("--check", str(project), "--target-version", "1.9")
    assert code == 1
    assert (project / "train.py").read_text() == OLD
    assert "LM001" in out
    assert "Found 2 deprecated usages in 1 file (2 fixable)." in err


def test_nothing_to_do_exits_zero(project: Path) -> None:
    code, _, err = run("--check", str(project / "clean.py"), "--target-version", "2.6")
    assert code == 0
    assert "No deprecated Trainer flags in 1 file." in err


def test_diff_applies_with_git(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if shutil.which("git") is None:
        pytest.skip("git not installed")
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    monkeypatch.chdir(project)
    code, patch, _ = run("--diff", ".", "--target-version", "2.6")
    assert code == 1
    assert (project / "train.py").read_text() == OLD
    assert patch.startswith("--- a/train.py\n+++ b/train.py\n")
    subprocess.run(["git", "apply", "-"], input=patch, text=True, cwd=project, check=True)
    assert (project / "train.py").read_text() == NEW


def test_unparsable_file_is_an_error_but_others_are_migrated(project: Path) -> None:
    # a file the prefilter passes (a Trainer call with a flag): others are not parsed, so not reported
    (project / "broken.py").write_text("import pytorch_lightning as pl\n\npl.Trainer(devices=1)\ndef f(:\n")
    code, _out, err = run(str(project), "--target-version", "2.6")
    assert code == 2
    assert "broken.py:4:" in err
    assert "cannot parse" in err
    assert (project / "train.py").read_text() == NEW


def test_json_output(project: Path) -> None:
    code, out, _ = run(
        "--check", str(project / "train.py"), "--target-version", "2.6", "--output-format", "json"
    )
    assert code == 1
    rows = json.loads(out)
    assert {row["code"] for row in rows} == {"LM001", "LM004"}
    assert all(row["fixable"] and row["line"] == 3 and row["path"].endswith("train.py") for row in rows)


def test_unfixable_findings_count_as_work_left(tmp_path: Path) -> None:
    (tmp_path / "cfg.py").write_text(
        "import pytorch_lightning as pl\n\npl.Trainer(accelerator=ACC, gpus=n)\n"
    )
    code, out, _ = run("--check", str(tmp_path), "--target-version", "2.6")
    assert code == 1
    assert "LM101" in out
    assert "[*]" not in out


@pytest.mark.parametrize("bad", ["1.3", "3.0", "latest"])
def test_bad_target_version(project: Path, bad: str) -> None:
    code, _, err = run(str(project), "--target-version", bad)
    assert code == 2
    assert "target-version" in err


def test_auto_target_reads_the_project_pin(project: Path) -> None:
    (project / "requirements.txt").write_text("pytorch-lightning==1.6.5\ntorch\n")
    code, _out, err = run("--check", str(project))
    assert "target Lightning 1.6.5 (pinned in" in err
    assert code == 1

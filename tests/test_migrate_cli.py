"""The migrate command: every mode and exit code (0 nothing to do, 1 work found or done, 2 error)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_helpers import FIXABLE, FIXED
from click.testing import CliRunner

from lightning_migrate.cli.main import main

OLD, NEW = FIXABLE, FIXED


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
    assert f"Rewrote {(project / 'train.py').as_posix()} (2 fixes)\n" in err
    assert out == ""  # the findings it fixed are counted, not listed (`--show-fixes` lists them)
    assert "(2 fixed)" in err
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


MODERN_LOOKING = 'import pytorch_lightning as pl\n\ntrainer = pl.Trainer(accelerator="gpu", devices=2)\n'


@pytest.mark.parametrize(
    ("pin", "source"),
    [
        ("pytorch-lightning==1.7.*", "1.7.7"),
        ("pytorch-lightning==1.7.3", "1.7.7"),  # (the model knows the line by its last patch release)
        ("lightning~=1.8.0", "1.8.6"),
        ("pytorch-lightning>=1.7", None),  # a range: any release from 1.7 on
        ("lightning~=1.8", None),  # 1.8 and on
        ("pytorch-lightning==1.2.10", None),  # older than the model
    ],
)
def test_a_pin_of_one_release_line_is_the_source_version(
    tmp_path: Path, pin: str, source: str | None
) -> None:
    """sc_depth_pl pins 1.7 and writes `accelerator="gpu", devices=2`, which 1.7 spawned with unused
    parameters searched and 2.x launches without: read as code of any release it got no finding, as code of
    its pin a fix that keeps what it trained with. The command line's `--source-version` wins."""
    (tmp_path / "requirements.txt").write_text(f"{pin}\ntorch\n")
    (tmp_path / "train.py").write_text(MODERN_LOOKING)
    code, out, err = run("--check", str(tmp_path), "--target-version", "2.6")
    if source is None:
        assert (code, out) == (0, "")
        assert "source Lightning" not in err
        return
    assert code == 1
    assert f"source Lightning {source} (pinned in requirements.txt; --source-version to say otherwise)" in err
    assert "strategy='ddp_spawn_find_unused_parameters_true'" in out
    code, out, err = run("--check", str(tmp_path), "--target-version", "2.6", "--source-version", "2.0")
    assert (code, out) == (0, "")
    assert "source Lightning" not in err


def test_unsafe_fixes_write_the_modern_form_and_say_what_changes(project: Path) -> None:
    code, _, err = run(
        str(project / "train.py"),
        "--target-version",
        "2.6",
        "--unsafe-fixes",
        "--show-fixes",
        "--show-details",
    )
    assert code == 1
    assert (
        'pl.Trainer(strategy="ddp", accelerator="cuda", devices=2, max_epochs=3)'
        in (project / "train.py").read_text()
    )
    assert "LM001 `accelerator='ddp'` is a training type; unsafe fix: " in err
    assert "\n    changes behaviour: find_unused_parameters True -> False (on 2 CUDA GPUs)\n" in err


def test_without_unsafe_fixes_the_old_default_is_kept(project: Path) -> None:
    code, out, err = run(str(project / "train.py"), "--target-version", "2.6", "--show-fixes")
    assert code == 1
    assert (project / "train.py").read_text() == NEW
    assert "LM001" in err
    assert "unsafe fix" not in out + err


RUNTIME = (
    "import pytorch_lightning as pl\n\n\ndef build(args):\n"
    "    return pl.Trainer(accelerator=args.accelerator)\n"
)


def test_shim_routes_calls_with_runtime_values_through_the_runtime_shim(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(RUNTIME)
    code, _, err = run(str(path), "--target-version", "2.6", "--shim", "--show-fixes")
    assert code == 1
    assert path.read_text() == (
        "import pytorch_lightning as pl\nimport lightning_migrate.shim\n\n\ndef build(args):\n"
        "    return lightning_migrate.shim.Trainer(accelerator=args.accelerator)\n"
    )
    assert "; fix: build `lightning_migrate.shim.Trainer`\n" in err
    assert run(str(path), "--target-version", "2.6", "--shim")[0] == 0  # a fixed point


def test_without_shim_runtime_values_are_only_reported(tmp_path: Path) -> None:
    path = tmp_path / "train.py"
    path.write_text(RUNTIME)
    code, out, _ = run(str(path), "--target-version", "2.6")
    assert code == 1
    assert path.read_text() == RUNTIME
    assert "; use `--shim` or pass the flags literally" in out


def test_a_call_the_pinned_release_never_built_is_judged_as_if_unpinned(tmp_path: Path) -> None:
    """DeepInteract pins 1.4 and builds 1.6's classes: 1.4 never built such a call, so the pin does not say
    what the code runs on (its old usage was left unchanged: the source release never built it)."""
    (tmp_path / "requirements.txt").write_text("pytorch-lightning==1.4.9\n")
    (tmp_path / "train.py").write_text(
        'import pytorch_lightning as pl\n\npl.Trainer(strategy="ddp", gpus=2)\n'
    )
    code, out, err = run("--check", str(tmp_path), "--target-version", "2.6")
    assert "source Lightning 1.4.9" in err
    assert code == 1
    assert "LM004 `gpus=2` is replaced" in out


def test_a_flag_written_to_a_namespace_is_judged_alone_without_the_pin(tmp_path: Path) -> None:
    """`args.num_nodes = 1` before `Trainer.from_argparse_args(args)`: as 1.4 code `Trainer(num_nodes=1)`
    alone ran on the CPU, which 2.x does not; but the accelerator is the command line's, not the pin's."""
    (tmp_path / "requirements.txt").write_text("pytorch-lightning==1.4.9\n")
    script = (
        "import argparse\n\nimport pytorch_lightning as pl\n\nparser = argparse.ArgumentParser()\n"
        "parser = pl.Trainer.add_argparse_args(parser)\nargs = parser.parse_args()\n"
        "args.num_nodes = 1\ntrainer = pl.Trainer.from_argparse_args(args)\n"
    )
    (tmp_path / "train.py").write_text(script)
    _, out, _ = run("--check", str(tmp_path), "--target-version", "2.6")
    assert "num_nodes" not in out

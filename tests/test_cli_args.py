"""The arguments the migrate command takes and its defaults: releases the model knows, ``auto`` and the
project's pin, ``--check --diff``, the kinds of files walked by default."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import FIXABLE, FIXED, run

LINES = "1.4, 1.5, 1.6, 1.7, 1.8, 1.9, 2.0, 2.1, 2.2, 2.3, 2.4, 2.5, 2.6"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "train.py").write_text(FIXABLE)
    return tmp_path


@pytest.mark.parametrize("flag", ["--target-version", "--source-version"])
@pytest.mark.parametrize("value", ["1.10", "1.99", "2.3.99", "2", "2.6.9", "3.0", "1.9.5.post0", "latest"])
def test_a_release_the_model_does_not_know_is_a_usage_error(project: Path, flag: str, value: str) -> None:
    outcome = run("--check", flag, value, str(project))
    assert outcome.code == 2
    assert f"Invalid value for '{flag}': '{value}' is not a release lightning-migrate knows" in outcome.err
    assert f"({LINES})" in outcome.err
    assert "Usage:" in outcome.err


@pytest.mark.parametrize(
    ("value", "said"), [("1.9", "1.9.5"), ("1.9.5", "1.9.5"), ("1.9.2", "1.9.2"), ("2.6", "2.6.6")]
)
def test_a_known_line_or_release_is_taken(project: Path, value: str, said: str) -> None:
    outcome = run("--check", "--target-version", value, str(project))
    assert outcome.code == 1, outcome.err
    assert f"lightning-migrate: target Lightning {said}\n" in outcome.err


def test_the_configuration_is_checked_the_same(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.lightning-migrate]\ntarget-version = "2.3.99"\n')
    outcome = run("--check", str(project))
    assert outcome.code == 2
    assert "target-version: '2.3.99' is not a release lightning-migrate knows" in outcome.err


@pytest.mark.parametrize("value", ["1.10", "2.6.9"])
def test_inspect_takes_the_same_releases(value: str) -> None:
    outcome = run("inspect", "--source", value, "gpus=2")
    assert outcome.code == 2
    assert "is not a release lightning-migrate knows" in outcome.err
    assert run("inspect", "--source", "1.6", "gpus=2").code == 0


@pytest.mark.parametrize("order", [("--check", "--diff"), ("--diff", "--check")])
def test_check_and_diff_print_the_diff_and_the_findings_and_change_nothing(
    project: Path, order: tuple[str, str]
) -> None:
    outcome = run(*order, "--target-version", "2.6", str(project))
    assert outcome.code == 1
    assert outcome.out.startswith("--- a/")
    assert "+" + FIXED.splitlines()[2] in outcome.out
    assert "LM001" in outcome.err
    assert "LM004" in outcome.err
    assert (project / "train.py").read_text() == FIXABLE


def test_check_and_diff_exit_0_with_nothing_to_do(tmp_path: Path) -> None:
    (tmp_path / "clean.py").write_text("import pytorch_lightning as pl\n\npl.Trainer(devices=2)\n")
    outcome = run("--check", "--diff", "--target-version", "2.6", str(tmp_path))
    assert (outcome.code, outcome.out) == (0, "")


# 1.4 code: a training type in `accelerator=`, a value only known at run time, `distributed_backend=`
OLD_FORMS = (
    "import pytorch_lightning as pl\n\n\n"
    "def build(args):\n"
    '    pl.Trainer(accelerator="ddp", gpus=2)\n'
    "    return pl.Trainer(accelerator=args.accelerator)\n"
)


def pinned(tmp_path: Path, pin: str, source: str = OLD_FORMS) -> Path:
    (tmp_path / "requirements.txt").write_text(f"torch\npytorch-lightning=={pin}\n")
    (tmp_path / "train.py").write_text(source)
    return tmp_path


@pytest.mark.parametrize("quiet", [(), ("-q",)])
def test_a_pin_the_code_is_written_for_is_said_once_instead_of_its_idioms(
    tmp_path: Path, quiet: tuple[str, ...]
) -> None:
    project = pinned(tmp_path, "1.4.9")
    outcome = run("--check", *quiet, str(project))
    assert outcome.code == 0, outcome.err
    line, *summary = outcome.err.splitlines()
    assert summary in ([], ["No deprecated Trainer flags in 1 file."])
    assert line.startswith("lightning-migrate: target Lightning 1.4.9 is the project's pin (pinned in ")
    assert line.endswith(
        ": nothing to migrate to but what 1.4 deprecates itself; pass --target-version 2.6 to migrate"
    )
    assert outcome.out == ""


def test_under_such_a_pin_what_it_deprecates_itself_is_still_reported(tmp_path: Path) -> None:
    project = pinned(tmp_path, "1.4.2", OLD_FORMS + 'pl.Trainer(distributed_backend="ddp")\n')
    outcome = run("--check", str(project))
    assert outcome.code == 1
    assert "is the project's pin" in outcome.err
    assert [line.split()[1] for line in outcome.out.splitlines()] == ["LM002"]


def test_a_pin_older_than_the_model_is_not_judged(tmp_path: Path) -> None:
    project = pinned(tmp_path, "0.9.0")
    outcome = run("--check", str(project))
    assert outcome.code == 0, outcome.out
    assert "target Lightning 0.9.0 is the project's pin" in outcome.err
    assert (
        "older than the releases lightning-migrate knows (1.4 to 2.6): nothing to migrate to" in outcome.err
    )
    assert "error" not in outcome.out + outcome.err


@pytest.mark.parametrize(
    ("pin", "codes"), [("1.5.0", ["LM001", "LM101"]), ("1.7.7", ["LM001", "LM004", "LM101"])]
)
def test_a_pin_that_deprecates_the_code_s_forms_is_migrated_to(
    tmp_path: Path, pin: str, codes: list[str]
) -> None:
    outcome = run("--check", str(pinned(tmp_path, pin)))
    assert outcome.code == 1
    assert f"lightning-migrate: target Lightning {pin} (pinned in " in outcome.err
    assert sorted({line.split()[1] for line in outcome.out.splitlines()}) == codes


def test_a_pin_newer_than_the_model_targets_the_newest(tmp_path: Path) -> None:
    outcome = run("--check", "-q", str(pinned(tmp_path, "2.9.1")))
    assert "target Lightning 2.6.6 (2.9.1 pinned in " in outcome.err
    assert ", newer than the releases lightning-migrate knows)" in outcome.err


def test_an_explicit_target_is_said_but_not_under_q(project: Path) -> None:
    said = run("--check", "--target-version", "2.6", str(project))
    assert said.err.splitlines()[0] == "lightning-migrate: target Lightning 2.6.6"
    quiet = run("--check", "-q", "--target-version", "2.6", str(project))
    assert "target Lightning" not in quiet.err  # (the command line named it)


def test_a_pin_older_than_the_model_gives_an_empty_report_and_keeps_a_pipe(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = pinned(tmp_path, "1.2.0")
    outcome = run("--check", "--output-format", "json", str(project))
    assert (outcome.code, outcome.out) == (0, "[]\n")
    monkeypatch.chdir(project)
    piped = run("-", stdin=OLD_FORMS.encode())
    assert (piped.code, piped.out) == (0, OLD_FORMS)

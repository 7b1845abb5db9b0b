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

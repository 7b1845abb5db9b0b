"""What a run counts and how it says it: the summary (fixed, what each flag would add, left), --statistics,
--show-fixes, rewrite mode's lines (each file rewritten, the findings left), colour, and their settings in
``[tool.lightning-migrate]``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import FIXABLE, FIXED, UNFIXABLE, Outcome
from click.testing import CliRunner

from lightning_migrate.cli.main import main

TARGET = ("--target-version", "2.6")
# LM102: `gpus="2"` was one GPU (index 2) in 1.4 and two GPUs from 1.5 (`--source-version` says which)
AMBIGUOUS = 'import pytorch_lightning as pl\n\ntrainer = pl.Trainer(gpus="2")\n'
# LM007: moving the bar into `callbacks=cbs` is only right if `cbs` holds none (`--unsafe-fixes`)
UNSAFE = (
    "import pytorch_lightning as pl\n\n\ndef build(cbs):\n"
    "    return pl.Trainer(callbacks=cbs, progress_bar_refresh_rate=20)\n"
)
# LM103: 2.x has no `dp`; nothing fixes it
LEFT = 'import pytorch_lightning as pl\n\ntrainer = pl.Trainer(strategy="dp", accelerator="gpu", devices=2)\n'
FILES = {"a.py": AMBIGUOUS, "b.py": UNSAFE, "c.py": UNFIXABLE, "d.py": FIXABLE, "e.py": LEFT}
ESC = "\x1b["


def run(*args: str, color: bool = False, env: dict[str, str] | None = None) -> Outcome:
    result = CliRunner().invoke(main, list(args), color=color, env=env, catch_exceptions=False)
    return Outcome(result.exit_code, result.stdout, result.stderr, result.stdout_bytes)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    for name, text in FILES.items():
        (tmp_path / name).write_text(text)
    return tmp_path


def _summary(outcome: Outcome) -> str:
    return outcome.err.splitlines()[-1]


def test_check_counts_what_each_flag_would_add(project: Path) -> None:
    outcome = run("--check", *TARGET, ".")
    assert outcome.code == 1
    assert _summary(outcome) == (
        "Found 6 deprecated usages in 5 files (2 fixable, 1 more with `--unsafe-fixes`, 1 with `--shim`,"
        " 1 with `--source-version`, 1 left)."
    )
    assert [line.split()[1] for line in outcome.out.splitlines()] == [
        "LM102",
        "LM007",
        "LM101",
        "LM001",
        "LM004",
        "LM103",
    ]
    assert sum(line.endswith(" [*]") for line in outcome.out.splitlines()) == 2


def test_only_the_counts_that_are_not_zero(project: Path) -> None:
    assert _summary(run("--check", *TARGET, "d.py")) == "Found 2 deprecated usages in 1 file (2 fixable)."
    assert _summary(run("--check", *TARGET, "e.py")) == "Found 1 deprecated usage in 1 file (1 left)."
    # (the first flag's count is "more" only after fixable ones)
    assert (
        _summary(run("--check", *TARGET, "c.py")) == "Found 1 deprecated usage in 1 file (1 with `--shim`)."
    )


def test_each_flag_fixes_what_the_summary_says_it_would(project: Path) -> None:
    """The counts are the runs: each flag's run fixes its count (and no flag fixes what is left)."""
    flagged = run("--check", *TARGET, "--unsafe-fixes", "--shim", "--source-version", "1.5", ".")
    assert _summary(flagged) == "Found 6 deprecated usages in 5 files (5 fixable, 1 left)."


def test_rewrite_says_what_it_fixed_lists_what_is_left_and_each_file_rewritten(project: Path) -> None:
    outcome = run(*TARGET, ".")
    assert outcome.code == 1
    assert (project / "d.py").read_text() == FIXED
    assert _summary(outcome) == (
        "Found 6 deprecated usages in 5 files (2 fixed, 1 fixable with `--unsafe-fixes`, 1 handled by"
        " `--shim`, 1 settled by `--source-version`, 1 left)."
    )
    assert "Rewrote d.py (2 fixes)\n" in outcome.err
    assert "Rewrote" not in outcome.err.replace("Rewrote d.py", "")
    assert [line.split()[1] for line in outcome.out.splitlines()] == ["LM102", "LM007", "LM101", "LM103"]
    assert "[*]" not in outcome.out


def test_quiet_rewrite_says_only_the_summary(project: Path) -> None:
    outcome = run(*TARGET, "-q", ".")
    assert outcome.out == ""
    assert outcome.err.splitlines() == [_summary(outcome)]


def test_json_of_a_rewrite_holds_the_findings_left(project: Path) -> None:
    outcome = run(*TARGET, "--output-format", "json", ".")
    rows = json.loads(outcome.out)
    assert [(r["path"], r["code"], r["fixable"]) for r in rows] == [
        ("a.py", "LM102", False),
        ("b.py", "LM007", False),
        ("c.py", "LM101", False),
        ("e.py", "LM103", False),
    ]


def test_show_fixes_lists_the_fixes_made(project: Path) -> None:
    outcome = run(*TARGET, "--show-fixes", ".")
    err = outcome.err.splitlines()
    at = err.index("Fixed 2 deprecated usages:")
    assert [line.split(": ")[0] + " " + line.split()[1] for line in err[at + 1 : at + 3]] == [
        "d.py:3:11 LM001",
        "d.py:3:11 LM004",
    ]
    assert not err[at + 1].endswith("[*]")
    assert err[at + 3] == _summary(outcome)


def test_show_fixes_of_a_diff_and_of_a_check(project: Path) -> None:
    diff = run("--diff", *TARGET, "--show-fixes", ".")
    assert "The diff fixes 2 deprecated usages:\nd.py:3:11: LM001 " in diff.err
    assert (project / "d.py").read_text() == FIXABLE
    check = run("--check", *TARGET, "--show-fixes", ".")
    assert "fixes 2" not in check.err
    assert "Fixed" not in check.err


def test_statistics_count_each_code(project: Path) -> None:
    outcome = run("--check", *TARGET, "--statistics", ".")
    assert outcome.code == 1
    assert outcome.out.splitlines() == [
        "  1  LM001  accelerator-training-type  [*]",
        "  1  LM004  device-count-flags         [*]",
        "  1  LM007  removed-keywords           1 with `--unsafe-fixes`",
        "  1  LM101  runtime-value              1 with `--shim`",
        "  1  LM102  ambiguous-source           1 with `--source-version`",
        "  1  LM103  no-equivalent",
    ]
    assert _summary(outcome).startswith("Found 6 deprecated usages in 5 files (2 fixable")


def test_statistics_of_some_fixable_and_most_frequent_first(tmp_path: Path) -> None:
    (tmp_path / "x.py").write_text(
        "import pytorch_lightning as pl\n\n\ndef build(cbs):\n"
        "    pl.Trainer(callbacks=cbs, progress_bar_refresh_rate=20)\n"
        "    pl.Trainer(callbacks=cbs, weights_summary=None, gpus=0)\n"
    )
    outcome = run("--check", *TARGET, "--statistics", str(tmp_path))
    assert outcome.out.splitlines() == [
        "  2  LM007  removed-keywords    [*] 1 of 2; 1 with `--unsafe-fixes`",
        "  1  LM004  device-count-flags  [*]",
    ]


def test_statistics_as_json_and_not_as_annotations(project: Path) -> None:
    rows = json.loads(run("--check", *TARGET, "--statistics", "--output-format", "json", ".").out)
    assert rows[2] == {
        "code": "LM007",
        "name": "removed-keywords",
        "count": 1,
        "fixable": 0,
        "with": {"unsafe-fixes": 1},
    }
    assert rows[0]["with"] == {}
    assert rows[0]["fixable"] == 1
    refused = run("--check", *TARGET, "--statistics", "--output-format", "github", ".")
    assert refused.code == 2
    assert "--statistics is written as text or json, not github" in refused.err


def test_colour_on_a_terminal_as_ruff(project: Path) -> None:
    coloured = run("--check", *TARGET, "d.py", color=True)
    first = coloured.out.splitlines()[0]
    assert first.startswith(f"{ESC}1md.py{ESC}0m{ESC}36m:{ESC}0m3{ESC}36m:{ESC}0m11{ESC}36m:{ESC}0m ")
    assert f" {ESC}31m{ESC}1mLM001{ESC}0m " in first
    assert first.endswith(f" {ESC}36m[*]{ESC}0m")
    plain = run("--check", *TARGET, "d.py", color=False)  # (a pipe, a file)
    assert ESC not in plain.out + plain.err
    assert plain.out.splitlines()[0].startswith("d.py:3:11: LM001 ")


@pytest.mark.parametrize("value", ["1", ""])
def test_no_color_turns_it_off(project: Path, value: str) -> None:
    outcome = run("--check", *TARGET, "--statistics", ".", color=True, env={"NO_COLOR": value})
    assert ESC not in outcome.out + outcome.err
    rewrite = run(*TARGET, ".", color=True, env={"NO_COLOR": value, "FORCE_COLOR": "1"})
    assert ESC not in rewrite.out + rewrite.err


def test_force_color_turns_it_on_in_a_pipe(project: Path) -> None:
    outcome = run(*TARGET, ".", color=False, env={"FORCE_COLOR": "1"})
    assert f"Rewrote {ESC}1md.py{ESC}0m (2 fixes)" in outcome.err
    assert f"{ESC}31m{ESC}1mLM103{ESC}0m" in outcome.out
    assert ESC not in run("--check", *TARGET, ".", env={"FORCE_COLOR": ""}).out


def test_machine_formats_are_never_coloured(project: Path) -> None:
    for output_format in ("json", "github", "sarif"):
        outcome = run("--check", *TARGET, "--output-format", output_format, ".", color=True)
        assert ESC not in outcome.out


def test_statistics_and_show_fixes_in_the_configuration(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        "[tool.lightning-migrate]\nstatistics = true\nshow-fixes = true\ntarget-version = '2.6'\n"
    )
    outcome = run("--diff", ".")
    assert "The diff fixes 2 deprecated usages:" in outcome.err
    assert "  1  LM103  no-equivalent\n" in outcome.err  # (stdout carries the diff)
    assert "LM103 " not in outcome.out
    assert "LM102" not in run("--diff", "--no-statistics", ".").err.splitlines()[0]
    listed = run("--check", "--no-statistics", ".")
    assert listed.out.splitlines()[0].startswith("a.py:3:11: LM102 ")


@pytest.mark.parametrize("key", ["statistics", "show-fixes"])
def test_a_bad_setting_names_the_key(project: Path, key: str) -> None:
    (project / "pyproject.toml").write_text(f"[tool.lightning-migrate]\n{key} = 'yes'\n")
    outcome = run("--check", ".")
    assert outcome.code == 2
    assert f"[tool.lightning-migrate] {key} must be true or false, not 'yes'" in outcome.err

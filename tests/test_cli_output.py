"""The four output formats (SARIF validated against the official schema) and --select/--ignore."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import BROKEN, FIXABLE, UNFIXABLE, run

from lightning_migrate.report.rules import RULES
from lightning_migrate.run.runner import NOT_FIXED

SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
TARGET = ("--target-version", "2.6")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(FIXABLE)
    (tmp_path / "cfg.py").write_text(UNFIXABLE)
    (tmp_path / "broken.py").write_text(BROKEN)
    return tmp_path


def test_text(project: Path) -> None:
    outcome = run("--check", *TARGET, ".")
    assert outcome.code == 2
    lines = outcome.out.splitlines()
    assert lines[0].startswith("cfg.py:5:23: LM101 `gpus=args.gpus`: ")
    assert not lines[0].endswith("[*]")
    assert lines[1].startswith("train.py:3:11: LM001 `accelerator='ddp'` is a training type; fix: ")
    assert lines[1].endswith("[*]")
    assert lines[2].startswith("train.py:3:11: LM004 ")
    assert "broken.py:3:7: error: cannot parse: invalid syntax" in outcome.err
    assert outcome.err.endswith(
        "Found 3 deprecated usages in 2 files (2 fixable, 1 more with `--shim`)."
        " 1 file could not be processed.\n"
    )


@pytest.mark.parametrize("output_format", ["json", "sarif"])
def test_a_run_with_no_files_still_writes_its_report(tmp_path: Path, output_format: str) -> None:
    outcome = run("--check", *TARGET, "--output-format", output_format, str(tmp_path))
    assert outcome.code == 0
    report = json.loads(outcome.out)  # (a script reading it gets an empty report, not nothing)
    assert report == [] if output_format == "json" else report["runs"][0]["results"] == []


def test_json(project: Path) -> None:
    outcome = run("--check", *TARGET, "--output-format", "json", ".")
    rows = json.loads(outcome.out)
    assert rows[0] == {
        "path": "cfg.py",
        "line": 5,
        "column": 23,
        "code": "LM101",
        "message": rows[0]["message"],
        "fixable": False,
        "details": rows[0]["details"],
        "remedy": "shim",  # (the flag whose run fixes it)
    }
    assert rows[0]["details"]  # (the values that break the closest rewrite, ...)
    assert rows[1]["remedy"] is None  # (fixed by the run itself)
    assert [(r["path"], r["code"], r["fixable"]) for r in rows[1:3]] == [
        ("train.py", "LM001", True),
        ("train.py", "LM004", True),
    ]
    assert rows[3] == {"path": "broken.py", "line": 3, "column": 7, "error": "cannot parse: invalid syntax"}


def test_github_annotations(project: Path) -> None:
    (project / "a,b:c.py").write_text(FIXABLE)
    outcome = run("--check", *TARGET, "--output-format", "github", ".")
    lines = outcome.out.splitlines()
    head = "::error file=a%2Cb%3Ac.py,line=3,col=11,title=LM001::"
    assert lines[0].startswith(head + "`accelerator='ddp'` is a training type")
    assert lines[0].endswith("[*]")
    assert "::error file=broken.py,line=3,col=7,title=error::cannot parse: invalid syntax" in lines
    assert any(line.startswith("::error file=cfg.py,line=5,col=23,title=LM101::") for line in lines)


def test_github_escapes_message_newlines(tmp_path: Path) -> None:
    from lightning_migrate.cli.output import _escape

    assert _escape("50% done\nnext,one:two", is_property=False) == "50%25 done%0Anext,one:two"
    assert _escape("a,b:c%", is_property=True) == "a%2Cb%3Ac%25"


def test_sarif_validates_against_the_official_schema(project: Path) -> None:
    import jsonschema  # only the unit environment has it

    outcome = run("--check", *TARGET, "--output-format", "sarif", ".")
    log = json.loads(outcome.out)
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft4Validator(schema).validate(log)
    (run_,) = log["runs"]
    assert [rule["id"] for rule in run_["tool"]["driver"]["rules"]] == [rule.code for rule in RULES]
    results = run_["results"]
    assert [
        (r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in results
    ] == [
        ("LM101", "cfg.py"),
        ("LM001", "train.py"),
        ("LM004", "train.py"),
    ]
    assert results[1]["locations"][0]["physicalLocation"]["region"] == {"startLine": 3, "startColumn": 11}
    assert all(RULES[r["ruleIndex"]].code == r["ruleId"] for r in results)
    (invocation,) = run_["invocations"]
    assert invocation["executionSuccessful"] is False
    assert invocation["toolExecutionNotifications"][0]["message"]["text"] == "cannot parse: invalid syntax"


def test_sarif_schema_rejects_a_broken_log() -> None:
    """The vendored schema really constrains: the test above cannot pass by accident."""
    import jsonschema

    schema = json.loads(SCHEMA.read_text())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft4Validator(schema).validate({"version": "2.1.0", "runs": [{"results": []}]})


def test_unknown_output_format(project: Path) -> None:
    outcome = run("--check", "--output-format", "xml", ".")
    assert outcome.code == 2
    assert "'xml' is not one of text, json, github, sarif" in outcome.err


@pytest.mark.parametrize(
    ("flags", "codes"),
    [
        ((), {"LM001", "LM004", "LM101"}),
        (("--select", "LM004"), {"LM004"}),
        (("--select", "LM1"), {"LM101"}),
        (("--ignore", "LM0"), {"LM101"}),
        (("--ignore", "LM001,LM101"), {"LM004"}),
        (("--select", "LM001", "--ignore", "LM0"), {"LM001"}),  # the more specific wins
        (("--select", "lm0", "--ignore", "LM0"), set()),  # a tie goes to ignore
    ],
)
def test_select_and_ignore(project: Path, flags: tuple[str, ...], codes: set[str]) -> None:
    (project / "broken.py").unlink()
    outcome = run("--check", *TARGET, "--output-format", "json", *flags, ".")
    assert {row["code"] for row in json.loads(outcome.out)} == codes
    assert outcome.code == (1 if codes else 0)


def test_unknown_code_is_a_usage_error(project: Path) -> None:
    outcome = run("--check", "--select", "LM7", ".")
    assert outcome.code == 2
    assert "unknown rule code or prefix LM7" in outcome.err


def test_an_ignored_fix_is_not_applied(project: Path) -> None:
    """LM001 and LM004 of one call share one rewrite: ignoring one leaves the call alone."""
    outcome = run(*TARGET, "--ignore", "LM004", "train.py")
    assert (project / "train.py").read_text() == FIXABLE
    assert outcome.code == 1
    (line,) = outcome.out.splitlines()
    assert line.startswith("train.py:3:11: LM001 ")
    assert NOT_FIXED in line
    assert not line.endswith("[*]")

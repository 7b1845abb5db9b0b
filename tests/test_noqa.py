"""Inline suppression: ``# noqa`` and ``# noqa: LM001`` on any line of a (multi-line) call, a suppressed
finding's fix not applied, and LM900 for our codes that suppress nothing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import FIXABLE, run

from lightning_migrate.report import noqa
from lightning_migrate.report.noqa import suppressions

TARGET = ("--target-version", "2.6")
MULTILINE = """\
import pytorch_lightning as pl

trainer = pl.Trainer(
    accelerator="ddp",
    gpus=2,{on_gpus}
    max_epochs=3,
){on_close}
"""


def check(tmp_path: Path, source: str, *flags: str) -> tuple[int, list[dict[str, object]], str]:
    path = tmp_path / "train.py"
    path.write_text(source)
    outcome = run("--check", *TARGET, "--output-format", "json", *flags, str(path))
    return outcome.code, json.loads(outcome.out), outcome.err


def codes(rows: list[dict[str, object]]) -> list[object]:
    return [row["code"] for row in rows]


def test_parsing_only_real_comments() -> None:
    text = 'x = "# noqa: LM001"  # noqa: lm004, LM101 E501\ny = 1  # NOQA\nz = 2  # noqa:LM002\n'
    found = suppressions(text)
    assert [(s.line, s.column, s.codes) for s in found] == [
        (1, 22, frozenset({"LM004", "LM101", "E501"})),
        (2, 8, None),
        (3, 8, frozenset({"LM002"})),
    ]


def test_a_code_suppresses_only_itself(tmp_path: Path) -> None:
    source = FIXABLE.replace("max_epochs=3)", "max_epochs=3)  # noqa: LM001")
    code, rows, err = check(tmp_path, source)
    assert codes(rows) == ["LM004"]
    assert rows[0]["fixable"] is False  # its fix is LM001's too, which the user asked to leave alone
    assert code == 1
    assert "1 finding suppressed by noqa comments." in err


def test_bare_noqa_suppresses_everything_and_nothing_is_rewritten(tmp_path: Path) -> None:
    source = FIXABLE.replace("max_epochs=3)", "max_epochs=3)  # noqa")
    path = tmp_path / "train.py"
    path.write_text(source)
    outcome = run(*TARGET, str(path))
    assert outcome.code == 0
    assert path.read_text() == source
    assert "No deprecated Trainer flags in 1 file. 2 findings suppressed by noqa comments." in outcome.err


@pytest.mark.parametrize(
    ("on_gpus", "on_close"),
    [("  # noqa: LM001, LM004", ""), ("", "  # noqa"), ("", "  # noqa: LM004,LM001")],
    ids=["argument-line", "closing-line-bare", "closing-line-codes"],
)
def test_any_line_of_a_multiline_call(tmp_path: Path, on_gpus: str, on_close: str) -> None:
    code, rows, _ = check(tmp_path, MULTILINE.format(on_gpus=on_gpus, on_close=on_close))
    assert (code, rows) == (0, [])


def test_a_noqa_outside_the_call_does_not_count(tmp_path: Path) -> None:
    source = MULTILINE.format(on_gpus="", on_close="") + "print(trainer)  # noqa: LM001\n"
    code, rows, _ = check(tmp_path, source)
    assert codes(rows) == ["LM001", "LM004", "LM900"]
    assert rows[2]["line"] == 8
    assert rows[2]["message"] == "`# noqa: LM001` suppresses nothing here"
    assert code == 1


def test_runtime_value_finding_suppressed_on_the_call_line(tmp_path: Path) -> None:
    source = (
        "import pytorch_lightning as pl\n\n\ndef build(args):\n"
        "    return pl.Trainer(  # noqa: LM101\n        gpus=args.gpus,\n    )\n"
    )
    assert check(tmp_path, source)[:2] == (0, [])


def test_unused_codes_of_ours_are_reported_others_are_not(tmp_path: Path) -> None:
    source = (
        "import pytorch_lightning as pl\n\n"
        'trainer = pl.Trainer(accelerator="cuda", devices=2)  # noqa: LM004, E501\n'
        "x = 1  # noqa\n"
    )
    code, rows, _ = check(tmp_path, source)
    assert [(r["code"], r["line"], r["column"]) for r in rows] == [("LM900", 3, 54)]
    assert code == 1
    assert check(tmp_path, source, "--ignore", "LM900")[:2] == (0, [])


def test_unused_noqa_in_a_file_the_prefilter_skips(tmp_path: Path) -> None:
    code, rows, _ = check(tmp_path, "x = 1  # noqa: LM001\n")
    assert (code, codes(rows)) == (1, ["LM900"])


def test_a_suppressed_call_is_left_and_the_other_calls_are_still_rewritten(tmp_path: Path) -> None:
    source = (
        "import pytorch_lightning as pl\n\n"
        'kept = pl.Trainer(accelerator="ddp", gpus=2)  # noqa: LM001\n'
        'fixed = pl.Trainer(accelerator="ddp", gpus=4)\n'
    )
    path = tmp_path / "train.py"
    path.write_text(source)
    outcome = run(*TARGET, str(path))
    assert outcome.code == 1
    assert path.read_text() == (
        "import pytorch_lightning as pl\n\n"
        'kept = pl.Trainer(accelerator="ddp", gpus=2)  # noqa: LM001\n'
        "fixed = pl.Trainer(\n"
        '    strategy="ddp_find_unused_parameters_true",\n'
        '    accelerator="cuda",\n'
        "    devices=4,\n"
        ")\n"
    )
    assert "train.py:3:8: LM004" in outcome.out
    assert "not fixed" in outcome.out
    assert "train.py:4:9: LM001" not in outcome.out  # fixed: counted, not listed
    assert "(2 fixed, 1 left)" in outcome.err


@pytest.mark.parametrize(
    "text",
    [
        "x = 1  # NoQa: lm001\n",
        "x = 1  # noqa\ny = 2  # nOqA:foo LM\n",
        "noqa noqa: E501 and lm",  # the first "noqa" is not the one that matches
        "noqa: E501\nlm",  # the code must be on the line of the noqa
        "\u0130 # noqa: LM001",  # a character that lowers to two: positions shift
        "\u212a # noqa: LM001",  # the Kelvin sign lowers to one
        "nothing of ours  # noqa: E501",
        "",
    ],
)
def test_may_name_ours_is_the_case_blind_search(text: str) -> None:
    """``_may_name_ours`` tries the pattern only at each "noqa": it answers as the whole text's search."""
    assert noqa._may_name_ours(text) == (noqa._NAMES_OURS.search(text) is not None)

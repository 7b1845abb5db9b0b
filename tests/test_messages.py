"""The shape of every finding's message on the golden fixtures (``test_fixtures``, ``test_kind_fixtures``),
each run for its targets: one line, at most ``MESSAGE_WIDTH`` characters but for the named exceptions, the
flag as written first, the fix said once per call; the evidence is in ``Finding.details``. Then the CLI's
``--show-details`` in the text, JSON and SARIF formats."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from functools import cache
from pathlib import Path

import pytest
import test_fixtures
import test_kind_fixtures
from cli_helpers import FIXABLE, UNFIXABLE, run

from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.report.findings import MESSAGE_WIDTH, Finding, written
from lightning_migrate.semantics.model import release

FIXTURES = Path(__file__).parent.parent / "fixtures"
COUNT_FLAGS = ("gpus", "tpu_cores", "ipus", "num_processes")
# A fix that is the flags the rewrite writes is said in full (a strategy name such as
# 'ddp_spawn_find_unused_parameters_true', a strategy object with its arguments, a conditional expression): a
# message may pass the width by such a fix's length alone, where the rest of it fits in this many characters.
# A fix said in words (a removed keyword's: "`TQDMProgressBar(refresh_rate=...)` appended to `callbacks=`")
# must fit: it was let through by this rule alone, 131 characters at target 1.5.
BESIDE_FIX = 70
FLAGS_WRITTEN = re.compile(r"\w+=")
# Every Python fixture is also run at each of these targets, the ones it has no expected output for too: the
# words of a message change with the target ("deprecated in Lightning 1.5.10", "not in Lightning 2.6.6").
WIDTH_TARGETS = ("1.5", "1.6", "1.7", "1.9", "2.0", "2.6")
# The messages allowed past the width, each with why: (code, what the message holds) -> reason.
EXCEPTIONS: dict[tuple[str, str], str] = {
    ("LM004", "(not fixed:"): "a YAML edit that cannot be written says why in the file's own words",
    (
        "LM101",
        "(or `--unsafe-fixes`)",
    ): "a run-time value quoted up to 40 characters, the shim and the unsafe fix",
    ("LM103", "(or `--unsafe-fixes`)"): "two run-time values quoted, and the unsafe fix",
}


def _python(case: Path, target: str) -> list[Finding]:
    text = case.read_text()
    unsafe = target.endswith(test_fixtures.UNSAFE)
    version = release(target.removesuffix(test_fixtures.UNSAFE))
    return migrate(text, version, test_fixtures.source_of(text), unsafe).findings


def _kind(case: Path, target: str) -> list[Finding]:
    return test_kind_fixtures.run(case, release(target)).findings


RUNS: list[tuple[Path, str, Callable[[Path, str], list[Finding]]]] = [
    *((case, target, _python) for case, _, target in test_fixtures.CASES),
    *((case, target, _kind) for case, _, target in test_kind_fixtures.CASES),
]


@cache
def findings(index: int) -> tuple[Finding, ...]:
    case, target, found = RUNS[index]
    return tuple(found(case, target))


def _fix(message: str) -> str:
    return message.split("fix: ", 1)[1] if "fix: " in message else ""


def _allowed(finding: Finding) -> bool:
    """Is a message past the width one of the named exceptions?"""
    fix = _fix(finding.message)
    if FLAGS_WRITTEN.match(fix) and len(finding.message) - len(fix) <= BESIDE_FIX:
        return True
    return any(code == finding.code and part in finding.message for code, part in EXCEPTIONS)


def test_there_are_runs_of_both_kinds() -> None:
    assert len(RUNS) > 800
    assert {found for _, _, found in RUNS} == {_python, _kind}


@pytest.mark.parametrize(
    "index", range(len(RUNS)), ids=[f"{c.relative_to(FIXTURES).as_posix()}@{t}" for c, t, _ in RUNS]
)
def test_message_shape(index: int) -> None:
    case, _, _ = RUNS[index]
    text = case.read_text()
    for finding in findings(index):
        message = finding.message
        assert "\n" not in message, message
        assert message == message.strip(), message
        assert len(message) <= MESSAGE_WIDTH or _allowed(finding), (len(message), message)
        assert all(detail and "\n" not in detail for detail in finding.details), finding.details
        SHAPES.get(finding.code, _any)(finding, text)


PYTHON_CASES = sorted({case for case, _, _ in test_fixtures.CASES})


@pytest.mark.parametrize("unsafe", [False, True], ids=["safe", "unsafe"])
@pytest.mark.parametrize("case", PYTHON_CASES, ids=[c.relative_to(FIXTURES).as_posix() for c in PYTHON_CASES])
def test_message_width_at_every_target(case: Path, unsafe: bool) -> None:
    """Each Python fixture at every target of ``WIDTH_TARGETS``, with and without ``--unsafe-fixes``: one
    line, within the width but for the named exceptions."""
    text = case.read_text()
    for target in WIDTH_TARGETS:
        for finding in migrate(text, release(target), test_fixtures.source_of(text), unsafe).findings:
            message = finding.message
            assert "\n" not in message, message
            assert len(message) <= MESSAGE_WIDTH or _allowed(finding), (target, len(message), message)


def _any(finding: Finding, text: str) -> None:
    """Every message says what to do: a fix, a flag, or a change to make by hand."""


def _flag_first(finding: Finding, text: str) -> None:
    """LM001-LM003: the flag as written first (its keyword is in the file), then the fix or a pointer to
    the finding that says it."""
    match = re.match(r"`(\w+)=", finding.message)
    assert match is not None, finding.message
    assert match.group(1) in text.lower(), finding.message
    if finding.fixable:
        assert "fix: " in finding.message or re.search(r"\(see LM00\d\)", finding.message), finding.message


def _count_flag(finding: Finding, text: str) -> None:
    """LM004 names the device flag the call uses, never the whole family."""
    named = [flag for flag in COUNT_FLAGS if f"`{flag}=" in finding.message]
    assert len(named) <= 1, finding.message
    for flag in named:  # (written as a keyword, an option or a `PL_TRAINER_*` variable)
        assert flag in text.lower(), finding.message
    assert "`gpus=`/`tpu_cores=`" not in finding.message


def _run_time(finding: Finding, text: str) -> None:
    """LM101 says what to do: pass the flags by hand or literally, or a flag (`--shim`, `--source-version`),
    and tells no script that already lists its values to narrow them."""
    assert re.search(
        r"by hand|literally|`--shim`|`--source-version`|fix: |runtime shim|migrate|pass `", finding.message
    )


def _ambiguous(finding: Finding, text: str) -> None:
    assert "`--source-version`" in finding.message, finding.message
    assert any("built" in d for d in finding.details), finding.details


SHAPES: dict[str, Callable[[Finding, str], None]] = {
    "LM001": _flag_first,
    "LM002": _flag_first,
    "LM003": _flag_first,
    "LM004": _count_flag,
    "LM101": _run_time,
    "LM102": _ambiguous,
}


def test_fix_names_only_the_keywords_it_changes() -> None:
    """The issue's call: `fix:` once, without the keywords written as they are (the count flag named)."""
    code = (
        "import pytorch_lightning as pl\n\n"
        "pl.Trainer(gpus=4, amp_backend='native', replace_sampler_ddp=False, accelerator='ddp',"
        " max_epochs=3)\n"
    )
    found = migrate(code, release("1.7")).findings
    fixes = [f.message for f in found if "fix: " in f.message]
    assert len(fixes) == 1, [f.message for f in found]
    assert "max_epochs" not in fixes[0]
    assert "gpus=4" not in _fix(fixes[0])
    assert "strategy='ddp'" in _fix(fixes[0])
    assert "devices=4" in _fix(fixes[0])
    count = next(f for f in found if f.code == "LM004")
    assert count.message.startswith("`gpus=4` ")
    assert "`tpu_cores=`" not in count.message
    assert any("deprecated in 1.7, removed in 2.0" in d for d in count.details), count.details


def test_auto_select_gpus_is_named_where_2x_lacks_it() -> None:
    """`gpus=n, auto_select_gpus=True` was refused for 2.x with "cannot build what this call built" and
    2.x's TypeError on `gpus`: the flag that blocks the rewrite, and its replacement, went unsaid."""
    code = "import pytorch_lightning as pl\n\npl.Trainer(gpus=1, auto_select_gpus=True)\n"
    (found,) = migrate(code, release("2.6")).findings
    assert found.code == "LM103"
    assert found.message.startswith("`auto_select_gpus=True` is not in Lightning 2.6")
    assert any("devices=find_usable_cuda_devices(n)" in d for d in found.details), found.details


def test_a_refusal_names_a_machine_where_the_call_changes() -> None:
    """`Trainer(accelerator="gpu")` from 1.7 is all GPUs with ddp_spawn there, ddp (popen) in 2.x: the
    refusal named one GPU, where both build one device, and said "as written, Lightning 2.6.6 gives cuda x1,
    single_device" of a call that built cuda x1, single_device (sc_depth_pl, which pins 1.7.3). (Where the
    module may be given `import torch`, the strategy is a test of the machine's GPU count: here a star import
    may bind `torch`, and the call is refused.)"""
    code = (
        'import pytorch_lightning as pl\nfrom utils import *\n\npl.Trainer(accelerator="gpu", max_epochs=3)\n'
    )
    (found,) = migrate(code, release("2.6"), release("1.7")).findings
    assert found.code == "LM103"
    built, written = found.details[:2]
    assert built.startswith("on 2 CUDA GPUs, this call builds cuda x2, ddp(start_method=spawn"), built
    assert "start_method=popen" in written, written
    assert "a star import may bind `torch` to anything" in found.details[-1]
    rewritten = migrate(code.replace("from utils import *\n", ""), release("2.6"), release("1.7")).code
    assert "import torch\n" in rewritten
    assert 'strategy="ddp_spawn_find_unused_parameters_true" if torch.cuda.device_count() > 1' in rewritten


def test_choices_are_not_told_to_narrow(tmp_path: Path) -> None:
    """A value whose script lists every choice is not told to narrow it; one with any value is. (Strings:
    `"0"` is the CPU yet true, so no test of the value splits them.)"""
    said = {}
    for name, option in (("listed", ", choices=['0', '2']"), ("open", "")):
        code = (
            "import argparse\nimport pytorch_lightning as pl\n\n"
            f"parser = argparse.ArgumentParser()\nparser.add_argument('--gpus'{option})\n"
            "args = parser.parse_args()\npl.Trainer(gpus=args.gpus, accelerator='ddp')\n"
        )
        found = [f for f in migrate(code, release("2.6"), release("1.5")).findings if f.code == "LM101"]
        assert found, name
        said[name] = found[0]
    assert "narrow" not in said["listed"].message
    assert "narrow" in said["open"].message
    assert any(d.startswith("the closest rewrite: ") for d in said["open"].details)
    assert any(d.startswith("it breaks for ") for d in said["open"].details)


def test_written_collapses_and_cuts() -> None:
    assert written("torch.cuda.device_count()") == "torch.cuda.device_count()"
    assert written("dict(\n    a=1,\n    b=2)") == "dict( a=1, b=2)"
    cut = written("x" * 60)
    assert len(cut) == 40
    assert cut.endswith("…")


# --- the CLI ------------------------------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "train.py").write_text(FIXABLE)
    (tmp_path / "cfg.py").write_text(UNFIXABLE)
    return tmp_path


TARGET = ("--check", "--target-version", "2.6")


def test_text_details_only_when_asked(project: Path) -> None:
    plain = run(*TARGET, ".").out.splitlines()
    shown = run(*TARGET, "--show-details", ".").out.splitlines()
    assert all(not line.startswith(" ") for line in plain)
    assert [line for line in shown if not line.startswith(" ")] == plain
    under = shown[shown.index(plain[0]) + 1 : shown.index(plain[1])]  # the LM101 finding's evidence
    assert under
    assert all(line.startswith("    ") for line in under)
    assert any(line.strip().startswith("the closest rewrite: ") for line in under)


def test_show_details_from_pyproject(project: Path) -> None:
    (project / "pyproject.toml").write_text("[tool.lightning-migrate]\nshow-details = true\n")
    assert any(line.startswith("    ") for line in run(*TARGET, ".").out.splitlines())
    assert not any(
        line.startswith("    ") for line in run(*TARGET, "--no-show-details", ".").out.splitlines()
    )
    (project / "pyproject.toml").write_text('[tool.lightning-migrate]\nshow-details = "yes"\n')
    outcome = run(*TARGET, ".")
    assert outcome.code == 2
    assert "show-details" in outcome.err


def test_json_rows_always_carry_details(project: Path) -> None:
    rows = json.loads(run(*TARGET, "--output-format", "json", ".").out)
    assert all(isinstance(row["details"], list) for row in rows)
    runtime = next(row for row in rows if row["code"] == "LM101")
    assert any(d.startswith("the closest rewrite: ") for d in runtime["details"])
    assert json.loads(run(*TARGET, "--output-format", "json", "--show-details", ".").out) == rows


def test_sarif_details_in_markdown_and_properties(project: Path) -> None:
    log = json.loads(run(*TARGET, "--output-format", "sarif", ".").out)
    results = log["runs"][0]["results"]
    runtime = next(r for r in results if r["ruleId"] == "LM101")
    message = runtime["message"]
    assert message["markdown"].startswith(message["text"] + "\n\n- ")
    assert runtime["properties"]["details"] == [
        line[2:] for line in message["markdown"].split("\n\n", 1)[1].splitlines()
    ]
    assert all("markdown" not in r["message"] for r in results if not r["properties"].get("details"))


def test_github_annotations_say_the_message_only(project: Path) -> None:
    out = run(*TARGET, "--output-format", "github", "--show-details", ".").out
    assert "the closest rewrite" not in out

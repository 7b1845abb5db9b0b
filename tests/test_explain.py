"""``rules`` and ``explain``; every rule's example equals its fixture pair and really shows the rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import run

from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.report.findings import SHIM, SOURCE_VERSION, UNSAFE_FIXES
from lightning_migrate.report.rule_examples import EXAMPLES
from lightning_migrate.report.rules import RULES
from lightning_migrate.run.options import Options
from lightning_migrate.run.runner import process_file
from lightning_migrate.semantics.model import release

FIXTURES = Path(__file__).parent.parent / "fixtures"


def test_rules_lists_every_rule() -> None:
    outcome = run("rules")
    assert outcome.code == 0
    lines = outcome.out.splitlines()
    assert lines[0].split() == ["code", "name", "fix", "deprecated", "removed", "title"]
    assert [line.split()[0] for line in lines[1:]] == [rule.code for rule in RULES]
    assert lines[1].split()[:5] == ["LM001", "accelerator-training-type", "yes", "1.5", "1.7"]


def test_explain_a_rule() -> None:
    outcome = run("explain", "LM004")
    assert outcome.code == 0
    assert outcome.out.startswith("LM004 device-count-flags\n")
    assert "Deprecated in Lightning 1.7, removed in 2.0." in outcome.out
    assert "Upstream change: https://github.com/Lightning-AI/pytorch-lightning/pull/16171" in outcome.out
    assert "Example, for target Lightning 1.9 (fixtures/namespaces/lightning_L.py):" in outcome.out
    assert "    trainer = L.Trainer(gpus=2)\n" in outcome.out
    assert '    trainer = L.Trainer(accelerator="cuda", devices=2)\n' in outcome.out


def test_explain_by_name_and_an_unreported_rewrite() -> None:
    outcome = run("explain", "rejected-call")
    assert outcome.out.startswith("LM100 rejected-call\n")
    assert "Fix: none; the call is left as it is and reported." in outcome.out
    assert "  after: unchanged (reported, not rewritten)" in outcome.out


@pytest.mark.parametrize(
    ("code", "said"),
    [
        ("LM101", "  after, with `--shim`:\n"),
        ("LM102", "  after, with `--source-version 1.5`:\n"),
        ("LM103", "  after, with `--unsafe-fixes`:\n"),
        ("LM104", "  written by hand instead:\n"),
    ],
)
def test_explain_says_what_to_do_about_what_is_not_fixed(code: str, said: str) -> None:
    outcome = run("explain", code)
    assert "Fix: not automatic; the call is left as it is and reported.\nWhat to do: " in outcome.out
    assert "Fix: none" not in outcome.out
    assert said in outcome.out
    assert "unchanged (reported, not rewritten)" not in outcome.out


def test_explain_an_unknown_rule() -> None:
    outcome = run("explain", "LM042")
    assert outcome.code == 2
    assert "no rule 'LM042'" in outcome.err


def test_every_rule_has_an_example() -> None:
    assert set(EXAMPLES) == {rule.code for rule in RULES}


@pytest.mark.parametrize("code", sorted(c for c, e in EXAMPLES.items() if e.fixture))
def test_example_is_its_fixture_pair_and_shows_the_rule(code: str) -> None:
    example = EXAMPLES[code]
    case = FIXTURES / f"{example.fixture}.py"
    expected = FIXTURES / f"{example.fixture}.{example.target}.expected.py"
    # the fixture's `# expect: CODE` lines are for the fixture suite, not for readers of `explain`
    fixture = "".join(line for line in case.read_text().splitlines(True) if not line.startswith("# expect:"))
    assert example.before == fixture
    done_by_hand = example.flags or example.edited is not None  # (what to do: `test_what_to_do_is_real`)
    if example.after is None or done_by_hand:
        assert not expected.exists()
    else:
        assert example.after == expected.read_text()
    result = migrate(example.before, release(example.target))
    assert result.code == (example.before if done_by_hand else example.after or example.before)
    assert code in {f.code for f in result.findings}


# the remedy each flag of an example's run is (a finding it fixes names it)
FLAG_REMEDIES = {"--shim": SHIM, "--unsafe-fixes": UNSAFE_FIXES, "--source-version": SOURCE_VERSION}


@pytest.mark.parametrize("code", sorted(c for c, e in EXAMPLES.items() if e.flags or e.edited is not None))
def test_what_to_do_is_real(code: str) -> None:
    """The command line reports the rule on ``before``; the run with the example's flags (on the code written
    by hand, if any) prints ``after`` and leaves no finding of the rule; the finding names the flag."""
    example = EXAMPLES[code]
    target = ("--target-version", example.target)
    reported = run("--check", "-", *target, stdin=example.before.encode())
    assert f" {code} " in reported.out
    start = example.edited if example.edited is not None else example.before
    done = run("-", *target, *example.flags, stdin=start.encode())
    assert done.out == example.after
    assert f" {code} " not in done.err
    assert done.code == 1  # (rewritten)
    remedies = {f.remedy for f in migrate(example.before, release(example.target)).findings if f.code == code}
    assert remedies == {FLAG_REMEDIES[example.flags[0]] if example.flags else ""}


def test_the_unused_noqa_example_shows_lm900(tmp_path: Path) -> None:
    example = EXAMPLES["LM900"]
    result = process_file(tmp_path / "x.py", Options(release(example.target)), example.before.encode())
    assert [f.code for f in result.findings] == ["LM900"]

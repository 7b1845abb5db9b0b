"""``rules`` and ``explain``; every rule's example equals its fixture pair and really shows the rule."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import run

from lightning_migrate.frontends.python.frontend import migrate
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
    outcome = run("explain", "no-equivalent")
    assert outcome.out.startswith("LM103 no-equivalent\n")
    assert "Fix: none; the call is left as it is and reported." in outcome.out
    assert "  after: unchanged (reported, not rewritten)" in outcome.out


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
    if example.after is None:
        assert not expected.exists()
    else:
        assert example.after == expected.read_text()
    result = migrate(example.before, release(example.target))
    assert result.code == (example.after or example.before)
    assert code in {f.code for f in result.findings}


def test_the_unused_noqa_example_shows_lm900(tmp_path: Path) -> None:
    example = EXAMPLES["LM900"]
    result = process_file(tmp_path / "x.py", Options(release(example.target)), example.before.encode())
    assert [f.code for f in result.findings] == ["LM900"]

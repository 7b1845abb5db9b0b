"""Golden fixtures: ``fixtures/<rule>/<case>.py`` with ``<case>.<target>.expected.py`` for each target it is
migrated to (no expected file: the case must come out unchanged for ``2.6``). A fixture may pin the release
it was written for with a first line ``# source: X.Y``. Every case is also checked to be a fixed point, and
every rewritten Trainer call to build the same setup in the target as the original did in its source."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from lightning_migrate.callparse import Call, trainer_calls
from lightning_migrate.codemod.plan import MACHINES, codemod_deprecations, comparable
from lightning_migrate.codemod.python import migrate
from lightning_migrate.semantics import Setup, interpret
from lightning_migrate.semantics.model import RELEASES, Version, release

FIXTURES = Path(__file__).parent.parent / "fixtures"
DEFAULT_TARGET = "2.6"


def cases() -> list[tuple[Path, Path | None, str]]:
    found = []
    for case in sorted(FIXTURES.rglob("*.py")):
        if ".expected" in case.name:
            continue
        expected = sorted(case.parent.glob(f"{case.stem}.*.expected.py"))
        if not expected:
            found.append((case, None, DEFAULT_TARGET))
        for path in expected:
            target = path.name[len(case.stem) + 1 : -len(".expected.py")]
            found.append((case, path, target))
    return found


def source_of(text: str) -> Version | None:
    match = re.match(r"# source: (\S+)", text)
    return release(match.group(1)) if match else None


CASES = cases()


def test_there_are_fixtures() -> None:
    assert len(CASES) >= 20


@pytest.mark.parametrize(
    ("case", "expected", "target"),
    CASES,
    ids=[f"{c.parent.name}/{c.stem}@{t}" for c, _, t in CASES],
)
def test_fixture(case: Path, expected: Path | None, target: str) -> None:
    text = case.read_text()
    source = source_of(text)
    out = migrate(text, release(target), source).code
    want = expected.read_text() if expected else text
    assert out == want
    assert migrate(out, release(target), source).code == out, "not a fixed point"
    if expected:
        assert_behaviour_kept(text, out, release(target), source)


def assert_behaviour_kept(old: str, new: str, target: Version, source: Version | None) -> None:
    before = [c for c in trainer_calls(old) if isinstance(c, Call)]
    after = [c for c in trainer_calls(new) if isinstance(c, Call)]
    assert len(before) == len(after)
    sources = [source] if source else [r for r in RELEASES if r < target]
    for old_call, new_call in zip(before, after):
        if old_call.flags == new_call.flags:
            continue
        for machine in MACHINES:
            built = {interpret(old_call.flags, r, machine).outcome for r in sources} - {None}
            setups = {s for s in built if isinstance(s, Setup)}
            result = interpret(new_call.flags, target, machine)
            assert not codemod_deprecations(result.deprecations), new_call.text
            if setups:
                assert isinstance(result.outcome, Setup), (new_call.text, machine)
                assert {comparable(s) for s in setups} == {comparable(result.outcome)}, (
                    new_call.text,
                    machine,
                )

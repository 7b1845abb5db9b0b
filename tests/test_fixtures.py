"""Golden fixtures: ``fixtures/<rule>/<case>.py`` with ``<case>.<target>.expected.py`` for each target it is
migrated to (no expected file: the case must come out unchanged for ``2.6``; ``<target>.unsafe`` for the
output of ``--unsafe-fixes``, checked with the defaults it may change left out). A fixture may pin the release
it was written for with a first line ``# source: X.Y``, and name findings it must report at ``2.6`` in lines
``# expect: CODE``; a case in ``fixtures/no_finding`` must report nothing, for any target from 1.6. Every
case is also checked to be a fixed point, and every rewritten Trainer call to build the same setup in the
target as the original did in its source."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest
from runtime_calls import (
    MACHINE_READ,
    HoledCall,
    Impossible,
    choices,
    declared,
    evaluate,
    holed_calls,
    machine_facts,
    machine_names,
)

from lightning_migrate.cli.callparse import Call, trainer_calls
from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.plan.callsite import LIGHTNING_PACKAGE
from lightning_migrate.plan.planner import MACHINES, codemod_deprecations, machines, modernizable, modernized
from lightning_migrate.semantics import Hardware, Rejected, Setup, interpret
from lightning_migrate.semantics.model import RELEASES, Interpretation, Value, Version, release

FIXTURES = Path(__file__).parent.parent / "fixtures"
DEFAULT_TARGET = "2.6"
NO_FINDING = "no_finding"  # calls in the target's own form, or that no release builds: no finding at all
# whole projects, each migrated as one run: `lightning_cli/<name>/project/` (`test_kind_fixtures`) and
# `projects/<name>/` (`test_project_configs`)
WHOLE_PROJECTS = ("lightning_cli", "projects")
SHIM = "shim"  # `shim/<case>.py`: migrated with `--shim --unsafe-fixes` (`test_shim_objects`)
UNSAFE = ".unsafe"  # `<case>.2.6.unsafe.expected.py`: the output of `--unsafe-fixes`
# Python that `test_kind_fixtures` checks as a file of its folder: argument lists of command lines, and
# scripts whose parser another module of the folder builds (read from disk, by the file's path)
CHECKED_AS_FOLDER = ("python_command_lines", "project_options")


def cases() -> list[tuple[Path, Path | None, str]]:
    found = []
    for case in sorted(FIXTURES.rglob("*.py")):
        if ".expected" in case.name or case.parent.name in CHECKED_AS_FOLDER:  # `test_kind_fixtures`
            continue
        if case.relative_to(FIXTURES).parts[0] in (*WHOLE_PROJECTS, SHIM):
            continue
        expected = sorted(case.parent.glob(f"{case.stem}.*.expected.py"))
        if not expected:
            found.append((case, None, DEFAULT_TARGET))
        if case.parent.name == NO_FINDING:
            found.extend((case, None, t) for t in ("1.6", "1.7", "1.9", "2.0"))
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
    unsafe = target.endswith(UNSAFE)
    version = release(target.removesuffix(UNSAFE))
    result = migrate(text, version, source, unsafe)
    out = result.code
    want = expected.read_text() if expected else text
    assert out == want
    if target == DEFAULT_TARGET:  # `# expect: LM101` lines name findings the case must report
        assert set(re.findall(r"# expect: (LM\d+)", text)) <= {f.code for f in result.findings}
    if case.parent.name == NO_FINDING:
        assert result.findings == []
    assert migrate(out, version, source, unsafe).code == out, "not a fixed point"
    if expected:
        checked = assert_behaviour_kept(text, out, version, source, unsafe)
        # a case with no Trainer call is about imports alone (`objects/plugin_imports_without_call`)
        assert checked > 0 or not list(trainer_calls(text)), "no rewritten call checked"


def assert_behaviour_kept(
    old: str, new: str, target: Version, source: Version | None, unsafe: bool = False
) -> int:
    """Check every Trainer call the rewrite changed (read independently of the codemod, with ``ast``);
    return how many were checked. A changed call that cannot be read on both sides fails the test."""
    before, after = list(trainer_calls(old)), list(trainer_calls(new))
    assert len(before) == len(after)
    # code importing the unified `lightning` package was written for 1.8 or later (unless no such release took
    # the call: then the codemod keeps what it did where it last ran, see `_Migrator._since`)
    since = LIGHTNING_PACKAGE if re.search(r"^\s*(from|import) lightning\b", old, re.M) else RELEASES[0]
    sources = [source] if source else [r for r in RELEASES if since <= r < target]
    checked = 0
    holed = list(zip(holed_calls(old), holed_calls(new)))
    for (old_call, new_call), (old_holed, new_holed) in zip(zip(before, after), holed):
        if isinstance(old_call, Call) and isinstance(new_call, Call):
            if old_call.flags != new_call.flags:
                checked += 1
                assert_flags_kept(old_call.flags, new_call.flags, target, sources, unsafe, new_call.text)
            continue
        if old_holed.text == new_holed.text:
            continue
        # values only known at run time: every value they may take, every branch of a conditional
        checked += 1
        domains = declared(old)
        read = " ".join((old_holed.text, new_holed.text, machine_names(old_holed)))
        for chosen in choices(old_holed, new_holed, domains):
            if not MACHINE_READ.search(read):
                _assert_chosen_kept(old_holed, new_holed, chosen, target, sources, unsafe)
                continue
            # a test of the machine: judged machine by machine, with what its readers give there (and only
            # where the old call's tests of it were chosen as that machine says)
            for machine in MACHINES:
                facts = machine_facts(read, machine.cuda)
                if any(chosen.get(text, value) != value for text, value in facts.items()):
                    continue
                _assert_chosen_kept(
                    old_holed, new_holed, {**chosen, **facts}, target, sources, unsafe, machine
                )
    return checked


def _assert_chosen_kept(
    old_holed: HoledCall,
    new_holed: HoledCall,
    chosen: dict[str, object],
    target: Version,
    sources: list[Version],
    unsafe: bool,
    only: Hardware | None = None,
) -> None:
    try:
        old_flags = evaluate(old_holed, chosen)
    except Impossible:
        return  # (Python raises evaluating the old call's keywords: no run gets to the Trainer)
    new_flags = evaluate(new_holed, chosen)
    if all(isinstance(r.outcome, Rejected) for r in _in_sources(old_flags, sources)):
        return  # a value the old call never ran with
    label = f"{new_holed.text} with {chosen}"
    assert_flags_kept(old_flags, new_flags, target, sources, unsafe, label, only)


def _in_sources(flags: dict[str, Value], sources: list[Version]) -> list[Interpretation]:
    return [interpret(flags, r, m) for r in sources for m in machines(flags)]


def assert_flags_kept(
    old: Mapping[str, Value],
    new: Mapping[str, Value],
    target: Version,
    sources: Sequence[Version],
    unsafe: bool = False,
    label: str = "",
    only: Hardware | None = None,
) -> None:
    """``new`` builds in ``target``, on every machine, what ``old`` built in the ``sources`` (those of them
    that took it), with no deprecation the codemod is about (but those of keywords the old call passes as
    they were: a run-time `gpus=` left for the user, reported as work left)."""
    took = [r for r in sources for m in machines(old) if isinstance(interpret(old, r, m).outcome, Setup)]
    in_use = sources if took else [r for r in RELEASES if r < target]
    same = modernized(modernizable(old, target) if unsafe else ())
    for machine in machines(old):
        if only is not None and machine.cuda != only.cuda:
            continue  # (the values are those of another machine)
        built = {interpret(old, r, machine).outcome for r in in_use} - {None}
        setups = {s for s in built if isinstance(s, Setup)}
        result = interpret(new, target, machine)
        assert not [d for d in codemod_deprecations(result.deprecations) if d.flag not in old], label
        if setups:
            assert isinstance(result.outcome, Setup), (label, machine)
            assert {same(s) for s in setups} == {same(result.outcome)}, (label, machine)

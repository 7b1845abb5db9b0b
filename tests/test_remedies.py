"""A finding's ``remedy`` names the flag that fixes it, checked by running each golden fixture again with the
flag: a finding that names ``--unsafe-fixes`` or ``--shim`` is fixed by that run (no finding left at its
place, or a fixed one), and one that either run fixes names a flag that does (so what the summary counts as
left is what no flag fixes). One that names ``--source-version`` is settled by the release it was written
for: every source release that builds the call leaves nothing at its place."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from lightning_migrate.report.findings import REMEDIES, SHIM, SOURCE_VERSION, UNSAFE_FIXES, Finding
from lightning_migrate.run.file_kinds import BY_SUFFIX
from lightning_migrate.run.options import Options
from lightning_migrate.run.runner import FileResult, process_all
from lightning_migrate.semantics.model import RELEASES, Version, release

FIXTURES = Path(__file__).parent.parent / "fixtures"
TARGET = release("2.6")
# folders migrated as one run (a project's files know each other); every other fixture is a run of its own
PROJECTS = ("lightning_cli/*/project", "projects/*", "hydra_project/project")
RERUNS = {UNSAFE_FIXES: {"unsafe": True}, SHIM: {"shim": True}}
Place = tuple[Path, int, int]


def units() -> list[tuple[Path, ...]]:
    folders = (p for pattern in PROJECTS for p in sorted(FIXTURES.glob(pattern)))
    projects = [p for p in folders if ".expected" not in p.name]
    found = [tuple(sorted(p for p in folder.rglob("*") if p.is_file())) for folder in projects]
    for path in sorted(FIXTURES.rglob("*")):
        if not path.is_file() or path.suffix not in BY_SUFFIX or ".expected" in path.as_posix():
            continue
        if not any(folder in path.parents for folder in projects):
            found.append((path,))
    return found


UNITS = units()


def _id(unit: Sequence[Path]) -> str:
    first = unit[0].relative_to(FIXTURES)
    return first.as_posix() if len(unit) == 1 else first.parts[0] + "/" + first.parts[1]


def _source(unit: Sequence[Path]) -> Version | None:
    match = re.match(r"# source: (\S+)", unit[0].read_text(errors="replace")) if len(unit) == 1 else None
    return release(match.group(1)) if match else None


def _left(results: list[FileResult]) -> dict[Place, Finding]:
    """The findings no run fixed, by place."""
    return {(r.path, f.line, f.column): f for r in results for f in r.findings if not f.fixable}


def _run(unit: Sequence[Path], options: Options) -> dict[Place, Finding]:
    results = process_all(list(unit), options, jobs=1)
    assert not [r.error for r in results if r.error]
    return _left(results)


@pytest.mark.parametrize("unit", UNITS, ids=[_id(u) for u in UNITS])
def test_a_remedy_fixes_what_it_names(unit: tuple[Path, ...]) -> None:
    options = Options(TARGET, _source(unit))
    left = _run(unit, options)
    assert {f.remedy for f in left.values()} <= {"", *REMEDIES}
    if not left:
        return
    fixed_by: dict[Place, set[str]] = {place: set() for place in left}
    for remedy, flag in RERUNS.items():
        again = _run(unit, replace(options, **flag))
        for place in left:
            if place not in again:
                fixed_by[place].add(remedy)
        _assert_fixed_with_both(unit, replace(options, **flag), again, remedy)
    for place, finding in left.items():
        said = f"{place}: {finding.code} (remedy {finding.remedy!r}, fixed by {sorted(fixed_by[place])})"
        if finding.remedy in RERUNS or fixed_by[place]:
            assert finding.remedy in fixed_by[place], said
    settled = [place for place, f in left.items() if f.remedy == SOURCE_VERSION]
    if settled:
        _assert_settled(unit, options, settled)


def _assert_fixed_with_both(
    unit: Sequence[Path], options: Options, left: dict[Place, Finding], remedy: str
) -> None:
    """What a run with one flag leaves naming the other is fixed by the run with both."""
    named = {place: f.remedy for place, f in left.items() if f.remedy in RERUNS and f.remedy != remedy}
    for other in set(named.values()):
        again = _run(unit, replace(options, **RERUNS[other]))
        assert not [place for place, said in named.items() if said == other and place in again]


def _assert_settled(unit: Sequence[Path], options: Options, places: list[Place]) -> None:
    """Each source release that builds the call leaves nothing at its place (one that does not build it,
    LM100, was not the code's release); at least one does."""
    settled = dict.fromkeys(places, 0)
    for source in (r for r in RELEASES if r < TARGET and r.major == 1):
        again = _run(unit, replace(options, source=source))
        for place in places:
            found = again.get(place)
            assert found is None or found.code == "LM100", (place, source, found)
            settled[place] += found is None
    assert all(settled.values()), settled


@pytest.mark.parametrize(
    ("fixture", "code", "remedy"),
    [
        ("refusals/gpus_string_ambiguous.py", "LM102", SOURCE_VERSION),
        ("refusals/gpus_all_for_2x.py", "LM103", UNSAFE_FIXES),
        ("removed_keywords/callbacks_moved.py", "LM007", UNSAFE_FIXES),
        ("negatives/runtime_gpus.py", "LM101", SHIM),
        ("argparse_namespaces/parse_argparser.py", "LM105", SHIM),
        ("shell/train.sh", "LM101", ""),  # (a command line: the shim is the script's to build)
    ],
)
def test_every_remedy_is_named_somewhere(fixture: str, code: str, remedy: str) -> None:
    left = _run((FIXTURES / fixture,), Options(TARGET))
    assert remedy in {f.remedy for f in left.values() if f.code == code}


def test_a_call_the_shim_cannot_build_keeps_its_other_remedy(tmp_path: Path) -> None:
    """`flash.Trainer` is no call of Lightning's own Trainer for the shim: with `--shim` its finding still
    names `--unsafe-fixes`, which fixes it (`gpus=-1` was one device on a one-GPU machine and spawned on more:
    no 2.x spelling keeps every count but the modern default, where the module's star import may bind `torch`
    to anything: no test of the machine is written)."""
    script = tmp_path / "train.py"
    script.write_text(
        "import argparse\n\nimport flash\nfrom flash.core.utilities.imports import *\n\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--gpus', type=int, default=1)\nargs = parser.parse_args()\n"
        "trainer = flash.Trainer(max_epochs=3, gpus=args.gpus)\n"
    )
    path = (script,)
    assert [f.remedy for f in _run(path, Options(TARGET, shim=True)).values()] == [UNSAFE_FIXES]
    assert _run(path, Options(TARGET, shim=True, unsafe=True)) == {}

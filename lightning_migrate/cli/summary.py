"""What a run's report counts: the summary line (what was fixed, what each flag would add, what is left for
a person) and ``--statistics`` (each code's findings). Pure: the strings and rows, written by ``output``."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from lightning_migrate.cli import style
from lightning_migrate.report.findings import SHIM, SOURCE_VERSION, UNSAFE_FIXES, Finding
from lightning_migrate.report.rules import BY_CODE
from lightning_migrate.run.runner import FileResult

# How the summary says what a flag would add: (in rewrite mode, in check and diff modes). The order is the
# summary's and --statistics'.
REMEDY_WORDS = {
    UNSAFE_FIXES: ("fixable with `--unsafe-fixes`", "with `--unsafe-fixes`"),
    SHIM: ("handled by `--shim`", "with `--shim`"),
    SOURCE_VERSION: ("settled by `--source-version`", "with `--source-version`"),
}


def summary(results: Sequence[FileResult], mode: str, plain: int = 0) -> str:
    """``Found 20 deprecated usages in 7 files (17 fixed, 2 fixable with `--unsafe-fixes`, 1 left).``, then
    the findings ``# noqa`` suppressed and the files that could not be processed (``plain``: how many more
    files were processed that said nothing, not given)."""
    findings = [f for r in results for f in r.findings]
    parts = []
    if findings:
        usages = count(len(findings), "deprecated usage")
        where = count(sum(1 for r in results if r.findings), "file")
        parts.append(f"Found {usages} in {where} ({', '.join(counts(findings, mode))}).")
    else:
        parts.append(f"No deprecated Trainer flags in {count(len(results) + plain, 'file')}.")
    suppressed = sum(r.suppressed for r in results)
    if suppressed:
        parts.append(f"{count(suppressed, 'finding')} suppressed by noqa comments.")
    errors = sum(1 for r in results if r.error)
    if errors:
        parts.append(f"{count(errors, 'file')} could not be processed.")
    return " ".join(parts)


def counts(findings: Iterable[Finding], mode: str) -> list[str]:
    """The non-zero counts of ``findings``: fixed (rewrite mode) or fixable, what each flag would fix (in
    check and diff modes the first after the fixable ones is "more"), and those no flag fixes, left."""
    rewrite = mode == "rewrite"
    tally = Tally.of(findings)
    parts = [f"{tally.fixable} {'fixed' if rewrite else 'fixable'}"] if tally.fixable else []
    more = bool(parts)  # (the first flag's count adds to the fixable ones)
    for remedy, (done, would) in REMEDY_WORDS.items():
        n = tally.remedies[remedy]
        if n:
            parts.append(f"{n} {done}" if rewrite else f"{n} {'more ' * more}{would}")
            more = False
    if tally.left:
        parts.append(f"{tally.left} left")
    return parts


@dataclass
class Tally:
    """Findings counted: all, fixable (or fixed), not fixable but fixed by a flag's run (by flag), left."""

    total: int = 0
    fixable: int = 0
    remedies: Counter[str] = field(default_factory=Counter)
    left: int = 0

    @classmethod
    def of(cls, findings: Iterable[Finding]) -> Tally:
        tally = cls()
        for finding in findings:
            tally.add(finding)
        return tally

    def add(self, finding: Finding) -> None:
        self.total += 1
        if finding.fixable:
            self.fixable += 1
        elif finding.remedy in REMEDY_WORDS:
            self.remedies[finding.remedy] += 1
        else:
            self.left += 1


def by_code(results: Sequence[FileResult]) -> list[tuple[str, Tally]]:
    """Each code's tally, the most frequent first (then by code), as ruff's ``--statistics`` orders them."""
    tallies: dict[str, Tally] = {}
    for result in results:
        for finding in result.findings:
            tallies.setdefault(finding.code, Tally()).add(finding)
    return sorted(tallies.items(), key=lambda item: (-item[1].total, item[0]))


def statistics_lines(results: Sequence[FileResult], mode: str) -> list[str]:
    """``  12  LM004  device-count-flags  [*]``: the count, the code, the rule's name, ``[*]`` where every
    one is fixable (``[*] 3 of 5`` where some are), and what each flag would fix of the rest."""
    rows = by_code(results)
    width = max((len(str(t.total)) for _, t in rows), default=1)
    named = max((len(BY_CODE[code].name) for code, _ in rows), default=0)
    lines = []
    for code, tally in rows:
        fixes = _fixes(tally, mode)
        name = BY_CODE[code].name + (" " * (named - len(BY_CODE[code].name)) + "  " + fixes if fixes else "")
        lines.append(f"  {str(tally.total).rjust(width)}  {style.code(code)}  {name}")
    return lines


def _fixes(tally: Tally, mode: str) -> str:
    said = []
    if tally.fixable:
        some = "" if tally.fixable == tally.total else f" {tally.fixable} of {tally.total}"
        said.append(style.mark("[*]") + some)
    words = 0 if mode == "rewrite" else 1
    said += [f"{n} {REMEDY_WORDS[r][words]}" for r in REMEDY_WORDS if (n := tally.remedies[r])]
    return "; ".join(said)


def statistics_rows(results: Sequence[FileResult]) -> list[dict[str, object]]:
    """``--statistics`` for scripts: per code, its name, how many, how many fixable, and by each flag."""
    return [
        {
            "code": code,
            "name": BY_CODE[code].name,
            "count": tally.total,
            "fixable": tally.fixable,
            "with": {remedy: tally.remedies[remedy] for remedy in REMEDY_WORDS if tally.remedies[remedy]},
        }
        for code, tally in by_code(results)
    ]


def count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"

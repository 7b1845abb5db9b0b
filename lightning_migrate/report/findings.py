"""What the codemod reports, apart from the codemod itself so that reporting never has to import LibCST."""

from __future__ import annotations

from dataclasses import dataclass, replace

# What a finding's ``remedy`` names: the flag of a run that would fix it (each producer sets it only where
# that run really does: ``tests/test_remedies.py`` repeats the golden fixtures' runs with each flag).
UNSAFE_FIXES, SHIM, SOURCE_VERSION = "unsafe-fixes", "shim", "source-version"
REMEDIES = (UNSAFE_FIXES, SHIM, SOURCE_VERSION)


@dataclass(frozen=True)
class Finding:
    """``line`` and ``column`` (1-based, in characters) address the finding in the file as it is on disk. In a
    notebook they are those of the JSON text (what a pull request's diff shows), and ``cell`` addresses it as
    people and editors see a notebook: (cell number counting every cell from 1, line in the cell, column)."""

    line: int
    column: int
    code: str
    message: str
    fixable: bool
    cell: tuple[int, int, int] | None = None
    details: tuple[str, ...] = ()  # the evidence behind the message: values that break, machines, releases
    remedy: str = ""  # the flag that would fix it: "unsafe-fixes", "shim", "source-version", or ""

    @property
    def in_cell(self) -> str:
        """``cell 3:2:5`` for a finding in a notebook cell, else nothing."""
        return "" if self.cell is None else "cell {}:{}:{}".format(*self.cell)


MESSAGE_WIDTH = 120  # a message fits a terminal: the evidence behind it goes to ``Finding.details``
# a flag's value past this many characters is cut in a message (the evidence keeps it whole)
WRITTEN_WIDTH = 40


def written(text: str, width: int = WRITTEN_WIDTH) -> str:
    """Source text as a message quotes it: on one line (runs of blanks and newlines are one space), cut with
    "…" past ``width`` characters, so that a finding stays one line that fits a terminal."""
    one = " ".join(text.split())
    return one if len(one) <= width else one[: width - 1].rstrip() + "…"


def with_details(finding: Finding, said: str, *details: str) -> Finding:
    """``finding`` with ``said`` appended to its message (a few words: "; not fixed: ...") and ``details``
    added to its evidence."""
    return replace(finding, message=finding.message + said, details=(*finding.details, *details))


# Where a call of the old source is: (line, byte column, end line, end byte column), as `ast` counts.
Span = tuple[int, int, int, int]


@dataclass(frozen=True)
class Result:
    code: str  # the new source (the same text when nothing changed)
    findings: list[Finding]
    calls: tuple[Span, ...] | None = None  # every call of the old source, when the codemod read them

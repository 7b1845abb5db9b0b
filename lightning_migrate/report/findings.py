"""What the codemod reports, apart from the codemod itself so that reporting never has to import LibCST."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    line: int
    column: int
    code: str
    message: str
    fixable: bool


# Where a call of the old source is: (line, byte column, end line, end byte column), as `ast` counts.
Span = tuple[int, int, int, int]


@dataclass(frozen=True)
class Result:
    code: str  # the new source (the same text when nothing changed)
    findings: list[Finding]
    calls: tuple[Span, ...] | None = None  # every call of the old source, when the codemod read them

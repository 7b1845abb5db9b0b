"""Inline suppression: ``# noqa`` (every code) or ``# noqa: LM001, LM004`` on any line of the call a
finding belongs to (in YAML and shell, a ``#`` comment on any line of the Trainer config or command). A code
of ours (``LM...``) that suppresses nothing is itself reported (LM900); a bare
``# noqa`` or another tool's codes are left alone, since they are usually meant for flake8 or ruff."""

from __future__ import annotations

import ast
import functools
import io
import re
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass

from lightning_migrate.report.findings import Finding, Span
from lightning_migrate.report.rules import BY_CODE

_NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_OURS = "LM"
_NAMES_OURS = re.compile(r"noqa\s*:[^\r\n]*lm", re.IGNORECASE)  # may name a code of ours (a superset)
UNUSED = "LM900"


@dataclass(frozen=True)
class Suppression:
    line: int
    column: int  # 1-based, of the ``#``
    codes: frozenset[str] | None  # None: a bare noqa comment, which covers every code

    def covers(self, code: str) -> bool:
        return self.codes is None or code in self.codes


@dataclass(frozen=True)
class Outcome:
    kept: list[Finding]
    suppressed: list[Finding]
    unused: list[Finding]  # LM900, one per code of ours that suppressed nothing


def suppressions(text: str) -> list[Suppression]:
    """The ``# noqa`` comments of ``text`` (real comments: a ``# noqa`` inside a string does not count)."""
    if "noqa" not in text.lower():
        return []
    found = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                match = _NOQA.search(token.string)
                if match:
                    found.append(_suppression(match, token.start[0], token.start[1] + match.start()))
    except (tokenize.TokenError, SyntaxError):  # the caller reports the parse error; no comment is trusted
        return []
    return found


def hash_comments(text: str) -> list[Suppression]:
    """The ``# noqa`` comments of a YAML file or shell script: a ``#`` at the start of a line or after a
    blank, outside quotes, starts a comment (in both languages)."""
    if "noqa" not in text.lower():
        return []
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        start = comment_start(line)
        if start is None:
            continue
        match = _NOQA.search(line, start)
        if match is not None and match.start() == start:
            found.append(_suppression(match, number, match.start()))
    return found


def comment_start(line: str) -> int | None:
    """Where a ``#`` comment starts on a line of YAML or shell, if it has one."""
    quote = ""
    for index, char in enumerate(line):
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"" and (index == 0 or not line[index - 1].isalnum()):
            quote = char
        elif char == "#" and (index == 0 or line[index - 1] in " \t"):
            return index
    return None


def _suppression(match: re.Match[str], line: int, offset: int) -> Suppression:
    codes = match.group("codes")
    parsed = frozenset(re.split(r"[,\s]+", codes.strip().upper())) if codes else None
    return Suppression(line, offset + 1, parsed)


def _may_name_ours(text: str) -> bool:
    """``_NAMES_OURS.search(text)``, tried only where the text lowered holds "noqa": a case-blind search tries
    the pattern at every character at Python's speed (a second over the run's notebooks). Only an ASCII
    letter matches n, o, q or a case-blind, so a match starts at such a "noqa"; the positions of the text
    and of its lowered copy are the same unless a character lowers to two (then the search decides)."""
    lowered = text.lower()
    if len(lowered) != len(text):
        return _NAMES_OURS.search(text) is not None
    at = lowered.find("noqa")
    while at >= 0:
        if _NAMES_OURS.match(text, at):
            return True
        at = lowered.find("noqa", at + 1)
    return False


def apply(
    text: str,
    findings: Sequence[Finding],
    calls: Sequence[Span] | None = None,
    comments: Sequence[Suppression] | None = None,
) -> Outcome:
    """Split ``findings`` into kept and suppressed, and report the suppressions that matched nothing
    (``calls``: where the calls of ``text`` are, when already known; else ``text`` is parsed for them;
    ``comments``: the suppressions of a file that is not Python, else ``text``'s Python comments)."""
    if not findings and not _may_name_ours(text):
        # nothing to suppress, no code of ours to call unused (a case-blind regex is slow on a whole file)
        return Outcome([], [], [])
    if comments is None:
        comments = suppressions(text)
    if not comments:
        return Outcome(list(findings), [], [])
    by_line: dict[int, list[Suppression]] = {}
    for comment in comments:
        by_line.setdefault(comment.line, []).append(comment)
    spans = _CallSpans(text, calls)
    kept: list[Finding] = []
    suppressed: list[Finding] = []
    used: set[tuple[Suppression, str]] = set()
    for finding in findings:
        first, last = spans.lines_of(finding.line, finding.column)
        matching = [
            (comment, finding.code)
            for line in range(first, last + 1)
            for comment in by_line.get(line, ())
            if comment.covers(finding.code)
        ]
        (suppressed if matching else kept).append(finding)
        used.update(matching)
    unused = [
        Finding(
            c.line, c.column, UNUSED, f"`# noqa: {code}` suppresses nothing here", BY_CODE[UNUSED].fixable
        )
        for c in comments
        for code in sorted(c.codes or ())
        if code.startswith(_OURS) and (c, code) not in used
    ]
    return Outcome(kept, suppressed, unused)


class _CallSpans:
    """The lines of the innermost call around a position, so that a ``# noqa`` anywhere in a multi-line
    call counts (findings are reported at the call or at one of its arguments)."""

    def __init__(self, text: str, calls: Sequence[Span] | None) -> None:
        self._text = text
        self._lines = text.splitlines()
        self._known = calls

    @functools.cached_property
    def _calls(self) -> Sequence[Span]:
        """The calls' spans, found with ``ast`` only when a finding asks and the caller did not know them."""
        if self._known is not None:
            return self._known
        try:
            tree = ast.parse(self._text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):  # then a suppression is on its line
            return []
        nodes = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
        return [(n.lineno, n.col_offset, n.end_lineno or n.lineno, n.end_col_offset or 0) for n in nodes]

    def lines_of(self, line: int, column: int) -> tuple[int, int]:
        position = (line, column - 1)
        around = [
            (start, column, end, end_column)
            for start, column, end, end_column in self._calls
            if (start, self._chars(start, column)) <= position < (end, self._chars(end, end_column))
        ]
        if not around:
            return line, line
        innermost = min(around, key=lambda c: c[2] - c[0])
        return innermost[0], innermost[2]

    def _chars(self, line: int, byte_offset: int) -> int:
        """ast counts columns in UTF-8 bytes, LibCST in characters."""
        text = self._lines[line - 1] if 0 < line <= len(self._lines) else ""
        return byte_offset if text.isascii() else len(text.encode()[:byte_offset].decode(errors="ignore"))

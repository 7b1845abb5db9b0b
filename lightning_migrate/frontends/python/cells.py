"""Python that comes in pieces (a notebook's code cells, the Python code blocks of a document), migrated by
the Python front end as the one program the pieces make when they run one after another: a cell's names
may be bound in an earlier cell (``import pytorch_lightning as pl`` in cell 1, ``pl.Trainer(gpus=2)`` in cell
3), and an import the rewrite renames is renamed in the cell that holds it.

The pieces are joined into one text with a marker comment before each; the Python front end never touches a
comment outside the calls and imports it edits, so the new text splits back into the pieces at the markers.
Findings are addressed in the joined text (what ``# noqa`` and the runner see) and mapped back to a piece,
its line and column by ``locate``."""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from lightning_migrate.files import depth
from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.plan.callsite import Run
from lightning_migrate.plan.prefilter import may_need_migration
from lightning_migrate.report import noqa
from lightning_migrate.report.findings import Finding, Span
from lightning_migrate.report.noqa import comment_start

MARKER = "# lightning-migrate: piece {}"
SHELL_LINE = "_lightning_migrate_shell_()"
_MARKER = re.compile(r"^# lightning-migrate: piece (\d+)\r?\n", re.M)


def shell_piece(text: str) -> str:
    """A piece that stands for shell text: a placeholder statement per line, with the line's comment (so
    that a ``# noqa`` on a command line counts), for the command lines' findings to be addressed like the
    Python ones."""
    lines = []
    for line in text.split("\n"):
        start = comment_start(line)
        lines.append(SHELL_LINE + (f"  {line[start:].rstrip()}" if start is not None else ""))
    return "\n".join(lines)


@dataclass(frozen=True)
class Joined:
    text: str
    starts: tuple[int, ...]  # the 1-based line of the joined text where each piece's first line is
    newline_added: tuple[bool, ...]  # a piece that did not end with a line end got one

    def locate(self, line: int) -> tuple[int, int]:
        """(piece index, 1-based line in the piece) of a line of the joined text."""
        index = max(bisect_right(self.starts, line) - 1, 0)
        return index, max(line - self.starts[index] + 1, 1)


def join(pieces: Sequence[str]) -> Joined:
    parts: list[str] = []
    starts: list[int] = []
    added: list[bool] = []
    line = 1
    for index, piece in enumerate(pieces):
        parts.append(MARKER.format(index) + "\n")
        line += 1
        starts.append(line)
        ends = piece.endswith(("\n", "\r"))
        parts.append(piece if ends or not piece else piece + "\n")
        added.append(not ends and bool(piece))
        line += len(re.findall(r"\r\n|\r|\n", parts[-1]))
    return Joined("".join(parts), tuple(starts), tuple(added))


def split(joined: Joined, text: str) -> list[str]:
    """The pieces of ``text`` (the joined text, migrated); what the rewrite put before the first marker (an
    import it added) goes to the first piece."""
    found = list(_MARKER.finditer(text))
    if [int(m.group(1)) for m in found] != list(range(len(joined.starts))):
        raise SourceError("internal error: the rewrite lost the boundaries of the pieces")
    pieces = []
    for index, match in enumerate(found):
        end = found[index + 1].start() if index + 1 < len(found) else len(text)
        piece = text[match.end() : end]
        if index == 0:
            piece = text[: match.start()] + piece
        if joined.newline_added[index] and piece.endswith("\n"):
            piece = piece[:-1]
        pieces.append(piece)
    return pieces


class PieceError(SourceError):
    """A piece Python cannot parse: where, in the piece."""

    def __init__(self, message: str, piece: int, line: int, column: int) -> None:
        super().__init__(message, line, column)
        self.piece = piece


@dataclass(frozen=True)
class Outcome:
    pieces: list[str]  # the new pieces (the same strings where nothing changed)
    findings: list[Finding]  # addressed in the joined text
    joined: Joined
    calls: tuple[Span, ...]

    def suppress(self, found: Sequence[Finding]) -> noqa.Outcome:
        return noqa.apply(self.joined.text, found, self.calls or None)


def migrate(
    pieces: Sequence[str],
    run: Run,
    shim: bool,
    starred: tuple[tuple[str, str], ...] = (),
    strict: Collection[int] = (),
) -> Outcome:
    """Migrate ``pieces`` together. A piece that Python cannot parse on its own is a ``PieceError``.
    ``starred``: the names the pieces' star imports of the project's modules bind (``locate``). The pieces
    of ``strict`` (a notebook's cells Python cannot read, left as they are: blank here) must stay as they
    are given: where the rewrite would add to one (an import before the first), that is a ``PieceError``."""
    from lightning_migrate.frontends.python.frontend import migrate as migrate_python

    joined = join(pieces)
    if not may_need_migration(joined.text, (run.target,), (run.source,)):
        return Outcome(list(pieces), [], joined, ())
    for index, piece in enumerate(pieces):
        try:
            depth.parse(piece)
        except SourceError as exc:  # too deep
            raise PieceError(str(exc), index, exc.line or 1, exc.column) from exc
        except (SyntaxError, ValueError) as exc:
            line = getattr(exc, "lineno", None) or 1
            column = getattr(exc, "offset", None) or 0
            raise PieceError(f"cannot parse: {getattr(exc, 'msg', exc)}", index, line, column) from exc
    result = migrate_python(
        joined.text,
        run.target,
        run.source,
        run.unsafe,
        run.leave,
        shim,
        starred=starred,
        pinned=run.pinned,
        pieces=True,
    )
    new = split(joined, result.code) if result.code != joined.text else list(pieces)
    changed = next((i for i in strict if new[i] != pieces[i]), None)
    if changed is not None:
        raise PieceError("cannot parse, and the rewrite would add to it", changed, 1, 0)
    return Outcome(new, result.findings, joined, result.calls or ())


def parses(code: str) -> bool:
    """Is ``code`` Python this interpreter reads (a piece to migrate, not a shell line or a sketch)?"""
    try:
        ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True

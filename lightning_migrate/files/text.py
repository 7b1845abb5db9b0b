"""A file's text addressed the way ``ast`` addresses it: 1-based lines, columns in UTF-8 bytes."""

from __future__ import annotations

import ast
import functools
import re

# CPython reads `\r\n`, `\r` and `\n` as line ends (and nothing else: not `\f`, not `\v`, not U+2028).
_LINE_END = re.compile(r"\r\n|\r|\n")


class Text:
    def __init__(self, source: str) -> None:
        self.source = source
        ends = list(_LINE_END.finditer(source))
        self.starts = [0] + [m.end() for m in ends]
        self.newline = ends[0].group() if ends else "\n"
        self._ascii = source.isascii()

    def line(self, lineno: int) -> str:
        """Line ``lineno`` without its line end."""
        if lineno > len(self.starts):
            return ""
        end = self.starts[lineno] if lineno < len(self.starts) else len(self.source)
        return _LINE_END.sub("", self.source[self.starts[lineno - 1] : end])

    def column(self, lineno: int, byte_column: int) -> int:
        """The character column of a byte column (they differ on lines with non-ASCII text)."""
        if self._ascii:
            return byte_column
        return len(self.line(lineno).encode()[:byte_column].decode(errors="replace"))

    def offset(self, lineno: int, byte_column: int) -> int:
        return self.starts[lineno - 1] + self.column(lineno, byte_column)

    def start(self, node: ast.expr | ast.keyword | ast.stmt) -> int:
        return self.offset(node.lineno, node.col_offset)

    def end(self, node: ast.expr | ast.keyword | ast.stmt) -> int:
        assert node.end_lineno is not None
        assert node.end_col_offset is not None
        return self.offset(node.end_lineno, node.end_col_offset)

    def segment(self, node: ast.expr | ast.keyword) -> str:
        """The exact source text of ``node``."""
        return self.source[self.start(node) : self.end(node)]

    def position(self, node: ast.expr | ast.keyword | ast.stmt) -> tuple[int, int]:
        """(line, 1-based character column) of where ``node`` starts: how findings are addressed."""
        return node.lineno, self.column(node.lineno, node.col_offset) + 1


@functools.lru_cache(maxsize=2)
def tree_of(source: str) -> ast.Module:
    """``ast.parse(source)``, remembered for the last two texts: the import steps and the final check read
    a rewritten file one after another, mostly as the step before left it (never mutate the tree)."""
    return ast.parse(source)


def cst_code(code: str, source: str) -> str:
    """The code LibCST writes for ``source`` (parsed, maybe transformed) with the final line end it drops
    where lines end in a lone ``\\r`` (LibCST 1.9 writes ``x = 1\\ry = 2\\r`` back as ``x = 1\\ry = 2``)."""
    if source.endswith("\r") and not code.endswith(("\r", "\n")):
        return code + "\r"
    return code


def spliced(text: str, edits: list[tuple[int, int, str]]) -> str:
    """``text`` with ``edits`` (start, end, new text) made, none overlapping another (text inserted at one
    place comes out in the order it was added)."""
    ordered = sorted(enumerate(edits), key=lambda e: (e[1][0], e[1][1], e[0]), reverse=True)
    for _, (start, end, new) in ordered:
        text = text[:start] + new + text[end:]
    return text


class Unwritable(Exception):
    """An edit a front end cannot write in a file's text (a YAML value it cannot change in place, a command
    line that would not read back as planned); the message says why, for the user."""

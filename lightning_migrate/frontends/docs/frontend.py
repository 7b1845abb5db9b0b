"""The Markdown and reST front end: the Python code blocks of a document are migrated as Python, the way
blacken-docs formats them, together as one program (an import in one block serves the calls of the next:
``cells``); a block Python cannot parse (pseudo-code, an excerpt) is left out. Shell code blocks go to the
command-line front end. Prose, including prose that quotes an old call (`` `Trainer(gpus=2)` ``), is never
touched; only the lines of a block that changes are written."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from lightning_migrate.files.text import spliced
from lightning_migrate.frontends.contract import Migrated, Request
from lightning_migrate.frontends.python import cells
from lightning_migrate.frontends.shell.commands import locator, migrate_commands
from lightning_migrate.report.findings import Finding

PYTHON_LANGUAGES = frozenset({"python", "py", "python3", "py3"})
SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "console", "zsh", "shell-session"})
# A fenced code block's opening line, after its container's indentation (CommonMark 0.31, 4.5): up to three
# spaces, three or more backticks or tildes, an info string (no backtick in a backtick fence's) whose first
# word is the language (`{.python}` as pandoc writes it).
_OPENING = re.compile(
    r"(?P<indent> {0,3})(?P<fence>`{3,}(?=[^`\n]*$)|~{3,})[ \t]*\{?\.?(?P<language>[\w+-]*)[^\n]*$"
)
# A list item's marker: its content starts after the marker and one to four spaces, or one space past a
# marker that ends its line (CommonMark 5.2)
_LIST_MARKER = re.compile(r"(?P<indent> {0,3})(?P<marker>[-+*]|\d{1,9}[.)])(?: {1,4}(?=\S)|[ \t]*$)")
_LINE = re.compile(r"[^\n]*\n|[^\n]+$")
_REST_DIRECTIVE = re.compile(
    r"^(?P<indent>[ \t]*)\.\. (?:code-block|sourcecode|code)::[ \t]*(?P<language>[\w+-]*)[ \t]*\r?\n"
    r"(?:(?P=indent)[ \t]+:.*\n)*(?:[ \t]*\r?\n)+"
    r"(?P<code>(?:(?:(?P=indent)[ \t]+.*)?\r?\n)+)",
    re.M,
)


@dataclass(frozen=True)
class Block:
    language: str
    start: int  # offset of the code in the document
    end: int
    line: int  # 1-based line of the document where the code starts
    indent: str  # removed from every line of the code
    code: str  # dedented
    raw: str  # as written


def blocks(text: str, rest: bool) -> Iterator[Block]:
    for language, start, end, indent in _rest_blocks(text) if rest else _markdown_blocks(text):
        code = text[start:end]
        lines = code.splitlines(keepends=True)
        if not all(line.startswith(indent) or not line.strip() for line in lines):
            continue
        dedented = "".join(line[len(indent) :] if line.strip() else line for line in lines)
        line = text.count("\n", 0, start) + 1
        yield Block(language.lower(), start, end, line, indent, dedented, code)


def _rest_blocks(text: str) -> Iterator[tuple[str, int, int, str]]:
    for match in _REST_DIRECTIVE.finditer(text):
        code = match.group("code")
        kept = code.splitlines(keepends=True)
        while kept and not kept[-1].strip():  # the block ends at its last non-blank line
            kept.pop()
        code = "".join(kept)
        start = match.start("code")
        yield match.group("language"), start, start + len(code), _common_indent(code)


def _markdown_blocks(text: str) -> Iterator[tuple[str, int, int, str]]:
    """The fenced code blocks of a Markdown document as CommonMark reads them (language, start and end of
    the code, the indentation taken off its lines): closed by a fence of the same character at least as long,
    indented up to three spaces, with nothing after it; never closed, the block runs to the end of the
    document, or of the list item that holds it (a line indented less than the item's content). A fence
    indented four spaces or more past its container's content is an indented code block's text, not a
    fence. Block quotes are not read; a fence is found after spaces, not tabs."""
    lines = [(m.start(), m.group().rstrip("\r\n")) for m in _LINE.finditer(text)]
    items: list[int] = []  # the content columns of the list items the line is in, innermost last
    index = 0
    while index < len(lines):
        body = lines[index][1]
        index += 1
        if not body.strip():
            continue
        while items and _column(body) < items[-1]:
            items.pop()
        content = items[-1] if items else 0
        marker = _LIST_MARKER.match(body, content)
        while marker is not None:  # (`- 1. ```python`: a fence as the first line of nested items)
            empty = not body[marker.end() :].strip()
            content = marker.end("marker") + 1 if empty else marker.end()
            items.append(content)
            marker = None if empty else _LIST_MARKER.match(body, content)
        opening = _OPENING.match(body, content)
        if opening is None:
            continue
        fence, container = opening.group("fence"), items[-1] if items else 0
        closing = re.compile(rf" {{{container},{container + 3}}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*")
        first = index
        while index < len(lines) and not _ends(lines[index][1], container, closing):
            index += 1
        start = lines[first][0] if first < len(lines) else len(text)
        end = lines[index][0] if index < len(lines) else len(text)
        code = [body for _, body in lines[first:index] if body.strip()]
        indent = min([opening.start("fence"), *(len(b) - len(b.lstrip(" ")) for b in code)])
        yield opening.group("language"), start, end, " " * indent
        if index < len(lines) and closing.fullmatch(lines[index][1]):
            index += 1  # (a line that leaves the container is read again, outside it)


def _column(body: str) -> int:
    """The column of a line's first non-blank character (a tab to the next multiple of four)."""
    return len(body[: len(body) - len(body.lstrip(" \t"))].expandtabs(4))


def _ends(body: str, container: int, closing: re.Pattern[str]) -> bool:
    """Whether ``body`` ends a fenced block in a container whose content starts at column ``container``: a
    closing fence, or a line that is not in the container any more."""
    return closing.fullmatch(body) is not None or (bool(body.strip()) and _column(body) < container)


def _common_indent(code: str) -> str:
    indents = [line[: len(line) - len(line.lstrip(" \t"))] for line in code.splitlines() if line.strip()]
    return min(indents, key=len) if indents else ""


def migrate(text: str, request: Request) -> Migrated:
    rest = Path(request.path).suffix.lower() == ".rst"
    found = list(blocks(text, rest))
    python = [b for b in found if b.language in PYTHON_LANGUAGES and cells.parses(b.code)]
    shell = [b for b in found if b.language in SHELL_LANGUAGES]
    views = [shell_view(b) for b in shell]
    pieces = [b.code for b in python] + [cells.shell_piece(view) for view in views]
    outcome = cells.migrate(pieces, request.run, request.shim, request.subclasses.starred_in(request.path))
    edits: list[tuple[int, int, str]] = []
    for block, piece in zip(python, outcome.pieces):
        if piece != block.code:
            lines = piece.splitlines(True)
            edits.append(
                (block.start, block.end, "".join(block.indent + x if x.strip() else x for x in lines))
            )
    findings = list(outcome.findings)
    folder = request.folder
    for index, (block, view) in enumerate(zip(shell, views)):
        at = outcome.joined.starts[len(python) + index]
        commands = migrate_commands(
            view, request.run, folder, locator(view, at), request.shim, request.commands
        )
        edits += [(block.start + start, block.start + end, new) for start, end, new in commands.edits]
        findings += commands.findings
    new = spliced(text, edits) if edits else text
    return Migrated(new, findings, outcome.suppress, _addresser(python + shell, len(python), outcome.joined))


def shell_view(block: Block) -> str:
    """A shell block's text with what is not a command blanked (a console block's prompts and output)."""
    if block.language not in ("console", "shell-session"):
        return block.raw
    lines = []
    for line in block.raw.split("\n"):
        stripped = line.lstrip(" \t")
        if stripped.startswith("$ "):
            prompt = len(line) - len(stripped) + 2
            lines.append(" " * prompt + line[prompt:])
        else:
            lines.append(" " * len(line.rstrip("\r")) + line[len(line.rstrip("\r")) :])
    return "\n".join(lines)


def _addresser(found: list[Block], python: int, joined: cells.Joined) -> Callable[[Finding], Finding]:
    """Findings of the joined text addressed in the document (a shell block's columns are the document's;
    a Python block's lose its indentation)."""

    def address(finding: Finding) -> Finding:
        index, line = joined.locate(finding.line)
        if index >= len(found):
            return finding
        block = found[index]
        shift = len(block.indent) if index < python else 0
        return replace(finding, line=block.line + line - 1, column=finding.column + shift)

    return address

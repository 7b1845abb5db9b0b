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
_MARKDOWN_FENCE = re.compile(
    r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*\{?\.?(?P<language>[\w+-]*)[^\n]*\n"
    r"(?P<code>(?:.*\n)*?)(?P=indent)(?P=fence)[ \t]*\r?$",
    re.M,
)
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
    pattern = _REST_DIRECTIVE if rest else _MARKDOWN_FENCE
    for match in pattern.finditer(text):
        code = match.group("code")
        start, end = match.start("code"), match.end("code")
        if rest:  # the block ends at its last non-blank line
            kept = code.splitlines(keepends=True)
            while kept and not kept[-1].strip():
                kept.pop()
            code = "".join(kept)
            end = start + len(code)
            indent = _common_indent(code)
        else:
            indent = match.group("indent")
        lines = code.splitlines(keepends=True)
        if not all(line.startswith(indent) or not line.strip() for line in lines):
            continue
        dedented = "".join(line[len(indent) :] if line.strip() else line for line in lines)
        line = text.count("\n", 0, start) + 1
        yield Block(match.group("language").lower(), start, end, line, indent, dedented, text[start:end])


def _common_indent(code: str) -> str:
    indents = [line[: len(line) - len(line.lstrip(" \t"))] for line in code.splitlines() if line.strip()]
    return min(indents, key=len) if indents else ""


def migrate(text: str, request: Request) -> Migrated:
    rest = Path(request.path).suffix.lower() == ".rst"
    found = list(blocks(text, rest))
    python = [b for b in found if b.language in PYTHON_LANGUAGES and cells.parses(b.code)]
    shell = [b for b in found if b.language in SHELL_LANGUAGES]
    views = [_shell_view(b) for b in shell]
    pieces = [b.code for b in python] + [cells.shell_piece(view) for view in views]
    outcome = cells.migrate(pieces, request.run, request.shim)
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
        commands = migrate_commands(view, request.run, folder, locator(view, at))
        edits += [(block.start + start, block.start + end, new) for start, end, new in commands.edits]
        findings += commands.findings
    new = spliced(text, edits) if edits else text
    return Migrated(new, findings, outcome.suppress, _addresser(python + shell, len(python), outcome.joined))


def _shell_view(block: Block) -> str:
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

"""The Markdown and reST front end: the Python code blocks of a document are migrated as Python, the way
blacken-docs formats them, together as one program (an import in one block serves the calls of the next:
``cells``); a block Python cannot parse (pseudo-code, an excerpt) is left out. Shell code blocks go to the
command-line front end. Prose, including prose that quotes an old call (`` `Trainer(gpus=2)` ``), is never
touched; only the lines of a block that changes are written."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from lightning_migrate.codemod import cells
from lightning_migrate.codemod.kinds import Migrated, Request
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
        dedented = "".join(line[len(indent) :] if line.strip() else line.lstrip(" \t") for line in lines)
        yield Block(
            match.group("language").lower(), start, end, text.count("\n", 0, start) + 1, indent, dedented
        )


def _common_indent(code: str) -> str:
    indents = [line[: len(line) - len(line.lstrip(" \t"))] for line in code.splitlines() if line.strip()]
    return min(indents, key=len) if indents else ""


def parses(code: str) -> bool:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):
        return False
    return True


def migrate(text: str, request: Request) -> Migrated:
    rest = Path(request.path).suffix.lower() == ".rst"
    python = [b for b in blocks(text, rest) if b.language in PYTHON_LANGUAGES and parses(b.code)]
    outcome = cells.migrate([b.code for b in python], request.run, request.shim)
    new = text
    for block, piece in sorted(zip(python, outcome.pieces), key=lambda pair: pair[0].start, reverse=True):
        if piece != block.code:
            indented = "".join(
                block.indent + line if line.strip() else line for line in piece.splitlines(True)
            )
            new = new[: block.start] + indented + new[block.end :]
    findings = list(outcome.findings)
    return Migrated(new, findings, outcome.suppress, _addresser(python, outcome.joined))


def _addresser(python: list[Block], joined: cells.Joined) -> Callable[[Finding], Finding]:
    def address(finding: Finding) -> Finding:
        index, line = joined.locate(finding.line)
        if index >= len(python):
            return finding
        block = python[index]
        return replace(finding, line=block.line + line - 1, column=finding.column + len(block.indent))

    return address

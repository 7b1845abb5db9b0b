"""The notebook front end (``.ipynb``): the code cells are migrated as Python, together (``cells``), with
IPython's magics and shell escapes masked and put back as they were; Markdown and raw cells are prose and
never touched. Only the ``source`` of a cell that changes is written back, into the JSON text where it is
(``jsonspan``), its unchanged lines as they were escaped: outputs, metadata, key order and indentation stay.

A finding is addressed as Jupyter shows it, ``train.ipynb:cell 3:2:5`` (cells counted from 1, Markdown
cells included), and by the line and column of the JSON text for tools that only know files (GitHub
annotations, SARIF)."""

from __future__ import annotations

import difflib
import json
import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, replace

from lightning_migrate.codemod import cells
from lightning_migrate.codemod.jsonspan import JSONError, Node, parse
from lightning_migrate.codemod.kinds import Migrated, Request
from lightning_migrate.report.findings import Finding
from lightning_migrate.sources.sourcefile import SourceError

# Cell magics whose body is Python that runs in the kernel (the rest, `%%bash`, `%%html`, `%%writefile`,
# ..., are not Python of the kernel and are left alone).
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "memit", "pypy"})
# A line IPython transforms: a line magic, a shell escape, help (`obj?`, `?obj`), or an assignment of one.
_MAGIC = re.compile(r"^(?P<indent>[ \t]*)(?:[%!?]|[\w.]+\?\??\s*$|[\w.,\s]+=\s*[%!])")
_PLACEHOLDER = "_lightning_migrate_magic_{}_()"


@dataclass(frozen=True)
class _Cell:
    number: int  # 1-based, every cell counted
    node: Node  # its `source` in the JSON text
    source: str
    masked: str
    magics: dict[str, str]  # placeholder -> the line it stands for


def migrate(text: str, request: Request) -> Migrated:
    try:
        notebook = parse(text)
    except (JSONError, RecursionError) as exc:
        offset = getattr(exc, "offset", 0)
        line = text.count("\n", 0, offset) + 1
        raise SourceError(f"cannot parse the notebook's JSON: {exc}", line) from exc
    code = _code_cells(notebook)
    try:
        outcome = cells.migrate([c.masked for c in code], request.run, request.shim)
    except cells.PieceError as exc:
        cell = code[exc.piece]
        line = text.count("\n", 0, cell.node.start) + 1
        raise SourceError(f"cell {cell.number}:{exc.line}:{exc.column}: {exc}", line) from exc
    new = text
    edits = []
    for cell, piece in zip(code, outcome.pieces):
        if piece != cell.masked:
            edits.append((cell.node, _source_json(text, cell, _unmask(piece, cell.magics))))
    for node, written in sorted(edits, key=lambda e: e[0].start, reverse=True):
        new = new[: node.start] + written + new[node.end :]
    if new != text:
        json.loads(new)  # never hand out a notebook that does not read
    address = _addresser(text, code, outcome.joined)
    return Migrated(new, outcome.findings, outcome.suppress, address)


def _code_cells(notebook: Node) -> list[_Cell]:
    if not isinstance(notebook.value, dict):
        return []
    metadata = notebook.value.get("metadata") or {}
    language = (metadata.get("kernelspec") or {}).get("language") or (
        metadata.get("language_info") or {}
    ).get("name", "python")
    cells_node = notebook.members.get("cells")
    if language != "python" or cells_node is None:  # another kernel's code, or nbformat 3
        return []
    found = []
    for number, cell in enumerate(cells_node.items, 1):
        source = cell.members.get("source")
        if not isinstance(cell.value, dict) or cell.value.get("cell_type") != "code" or source is None:
            continue
        value = source.value
        text = "".join(value) if isinstance(value, list) else value if isinstance(value, str) else None
        if text is None:
            continue
        masked, magics = _mask(text, number)
        if masked is not None:
            found.append(_Cell(number, source, text, masked, magics))
    return found


def _mask(source: str, number: int) -> tuple[str | None, dict[str, str]]:
    """The cell as Python the parser reads (each IPython line replaced by a placeholder call), and what each
    placeholder stands for; None for a cell that is not the kernel's Python (``%%bash``)."""
    lines = source.splitlines(keepends=True)
    magics: dict[str, str] = {}
    if lines and lines[0].startswith("%%"):
        name = lines[0][2:].split(maxsplit=1)[0] if lines[0][2:].strip() else ""
        if name not in PYTHON_CELL_MAGICS:
            return None, {}
    out = []
    continued = False
    for index, line in enumerate(lines):
        match = _MAGIC.match(line)
        first_magic = index == 0 and line.startswith("%%")
        if continued or first_magic or match is not None:
            indent = match.group("indent") if match is not None and not continued else ""
            placeholder = _PLACEHOLDER.format(f"{number}_{index}")
            body = line.rstrip("\r\n")
            magics[placeholder] = body[len(indent) :]
            out.append(indent + placeholder + line[len(body) :])
            continued = body.endswith("\\")
        else:
            out.append(line)
    return "".join(out), magics


def _unmask(piece: str, magics: dict[str, str]) -> str:
    for placeholder, line in magics.items():
        piece = piece.replace(placeholder, line, 1)
    return piece


def _source_json(text: str, cell: _Cell, source: str) -> str:
    """The JSON of a cell's new ``source``, written as the notebook writes it: a list of lines with the
    separators it uses and the unchanged lines as they were escaped, or one string."""
    ascii_only = "\\u" in text and text.isascii()
    if not cell.node.items and isinstance(cell.node.value, str):
        return json.dumps(source, ensure_ascii=ascii_only)
    items = cell.node.items
    old_lines = [item.value for item in items]
    new_lines = source.splitlines(keepends=True)
    written: list[str] = []
    matcher = difflib.SequenceMatcher(a=old_lines, b=new_lines, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            written.extend(text[items[i].start : items[i].end] for i in range(i1, i2))
        else:
            written.extend(json.dumps(line, ensure_ascii=ascii_only) for line in new_lines[j1:j2])
    node = cell.node
    if len(items) >= 2:
        separator = text[items[0].end : items[1].start]
    elif items:
        separator = "," + text[node.start + 1 : items[0].start]
    else:
        separator = ", "
    opening = text[node.start + 1 : items[0].start] if items else ""
    closing = text[items[-1].end : node.end - 1] if items else ""
    return "[" + opening + separator.join(written) + closing + "]"


def _addresser(text: str, code: list[_Cell], joined: cells.Joined) -> Callable[[Finding], Finding]:
    line_starts = [0] + [m.end() for m in re.finditer(r"\n", text)]

    def physical(offset: int) -> tuple[int, int]:
        line = bisect_right(line_starts, offset) - 1
        return line + 1, offset - line_starts[line] + 1

    def address(finding: Finding) -> Finding:
        index, line = joined.locate(finding.line)
        if index >= len(code):
            return finding
        cell = code[index]
        items = cell.node.items
        if items and line - 1 < len(items):
            item = items[line - 1]
            prefix = item.value[: max(finding.column - 1, 0)]
            offset = item.start + 1 + len(json.dumps(prefix)[1:-1])
        else:
            offset = cell.node.start
        where = physical(offset)
        return replace(finding, line=where[0], column=where[1], cell=(cell.number, line, finding.column))

    return address

"""The notebook front end (``.ipynb``): the code cells are migrated as Python, together (``cells``), with
IPython's magics and shell escapes masked and put back as they were; Markdown and raw cells are prose and
never touched. Only the ``source`` of a cell that changes is written back, into the JSON text where it is
(``jsonspan``), its unchanged lines as they were escaped: outputs, metadata, key order and indentation stay.
Notebooks of nbformat 4 and 3 (IPython 1 and 2: cells in ``worksheets``, a code cell's source in ``input``)
are read; another nbformat is an error, not a notebook without cells.

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

from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.files.text import spliced
from lightning_migrate.files.word_test import search
from lightning_migrate.frontends.contract import Migrated, Request
from lightning_migrate.frontends.notebook.jsonspan import JSONError, Node, parse
from lightning_migrate.frontends.python import cells
from lightning_migrate.frontends.shell.commands import locator, migrate_commands
from lightning_migrate.plan.callsite import Run
from lightning_migrate.plan.prefilter import FLAG_WORDS, may_need_migration
from lightning_migrate.report import noqa
from lightning_migrate.report.findings import Finding
from lightning_migrate.report.noqa import comment_start

# Cell magics whose body is Python that runs in the kernel, and those whose body is shell; the rest
# (`%%html`, `%%writefile`, ...) are neither and are left alone.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun", "debug", "memit", "pypy"})
SHELL_CELL_MAGICS = frozenset({"bash", "sh", "script", "system"})
# A line IPython transforms: a line magic, a shell escape, help (`obj?`, `?obj`), or an assignment of one.
_MAGIC = re.compile(r"^(?P<indent>[ \t]*)(?:[%!?]|[\w.]+\?\??\s*$|[\w.,\s]+=\s*[%!])")
# IPython's automagic: a line magic written without `%` (`ls ./data`, `pip install x`), where the line is no
# Python statement.
_AUTOMAGIC = re.compile(
    r"^(?P<indent>[ \t]*)(?:ls|ll|cd|pwd|pip|conda|cat|mkdir|rmdir|rm|cp|mv|less|more|man|clear|env|who|whos"
    r"|history|run|load_ext|matplotlib|alias|pushd|popd|dhist|bookmark)(?:[ \t]+[^=(\s].*)?$"
)
_SHELL_ESCAPE = re.compile(r"^[ \t]*(?:[\w.,\s]+=\s*)?!!?")
# `%run train.py --gpus 2` (and `%run -i ...`): IPython runs the script with those words as its command line,
# which the shell view shows from the script's name on.
_RUN_MAGIC = re.compile(r"^[ \t]*%run(?:[ \t]+-[A-Za-z]+)*[ \t]+(?=[^\s-])")
_PLACEHOLDER = "_lightning_migrate_magic_{}_()"


@dataclass(frozen=True)
class _Cell:
    number: int  # 1-based, every cell counted
    node: Node  # its `source` in the JSON text
    source: str
    masked: str  # the Python the parser reads; for a shell cell, placeholders (``cells.shell_piece``)
    magics: dict[str, tuple[int, int]]  # the masked text of a line -> (its line index, its indentation)
    shell: str  # the cell's text with all but its shell commands blanked (same offsets as ``source``)
    is_shell: bool = False


def migrate(text: str, request: Request) -> Migrated:
    if nothing_to_find(text, request.run):  # (no JSON read with positions: a second for a 4 MB notebook)
        return Migrated(text, [], lambda found: noqa.apply(text, found, comments=[]))
    try:
        notebook = parse(text)
    except (JSONError, RecursionError) as exc:
        offset = getattr(exc, "offset", 0)
        line = text.count("\n", 0, offset) + 1
        raise SourceError(f"cannot parse the notebook's JSON: {exc}", line) from exc
    code = _code_cells(notebook, text)
    # a cell Python cannot read runs nothing (Jupyter compiles it whole and raises): where it holds nothing
    # this codemod reads, it is left as it is and the others are migrated; one that may is still an error
    broken = {
        i
        for i, c in enumerate(code)
        if not cells.parses(c.masked) and not may_need_migration(c.masked, (request.run.target,))
    }
    pieces = [_blank(c.masked) if i in broken else c.masked for i, c in enumerate(code)]
    try:
        outcome = cells.migrate(
            pieces, request.run, request.shim, request.subclasses.starred_in(request.path), strict=broken
        )
    except cells.PieceError as exc:
        cell = code[exc.piece]
        line = text.count("\n", 0, cell.node.start) + 1
        raise SourceError(f"cell {cell.number}:{exc.line}:{exc.column}: {exc}", line) from exc
    outcome = replace(
        outcome, pieces=[code[i].masked if i in broken else p for i, p in enumerate(outcome.pieces)]
    )
    findings = list(outcome.findings)
    folder = request.folder
    edits = []
    for index, (cell, piece) in enumerate(zip(code, outcome.pieces)):
        source = cell.source
        if cell.shell.strip():
            locate = locator(cell.shell, outcome.joined.starts[index])
            commands = migrate_commands(
                cell.shell, request.run, folder, locate, request.shim, request.commands
            )
            findings += commands.findings
            source = spliced(source, commands.edits) if commands.edits else source
        if cell.is_shell:
            new_source = source
        else:
            new_source = (
                _unmask(piece, cell.magics, source)
                if piece != cell.masked or source != cell.source
                else cell.source
            )
        if new_source != cell.source:
            edits.append((cell.node, _source_json(text, cell, new_source)))
    new = text
    for node, written in sorted(edits, key=lambda e: e[0].start, reverse=True):
        new = new[: node.start] + written + new[node.end :]
    if new != text:
        json.loads(new)  # never hand out a notebook that does not read
    address = _addresser(text, code, outcome.joined)
    return Migrated(new, findings, outcome.suppress, address)


def _blank(piece: str) -> str:
    """``piece`` as lines with nothing on them: findings in the cells after it keep their lines."""
    return "".join(m.group() for m in re.finditer(r"\r\n|\r|\n", piece))


# a notebook nested deeper than this is left to the JSON reader with positions (which may give up on it)
PLAIN_JSON_DEPTH = 64


def python_cells(text: str) -> list[tuple[int, str]]:
    """The notebook's Python as this front end reads it: (cell number, the cell's code with its IPython lines
    masked) for every code cell that is the kernel's Python; a notebook it cannot read is a ``SourceError``
    (for ``inspect``, which reads the calls the codemod would)."""
    try:
        notebook = parse(text)
    except (JSONError, RecursionError) as exc:
        line = text.count("\n", 0, getattr(exc, "offset", 0)) + 1
        raise SourceError(f"cannot parse the notebook's JSON: {exc}", line) from exc
    return [(cell.number, cell.masked) for cell in _code_cells(notebook, text) if not cell.is_shell]


def nothing_to_find(text: str, run: Run) -> bool:
    """Whether the front end surely finds nothing in the notebook ``text``, told from its JSON read by
    ``json.loads`` (C speed, no positions): a well-formed notebook (as ``_code_cells`` reads it) whose code
    cells hold no flag word (the notebook kind's word test: their command lines and Python), no ``noqa``
    (an unused suppression is reported) and nothing the prefilter passes of their Python joined as
    ``cells.migrate`` joins it. Anything else is for ``migrate`` to read and report as it always did."""
    try:
        notebook = json.loads(text, parse_constant=_refuse)
    except (ValueError, RecursionError):
        return False
    if _depth(notebook) > PLAIN_JSON_DEPTH:
        return False
    if not isinstance(notebook, dict):
        return False  # (an error of its own)
    if _language(notebook) != "python":
        return True  # another kernel's code
    layout = _layout_of(notebook.get("nbformat"))
    holders = notebook.get("worksheets") if layout is not None and layout.worksheets else [notebook]
    if layout is None or not isinstance(holders, list):
        return False  # (an error of its own)
    sources = []
    for holder in holders:
        found = holder.get("cells") if isinstance(holder, dict) else None
        if not isinstance(found, list):
            return False
        for cell in found:
            if not isinstance(cell, dict):
                return False
            if cell.get("cell_type") != "code" or layout.source not in cell:
                continue
            if cell.get("language", "python") != "python":  # (nbformat 3 names each cell's language)
                continue
            source = _text(cell[layout.source])
            if source is None:
                return False
            sources.append(source)
    if any(search(FLAG_WORDS, source) or "noqa" in source.lower() for source in sources):
        return False
    code = [_mask(source, number, _NOWHERE) for number, source in enumerate(sources, 1)]
    joined = cells.join([c.masked for c in code if c is not None])
    return not may_need_migration(joined.text, (run.target,), (run.source,))


_NOWHERE = Node(0, 0, None)


def _refuse(constant: str) -> object:
    raise ValueError(f"{constant} is not JSON")  # (NaN, Infinity: the reader with positions refuses them)


def _depth(value: object) -> int:
    """How deeply the containers of a decoded JSON value nest (without recursion)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        deepest = max(deepest, depth)
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        stack += ((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest


def _object(value: object) -> dict[str, object]:
    """A JSON object of the notebook's metadata, or {} where the file holds something else there."""
    return value if isinstance(value, dict) else {}


def _language(notebook: dict[str, object]) -> object:
    """The language of the notebook's kernel, as its metadata names it (Python where it names none)."""
    metadata = _object(notebook.get("metadata"))
    return _object(metadata.get("kernelspec")).get("language") or _object(metadata.get("language_info")).get(
        "name", "python"
    )


def _text(source: object) -> str | None:
    """A cell's source: text, or a list of lines joined; None where it is neither."""
    if isinstance(source, list) and all(isinstance(line, str) for line in source):
        return "".join(source)
    return source if isinstance(source, str) else None


def _code_cells(notebook: Node, json_text: str) -> list[_Cell]:
    """The code cells (those of every worksheet of an nbformat 3 notebook, counted as Jupyter counts them
    once it has read the file as nbformat 4); a notebook Jupyter cannot read either is a ``SourceError`` at
    the line of what is wrong (a cell that is no object, a ``source`` that is not text or a list of lines,
    an nbformat this front end does not know: its cells would go unread, and `--check` pass on them)."""

    def malformed(what: str, node: Node) -> SourceError:
        return SourceError(f"malformed notebook: {what}", json_text.count("\n", 0, node.start) + 1)

    if not isinstance(notebook.value, dict):
        raise malformed("the file is not a JSON object", notebook)
    if _language(notebook.value) != "python":  # another kernel's code
        return []
    layout = _layout(notebook, json_text)
    found = []
    for number, cell in enumerate(_cells(notebook, layout, malformed), 1):
        if not isinstance(cell.value, dict):
            raise malformed(f"cell {number} is not a JSON object", cell)
        source = cell.members.get(layout.source)
        if cell.value.get("cell_type") != "code" or source is None:
            continue
        if cell.value.get("language", "python") != "python":  # (nbformat 3 names each cell's language)
            continue
        text = _text(source.value)
        if text is None:
            raise malformed(f"cell {number}'s `{layout.source}` is neither text nor a list of lines", source)
        masked = _mask(text, number, source)
        if masked is not None:
            found.append(masked)
    return found


@dataclass(frozen=True)
class _Layout:
    """Where a notebook of one nbformat keeps its cells, and a code cell its source."""

    worksheets: bool  # the cells are in ``worksheets[*].cells`` (nbformat 3), else in ``cells``
    source: str  # the key of a code cell's source


# nbformat 3 (IPython 1 and 2) kept the cells in worksheets and a code cell's source under `input`; Jupyter
# reads it by flattening the worksheets (nbformat.v4.convert.upgrade).
LAYOUTS = {3: _Layout(True, "input"), 4: _Layout(False, "source")}


def _layout_of(nbformat: object) -> _Layout | None:
    """The layout of an nbformat this front end reads (an int: not `true`, not `4.0`)."""
    return LAYOUTS.get(nbformat) if type(nbformat) is int else None


def _layout(notebook: Node, json_text: str) -> _Layout:
    """The layout of the notebook's nbformat; an nbformat this front end does not read is an error."""
    node = notebook.members.get("nbformat")
    layout = _layout_of(None if node is None else node.value)
    if layout is not None:
        return layout
    known = " and ".join(str(v) for v in LAYOUTS)
    what = "no `nbformat`" if node is None else f"nbformat {json_text[node.start : node.end]}"
    line = json_text.count("\n", 0, (node or notebook).start) + 1
    raise SourceError(f"unsupported notebook format: {what} (lightning-migrate reads nbformat {known})", line)


def _cells(notebook: Node, layout: _Layout, malformed: Callable[[str, Node], SourceError]) -> list[Node]:
    """The notebook's cells, in the order Jupyter numbers them."""
    holders = [notebook]
    if layout.worksheets:
        worksheets = notebook.members.get("worksheets")
        if worksheets is None:
            raise malformed("no `worksheets`", notebook)
        if not isinstance(worksheets.value, list):
            raise malformed("`worksheets` is not a list", worksheets)
        for index, sheet in enumerate(worksheets.items, 1):
            if not isinstance(sheet.value, dict):
                raise malformed(f"worksheet {index} is not a JSON object", sheet)
        holders = worksheets.items
    found: list[Node] = []
    for holder in holders:
        cells_node = holder.members.get("cells")
        if cells_node is None:
            raise malformed("no `cells`", holder)
        if not isinstance(cells_node.value, list):
            raise malformed("`cells` is not a list", cells_node)
        found.extend(cells_node.items)
    return found


def _mask(source: str, number: int, node: Node) -> _Cell | None:
    """The cell as Python the parser reads (each IPython line replaced by a placeholder call that keeps the
    line's comment, for ``# noqa``), with its shell commands; None for a cell that is neither the kernel's
    Python nor shell (``%%html``)."""
    lines = source.splitlines(keepends=True)
    if lines and lines[0].startswith("%%"):
        name = lines[0][2:].split(maxsplit=1)[0] if lines[0][2:].strip() else ""
        if name in SHELL_CELL_MAGICS:
            view = " " * len(lines[0].rstrip("\r\n")) + source[len(lines[0].rstrip("\r\n")) :]
            return _Cell(number, node, source, cells.shell_piece(view), {}, view, True)
        if name not in PYTHON_CELL_MAGICS:
            return None
    out: list[str] = []
    shell: list[str] = []
    magics: dict[str, tuple[int, int]] = {}
    continued = False
    escaped = False
    plain = not lines or not lines[0].startswith("%%")
    if plain and cells.parses(source):  # plain Python: a `% x` line continues an expression, it is no magic
        no_shell = "".join(" " * len(x.rstrip("\r\n")) + x[len(x.rstrip("\r\n")) :] for x in lines)
        return _Cell(number, node, source, source, {}, no_shell)
    for index, line in enumerate(lines):
        body = line.rstrip("\r\n")
        match = _MAGIC.match(line)
        if match is None:  # an automagic (`pip install x`) only where Python cannot read the line
            match = _AUTOMAGIC.match(body)
            match = None if match is not None and cells.parses(body.strip()) else match
        if continued or (index == 0 and line.startswith("%%")) or match is not None:
            indent = len(match.group("indent")) if match is not None and not continued else 0
            escape = (_SHELL_ESCAPE.match(body) or _RUN_MAGIC.match(body)) if not continued else None
            escaped = escape is not None if not continued else escaped
            comment = comment_start(body)
            key = _PLACEHOLDER.format(f"{number}_{index}") + (f"  {body[comment:]}" if comment else "")
            magics[key] = (index, indent)
            out.append(" " * indent + key + line[len(body) :])
            blank = escape.end() if escape is not None else 0 if escaped else len(body)
            shell.append(" " * blank + line[blank:] if escaped else " " * len(body) + line[len(body) :])
            continued = body.endswith("\\")
        else:
            out.append(line)
            shell.append(" " * len(body) + line[len(body) :])
    return _Cell(number, node, source, "".join(out), magics, "".join(shell))


def _unmask(piece: str, magics: dict[str, tuple[int, int]], source: str) -> str:
    """The new Python of a cell with its IPython lines back, as ``source`` (edited) has them."""
    lines = source.splitlines(keepends=True)
    for key, (index, indent) in magics.items():
        piece = piece.replace(key, lines[index].rstrip("\r\n")[indent:], 1)
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

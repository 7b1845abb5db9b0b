"""Apply LibCST edits to the few expressions that change, and splice them back into the file's text.

An edit names an expression by its ``ast`` node (a Trainer call, a strategy object bound to a name, a
``**`` dict) and says how its LibCST node changes. Only that expression's exact text reaches LibCST, so the
bytes outside it stay as they were by construction (encoding, line ends, the final newline, every other
statement). It is parsed where it was written, as the value of an assignment indented like the statement
that holds it (``if 1:`` opens a block for an indented one): LibCST then reads its line breaks and
indentation exactly as in the whole file, and the edit comes out with the file's layout. Edits inside
another edit's expression (a ``**{...}`` dict written in the call) are applied in the same parse, inner
first, as a transformer over the whole module would.
"""

from __future__ import annotations

import ast
import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from lightning_migrate.files.text import Text, cst_code

# How an edited node changes: (the node as written, the node with the edits inside it applied) -> new node.
Change = Callable[[cst.CSTNode, cst.CSTNode], cst.CSTNode]


@dataclass(frozen=True)
class Edit:
    node: ast.Call | ast.Dict
    indent: str  # the indentation of the statement the node is in
    change: Change


def splice(text: Text, edits: Sequence[Edit]) -> str:
    """``text`` with every edit applied; edits are applied in the order a LibCST transformer would leave
    their nodes (inner before outer, then in source order)."""
    if not edits:
        return text.source
    spans = sorted(((text.start(e.node), -text.end(e.node)), e) for e in edits)
    out, position, group = [], 0, list[Edit]()
    group_end = -1
    for (start, negative_end), edit in spans:
        if group and start >= group_end:
            out.append(text.source[position : text.start(group[0].node)])
            out.append(_apply(text, group))
            position, group = group_end, []
        if not group:
            group_end = -negative_end
        group.append(edit)
    out.append(text.source[position : text.start(group[0].node)])
    out.append(_apply(text, group))
    out.append(text.source[group_end:])
    return "".join(out)


def _apply(text: Text, group: list[Edit]) -> str:
    """The new text of ``group[0]``'s expression, with every edit of ``group`` (inside it) applied."""
    outer = group[0]
    start, end = text.start(outer.node), text.end(outer.node)
    header = f"if 1:{text.newline}" if outer.indent else ""
    prefix = f"{header}{outer.indent}_ = "
    snippet = f"{prefix}{text.source[start:end]}{text.newline}"
    module = cst.parse_module(snippet)
    if len(group) == 1:
        node = _value(module, bool(header))
        new = module.deep_replace(node, outer.change(node, node))
    else:
        top = outer.node.lineno
        first = len(outer.indent) + len("_ = ") - text.column(top, outer.node.col_offset)
        changes = {_where(text, e.node, top, 1 if header else 0, first): e.change for e in group}
        transformer = _Apply(changes)
        new = MetadataWrapper(module, unsafe_skip_copy=True).visit(transformer)
        if transformer.applied != len(changes):
            raise AssertionError("an edit did not find its node")  # never write a partial rewrite
    assert isinstance(new, cst.Module)
    code = cst_code(new.code, snippet)
    assert code.startswith(prefix)
    assert code.endswith(text.newline)
    return code[len(prefix) : len(code) - len(text.newline)]


def _value(module: cst.Module, indented: bool) -> cst.BaseExpression:
    statement: cst.CSTNode = module.body[0]
    if indented:
        assert isinstance(statement, cst.If)
        assert isinstance(statement.body, cst.IndentedBlock)
        statement = statement.body.body[0]
    assert isinstance(statement, cst.SimpleStatementLine)
    assert isinstance(statement.body[0], cst.Assign)
    return statement.body[0].value


Where = tuple[int, int, int, int]


def _where(text: Text, node: ast.expr, top: int, header: int, first: int) -> Where:
    """Where ``node`` is in the parsed snippet: source line ``top`` is the snippet's line ``header + 1``,
    and on that line columns move by ``first`` (the snippet's prefix replaces what preceded the node)."""
    assert node.end_lineno is not None
    assert node.end_col_offset is not None

    def at(line: int, byte_column: int) -> tuple[int, int]:
        column = text.column(line, byte_column)
        return line - top + 1 + header, column + (first if line == top else 0)

    return (*at(node.lineno, node.col_offset), *at(node.end_lineno, node.end_col_offset))


class _Apply(cst.CSTTransformer):
    METADATA_DEPENDENCIES = (PositionProvider,)

    def __init__(self, changes: dict[Where, Change]) -> None:
        super().__init__()
        self.changes = changes
        self.applied = 0

    def _change(self, original: cst.CSTNode, updated: cst.CSTNode) -> cst.CSTNode:
        where = self.get_metadata(PositionProvider, original)
        key = (where.start.line, where.start.column, where.end.line, where.end.column)
        change = self.changes.get(key)
        if change is None:
            return updated
        self.applied += 1
        return change(original, updated)

    def leave_Call(self, original: cst.Call, updated: cst.Call) -> cst.BaseExpression:
        return self._change(original, updated)  # type: ignore[return-value]

    def leave_Dict(self, original: cst.Dict, updated: cst.Dict) -> cst.BaseExpression:
        return self._change(original, updated)  # type: ignore[return-value]


def splice_statements(
    source: str,
    ends: list[int],
    changes: Sequence[tuple[ast.stmt, cst.CSTTransformer]],
    alone: frozenset[int] = frozenset(),
) -> str:
    """``source`` with each statement transformed as LibCST would in the whole module (``ends``: the last
    line of every statement, sorted): the statement's lines, with the blank and comment lines above it that
    LibCST reads as its own (they go if it goes), parsed in a block indented like it. Statements on the
    same lines are given together to the first transformer that names one of them. A statement alone in
    its block (``alone``: their ids) that goes leaves a ``pass``, as LibCST leaves in an emptied block."""
    text = Text(source)
    chunks: dict[tuple[int, int], tuple[str, cst.CSTTransformer, bool]] = {}
    for statement, transformer in changes:
        assert statement.end_lineno is not None
        key = (_leading(text, statement, ends), statement.end_lineno)
        indent = _indent(text.line(statement.lineno))
        chunks.setdefault(key, (indent, transformer, id(statement) in alone))
    out, position = [], 0
    for (first, last), (indent, transformer, only) in sorted(chunks.items()):
        start = text.starts[first - 1]
        end = text.starts[last] if last < len(text.starts) else len(source)
        if start < position:
            continue  # shares a line with a statement already transformed
        out.append(source[position:start])
        new = _transform(source[start:end], indent, text.newline, transformer)
        if only and indent and not new.strip():
            new = f"{indent}pass{text.newline}"
        out.append(new)
        position = end
    out.append(source[position:])
    return "".join(out)


def _indent(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t\f"))]


def _leading(text: Text, statement: ast.stmt, ends: list[int]) -> int:
    """The first line LibCST gives ``statement`` (as its ``leading_lines``): the blank lines and the comment
    lines indented like it right above it, after the end of the statement before."""
    before = (
        ends[bisect.bisect_left(ends, statement.lineno) - 1] if ends and ends[0] < statement.lineno else 0
    )
    indent = _indent(text.line(statement.lineno))
    first = statement.lineno
    while first - 1 > before:
        line = text.line(first - 1)
        if line.strip() and not (line.lstrip().startswith("#") and _indent(line) == indent):
            break
        first -= 1
    return first


def _transform(chunk: str, indent: str, newline: str, transformer: cst.CSTTransformer) -> str:
    """``chunk`` (whole lines) transformed, parsed at its indentation (in a block when indented) and
    followed by a ``pass`` that keeps the block valid if the statement goes."""
    ended = chunk.endswith(("\n", "\r"))
    body = chunk if ended else chunk + newline
    header = f"if 1:{newline}" if indent else ""
    footer = f"{indent}pass{newline}"  # (an empty module would come out as a blank line)
    module = cst.parse_module(header + body + footer)
    code = cst_code(module.visit(transformer).code, footer)
    assert code.startswith(header)
    assert code.endswith(footer)
    new = code[len(header) : len(code) - len(footer)]
    return new if ended or not new.endswith(newline) else new[: -len(newline)]

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


def splice(text: Text, edits: Sequence[Edit], width: int | None = None) -> str:
    """``text`` with every edit applied; edits are applied in the order a LibCST transformer would leave
    their nodes (inner before outer, then in source order). A call written on one line that fitted in
    ``width`` characters and no longer does is written with one argument a line (``_exploded``)."""
    if not edits:
        return text.source
    spans = sorted(((text.start(e.node), -text.end(e.node)), e) for e in edits)
    out, position, group = [], 0, list[Edit]()
    group_end = -1
    for (start, negative_end), edit in spans:
        if group and start >= group_end:
            out.append(text.source[position : text.start(group[0].node)])
            out.append(_apply(text, group, width))
            position, group = group_end, []
        if not group:
            group_end = -negative_end
        group.append(edit)
    out.append(text.source[position : text.start(group[0].node)])
    out.append(_apply(text, group, width))
    out.append(text.source[group_end:])
    return "".join(out)


def _apply(text: Text, group: list[Edit], width: int | None = None) -> str:
    """The new text of ``group[0]``'s expression, with every edit of ``group`` (inside it) applied."""
    outer = group[0]
    start, end = text.start(outer.node), text.end(outer.node)
    newline = _line_end(text, outer.node)  # (the line breaks a wrap writes)
    header = f"if 1:{newline}" if outer.indent else ""
    prefix = f"{header}{outer.indent}_ = "
    snippet = f"{prefix}{text.source[start:end]}{newline}"
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
    code = _code(new, snippet, prefix, newline)
    wrap = _wrap(text, outer, code, width)
    if wrap is not None:
        value = _value(new, bool(header))
        if isinstance(value, cst.Call) and _explodable(value):
            exploded: cst.CSTNode = _exploded(value, wrap)
            wrapped = new.deep_replace(value, exploded)
            assert isinstance(wrapped, cst.Module)
            code = _code(wrapped, snippet, prefix, newline)
    return code


def _line_end(text: Text, node: ast.Call | ast.Dict) -> str:
    """The line end of a node written on one line (a file may mix them), else the file's first."""
    if node.lineno != node.end_lineno or node.lineno >= len(text.starts):
        return text.newline
    line = text.source[text.starts[node.lineno - 1] : text.starts[node.lineno]]
    return line[len(line.rstrip("\r\n")) :] or text.newline


def _code(module: cst.Module, snippet: str, prefix: str, newline: str) -> str:
    code = cst_code(module.code, snippet)
    assert code.startswith(prefix)
    assert code.endswith(newline)
    return code[len(prefix) : len(code) - len(newline)]


def _wrap(text: Text, edit: Edit, code: str, width: int | None) -> str | None:
    """The indentation to write the call's arguments under, past its line's, where ``code`` (the call's new
    text) makes a line that fitted in ``width`` too long; None where it is left on its line: a call written
    over several lines keeps its own layout, a line already too long was the user's choice, a call after a
    quote on its line may be inside an f-string (whose braces span no lines before Python 3.12), and one on
    a line indented less than its statement is not re-indented."""
    node = edit.node
    if width is None or not isinstance(node, ast.Call) or node.lineno != node.end_lineno or "\n" in code:
        return None
    assert node.end_col_offset is not None
    line = text.line(node.lineno)
    start, end = text.column(node.lineno, node.col_offset), text.column(node.lineno, node.end_col_offset)
    if len(line) > width or len(line[:start] + code + line[end:]) <= width or _QUOTES & set(line[:start]):
        return None
    indent = _indent(line)
    return indent[len(edit.indent) :] if indent.startswith(edit.indent) else None


_QUOTES = set("'\"")


def _explodable(call: cst.Call) -> bool:
    """The call has arguments, and a trailing comma can follow them (not a lone generator argument written
    without its own parentheses, ``f(x for x in y)``)."""
    lone = call.args[0].value if len(call.args) == 1 else None
    return bool(call.args) and not (isinstance(lone, cst.GeneratorExp) and not lone.lpar)


def _exploded(call: cst.Call, indent: str) -> cst.Call:
    """``call`` with each argument on a line of its own, indented four spaces past ``indent`` (relative to
    its statement's block), and the closing parenthesis on a line of its own: the layout black and ruff
    give a call that does not fit on its line, with the trailing comma that keeps it so."""

    def line(extra: str) -> cst.ParenthesizedWhitespace:
        return cst.ParenthesizedWhitespace(indent=True, last_line=cst.SimpleWhitespace(extra))

    inner, args = line(indent + "    "), list(call.args)
    args = [
        arg.with_changes(
            comma=cst.Comma(whitespace_after=inner if i < len(args) - 1 else line(indent)),
            whitespace_after_arg=cst.SimpleWhitespace(""),
        )
        for i, arg in enumerate(args)
    ]
    return call.with_changes(whitespace_before_args=inner, args=args)


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

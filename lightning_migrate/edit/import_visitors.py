"""LibCST's ``AddImportsVisitor`` and ``RemoveImportsVisitor``, for the imports this codemod writes.

The codemod used LibCST's own visitors, but importing ``libcst.codemod`` (and the matchers it builds on)
costs every worker process about 0.2 s, more than migrating most files. These two transformers do what
those visitors do to the statements this codemod hands them, node for node, so the output is the same
byte for byte (the golden fixtures and the import tests hold them to that):

- adding ``import module`` or ``from module import name`` (never aliased, never relative, never
  ``__future__``): a name already imported at the top of the file (before any other statement but a
  docstring or ``__strict__``) is not imported again; one of a module already imported from there joins
  the first such import, in front of its names; the rest become new statements after that import block,
  with a blank line before the code that follows;
- removing ``from module import name`` aliases the caller has found unused in the whole file: the alias
  goes, a comment after its comma moves to the name before it, and a statement left with no names goes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import libcst as cst

Needed = tuple[str, str | None]  # (module, name): `from module import name`, or `import module` for None


def _module(node: cst.ImportFrom) -> str | None:
    """The absolute module ``node`` imports from; None for a relative import (no package is known)."""
    if node.relative or node.module is None:
        return None
    return _dotted(node.module)


def _dotted(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Name):
        return node.value
    assert isinstance(node, cst.Attribute)
    return f"{_dotted(node.value)}.{node.attr.value}"


def _import_line(statement: cst.BaseStatement) -> cst.Import | cst.ImportFrom | None:
    if isinstance(statement, cst.SimpleStatementLine) and len(statement.body) == 1:
        node = statement.body[0]
        if isinstance(node, (cst.Import, cst.ImportFrom)):
            return node
    return None


def _skip_first(module: cst.Module) -> bool:
    """LibCST's test for a first statement that stays above the imports: a docstring or ``__strict__``."""
    if not module.body or not isinstance(module.body[0], cst.SimpleStatementLine):
        return False
    body = module.body[0].body
    if len(body) != 1:
        return False
    node = body[0]
    if isinstance(node, cst.Assign):
        targets = node.targets
        return (
            len(targets) == 1
            and isinstance(targets[0].target, cst.Name)
            and targets[0].target.value == "__strict__"
        )
    return isinstance(node, cst.Expr) and isinstance(node.value, cst.SimpleString)


class AddImports(cst.CSTTransformer):
    def __init__(self, needed: Iterable[Needed]) -> None:
        super().__init__()
        needed = list(needed)
        assert all(module != "__future__" for module, _ in needed)
        self.modules = {module for module, name in needed if name is None}
        self.names: dict[str, set[str]] = {
            module: {n for m, n in needed if m == module and n is not None}
            for module in sorted({module for module, name in needed if name is not None})
        }
        self.top: list[cst.Import | cst.ImportFrom] = []

    def visit_Module(self, node: cst.Module) -> None:
        start = 1 if _skip_first(node) else 0
        for statement in node.body[start:]:
            imported = _import_line(statement)
            if imported is None:
                break
            self.top.append(imported)
        star: set[str] = set()
        for imported in self.top:  # what the file already imports at its top
            if isinstance(imported, cst.Import):
                self.modules -= {alias.evaluated_name for alias in imported.names if alias.asname is None}
                continue
            module = _module(imported)
            if module is None:
                continue
            if isinstance(imported.names, cst.ImportStar):
                star.add(module)
            elif module in self.names:
                self.names[module] -= {
                    alias.evaluated_name for alias in imported.names if alias.asname is None
                }
        self.names = {module: names for module, names in self.names.items() if names and module not in star}

    def leave_ImportFrom(self, original: cst.ImportFrom, updated: cst.ImportFrom) -> cst.ImportFrom:
        if isinstance(updated.names, cst.ImportStar) or not any(original is node for node in self.top):
            return updated
        module = _module(updated)
        if module is None or module not in self.names:
            return updated
        added = [cst.ImportAlias(name=cst.Name(name)) for name in sorted(self.names.pop(module))]
        return updated.with_changes(names=[*added, *updated.names])

    def leave_Module(self, original: cst.Module, updated: cst.Module) -> cst.Module:
        if not self.modules and not self.names:
            return updated
        before = 1 if _skip_first(original) else 0
        end = before
        for index, statement in enumerate(original.body[before:], start=before):
            if _import_line(statement) is None:
                break
            end = index + 1
        body = list(updated.body)
        config = updated.config_for_parsing
        new = [cst.parse_statement(f"import {module}", config=config) for module in sorted(self.modules)]
        new += [
            cst.parse_statement(f"from {module} import {', '.join(sorted(names))}", config=config)
            for module, names in self.names.items()
        ]
        return updated.with_changes(body=[*body[:end], *new, *_blank_line_before(body[end:])])


def _blank_line_before(statements: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement]:
    """The code after the new imports starts after a blank line (before its comment, if it has one)."""
    if not statements:
        return []
    first = statements[0]
    assert isinstance(first, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
    lines = first.leading_lines
    if lines and lines[0].comment is None:
        return list(statements)
    return [first.with_changes(leading_lines=(cst.EmptyLine(), *lines)), *statements[1:]]


class RemoveNames(cst.CSTTransformer):
    def __init__(self, unused: set[tuple[str, str]]) -> None:
        super().__init__()
        self.unused = unused
        self.modules = {module for module, _ in unused}

    def leave_ImportFrom(
        self, original: cst.ImportFrom, updated: cst.ImportFrom
    ) -> cst.ImportFrom | cst.RemovalSentinel:
        names = original.names
        module = _module(updated)
        if isinstance(names, cst.ImportStar) or module is None or module not in self.modules:
            return updated
        kept: list[cst.ImportAlias] = []
        lpar = updated.lpar
        for alias in names:
            if alias.asname is not None or (module, alias.evaluated_name) not in self.unused:
                kept.append(alias)
                continue
            comma = alias.comma
            if not isinstance(comma, cst.Comma):
                continue
            if kept:  # the comment after the removed name's comma moves to the name before it
                previous = kept[-1]
                if isinstance(previous.comma, cst.Comma):
                    merged = _merge_whitespace_after(previous.comma.whitespace_after, comma.whitespace_after)
                    kept[-1] = previous.with_deep_changes(previous.comma, whitespace_after=merged)
                else:
                    kept[-1] = previous.with_changes(comma=comma)
            elif isinstance(lpar, cst.LeftParen):
                lpar = lpar.with_changes(
                    whitespace_after=_merge_whitespace_after(lpar.whitespace_after, comma.whitespace_after)
                )
        if not kept:
            return cst.RemoveFromParent()
        if kept[-1] is not names[-1]:  # no trailing comma after what is now the last name
            kept[-1] = kept[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        return updated.with_changes(names=kept, lpar=lpar)


def _merge_whitespace_after(
    left: cst.BaseParenthesizableWhitespace, right: cst.BaseParenthesizableWhitespace
) -> cst.BaseParenthesizableWhitespace:
    if not isinstance(right, cst.ParenthesizedWhitespace):
        return left
    if not isinstance(left, cst.ParenthesizedWhitespace):
        return right
    return left.with_changes(
        empty_lines=tuple(line for line in right.empty_lines if line.comment is not None)
    )

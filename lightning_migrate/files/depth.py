"""A file's tree, refused where it is nested deeper than the codemod can take.

LibCST's parser and code generator and any recursive walk of a tree run out of stack on deep code: with
LibCST 1.9 at Python's default recursion limit, ``x = 1 + 1 + ... + 1`` raises ``RecursionError`` from about
500 terms and crashes the process (segfault) from about 10,000; a 1,300-deep ``((((...))))`` crashes its
native parser (1,250 parses; CPython itself stops at 200 brackets, "too many nested parentheses"). And
``ast.parse`` raises ``RecursionError`` for a 100,000-term sum. So a file is refused, with a ``SourceError``
naming the line, before any of it reaches LibCST or a walker: deeper than ``MAX_DEPTH`` ``ast`` nodes,
measured without recursion, far below where LibCST breaks and far above what hand-written code nests.
"""

from __future__ import annotations

import ast

from lightning_migrate.files.sourcefile import SourceError

MAX_DEPTH = 200  # ast nodes from the module down; LibCST 1.9 writes a 400-deep sum back, 500 is too deep
TOO_DEEP = "too deeply nested to migrate safely"
_PYTHON_TOO_DEEP = ("too many nested parentheses", "too many nested blocks")  # CPython's own limits


def parse(source: str) -> ast.Module:
    """``ast.parse(source)``; a ``SourceError`` where it is too deep (see the module's docstring). Python's
    other syntax errors are raised as they are."""
    try:
        tree = ast.parse(source)
    except (RecursionError, MemoryError) as exc:  # no line: the parser gave up while building the tree
        raise SourceError(f"{TOO_DEEP}: Python's parser runs out of stack reading it") from exc
    except SyntaxError as exc:
        if exc.msg in _PYTHON_TOO_DEEP:
            raise SourceError(f"{TOO_DEEP}: {exc.msg}", exc.lineno or 0, exc.offset or 0) from exc
        raise
    deepest = _too_deep(tree) if _deeper(tree) else None  # (the quick test first; the node only when it is)
    if deepest is not None:
        line, column = getattr(deepest, "lineno", 0), getattr(deepest, "col_offset", -1) + 1
        raise SourceError(f"{TOO_DEEP}: expressions nested more than {MAX_DEPTH} deep", line, column)
    return tree


def _deeper(tree: ast.AST) -> bool:
    """Does ``tree`` hold a node deeper than ``MAX_DEPTH``? (A level at a time, without recursion: about
    three times as fast as ``_too_deep``'s stack of (node, depth) pairs, and every file takes it.)"""
    level = [tree]
    for _ in range(MAX_DEPTH + 1):  # after n rounds, ``level`` is the nodes n deep
        level = _children(level)
        if not level:
            return False
    return True


def _children(nodes: list[ast.AST]) -> list[ast.AST]:
    """The children of ``nodes``, as ``ast.iter_child_nodes`` finds them (without its two generators)."""
    found: list[ast.AST] = []
    for node in nodes:
        for name in node._fields:
            value = getattr(node, name, None)
            if isinstance(value, ast.AST):
                found.append(value)
            elif isinstance(value, list):
                found.extend([item for item in value if isinstance(item, ast.AST)])
    return found


def _too_deep(tree: ast.AST) -> ast.AST | None:
    """The first node found deeper than ``MAX_DEPTH`` (an explicit stack: the tree may be deep)."""
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return node
        stack.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return None

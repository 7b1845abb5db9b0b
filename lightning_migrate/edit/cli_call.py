"""A ``LightningCLI(...)`` call with the keywords a release moved into a dict keyword (``save_config_kwargs``,
``parser_kwargs``) moved there, and those it dropped removed (LibCST; decided by
``frontends.python.cli_api``). The dict keyword takes the place of the first keyword moved into it, unless the
call already passes it as a dict display: then the entries are appended to it. Every other argument, and the
call's layout, stays as it was."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import libcst as cst


def moved_keywords(
    updated: cst.CSTNode, moves: Mapping[str, Sequence[tuple[str, str]]], dropped: Sequence[str], quote: str
) -> cst.CSTNode:
    """``updated`` (a call) with each ``moves[into]`` keyword's value moved into ``into=`` under its key, and
    the keywords ``dropped`` removed."""
    assert isinstance(updated, cst.Call)
    args = list(updated.args)
    values = {_keyword(a): a.value for a in args if _keyword(a)}
    for into, keywords in moves.items():
        entries = [_entry(key, values[keyword], quote) for keyword, key in keywords]
        existing = next((i for i, a in enumerate(args) if _keyword(a) == into), None)
        if existing is not None:
            value = args[existing].value
            assert isinstance(value, cst.Dict)
            args[existing] = args[existing].with_changes(value=_appended(value, entries))
            dropped = [*dropped, *(keyword for keyword, _ in keywords)]
            continue
        first = next(i for i, a in enumerate(args) if _keyword(a) == keywords[0][0])
        args[first] = args[first].with_changes(
            keyword=cst.Name(into), value=cst.Dict(_separated(entries, _comma(" ")))
        )
        dropped = [*dropped, *(keyword for keyword, _ in keywords[1:])]
    for keyword in dropped:
        args = _without(args, keyword)
    return updated.with_changes(args=args)


def _keyword(arg: cst.Arg) -> str:
    return arg.keyword.value if arg.keyword is not None else ""


def _entry(key: str, value: cst.BaseExpression, quote: str) -> cst.DictElement:
    return cst.DictElement(cst.SimpleString(f"{quote}{key}{quote}"), value)


def _comma(space: str) -> cst.Comma:
    return cst.Comma(whitespace_after=cst.SimpleWhitespace(space))


def _separated(entries: list[cst.DictElement], between: cst.Comma) -> list[cst.DictElement]:
    return [e.with_changes(comma=between) for e in entries[:-1]] + entries[-1:]


def _appended(value: cst.Dict, entries: list[cst.DictElement]) -> cst.Dict:
    """A dict display with ``entries`` appended, separated as its own entries are."""
    items = list(value.elements)
    if not items:
        return value.with_changes(elements=_separated(entries, _comma(" ")))
    between = items[-2].comma if len(items) > 1 and isinstance(items[-2].comma, cst.Comma) else _comma(" ")
    last = items[-1].comma
    opening = value.lbrace.whitespace_after
    if len(items) == 1 and "\n" in _code(opening):  # one entry on its own line: the new ones on theirs
        between = cst.Comma(whitespace_after=opening)
    items[-1] = items[-1].with_changes(comma=between)
    new = [e.with_changes(comma=between) for e in entries[:-1]]
    new.append(entries[-1].with_changes(comma=last))
    return value.with_changes(elements=[*items, *new])


def _without(args: list[cst.Arg], keyword: str) -> list[cst.Arg]:
    """``args`` without ``keyword=``; the argument before it takes its comma where it was the last."""
    index = next(i for i, a in enumerate(args) if _keyword(a) == keyword)
    gone = args[index]
    rest = args[:index] + args[index + 1 :]
    if index == len(args) - 1 and index > 0:
        rest[index - 1] = rest[index - 1].with_changes(
            comma=gone.comma, whitespace_after_arg=gone.whitespace_after_arg
        )
    return rest


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)

"""The smallest edit of a call's arguments that turns its old flags into the planned ones.

Each old argument that changes is a *slot* for the new flags that replace it: a training type written in
``accelerator=``/``distributed_backend=``/``plugins=`` makes room for ``strategy=``, a device-count flag for
``accelerator=`` + ``devices=``. In its slot, the new flag with the old value takes over the old node (only
the keyword changes: value, quotes, comments and layout survive), a strategy object whose class was renamed
keeps its arguments, and the other new flags are inserted beside it with the call's own comma style, so
multi-line calls stay multi-line. Arguments whose flag does not change are not touched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import libcst as cst

from lightning_migrate.edit.slots import Placement, distance, items, place
from lightning_migrate.plan.knowledge import Choice, Known, RunTime, or_form
from lightning_migrate.plan.planner import derived
from lightning_migrate.semantics.model import Obj


@dataclass
class Edited:
    args: list[cst.Arg]
    renamed: dict[str, str] = field(default_factory=dict)  # old class -> new class, reusing the old call
    qualified: set[str] = field(default_factory=set)  # new classes written `pl.strategies.X`: no import
    built: set[str] = field(default_factory=set)  # classes of strategy objects written from scratch
    aliased: dict[str, str] = field(default_factory=dict)  # import alias kept at the call -> new class
    comments: dict[str, cst.Comment] = field(default_factory=dict)  # flag -> comment of the list item it was
    # the comment lines after the arguments dropped before the first one kept (see `opening`)
    leading: list[cst.EmptyLine] = field(default_factory=list)
    indent: cst.SimpleWhitespace | None = None  # the indentation after the last of them


def edit_arguments(
    args: Sequence[cst.Arg], old: Mapping[str, Known], new: Mapping[str, Known], quote: str
) -> Edited:
    """``args`` with the flags in ``old`` rewritten to ``new`` (both: the modelled flags only)."""
    edited = Edited([])
    written = [a.keyword.value for a in args if a.keyword is not None]
    placements = place([*written, *(k for k in old if k not in written)], old, new)
    unplaced = set(placements.appended)
    for placement in placements.changed:
        if placement.key not in written:  # (not an argument here: its new flags go after the others)
            unplaced.update(placement.slot)
    slots = {p.key: p for p in placements.changed if p.key in written}
    for arg in args:
        key = arg.keyword.value if arg.keyword is not None else None
        if key is None or key not in slots:
            edited.args.append(arg)
            continue
        filled = _fill(arg, old[key], slots[key], new, quote, edited)
        if not filled and edited.args:
            edited.args[-1] = _with_lines_of(edited.args[-1], arg)
        elif not filled:
            edited.leading += _comment_lines(arg.comma)
            space = _trailing(arg)
            edited.indent = space.last_line if isinstance(space, cst.ParenthesizedWhitespace) else None
        edited.args.extend(filled)
    position = next((i for i, a in enumerate(edited.args) if a.star), len(edited.args))
    edited.args[position:position] = [_fresh(k, new[k], quote, edited, None) for k in new if k in unplaced]
    edited.args = _commas(
        edited.args,
        _separator(args),
        args[-1].comma if args else cst.MaybeSentinel.DEFAULT,
        args[-1].whitespace_after_arg if args else cst.SimpleWhitespace(""),
    )
    edited.args = [
        _with_comment(a, edited.comments.get(a.keyword.value if a.keyword else "")) for a in edited.args
    ]
    return edited


def _with_lines_of(arg: cst.Arg, dropped: cst.Arg) -> cst.Arg:
    """``arg`` followed by the comment lines that followed ``dropped``, the argument after it that the edit
    drops (``weights_summary="top",`` then ``# profiler=False,``): they are the user's notes on the call, not
    on the flag that goes (a comment at the end of the dropped argument's own line goes with it)."""
    lines = _comment_lines(dropped.comma)
    comma = arg.comma
    if not lines or not isinstance(comma, cst.Comma):
        return arg
    space = comma.whitespace_after
    if not isinstance(space, cst.ParenthesizedWhitespace):  # (a one-line call has no comment lines)
        return arg
    space = space.with_changes(empty_lines=[*space.empty_lines, *lines])
    return arg.with_changes(comma=comma.with_changes(whitespace_after=space))


def opening(
    space: cst.BaseParenthesizableWhitespace, edited: Edited, args: Sequence[cst.Arg], after: bool = False
) -> cst.BaseParenthesizableWhitespace:
    """The whitespace before the first of ``edited.args``, in place of ``space``, the whitespace before the
    first of ``args`` (after the call's ``(``, or ``after`` an argument the edit leaves, such as
    ``from_argparse_args``'s namespace): with the comment lines that followed the arguments the edit dropped
    before it (``edited.leading``: the user's notes on the call), then the indentation of that argument.
    Where the edit keeps no argument of a multi-line call, the call closes as it closed after its last one
    (``Trainer()`` where no comment line is left and no argument comes before)."""
    closing = _trailing(args[-1]) if args else None
    if not edited.args and isinstance(closing, cst.ParenthesizedWhitespace):
        if not edited.leading and not after:
            return cst.SimpleWhitespace("")
        indent = closing.last_line
    elif not edited.leading:
        return space
    elif isinstance(space, cst.ParenthesizedWhitespace):
        indent = space.last_line
    else:
        indent = edited.indent or cst.SimpleWhitespace("")
    if isinstance(space, cst.ParenthesizedWhitespace):
        return space.with_changes(empty_lines=[*space.empty_lines, *edited.leading], last_line=indent)
    return cst.ParenthesizedWhitespace(empty_lines=edited.leading, indent=True, last_line=indent)


def _trailing(arg: cst.Arg) -> cst.BaseParenthesizableWhitespace:
    """The whitespace after ``arg`` and its comma."""
    return arg.comma.whitespace_after if isinstance(arg.comma, cst.Comma) else arg.whitespace_after_arg


def _comment_lines(comma: cst.Comma | cst.MaybeSentinel) -> list[cst.EmptyLine]:
    """The lines after ``comma`` up to the next argument, where one of them holds a comment."""
    space = comma.whitespace_after if isinstance(comma, cst.Comma) else None
    if not isinstance(space, cst.ParenthesizedWhitespace):
        return []
    lines = list(space.empty_lines)
    return lines if any(line.comment is not None for line in lines) else []


def _with_comment(arg: cst.Arg, comment: cst.Comment | None) -> cst.Arg:
    """``arg`` with the comment of the list item it was made from at the end of its line (multi-line calls
    only: a comment cannot end a line inside a one-line call)."""
    if comment is None:
        return arg
    for attribute in ("comma", "whitespace_after_arg"):
        node = getattr(arg, attribute)
        space = node.whitespace_after if isinstance(node, cst.Comma) else node
        if isinstance(space, cst.ParenthesizedWhitespace) and space.first_line.comment is None:
            line = space.first_line.with_changes(whitespace=cst.SimpleWhitespace("  "), comment=comment)
            space = space.with_changes(first_line=line)
            if isinstance(node, cst.Comma):
                return arg.with_changes(comma=node.with_changes(whitespace_after=space))
            return arg.with_changes(whitespace_after_arg=space)
    return arg


def _fill(
    arg: cst.Arg, old: Known, placement: Placement, new: Mapping[str, Known], quote: str, edited: Edited
) -> list[cst.Arg]:
    """The arguments that take the place of ``arg``; the heir (closest to the old value) takes over the
    argument, and every one made of parts of the old value (``plugins=[DDPPlugin(), env]`` split into
    ``plugins=[env]`` and ``strategy=DDPStrategy()``) reuses those parts."""
    out = []
    for key in placement.slot:
        if key == placement.heir:
            value = _reuse(arg.value, old, new[key], quote, edited, key)
            out.append(arg.with_changes(keyword=cst.Name(key), value=value))
        elif distance(old, new[key]) < 3:
            value = _reuse(arg.value, old, new[key], quote, edited, key)
            out.append(_fresh(key, value, quote, edited, arg))
        else:
            out.append(_fresh(key, new[key], quote, edited, arg))
    return out


def _reuse(
    node: cst.BaseExpression, old: Known, new: Known, quote: str, edited: Edited, key: str = ""
) -> cst.BaseExpression:
    if new == old and type(new) is type(old):  # (`enable_progress_bar=False` is no `0`)
        return node
    if (
        isinstance(new, Choice)
        and isinstance(old, Choice)
        and new.flag == old.flag
        and isinstance(node, cst.IfExp)
    ):
        return branches(node, old, new, quote, edited)  # (another keyword's conditional is written anew)
    if isinstance(new, Obj):
        candidates = node.elements if isinstance(node, (cst.List, cst.Tuple)) else [cst.Element(node)]
        for element, value in zip(candidates, items(old)):
            call = element.value
            if not derived(value, new) or not isinstance(call, (cst.Call, cst.Name, cst.Attribute)):
                continue
            comment = _trailing_comment(element)
            if comment is not None and len(candidates) > 1:  # the item leaves its list: keep its comment
                edited.comments[key] = comment
            if not isinstance(call, cst.Call):
                return call  # a name bound to the object: the codemod edits it where it is built
            assert isinstance(value, Obj)
            return rebuilt(call, value, new, quote, edited)
    if (
        isinstance(new, list)
        and isinstance(old, list)
        and isinstance(node, (cst.List, cst.Tuple))
        and all(v in old for v in new)  # what is left of the list; another list is written anew
    ):
        kept = [e for e, v in zip(node.elements, old) if v in new]
        if kept:
            kept[-1] = kept[-1].with_changes(comma=node.elements[-1].comma)
        return node.with_changes(elements=kept)
    return _literal(new, quote, edited)


def branches(
    node: cst.IfExp, old: Choice, new: Choice, quote: str, edited: Edited, index: int = 0
) -> cst.IfExp:
    """The conditional ``node`` (``old``'s branches from ``index`` on) with each branch ``new`` changes
    written anew, in place: its tests, the other branches and the layout stay as they are."""

    def branch(at: int, written: cst.BaseExpression) -> cst.BaseExpression:
        if new.branches[at] == old.branches[at]:
            return written
        return _literal(new.branches[at], quote, edited).with_changes(lpar=written.lpar, rpar=written.rpar)

    last = index + 1 == len(old.branches) - 1
    if last or not isinstance(node.orelse, cst.IfExp):
        orelse = branch(index + 1, node.orelse)
    else:
        orelse = branches(node.orelse, old, new, quote, edited, index + 1)
    return node.with_changes(body=branch(index, node.body), orelse=orelse)


def _trailing_comment(element: cst.BaseElement) -> cst.Comment | None:
    after = element.comma.whitespace_after if isinstance(element.comma, cst.Comma) else None
    return after.first_line.comment if isinstance(after, cst.ParenthesizedWhitespace) else None


def rebuilt(call: cst.Call, old: Obj, new: Obj, quote: str, edited: Edited) -> cst.Call:
    """The user's ``call`` building ``new`` (``derived`` from ``old``): its class renamed in place and the
    arguments the target needs appended; every argument written stays as it is."""
    if old.cls != new.cls:  # else moved, not renamed (`plugins=DDPPlugin()` -> `strategy=` in 1.5)
        edited.renamed[old.cls] = new.cls
        func = _renamed(call.func, old.cls, new.cls)
        if isinstance(func, cst.Attribute):
            edited.qualified.add(new.cls)
        elif isinstance(func, cst.Name) and func.value != new.cls:
            edited.aliased[func.value] = new.cls
        call = call.with_changes(func=func)
    added = [k for k, _ in new.kwargs if k not in old.kw()]
    if not added:
        return call
    args = list(call.args)
    extra = [_fresh(k, new.kw()[k], quote, edited, args[-1] if args else None) for k in added]
    if args and not isinstance(args[-1].comma, cst.Comma):
        args[-1] = args[-1].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    for i in range(len(extra) - 1):
        extra[i] = extra[i].with_changes(comma=cst.Comma(whitespace_after=cst.SimpleWhitespace(" ")))
    return call.with_changes(args=[*args, *extra])


def _renamed(func: cst.BaseExpression, old: str, new: str) -> cst.BaseExpression:
    """``pl.plugins.DDPPlugin`` and ``pl.plugins.training_type.ddp.DDPPlugin`` become
    ``pl.strategies.DDPStrategy``; an imported alias (``DDP`` for ``DDPPlugin as DDP``) stays, its import is
    rewritten; any other spelling (``DDPPlugin``, ``plugins.DDPPlugin``) the bare new name, which gets
    imported."""
    if isinstance(func, cst.Name) and func.value != old:
        return func  # `from ... import DDPPlugin as DDP`: the import changes, not the calls
    if isinstance(func, cst.Attribute):
        value = func.value
        while isinstance(value, cst.Attribute) and value.attr.value != "plugins":
            value = value.value
        if isinstance(value, cst.Attribute):
            value = value.with_changes(attr=cst.Name("strategies"))
            return func.with_changes(value=value, attr=func.attr.with_changes(value=new))
    return cst.Name(new)


def _fresh(
    key: str, value: Known | cst.BaseExpression, quote: str, edited: Edited, template: cst.Arg | None
) -> cst.Arg:
    equal: cst.AssignEqual | cst.MaybeSentinel = cst.AssignEqual(
        cst.SimpleWhitespace(""), cst.SimpleWhitespace("")
    )
    if template is not None and template.keyword is not None:
        equal = template.equal  # keep the file's `key=value` / `key = value` style
    written = value if isinstance(value, cst.BaseExpression) else _literal(value, quote, edited)
    return cst.Arg(value=written, keyword=cst.Name(key), equal=equal)


def _literal(value: Known, quote: str, edited: Edited) -> cst.BaseExpression:
    if isinstance(value, RunTime):  # moved to another keyword: written as it was
        return _expression(value.text)
    if isinstance(value, Choice) and value.name is not None:  # bound to a name, rewritten where it is bound
        return cst.Name(value.name)
    if isinstance(value, Choice) and value.split and or_form(value):  # `n if n else 1`: `n or 1`
        left, right = _expression(value.tests[0]), _literal(value.branches[1], quote, edited)
        return cst.BooleanOperation(left, cst.Or(), right)
    if isinstance(value, Choice):  # a conditional for another keyword, with the tests as written
        tests = [_expression(t) for t in value.tests]
        written: cst.BaseExpression = _literal(value.branches[-1], quote, edited)
        for test, branch in reversed(list(zip(tests, value.branches))):
            written = cst.IfExp(test=test, body=_literal(branch, quote, edited), orelse=written)
        return written
    if isinstance(value, str):
        escaped = value.replace("\\", "\\\\").replace(quote, "\\" + quote)
        return cst.SimpleString(f"{quote}{escaped}{quote}")
    if isinstance(value, Obj):
        edited.built.add(value.cls)
        equal = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace(""))
        args = [
            cst.Arg(_literal(v, quote, edited), keyword=cst.Name(k), equal=equal) for k, v in value.kwargs
        ]
        return cst.Call(func=cst.Name(value.cls), args=args)
    if isinstance(value, (list, tuple)):
        return cst.List([cst.Element(_literal(v, quote, edited)) for v in value])
    return cst.parse_expression(repr(value))


def _expression(text: str) -> cst.BaseExpression:
    """An expression written as it was, parenthesized where it spans lines or would bind looser than the
    conditional expression it goes into."""
    if "\n" in text:
        return cst.parse_expression(f"({text})")
    expression = cst.parse_expression(text)
    if isinstance(expression, (cst.IfExp, cst.Lambda, cst.NamedExpr)) and not expression.lpar:
        expression = expression.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])
    return expression


def _separator(args: Sequence[cst.Arg]) -> cst.Comma | cst.MaybeSentinel:
    """The comma style between arguments (with its newline and indent in a multi-line call)."""
    commas = [a.comma for a in args[:-1] if isinstance(a.comma, cst.Comma)]
    if not commas:
        return cst.MaybeSentinel.DEFAULT
    after = commas[-1].whitespace_after
    if isinstance(after, cst.ParenthesizedWhitespace):  # not the comment of the argument it came from
        after = after.with_changes(first_line=cst.TrailingWhitespace(), empty_lines=[])
    return commas[-1].with_changes(whitespace_after=after)


def _commas(
    args: list[cst.Arg],
    separator: cst.Comma | cst.MaybeSentinel,
    trailing: cst.Comma | cst.MaybeSentinel,
    closing: cst.BaseParenthesizableWhitespace,
) -> list[cst.Arg]:
    """Every argument but the last is followed by a separator; the last keeps the call's trailing comma
    and, without one, the line break (``closing``) before the closing parenthesis."""
    for i, arg in enumerate(args):
        if i == len(args) - 1:
            last = arg
            if arg.whitespace_after_arg is not closing and isinstance(closing, cst.ParenthesizedWhitespace):
                last = arg.with_changes(
                    whitespace_after_arg=closing.with_changes(first_line=cst.TrailingWhitespace())
                )
            args[i] = last.with_changes(comma=trailing)
        elif isinstance(arg.whitespace_after_arg, cst.ParenthesizedWhitespace):
            # the old last argument, without a trailing comma, now has one: its comment goes after it
            comma = separator
            if isinstance(comma, cst.Comma) and isinstance(
                comma.whitespace_after, cst.ParenthesizedWhitespace
            ):
                line = arg.whitespace_after_arg.first_line
                comma = comma.with_changes(
                    whitespace_after=comma.whitespace_after.with_changes(first_line=line)
                )
            args[i] = arg.with_changes(comma=comma, whitespace_after_arg=cst.SimpleWhitespace(""))
        elif not isinstance(arg.comma, cst.Comma) or arg.comma is trailing or _is_trailing(arg.comma):
            args[i] = arg.with_changes(comma=separator)
    return args


def _is_trailing(comma: cst.Comma) -> bool:
    """A comma before the closing parenthesis of a multi-line call (dedented), not between arguments."""
    after = comma.whitespace_after
    return isinstance(after, cst.ParenthesizedWhitespace) and not after.indent

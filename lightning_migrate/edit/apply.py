"""The Python applier: what each edit the front end decided does to LibCST nodes, and the writing of the file.

The front end (``frontends.python``) decides with ``ast`` alone; this module, and LibCST with it, is imported
only for a file that has something to write (LibCST takes longer to import than most files take to read).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import libcst as cst

from lightning_migrate.edit.call import Edited, branches, edit_arguments, opening, rebuilt
from lightning_migrate.edit.import_edits import (
    Parsed,
    add_imports,
    add_module_import,
    fix_imports,
    remove_unused,
    rename_uses,
)
from lightning_migrate.edit.imports import ImportChanges, new_module
from lightning_migrate.edit.splice import Change, Edit, splice
from lightning_migrate.files.text import Text
from lightning_migrate.plan.knowledge import Choice, Known
from lightning_migrate.semantics.model import Obj

# An edit as the front end asks for it: the ast node, its statement's indentation, how its node changes.
Asked = tuple[object, str, Change]


def write(text: Text, edits: Sequence[Asked], width: int | None = None) -> str:
    """``text`` with ``edits`` made; a one-line call made longer than ``width`` is wrapped (``splice``)."""
    return splice(text, [Edit(node, indent, change) for node, indent, change in edits], width)  # type: ignore[arg-type]


def object_call(updated: cst.CSTNode, old: Obj, new: Obj, quote: str) -> tuple[cst.CSTNode, Edited]:
    """A strategy object bound to a name, rebuilt where it is built (its class renamed, arguments kept)."""
    assert isinstance(updated, cst.Call)
    edited = Edited([])
    return rebuilt(updated, old, new, quote, edited), edited


def conditional(updated: cst.CSTNode, old: Choice, new: Choice, quote: str) -> cst.CSTNode:
    """A conditional expression bound to a name (``old``) with its branches rewritten in place (``new``):
    its tests and layout stay as they are."""
    assert isinstance(updated, cst.IfExp)
    return branches(updated, old, new, quote, Edited([]))


def trainer_call(
    updated: cst.CSTNode, skip: int, old: dict[str, Known], new: dict[str, Known], quote: str
) -> tuple[cst.Call, Edited]:
    """A Trainer call with its flags (after ``skip`` leading arguments) rewritten from ``old`` to ``new``."""
    assert isinstance(updated, cst.Call)
    head, tail = list(updated.args[:skip]), list(updated.args[skip:])
    edited = edit_arguments(tail, old, new, quote)
    comma = head[-1].comma if head else None
    if (
        isinstance(comma, cst.Comma)
        and tail
        and not edited.args
        and not isinstance(tail[-1].comma, cst.Comma)
    ):
        # (no argument left after the namespace, and no trailing comma to keep: the call ends after it)
        head[-1] = head[-1].with_changes(
            comma=cst.MaybeSentinel.DEFAULT, whitespace_after_arg=_after(tail[-1])
        )
    elif isinstance(comma, cst.Comma):
        space = opening(comma.whitespace_after, edited, tail, after=True)
        head[-1] = head[-1].with_changes(comma=comma.with_changes(whitespace_after=space))
    elif not head:
        updated = updated.with_changes(
            whitespace_before_args=opening(updated.whitespace_before_args, edited, tail)
        )
    return updated.with_changes(args=[*head, *edited.args]), edited


def _after(arg: cst.Arg) -> cst.BaseParenthesizableWhitespace:
    return arg.whitespace_after_arg


def add_keyword(updated: cst.CSTNode, keyword: str, text: str, quote: str) -> cst.Call:
    """A call with ``keyword=text`` appended (before any ``*args``/``**kwargs``), in its comma style."""
    assert isinstance(updated, cst.Call)
    value = cst.parse_expression(text)
    return trainer_call(updated, 0, {}, {keyword: value}, quote)[0]  # type: ignore[dict-item]


def add_callbacks(updated: cst.CSTNode, skip: int, added: Sequence[str], splat: bool, quote: str) -> cst.Call:
    """A Trainer call with the callbacks ``added`` (their text) appended to its ``callbacks=``: into its
    list display, as ``[*value, new]`` (``splat``) or ``[value, new]`` (one callback object) otherwise, or a
    new ``callbacks=[new]`` where it has none (or None)."""
    assert isinstance(updated, cst.Call)
    new = [cst.parse_expression(text) for text in added]
    for index, arg in enumerate(updated.args):
        if index >= skip and arg.keyword is not None and arg.keyword.value == "callbacks":
            args = list(updated.args)
            args[index] = arg.with_changes(value=_appended(arg.value, new, splat))
            return updated.with_changes(args=args)
    value = _appended(cst.Name("None"), new, splat)
    call, _ = trainer_call(updated, skip, {}, {"callbacks": value}, quote)  # type: ignore[dict-item]
    return call


def _appended(value: cst.BaseExpression, new: list[cst.BaseExpression], splat: bool) -> cst.BaseExpression:
    """``value`` (a ``callbacks=`` value) with ``new`` appended; a list display keeps its layout: the new
    items are separated as its items are, and its last item's comma (a trailing comma, a line break) ends
    them."""
    space = cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
    if isinstance(value, cst.Name) and value.value == "None":
        items: list[cst.BaseElement] = []
    elif isinstance(value, cst.List):
        items = list(value.elements)
    else:
        items = [cst.StarredElement(value) if splat else cst.Element(value)]
    if not items:
        return cst.List([cst.Element(e, comma=space) for e in new[:-1]] + [cst.Element(new[-1])])
    between = items[-2].comma if len(items) > 1 and isinstance(items[-2].comma, cst.Comma) else space
    if len(items) == 1 and isinstance(value, cst.List):  # one item on its own line: the new ones on theirs
        opening = value.lbracket.whitespace_after
        between = cst.Comma(whitespace_after=opening) if "\n" in _code(opening) else between
    last = items[-1].comma
    items[-1] = items[-1].with_changes(comma=between)
    items += [cst.Element(e, comma=between) for e in new[:-1]] + [cst.Element(new[-1], comma=last)]
    return value.with_changes(elements=items) if isinstance(value, cst.List) else cst.List(items)


def _code(node: cst.CSTNode) -> str:
    return cst.Module([]).code_for_node(node)


def config_dict(
    updated: cst.CSTNode, old: dict[str, Known], new: dict[str, Known], quote: str
) -> tuple[cst.CSTNode, Edited]:
    """A dict display or ``dict(...)`` call passed as ``**cfg``, its entries rewritten like arguments."""
    if isinstance(updated, cst.Call):
        edited = edit_arguments(list(updated.args), old, new, quote)
        space = opening(updated.whitespace_before_args, edited, updated.args)
        return updated.with_changes(args=edited.args, whitespace_before_args=space), edited
    assert isinstance(updated, cst.Dict)
    args = [_as_arg(element) for element in updated.elements]
    edited = edit_arguments(args, old, new, quote)
    brace = updated.lbrace.with_changes(
        whitespace_after=opening(updated.lbrace.whitespace_after, edited, args)
    )
    elements = [_as_element(arg, updated, args) for arg in edited.args]
    return updated.with_changes(lbrace=brace, elements=elements), edited


def shim_call(updated: cst.CSTNode, module: str, direct: bool) -> cst.Call:
    """``updated`` building the shim's Trainer instead of Lightning's: ``Trainer(...)`` (``direct``),
    ``Trainer.from_argparse_args(...)`` or ``partial(Trainer, ...)``."""
    assert isinstance(updated, cst.Call)
    shim = cst.parse_expression(f"{module}.Trainer")
    if direct:
        return updated.with_changes(func=shim)
    if isinstance(updated.func, cst.Attribute) and updated.func.attr.value == "from_argparse_args":
        return updated.with_changes(func=updated.func.with_changes(value=shim))
    first = updated.args[0].with_changes(value=shim)  # functools.partial(Trainer, ...)
    return updated.with_changes(args=[first, *updated.args[1:]])


def shim_method(updated: cst.CSTNode, module: str, method: str, own: bool) -> cst.Call:
    """``X.method(...)``, a Trainer method 2.0 removed, as the shim's function: ``module.method(X, args,
    ...)`` for ``from_argparse_args``; ``module.method(parser, ...)`` for the others, with
    ``trainer_class=X`` where ``X`` is a subclass (not ``own``, Lightning's class)."""
    assert isinstance(updated, cst.Call)
    assert isinstance(updated.func, cst.Attribute)
    cls = updated.func.value
    func = cst.parse_expression(f"{module}.{method}")
    if method == "from_argparse_args":
        return updated.with_changes(func=func, args=[cst.Arg(cls), *updated.args])
    args = list(updated.args)
    if not own:
        if args:
            args[-1] = args[-1].with_changes(comma=cst.MaybeSentinel.DEFAULT)
        tight = cst.AssignEqual(
            whitespace_before=cst.SimpleWhitespace(""), whitespace_after=cst.SimpleWhitespace("")
        )
        args.append(cst.Arg(cls, keyword=cst.Name("trainer_class"), equal=tight))
    return updated.with_changes(func=func, args=args)


def write_imports(
    code: str,
    changes: ImportChanges,
    built: dict[str, str],
    shims: set[str],
    renames: dict[str, str],
    modules: tuple[str, ...] = (),
) -> tuple[str, set[str]]:
    """The imports of the rewritten ``code`` following its renamed, built and dropped classes, the shim
    modules it now uses and the other ``modules`` its rewritten calls read (``torch``, for a test of the
    machine), each placed with the file's Lightning imports; each step reads the file as the step before
    left it. Returns the code and the old class names the file still uses (their imports stay)."""
    parsed = Parsed(code)
    if renames:  # only names change, within their lines: the imports and statements stay where they are
        code = rename_uses(code, parsed, renames)
        parsed = parsed.renamed(renames)
    fixed = fix_imports(code, parsed, changes)
    code = fixed.code
    namespaces = {new: namespace for namespace, new in changes.renamed.values()}
    needed: list[tuple[str, str | None]] = [
        (new_module(namespace, cls), cls)
        for cls, namespace in {**{c: namespaces[c] for c in fixed.unplaced}, **built}.items()
    ]
    needed += [(shim, None) for shim in sorted(shims)]
    if needed:
        code = add_imports(code, Parsed(code), needed)
    for module in modules:
        code = add_module_import(code, Parsed(code), module)
    if changes.dropped:
        code = remove_unused(code, Parsed(code), changes.dropped)
    return code, fixed.still_used


_PARSER_PREFIX = re.compile(r"^parser error: error at \d+:\d+: ")  # the position is reported apart


def syntax_error(source: str) -> tuple[str, int, int] | None:
    """LibCST's account of why ``source`` is not Python (message, line, column), or None if it reads it."""
    try:
        cst.parse_module(source)
    except cst.ParserSyntaxError as exc:
        return _PARSER_PREFIX.sub("", exc.message), exc.raw_line, exc.raw_column + 1
    return None


def _as_arg(element: cst.BaseDictElement) -> cst.Arg:
    """``"key": value`` as ``key=value`` (keyword None when the key is not an identifier string)."""
    key = None
    if isinstance(element, cst.DictElement) and isinstance(
        element.key, (cst.SimpleString, cst.ConcatenatedString)
    ):
        text = element.key.evaluated_value  # `"accel" "erator"` is the key `ast` read too
        if isinstance(text, str) and text.isidentifier():
            key = cst.Name(text)
    value = element.value if isinstance(element, cst.DictElement) else cst.Name("_")
    return cst.Arg(value, keyword=key, comma=element.comma)


def _as_element(arg: cst.Arg, original: cst.Dict, args: list[cst.Arg]) -> cst.BaseDictElement:
    """An edited argument back as a dict entry, reusing the entry it came from (its key's quotes, spacing)."""
    for element, before in zip(original.elements, args):
        if arg.value is before.value and isinstance(element, cst.DictElement):
            assert arg.keyword is not None
            if before.keyword is not None and arg.keyword.value == before.keyword.value:
                return element.with_changes(comma=arg.comma)
            key = cst.SimpleString(_requote(element.key, arg.keyword.value))
            return element.with_changes(key=key, comma=arg.comma)
    assert arg.keyword is not None
    quote = next(
        (
            e.key.quote
            for e in original.elements
            if isinstance(e, cst.DictElement) and isinstance(e.key, cst.SimpleString)
        ),
        '"',
    )
    return cst.DictElement(cst.SimpleString(f"{quote}{arg.keyword.value}{quote}"), arg.value, comma=arg.comma)


def _requote(key: cst.BaseExpression, text: str) -> str:
    while isinstance(key, cst.ConcatenatedString):  # `"accel" "erator"`: its first part's quotes
        key = key.left
    quote = key.quote if isinstance(key, cst.SimpleString) else '"'
    prefix = key.prefix if isinstance(key, cst.SimpleString) else ""
    return f"{prefix}{quote}{text}{quote}"

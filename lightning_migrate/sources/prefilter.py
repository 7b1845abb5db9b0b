"""A cheap text test run before LibCST: can the codemod change or report anything in this file?

The codemod only acts on calls whose callee resolves, through an import, to Lightning's ``Trainer``
(directly, through ``functools.partial(Trainer, ...)`` or ``Trainer.from_argparse_args``), and only on their
modelled keyword arguments (``accelerator=``, ``gpus=``, ... : ``signature.MODELLED``), written out or passed
in a ``**`` dict. So a file is a candidate only if its text has the word ``Trainer``, the word ``lightning``
or ``pytorch_lightning`` (the import), and a modelled keyword or a ``*``.

Files that pass get a second, still cheap look: a small lexer (strings, comments, brackets) finds every
call whose callee may be a Trainer (its last name is ``Trainer``, ``partial``, ``from_argparse_args`` or an
``import ... as`` alias of one of them, or the callee is parenthesized) and that call's keyword arguments. A
call whose modelled arguments are all plain literals is judged by the codemod's own planner for the run's
target and source releases. The file is skipped only if the planner leaves every such call unchanged, so
already-migrated code (``Trainer(accelerator="gpu", devices=2, strategy="ddp")``) is skipped without a table
that could drift from the model. A call that also passes bare names no assignment statement of the file
binds (parameters, loop variables, imports: values the codemod cannot read either) is judged by the
codemod's own rule for values known only at run time (``Run.old_api``), so modern code such as
``Trainer(strategy=strategy, accelerator=accelerator, devices=2)`` is skipped too.

Treated as "maybe" (the file is parsed) although the codemod may well leave it alone:
- a modelled keyword whose value is not a plain literal or such a name: a name an assignment binds (even to
  something unreadable), a list, an object such as ``DDPStrategy(...)``, an expression, an attribute, a
  string with a prefix or an escape, a float, ``+1``;
- a call that may be a Trainer call and unpacks ``*args`` or ``**cfg``, even with no modelled keyword (the
  dict may hold flags);
- the same modelled keyword twice in one call;
- a file that mentions ``from_argparse_args`` (the codemod drops that call's first argument, keyword or not);
- an f-string (or t-string) that mentions a modelled keyword or was cut short by a nested quote (PEP 701),
  brackets that do not balance, a quote that starts no string;
- a call of another class that happens to be named or aliased like the Trainer (``transformers.Trainer``),
  or of a parenthesized callee: it is judged as if it were Lightning's;
- a call the planner fails on (that error should surface from the real run).
Skipped although LibCST would fail on it: a file with a syntax error and no candidate is not parsed, so it is
not reported as unparsable.
"""

from __future__ import annotations

import ast
import functools
import keyword
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from lightning_migrate.codemod.callsite import LIGHTNING_PACKAGE, CallSite, Run
from lightning_migrate.codemod.plan import Unchanged, plan
from lightning_migrate.codemod.trainers import ECOSYSTEM
from lightning_migrate.semantics.classes import RENAMED_STRATEGIES
from lightning_migrate.semantics.model import RELEASES, Value, Version
from lightning_migrate.semantics.signature import MODELLED

EVERY_SOURCE: tuple[Version | None, ...] = (None, *RELEASES)  # None: no --source-version
SINCE = (RELEASES[0], LIGHTNING_PACKAGE)  # the oldest release a call is for: `pytorch_lightning`, `lightning`

# Lightning, or an ecosystem package whose Trainer subclass passes the flags through (`flash.Trainer`)
_ECOSYSTEM = sorted({name.split(".")[0] for name in ECOSYSTEM})
_LIGHTNING = re.compile(rf"\b(?:(?:pytorch_)?lightning|{'|'.join(_ECOSYSTEM)})\b")
# A class that subclasses a Trainer: its calls are Trainer calls, whatever it is named.
_SUBCLASS = re.compile(r"\bclass\s+\w+\s*\([^)]*Trainer\b")
_WORDS = "|".join(sorted(MODELLED, key=len, reverse=True))
_MODELLED_WORD = re.compile(rf"\b(?:{_WORDS})\b")
# The `*Plugin` training-type classes 1.6 renamed: a file that imports one follows the rename (from 1.6 on)
# even without a Trainer call (`codemod.imports.stale_imports`).
_RENAMED_CLASS = re.compile(rf"\b(?:{'|'.join(sorted(RENAMED_STRATEGIES))})\b")
V16 = Version(1, 6)

# Whitespace, comments and backslash continuations: what may sit between the tokens of a call.
_GAP = r"(?:[ \t\f\r\n]|\\\r?\n|#[^\r\n]*)*"
_ESCAPE = r"\\(?:\r\n|[\s\S])"
_STRING_BODY = (
    rf'"""(?:[^"\\]|{_ESCAPE}|"(?!""))*"""'
    rf"|'''(?:[^'\\]|{_ESCAPE}|'(?!''))*'''"
    rf'|"(?:[^"\\\r\n]|{_ESCAPE})*"'
    rf"|'(?:[^'\\\r\n]|{_ESCAPE})*'"
)
_TOKENS = re.compile(
    r"(?P<comment>#[^\r\n]*)"
    rf"|(?P<string>(?:(?<!\w)(?P<prefix>[rRbBuUfFtT]{{1,2}}))?(?:{_STRING_BODY}))"
    r"|(?P<quote>['\"])"
    r"|(?P<open>[(\[{])"
    r"|(?P<close>[)\]}])"
    r"|(?P<star>\*)"
    rf"|(?P<keyword>\b(?:{_WORDS})\b)"
)
_ASSIGN = re.compile(rf"{_GAP}=(?!=)")
_LITERAL = re.compile(
    rf"{_GAP}(?P<literal>\"[^\"\\\r\n]*\"|'[^'\\\r\n]*'|-?[0-9]+|True|False|None){_GAP}(?=[,)])"
)
_NAME = re.compile(rf"{_GAP}(?P<name>[A-Za-z_][A-Za-z0-9_]*){_GAP}(?=[,)])")
_DEFINITION = re.compile(r"\b(?:def|class)[ \t]+\w+[ \t]*\Z")  # same line: `def`, a name, then `(`
# The names a Trainer call's callee can end with: qualified names come from imports and attributes, never
# from assignments (`T = pl.Trainer; T(...)` is not resolved by the codemod either).
CALLEES = ("Trainer", "partial", "from_argparse_args")
_ALIAS = re.compile(rf"\b(?:{'|'.join(CALLEES)}){_GAP}\bas\b{_GAP}(\w+)")
_CALLEE = re.compile(rf"(\w+){_GAP}\Z")
_GAP_ONLY = re.compile(_GAP)
_AFTER_COMMA = re.compile(rf",{_GAP}\Z")
_CLOSING = {")": "(", "]": "[", "}": "{"}


def may_need_migration(
    text: str,
    targets: Sequence[Version] = RELEASES,
    sources: Sequence[Version | None] = EVERY_SOURCE,
) -> bool:
    """False only if ``codemod.python.migrate(text, target, source)`` changes nothing and reports nothing for
    every ``target`` and ``source`` given (by default every release, with or without ``--source-version``)."""
    words = mentions(text, targets)
    if words is not None:
        return words
    lexed = _calls_with_flags(text)
    if lexed is None:
        return True
    calls, top_level = lexed
    if any(_may_be_bound(text, top_level, [name for _, name in names]) for _, names in calls):
        return True
    return not all(
        _quiet(flags, tuple(k for k, _ in names), target, source)
        if names
        else _unchanged(flags, target, source)
        for flags, names in calls
        for target in targets
        for source in sources
    )


def _may_be_bound(text: str, top_level: str, names: Sequence[str]) -> bool:
    """Can the codemod read a value for one of ``names``? It reads a name bound by an assignment statement
    (``n = ...``, ``n: T = ...``, ``a = n = ...``), whose target stands outside every bracket (``top_level``:
    the text with what brackets hold left out), or is one parenthesized name (``(n) = ...``)."""
    return any(
        re.search(rf"(?<![\w.]){name}{_GAP}(?::[^=\r\n]*)?=(?!=)", top_level)
        or re.search(rf"\((?:{_GAP}\()*{_GAP}{name}(?:{_GAP}\))*{_GAP}\){_GAP}(?::[^=\r\n]*)?=(?!=)", text)
        for name in names
    )


def mentions(text: str, targets: Sequence[Version] = RELEASES) -> bool | None:
    """The first, word-level half of ``may_need_migration``: False when the text lacks the words any
    candidate needs, True when it surely is one, None when only a look at its calls can tell. (Quick
    enough for the main process; the rest can be left to the workers.)"""
    if not _LIGHTNING.search(text):
        return False
    if "import" in text and _RENAMED_CLASS.search(text) and any(target >= V16 for target in targets):
        return True
    if "Trainer" not in text:
        return False
    if "*" not in text and not _MODELLED_WORD.search(text):
        return False
    if "from_argparse_args" in text or _SUBCLASS.search(text):
        return True
    return None


@dataclass
class _Group:
    bracket: str
    call: bool  # a call's argument list (not a definition's parameters, not a tuple or list)
    flags: dict[str, Value] = field(default_factory=dict)
    opaque: bool = False  # a modelled keyword whose value is not a plain literal or name, or given twice
    starred: bool = False
    names: dict[str, str] = field(default_factory=dict)  # modelled keyword -> the bare name it passes


# a call's literal flags, and the (keyword, name) of each flag it passes a bare name
Lexed = tuple[tuple[tuple[str, Value], ...], tuple[tuple[str, str], ...]]


def _calls_with_flags(text: str) -> tuple[list[Lexed], str] | None:
    """The literal modelled keyword arguments of each call that may be a Trainer call and has some, with the
    keywords that pass a bare name, and the text outside every bracket; or None when such a call has one this
    test cannot read (or the text does not lex cleanly)."""
    callees = {*CALLEES, *_ALIAS.findall(text)}
    stack: list[_Group] = []
    calls: list[Lexed] = []
    top_level: list[str] = []  # the text outside every bracket, piece by piece
    outside = 0  # where the current piece starts
    code_from, after = 0, ""  # where the code since the last token starts; that token (comments skipped)
    for token in _TOKENS.finditer(text):
        kind = token.lastgroup
        if kind == "string":
            prefix = (token.group("prefix") or "").lower()
            if ("f" in prefix or "t" in prefix) and _unsafe_fstring(token.group(), len(prefix)):
                return None
        elif kind == "quote":
            return None
        elif kind == "open":
            bracket, start = token.group(), token.start()
            call = bracket == "(" and _may_call_trainer(text, code_from, start, after, callees)
            if not stack:
                top_level.append(text[outside:start])
            stack.append(_Group(bracket, call))
        elif kind == "close":
            if not stack or stack[-1].bracket != _CLOSING[token.group()]:
                return None
            group = stack.pop()
            if group.opaque or (group.call and group.starred):
                return None
            if group.flags or group.names:
                calls.append((tuple(group.flags.items()), tuple(group.names.items())))
            if not stack:
                outside = token.end()
        elif stack and stack[-1].call and kind == "star" and _unpacks(text, code_from, token.start(), after):
            stack[-1].starred = True
        elif stack and stack[-1].call and kind == "keyword":
            assign = _ASSIGN.match(text, token.end())
            if assign is not None:
                _add_flag(stack[-1], token.group(), text, assign.end())
        if kind not in ("comment", "keyword"):
            code_from, after = token.end(), token.group()
    if stack:
        return None
    top_level.append(text[outside:])
    return calls, "".join(top_level)


def _unpacks(text: str, code_from: int, star: int, after: str) -> bool:
    """Is the ``*`` at ``star`` an argument's ``*``/``**`` (it follows the call's ``(`` or a comma)?"""
    if after == "(" and _GAP_ONLY.fullmatch(text, code_from, star) is not None:
        return True
    return _AFTER_COMMA.search(text, code_from, star) is not None


def _may_call_trainer(text: str, code_from: int, paren: int, after: str, callees: set[str]) -> bool:
    """Is the ``(`` at ``paren`` a call whose callee may resolve to a Trainer (or partial, ...)? ``code_from``
    is where the plain code before it starts (strings and brackets are tokens; comments may be in it)."""
    end = paren
    while end > code_from and text[end - 1] in " \t":
        end -= 1
    start = end
    while start > code_from and (text[start - 1].isalnum() or text[start - 1] == "_"):  # what `\w` is
        start -= 1
    name: str | None
    if start < end:  # the common case, `name(` or `name (`: read without a regex
        name = text[start:end]
    elif end == code_from:
        name = None
    else:  # a comment, a line break or a continuation before the `(`
        found = _CALLEE.search(text, code_from, paren)
        name = found.group(1) if found else None
    if name is None:
        return after == ")" and _GAP_ONLY.fullmatch(text, code_from, paren) is not None  # `(pl.Trainer)(...)`
    # (a definition's parameters are no call: `def Trainer(...)`)
    return name in callees and not _DEFINITION.search(text, max(code_from, paren - 200), paren)


def _add_flag(group: _Group, name: str, text: str, at: int) -> None:
    if name in group.flags or name in group.names:
        group.opaque = True
    elif literal := _LITERAL.match(text, at):
        group.flags[name] = ast.literal_eval(literal.group("literal"))
    elif (bare := _NAME.match(text, at)) and not keyword.iskeyword(bare.group("name")):
        group.names[name] = bare.group("name")
    else:
        group.opaque = True


def _unsafe_fstring(token: str, prefix: int) -> bool:
    """Does this f-string mention a modelled keyword or a star (a call inside it may be a Trainer call), or
    end inside a replacement field? The latter means a nested quote cut it short (PEP 701), so text after it
    that looks like a plain string may be code."""
    body = token[prefix:]
    quote = body[:3] if body[:3] in ('"""', "'''") else body[0]
    body = body[len(quote) : -len(quote)]
    if _MODELLED_WORD.search(body) or "*" in body:  # `f"{Trainer(**cfg)}"`: a `**` the codemod reports
        return True
    depth, index = 0, 0
    while index < len(body):
        char = body[index]
        if depth == 0 and body[index : index + 2] in ("{{", "}}"):
            index += 2
            continue
        if char == "{":
            depth += 1
        elif char == "}" and depth:
            depth -= 1
        elif char in "'\"" and depth:  # a string inside a replacement field: skip it
            end = body.find(char, index + 1)
            if end < 0:
                return True
            index = end
        index += 1
    return depth > 0


@functools.lru_cache(maxsize=4096)
def _quiet(
    flags: tuple[tuple[str, Value], ...], names: tuple[str, ...], target: Version, source: Version | None
) -> bool:
    """Does the codemod leave a call with values it cannot read (``names``) unreported, whichever package
    (``pytorch_lightning`` or ``lightning``) the file names it with?"""
    run = Run(target, source)
    unknown = dict.fromkeys(names)
    try:
        return all(run.old_api(CallSite(0, 0, dict(flags), since, unknown)) is None for since in SINCE)
    except Exception:  # the real run must show it
        return False


@functools.lru_cache(maxsize=4096)
def _unchanged(flags: tuple[tuple[str, Value], ...], target: Version, source: Version | None) -> bool:
    try:
        return isinstance(plan(dict(flags), target, source), Unchanged)
    except Exception:  # the real run must show it
        return False

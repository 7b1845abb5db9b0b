"""The prefilter's lexer: where the calls that may build a Trainer are, and the text outside every bracket,
without parsing the file.

One regular expression finds what can hide or make code structure: comments, strings and brackets. Each of
its alternatives starts with a fixed character, so the regex engine skips the code between them at C speed
(the lexer that read every token with Python took 5 to 10 times longer). A string's prefix is read behind its
opening quote: only an f-string (or t-string) needs it, as its replacement fields may hold code.

A ``(`` opens a possible Trainer call when what precedes it can resolve to the callee the codemod looks for
(``codemod.locate.trainer_skip``: the qualified name of a name, an attribute chain, or a call or subscript of
one): a name among ``callees`` (``Trainer``, ``partial``, ``from_argparse_args`` and their import aliases,
``def``/``class`` excepted), or a closing bracket of such a chain, ``Trainer(x)(...)``, ``Trainer[int](...)``,
or of a parenthesized expression, ``(pl.Trainer)(...)`` (any such one: it is not read further).
"""

from __future__ import annotations

import bisect
import functools
import keyword
import re
from dataclasses import dataclass

# Whitespace, comments and backslash continuations: what may sit between the tokens of a call. A comment is
# read to the end of its line, and only so: `# a # b` must not match in several ways, or a failing match would
# try them all (exponentially many, in a line of `#`s).
GAP = r"(?:[ \t\f\r\n]|\\\r?\n|#[^\r\n]*(?![^\r\n]))*"
_ESCAPE = r"\\(?:\r\n|[\s\S])"
# Every alternative starts with a literal character, which lets the regex engine search for the next token
# with a character set. (A raw string escapes its quote the way any other string does.)
_SCAN = re.compile(
    r"#[^\r\n]*"
    rf'|"""(?:[^"\\]|{_ESCAPE}|"(?!""))*"""'
    rf"|'''(?:[^'\\]|{_ESCAPE}|'(?!''))*'''"
    rf'|"(?:[^"\\\r\n]|{_ESCAPE})*"'
    rf"|'(?:[^'\\\r\n]|{_ESCAPE})*'"
    r"|\"|'"  # a quote that starts no string: the text does not lex cleanly
    r"|\(|\)|\[|\]|\{|\}"
)
_PREFIX = re.compile(r"(?<!\w)[rRbBuUfFtT]{1,2}\Z")
_PREFIX_CHARACTERS = frozenset("rRbBuUfFtT")
_CALLEE = re.compile(rf"(\w+){GAP}\Z")
_GAP_ONLY = re.compile(GAP)
_DEFINITION = re.compile(r"\b(?:def|class)[ \t]+\w+[ \t]*\Z")  # same line: `def`, a name, then `(`
_OPENING = {")": "(", "]": "[", "}": "{"}


@dataclass(frozen=True)
class Call:
    """A possible Trainer call: where its ``(`` and ``)`` are, and the name just before the ``(`` (None when
    a closing bracket is: ``(pl.Trainer)(...)``)."""

    open: int
    close: int
    callee: str | None


class Scanned:
    """What ``scan`` found: the possible Trainer calls, and where the text outside every bracket is."""

    def __init__(
        self, text: str, calls: list[Call], pieces: list[tuple[int, int]], quoted: tuple[list[int], list[int]]
    ) -> None:
        self.text = text
        self.calls = calls
        self.pieces = pieces  # (start, end) of each stretch of text outside every bracket
        self._quoted = quoted  # where the strings and comments start, and where they end

    def in_string(self, position: int) -> bool:
        """Is the character at ``position`` in a string or a comment?"""
        starts, ends = self._quoted
        index = bisect.bisect_right(starts, position) - 1
        return index >= 0 and position < ends[index]

    @functools.cached_property
    def top_level(self) -> str:
        """The text outside every bracket."""
        return "".join(self.text[start:end] for start, end in self.pieces)

    def position(self, offset: int) -> int:
        """Where the character at ``offset`` of ``top_level`` is in the text."""
        for start, end in self.pieces:
            if offset < end - start:
                return start + offset
            offset -= end - start
        raise IndexError(offset)


# A bracket group on the lexer's stack: its bracket, where it opens, where the code before it starts, the
# group closed right before it (`f(x)(y)`, `x[0](y)`: the callee of a call may be such a chain), and for a
# `(`, whether it is a possible Trainer call.
_Group = tuple[str, int, int, "_Group | None", bool]


def scan(text: str, callees: frozenset[str]) -> Scanned | None:
    """The possible Trainer calls of ``text`` and its text outside brackets; None when the text does not lex
    cleanly (a quote that starts no string, brackets that do not balance) or has an f-string with a callee
    in a replacement field or cut short by a nested quote (PEP 701): this lexer does not look into
    f-strings, and a string that looks plain after a cut-short one may be code."""
    direct = _callee_brackets(text, callees)
    callee_word = re.compile(rf"\b(?:{'|'.join(sorted(callees))})\b")
    stack: list[_Group] = []
    calls: list[Call] = []
    pieces: list[tuple[int, int]] = []  # where the text outside every bracket is, piece by piece
    outside = 0  # where the current piece starts
    code_from = 0  # where the code since the last token starts (comments are in it)
    closed: _Group | None = None  # the group the last token closed
    starts: list[int] = []  # where the strings and comments start
    ends: list[int] = []
    for token in _SCAN.finditer(text):
        start = token.start()
        char = text[start]
        if char == "#":
            starts.append(start)
            ends.append(token.end())
            continue
        if char in "'\"":
            if token.end() - start == 1:  # a lone quote
                return None
            starts.append(start)
            ends.append(token.end())
            if start and text[start - 1] in _PREFIX_CHARACTERS:
                prefix = _PREFIX.search(text, max(0, start - 2), start)
                lowered = prefix.group().lower() if prefix else ""
                if ("f" in lowered or "t" in lowered) and _unsafe_fstring(token.group(), callee_word):
                    return None
            code_from, closed = token.end(), None
            continue
        if char in "([{":
            before = closed if closed is not None and _gap_only(text, code_from, start) else None
            call = char == "(" and (start in direct or (before is not None and _chains(text, before, direct)))
            if not stack:
                pieces.append((outside, start))
            stack.append((char, start, code_from, before, call))
            code_from, closed = start + 1, None
            continue
        if not stack or stack[-1][0] != _OPENING[char]:
            return None
        closed = stack.pop()
        if closed[4]:
            name = _name_before(text, closed[2], closed[1]) if closed[1] in direct else None
            calls.append(Call(closed[1], start, name))
        if not stack:
            outside = start + 1
        code_from = start + 1
    if stack:
        return None
    pieces.append((outside, len(text)))
    return Scanned(text, calls, pieces, (starts, ends))


def called(text: str, callees: frozenset[str]) -> bool:
    """Is a callee's name followed by a ``(`` or ``[``, maybe after ``)``s, anywhere in the text (in code, a
    string or a comment)? If not, no call in it can build a Trainer: its callee would end with that name
    (``Trainer(``, ``Trainer[int](``, ``(pl.Trainer)(``)."""
    pattern = re.compile(rf"(?:{'|'.join(sorted(callees))})\b(?:{GAP}\))*{GAP}[(\[]")
    return any(not (m.start() and is_word(text[m.start() - 1])) for m in pattern.finditer(text))


def _callee_brackets(text: str, callees: frozenset[str]) -> set[int]:
    """Where a ``(`` or ``[`` follows a callee's name (``def``/``class`` aside), wherever it is: in code, in a
    string or in a comment (only the brackets that are code are asked about)."""
    found = set()
    for match in re.finditer(rf"(?:{'|'.join(sorted(callees))})\b{GAP}[(\[]", text):
        if match.start() and is_word(text[match.start() - 1]):
            continue  # `myTrainer(`: another name
        bracket = match.end() - 1
        if not (text[bracket] == "(" and _DEFINITION.search(text, max(0, bracket - 200), bracket)):
            found.add(bracket)
    return found


def _chains(text: str, group: _Group, direct: set[int]) -> bool:
    """May a ``(`` right after ``group`` call a Trainer? Yes after a callee's call or subscript,
    ``Trainer(x)(...)``, ``Trainer[int](...)``, after a chain of those, and after a parenthesized expression,
    ``(pl.Trainer)(...)``; no after a call or subscript of another name, or a display."""
    bracket, start, code_from, before, _ = group
    if start in direct:
        return True
    if before is not None:
        return _chains(text, before, direct)
    if bracket == "{":
        return False
    name = _name_before(text, code_from, start)
    if name is None or keyword.iskeyword(name):  # `(...)`, `return (...)`; `[...]`, `in [...]`
        return bracket == "("
    return False


def _gap_only(text: str, start: int, end: int) -> bool:
    return start == end or _GAP_ONLY.fullmatch(text, start, end) is not None


def is_word(char: str) -> bool:
    return char.isalnum() or char == "_"  # what `\w` is


def _name_before(text: str, code_from: int, at: int) -> str | None:
    """The name that ends right before ``at`` (spaces, comments and continuations aside), if any."""
    end = at
    while end > code_from and text[end - 1] in " \t\f":
        end -= 1
    start = end
    while start > code_from and is_word(text[start - 1]):
        start -= 1
    if start < end:  # the common case, `name(` or `name (`: read without a regex
        return text[start:end]
    if end == code_from or text[end - 1] not in "\r\n":  # nothing, or an operator: `= (`, `, [`
        return None
    found = _CALLEE.search(text, code_from, at)  # a comment, a line break or a continuation before it
    return found.group(1) if found else None


def matching(text: str, at: int) -> int | None:
    """Where the bracket that closes the one at ``at`` is, or None (the lexer of ``scan``)."""
    depth = 0
    for token in _SCAN.finditer(text, at):
        char = text[token.start()]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return token.start()
        elif char in "'\"" and token.end() - token.start() == 1:
            return None
    return None


_STATEMENT = re.compile(_SCAN.pattern + r"|\\\r?\n|\r\n|\r|\n|;")


def statement_end(text: str, at: int) -> int | None:
    """Where the simple statement that goes on at ``at`` (outside every bracket) ends: at a line end that
    no bracket or backslash continues, a ``;``, or the end of the text; None where the text does not lex."""
    depth = 0
    for token in _STATEMENT.finditer(text, at):
        start = token.start()
        char = text[start]
        if char in "\r\n;" and depth == 0:
            return start
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth < 0:
                return None
        elif char in "'\"" and token.end() - start == 1:
            return None
    return len(text) if depth == 0 else None


def _unsafe_fstring(token: str, callee: re.Pattern[str]) -> bool:
    """Has this f-string a replacement field that mentions a ``callee`` (a call in it may build a Trainer),
    or does it end inside one? The latter means a nested quote cut it short (PEP 701), so text after it that
    looks like a plain string may be code."""
    quote = token[:3] if token[:3] in ('"""', "'''") else token[0]
    fields, cut_short = _fields(token[len(quote) : -len(quote)])
    return cut_short or any(callee.search(field) for field in fields)


def _fields(body: str) -> tuple[list[str], bool]:
    """The replacement fields of an f-string's body, and whether it ends inside one."""
    fields: list[str] = []
    depth, index, start = 0, 0, 0
    while index < len(body):
        char = body[index]
        if depth == 0 and body[index : index + 2] in ("{{", "}}"):
            index += 2
            continue
        if char == "{":
            start = index if depth == 0 else start
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                fields.append(body[start : index + 1])
        elif char in "'\"" and depth:  # a string inside a replacement field: skip it
            end = body.find(char, index + 1)
            if end < 0:
                return fields, True
            index = end
        index += 1
    return fields, depth > 0

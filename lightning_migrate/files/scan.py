"""The prefilter's lexer: where the calls that may build a Trainer are, and (only where it is needed) the
text outside every bracket, without parsing the file.

``calls`` finds the possible Trainer calls from their callees' names: a call the codemod locates
(``plan.locate.trainer_skip``) has a callee that is a name, an attribute chain, or a call, subscript or
parenthesized form of one, so its text ends with a callee's name (``Trainer``, ``partial``,
``from_argparse_args`` or an import alias of one) followed by ``(``, ``[`` or ``)``: ``pl.Trainer(...)``,
``Trainer(x)(...)``, ``Trainer[int](...)``, ``(pl.Trainer)(...)``. A regular expression finds those names
anywhere (in code, strings and comments: the caller checks that a call it cannot clear is code), and each
call is lexed on its own, from its ``(`` to its ``)``.

``scan`` lexes the whole file, for what the calls' values need: where the strings and comments are, and the
text outside every bracket (where assignment statements are). One regular expression finds comments,
strings and brackets; each of its alternatives starts with a fixed character, so the regex engine skips the
code between them at C speed. A string's prefix is read behind its opening quote: only an f-string (or
t-string) needs it, as its replacement fields may hold code.
"""

from __future__ import annotations

import bisect
import functools
import re
from dataclasses import dataclass

# Whitespace, comments and backslash continuations: what may sit between the tokens of a call. A comment is
# read to the end of its line, and only so: `# a # b` must not match in several ways, or a failing match would
# try them all (exponentially many, in a line of `#`s).
GAP = r"[ \t\f\r\n]*(?:(?:\\\r?\n|#[^\r\n]*(?![^\r\n]))[ \t\f\r\n]*)*"
_ESCAPE = r"\\(?:\r\n|[\s\S])"
# Every alternative starts with a literal character, which lets the regex engine search for the next token
# with a character set. (A raw string escapes its quote the way any other string does.) A string's body is
# runs of plain characters between escapes ("unrolled"): a group repeated once per character keeps a
# backtracking record per character, 600 MB for a 5 MB string.
_SCAN = re.compile(
    r"#[^\r\n]*"
    rf'|"""[^"\\]*(?:(?:{_ESCAPE}|"(?!""))[^"\\]*)*"""'
    rf"|'''[^'\\]*(?:(?:{_ESCAPE}|'(?!''))[^'\\]*)*'''"
    rf'|"[^"\\\r\n]*(?:{_ESCAPE}[^"\\\r\n]*)*"'
    rf"|'[^'\\\r\n]*(?:{_ESCAPE}[^'\\\r\n]*)*'"
    r"|\"|'"  # a quote that starts no string: the text does not lex cleanly
    r"|\(|\)|\[|\]|\{|\}"
)
_STATEMENT = re.compile(_SCAN.pattern + r"|\\\r?\n|\r\n|\r|\n|;")
_PREFIX = re.compile(r"(?<!\w)[rRbBuUfFtT]{1,2}\Z")
_PREFIX_CHARACTERS = frozenset("rRbBuUfFtT")
_GAP = re.compile(GAP)
_DEFINITION = re.compile(r"\b(?:def|class)[ \t]+\w+[ \t]*\Z")  # same line: `def`, a name, then `(`
_OPENING = {")": "(", "]": "[", "}": "{"}


@dataclass(frozen=True)
class Call:
    """A possible Trainer call: where its ``(`` is, where its ``)`` is (None: the text there does not lex on
    its own), and the callee's name when it is written right before the ``(`` (None: ``(pl.Trainer)(...)``,
    ``Trainer(x)(...)``)."""

    open: int
    close: int | None
    callee: str | None


def calls(text: str, callees: frozenset[str]) -> list[Call]:
    """The possible Trainer calls of ``text``: each call of a callee's name (``def``/``class`` aside), and
    the calls chained to one or to a parenthesized one. Also those in strings and comments."""
    found: dict[int, Call] = {}
    names = "|".join(sorted(callees))
    for match in _called(names).finditer(text):
        if match.start() and is_word(text[match.start() - 1]):
            continue  # `myTrainer(`: another name
        bracket = match.end() - 1
        callee: str | None = match.group(1) if not match.group(2) else None
        if callee and text[bracket] == "(" and _DEFINITION.search(text, max(0, bracket - 200), bracket):
            continue
        while True:  # the call or subscript, and those chained to it: `Trainer(x)(...)`, `Trainer[int](...)`
            close = matching(text, bracket)
            if text[bracket] == "(":
                found.setdefault(bracket, Call(bracket, close, callee))
            if close is None:
                break
            after = _GAP.match(text, close + 1).end()  # type: ignore[union-attr]
            if after >= len(text) or text[after] not in "([":
                break
            bracket, callee = after, None
    return sorted(found.values(), key=lambda call: call.open)


@functools.lru_cache(maxsize=64)
def _called(names: str) -> re.Pattern[str]:
    """A callee's name, then ``)``s (a parenthesized callee), then the ``(`` or ``[`` that calls or subscripts
    it. (It starts with the names, so the regex engine searches for them at C speed; the word boundary
    before a name is checked by the caller.)"""
    return re.compile(rf"({names})\b((?:{GAP}\))*){GAP}[(\[]")


def matching(text: str, at: int) -> int | None:
    """Where the bracket that closes the one at ``at`` is; None where the text up to it does not lex (a quote
    that starts no string, an f-string cut short by a nested quote, brackets that do not balance)."""
    depth = 0
    for token in _SCAN.finditer(text, at):
        start = token.start()
        char = text[start]
        if char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
            if depth == 0:
                return start
        elif char in "'\"" and (token.end() - start == 1 or _cut_short(text, start, token.group())):
            return None
    return None


def _cut_short(text: str, quote: int, token: str) -> bool:
    return _fstring(text, quote) and _fields(token)[1]


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


class Scanned:
    """What ``scan`` found: where the text outside every bracket is, where the strings and comments are."""

    def __init__(self, text: str, pieces: list[tuple[int, int]], quoted: tuple[list[int], list[int]]) -> None:
        self.text = text
        self.pieces = pieces  # (start, end) of each stretch of text outside every bracket
        self._quoted = quoted  # where the strings and comments start, and where they end

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

    def in_string(self, position: int) -> bool:
        """Is the character at ``position`` in a string or a comment?"""
        starts, ends = self._quoted
        index = bisect.bisect_right(starts, position) - 1
        return index >= 0 and position < ends[index]


def scan(text: str, callees: frozenset[str]) -> Scanned | None:
    """The structure of the whole text; None when it does not lex cleanly (a quote that starts no string,
    brackets that do not balance) or has an f-string with a callee in a replacement field or cut short by a
    nested quote (PEP 701): this lexer does not look into f-strings, and a string that looks plain after a
    cut-short one may be code."""
    callee_word = re.compile(rf"\b(?:{'|'.join(sorted(callees))})\b")
    stack: list[str] = []
    pieces: list[tuple[int, int]] = []  # where the text outside every bracket is, piece by piece
    outside = 0  # where the current piece starts
    starts: list[int] = []  # where the strings and comments start
    ends: list[int] = []
    for token in _SCAN.finditer(text):
        start = token.start()
        char = text[start]
        if char == "#" or char in "'\"":
            if token.end() - start == 1 and char != "#":  # a lone quote
                return None
            if char != "#" and _fstring(text, start) and _unsafe_fstring(token.group(), callee_word):
                return None
            starts.append(start)
            ends.append(token.end())
        elif char in "([{":
            if not stack:
                pieces.append((outside, start))
            stack.append(char)
        else:
            if not stack or stack.pop() != _OPENING[char]:
                return None
            if not stack:
                outside = start + 1
    if stack:
        return None
    pieces.append((outside, len(text)))
    return Scanned(text, pieces, (starts, ends))


def is_word(char: str) -> bool:
    return char.isalnum() or char == "_"  # what `\w` is


def _fstring(text: str, quote: int) -> bool:
    """Is the string whose quote is at ``quote`` an f-string or a t-string (its prefix says)?"""
    if not quote or text[quote - 1] not in _PREFIX_CHARACTERS:
        return False
    prefix = _PREFIX.search(text, max(0, quote - 2), quote)
    return prefix is not None and any(c in prefix.group().lower() for c in "ft")


def _unsafe_fstring(token: str, callee: re.Pattern[str]) -> bool:
    """Has this f-string a replacement field that mentions a ``callee`` (a call in it may build a Trainer),
    or does it end inside one? The latter means a nested quote cut it short (PEP 701), so text after it that
    looks like a plain string may be code."""
    fields, cut_short = _fields(token)
    return cut_short or any(callee.search(field) for field in fields)


def _fields(token: str) -> tuple[list[str], bool]:
    """The replacement fields of an f-string token (from its opening quote on), and whether it ends inside
    one."""
    quote = token[:3] if token[:3] in ('"""', "'''") else token[0]
    body = token[len(quote) : -len(quote)]
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

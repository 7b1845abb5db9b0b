"""The raw-text word test: whether a text holds a match of a case-blind pattern of words (a file of a kind
other than Python that holds none of the flag words cannot hold a flag), told at C speed."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import AnyStr


def search(pattern: re.Pattern[str], text: str) -> bool:
    """Whether the case-blind ``pattern`` matches somewhere in ``text``: searched from where a match can
    first start (``first_start``)."""
    start = first_start(pattern, text)
    return start is not None and pattern.search(text, start) is not None


def first_start(pattern: re.Pattern[str], text: str) -> int | None:
    """Where the first match of the case-blind ``pattern`` in ``text`` can start at the earliest: at the
    first of the words its alternatives start with, found in the text lowered (None: nowhere). A case-blind
    search tries the pattern at every character at Python's speed (a second for a 1.4 MB notebook of
    outputs); the words are found at C speed (10 ms). 0 where the text holds a character that matches an
    ASCII letter only case-blind (one whose lower case is longer, too), or where an alternative starts with
    no word: then only the search can tell."""
    stems = _stems(pattern)
    if stems is None:
        return 0
    if text.isascii():  # (says so at no cost: no special character, and lowering it is quick)
        return _earliest(text.lower(), stems)
    # Lowering text that is not ASCII costs ten times as much as its UTF-8 bytes' ASCII letters: the words
    # are ASCII, and without a special character the words of the one are the words of the other, in the
    # same order (a character beyond ASCII is bytes beyond ASCII, which no word holds); the first one's
    # place in bytes is then told in characters.
    data = text.encode("utf-8", "surrogatepass").lower()
    if any(special in data for special in _CASE_SPECIAL_BYTES):
        return 0
    at = _earliest(data, tuple(stem.encode() for stem in stems))
    return None if at is None else len(data[:at].decode("utf-8", "surrogatepass"))


# The non-ASCII characters Python's case-blind matching takes for ASCII letters (or whose lower case holds
# one): capital I with a dot, dotless i, long s and the Kelvin sign (Python 3.11's tables, checked by a test).
_CASE_SPECIAL = re.compile("[\u0130\u0131\u017f\u212a]")
_CASE_SPECIAL_BYTES = tuple(char.encode() for char in "\u0130\u0131\u017f\u212a")  # (as UTF-8)


def _earliest(lowered: AnyStr, stems: Sequence[AnyStr]) -> int | None:
    """Where the first of ``stems`` is in ``lowered``."""
    first: int | None = None
    for stem in stems:
        # once one word is found, the others are looked for only where they would start before it: a word
        # absent from a large text (a notebook of outputs) is not looked for in all of it, stem after stem
        at = lowered.find(stem) if first is None else lowered.find(stem, 0, first + len(stem) - 1)
        if at >= 0:
            first = at
    return first


@functools.cache
def _stems(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """The words the alternatives of ``pattern`` start with, lowered; None where one starts with no word."""
    stems = _starts(pattern.pattern)
    return None if stems is None else tuple(sorted(stems))


def _starts(pattern: str) -> set[str] | None:
    """The words a match of ``pattern`` may start with (an alternative that starts with a group starts with
    one of the group's), None where an alternative starts with anything else."""
    found: set[str] = set()
    for part in _split(pattern):
        if part.startswith("(?:"):
            inner = _starts(part[3 : _closing(part)])
            if inner is None:
                return None
            found |= inner
            continue
        word = re.match(r"\w+", part)
        if word is None:
            return None
        found.add(word.group().lower())
    return found


def _split(pattern: str) -> list[str]:
    """``pattern``'s alternatives: split at each ``|`` outside groups and character classes."""
    parts, depth, start = [], 0, 0
    for at, char in _outside_escapes(pattern):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if char == "|" and depth == 0:
            parts.append(pattern[start:at])
            start = at + 1
    return [*parts, pattern[start:]]


def _closing(pattern: str) -> int:
    """Where the group that opens ``pattern`` closes."""
    depth = 0
    for at, char in _outside_escapes(pattern):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0:
            return at
    return len(pattern)


def _outside_escapes(pattern: str) -> list[tuple[int, str]]:
    """The characters of ``pattern`` that are syntax: not escaped, not inside a ``[...]`` class."""
    found, at, in_class = [], 0, False
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            at += 2
            continue
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        else:
            found.append((at, char))
        at += 1
    return found

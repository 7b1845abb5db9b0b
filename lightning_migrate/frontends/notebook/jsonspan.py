"""JSON read with the position of every value, so that a notebook's cell sources can be replaced in its
text without writing the rest of the file again (``json.dump`` would re-indent, re-escape and reorder what
other tools wrote)."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

_WHITESPACE = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?")
# (the loop unrolled: a repeated alternation keeps a backtracking mark per character, 350 MB for a 2.6 MB
# notebook's image outputs; runs of plain characters are one repeat of one character class)
_STRING = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_LITERALS = {"true": True, "false": False, "null": None}


@dataclass
class Node:
    """A JSON value: where it is in the text (``start``, ``end``), what it is, and its members."""

    start: int
    end: int
    value: Any  # the decoded value (for an object or array: its decoded whole)
    items: list[Node] = field(default_factory=list)  # an array's elements
    members: dict[str, Node] = field(default_factory=dict)  # an object's values by key


class JSONError(ValueError):
    def __init__(self, message: str, offset: int) -> None:
        super().__init__(message)
        self.offset = offset


def parse(text: str) -> Node:
    """The value of the whole ``text``."""
    reader = _Reader(text)
    node = reader.value(reader.skip(0))
    end = reader.skip(node.end)
    if end != len(text):
        raise JSONError("extra data after the JSON value", end)
    return node


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text

    def skip(self, at: int) -> int:
        match = _WHITESPACE.match(self.text, at)
        return match.end() if match else at

    def value(self, at: int) -> Node:
        char = self.text[at : at + 1]
        if char == "{":
            return self._object(at)
        if char == "[":
            return self._array(at)
        if char == '"':
            match = _STRING.match(self.text, at)
            if match is None:
                raise JSONError("unterminated string", at)
            return Node(at, match.end(), json.loads(match.group()))
        for word, value in _LITERALS.items():
            if self.text.startswith(word, at):
                return Node(at, at + len(word), value)
        match = _NUMBER.match(self.text, at)
        if match is None:
            raise JSONError("expected a JSON value", at)
        return Node(at, match.end(), json.loads(match.group()))

    def _object(self, start: int) -> Node:
        node = Node(start, start, {})
        at = self.skip(start + 1)
        while self.text[at : at + 1] != "}":
            key = self.value(at)
            if not isinstance(key.value, str):
                raise JSONError("expected a key", at)
            at = self.skip(key.end)
            if self.text[at : at + 1] != ":":
                raise JSONError("expected ':'", at)
            member = self.value(self.skip(at + 1))
            node.members[key.value] = member
            node.value[key.value] = member.value
            at = self._next(member.end, "}")
        node.end = at + 1
        return node

    def _array(self, start: int) -> Node:
        node = Node(start, start, [])
        at = self.skip(start + 1)
        while self.text[at : at + 1] != "]":
            item = self.value(at)
            node.items.append(item)
            node.value.append(item.value)
            at = self._next(item.end, "]")
        node.end = at + 1
        return node

    def _next(self, at: int, closing: str) -> int:
        at = self.skip(at)
        char = self.text[at : at + 1]
        if char == ",":
            return self.skip(at + 1)
        if char != closing:
            raise JSONError(f"expected ',' or '{closing}'", at)
        return at

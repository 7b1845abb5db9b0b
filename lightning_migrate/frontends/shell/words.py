"""Shell text as commands and words, with where each word is: enough of the POSIX shell's quoting
(single and double quotes, backslashes, line continuations, comments, ``;``/``&&``/``||``/``|`` between
commands) to find the words of a command line and their values; a word with an expansion (``$GPUS``,
``$(nproc)``, a backquote) has no value known before the script runs."""

from __future__ import annotations

from dataclasses import dataclass, field

_BREAKS = frozenset(" \t\r\n;|&()<>")


@dataclass(frozen=True)
class Word:
    start: int  # offsets in the text
    end: int
    value: str | None  # the word after quote removal; None where it expands at run time

    def text(self, source: str) -> str:
        return source[self.start : self.end]


@dataclass
class Command:
    words: list[Word] = field(default_factory=list)


def commands(text: str) -> list[Command]:
    """The simple commands of ``text``, in order (control words such as ``if``, ``then``, ``do`` are words
    of the commands they start: they are never Trainer flags)."""
    found: list[Command] = []
    current = Command()
    index = 0
    while index < len(text):
        char = text[index]
        if char in " \t":
            index += 1
        elif char == "\\" and text[index + 1 : index + 2] in ("\n", "\r"):
            index += 3 if text[index + 1 : index + 3] == "\r\n" else 2
        elif char == "#":
            end = text.find("\n", index)
            index = len(text) if end < 0 else end
        elif char in _BREAKS:
            if current.words:
                found.append(current)
                current = Command()
            index += 1
        else:
            word, index = _word(text, index)
            current.words.append(word)
    if current.words:
        found.append(current)
    return found


def _word(text: str, start: int) -> tuple[Word, int]:
    parts: list[str] = []
    known = True
    index = start
    while index < len(text) and text[index] not in _BREAKS:
        char = text[index]
        if char == "'":
            end = text.find("'", index + 1)
            end = len(text) if end < 0 else end
            parts.append(text[index + 1 : end])
            index = end + 1
        elif char == '"':
            index += 1
            while index < len(text) and text[index] != '"':
                if text[index] == "\\" and text[index + 1 : index + 2] in ('"', "\\", "$", "`"):
                    parts.append(text[index + 1])
                    index += 2
                    continue
                if text[index] in "$`":
                    known = False
                parts.append(text[index])
                index += 1
            index += 1
        elif char == "\\" and index + 1 < len(text):
            if text[index + 1] in "\r\n":
                break
            parts.append(text[index + 1])
            index += 2
        elif char in "$`":
            known = False
            index = _expansion_end(text, index)
        else:
            parts.append(char)
            index += 1
    return Word(start, index, "".join(parts) if known else None), index


def _expansion_end(text: str, index: int) -> int:
    """Past a ``$(...)``, ``${...}`` or backquoted expansion (or a ``$name``)."""
    if text.startswith(("$(", "${"), index):
        closing = ")" if text[index + 1] == "(" else "}"
        depth = 0
        for position in range(index + 1, len(text)):
            if text[position] == text[index + 1]:
                depth += 1
            elif text[position] == closing:
                depth -= 1
                if depth == 0:
                    return position + 1
        return len(text)
    if text[index] == "`":
        end = text.find("`", index + 1)
        return len(text) if end < 0 else end + 1
    index += 1
    while index < len(text) and (text[index].isalnum() or text[index] == "_"):
        index += 1
    return index


def quoted(value: str) -> str:
    """``value`` as one shell word: as it is where it needs no quotes, else in single quotes."""
    if value and all(c.isalnum() or c in "_-.,:/=+@%[]" for c in value) and "[" not in value:
        return value
    return "'" + value.replace("'", "'\\''") + "'"

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


@dataclass(frozen=True)
class Heredoc:
    """A here-document's body: the lines from the one after its command's line up to its delimiter's line
    (or the end of the text, as the shell reads one never closed)."""

    start: int
    end: int
    at: int  # where its `<<` is, on its command's line
    literal: bool  # a quoted delimiter (`<<'EOF'`): the shell passes the body as written, without expansions
    strip_tabs: bool  # `<<-EOF`: the shell removes the tabs that start the body's lines
    program: tuple[str | None, ...]  # the words of the command it is the input of (not its redirections)


def commands(text: str) -> list[Command]:
    """The simple commands of ``text``, in order (control words such as ``if``, ``then``, ``do`` are words
    of the commands they start: they are never Trainer flags); here-documents' bodies are no commands."""
    return _Scanner(text).run()[0]


def heredocs(text: str) -> list[Heredoc]:
    """The here-documents of ``text``, in order."""
    return _Scanner(text).run()[1]


# What ends the words a command gives its program (a redirection's `<`/`>` does not: its target is no
# argument) and where a here-document's body may begin.
_SEPARATORS = frozenset("\n;|&()")


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text = text
        self.found: list[Command] = []
        self.bodies: list[Heredoc] = []
        self.current = Command()
        self.program: list[Word] = []
        self.redirected = False  # the next word is a redirection's target
        self.pending: list[tuple[int, str, bool, bool, tuple[str | None, ...]]] = []

    def run(self) -> tuple[list[Command], list[Heredoc]]:
        text = self.text
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
            elif text.startswith("((", index):  # an arithmetic command: `<<` there is a shift
                self._end_command()
                index = _arithmetic_end(text, index)
            elif text.startswith("<<<", index):  # a here-string: its word is the input, on this line
                self._end_command()
                self.redirected = True
                index += 3
            elif text.startswith("<<", index):
                self._end_command()
                index = self._here_document(index)
            elif char in _BREAKS:
                self._end_command()
                if char in _SEPARATORS and not _redirection(text, index):
                    self.program, self.redirected = [], False
                else:
                    if char in "<>" and self.program and _descriptor(self.program[-1], text, index):
                        self.program.pop()  # (`2>`: the descriptor it redirects, no argument)
                    self.redirected = True
                index += 1
                if char == "\n" and self.pending:
                    index = self._bodies(index)
            else:
                word, index = _word(text, index)
                self.current.words.append(word)
                if not self.redirected:
                    self.program.append(word)
                self.redirected = False
        self._end_command()
        if self.pending:  # (a command on the last line, its body missing)
            self._bodies(len(text))
        return self.found, self.bodies

    def _end_command(self) -> None:
        if self.current.words:
            self.found.append(self.current)
            self.current = Command()

    def _here_document(self, index: int) -> int:
        """Past ``<<DELIM`` (or ``<<-DELIM``): its body is read after the end of the line."""
        text = self.text
        at = index
        index += 2
        strip_tabs = text.startswith("-", index)
        index += strip_tabs
        while index < len(text) and text[index] in " \t":
            index += 1
        if index >= len(text) or text[index] in _BREAKS:
            return index  # (no delimiter: a syntax error to the shell)
        word, end = _word(text, index)
        raw = word.text(text)
        delimiter = _unquoted(raw)
        program = tuple(w.value for w in self.program)
        self.pending.append((at, delimiter, any(c in raw for c in "'\"\\"), strip_tabs, program))
        return end

    def _bodies(self, index: int) -> int:
        """Past the bodies of the here-documents of the line that ended before ``index``."""
        text = self.text
        for at, delimiter, literal, strip_tabs, program in self.pending:
            start = index
            while index < len(text):
                end = text.find("\n", index)
                end = len(text) if end < 0 else end
                line = text[index:end].rstrip("\r")
                if (line.lstrip("\t") if strip_tabs else line) == delimiter:
                    self.bodies.append(Heredoc(start, index, at, literal, strip_tabs, program))
                    index = end + 1
                    break
                index = end + 1
            else:
                self.bodies.append(Heredoc(start, len(text), at, literal, strip_tabs, program))
                index = len(text)
        self.pending = []
        return min(index, len(text))


def _redirection(text: str, index: int) -> bool:
    """Whether the ``&`` at ``index`` belongs to a redirection (``2>&1``, ``&>log``), not ending a command."""
    return text[index] == "&" and (
        text[index - 1 : index] in ("<", ">") or text[index + 1 : index + 2] == ">"
    )


def _descriptor(word: Word, text: str, index: int) -> bool:
    """Whether ``word`` is the file descriptor number of the redirection at ``index`` (``2`` of ``2>``)."""
    return word.end == index and word.value is not None and word.value.isdigit()


def _unquoted(raw: str) -> str:
    """A here-document's delimiter word with its quotes removed (the shell expands nothing in it)."""
    out: list[str] = []
    index = 0
    while index < len(raw):
        char = raw[index]
        if char in "'\"":
            end = raw.find(char, index + 1)
            end = len(raw) if end < 0 else end
            out.append(raw[index + 1 : end])
            index = end + 1
        elif char == "\\" and index + 1 < len(raw):
            out.append(raw[index + 1])
            index += 2
        else:
            out.append(char)
            index += 1
    return "".join(out)


def _arithmetic_end(text: str, index: int) -> int:
    """Past an arithmetic command ``(( ... ))``."""
    depth = 0
    for position in range(index, len(text)):
        if text[position] == "(":
            depth += 1
        elif text[position] == ")":
            depth -= 1
            if depth == 0:
                return position + 1
    return len(text)


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

"""YAML text, edited in place: the spans of keys and scalars ruamel.yaml located, YAML spellings of the
model's values, and the edits (replace a span, insert or delete an entry) spliced into the text, so that
every byte outside them (comments, key order, quoting, anchors, line ends) stays as it was.

Only what can be written safely is written: a value that spans lines, carries an anchor or a tag, or is an
alias raises ``Unwritable``, and the front end reports the rewrite instead (ruamel's own dump is never used:
it re-indents and re-quotes)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lightning_migrate.files.text import Unwritable, spliced
from lightning_migrate.plan.knowledge import Known, RunTime

_LINE_END = re.compile(r"\r\n|\r|\n")
# plain scalars YAML 1.1 or 1.2 read as something other than a string: they need quotes to stay strings
_NOT_A_STRING = re.compile(
    r"""(?x)
    ~|null|Null|NULL|true|True|TRUE|false|False|FALSE|yes|Yes|YES|no|No|NO|on|On|ON|off|Off|OFF|y|Y|n|N
    |[-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)
    |0[xob][0-9a-fA-F_]+|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?|<<|=
    """
)
COMMENT = re.compile(r"(?:^|[ \t])#")  # (after a value: YAML reads `#` after a blank as a comment)
# a line whose key opens a block (`trainer:`, `- init_args:  # args`): group 1 ends where the key starts
_OPENS_BLOCK = re.compile(r"^((?:[ ]*- )*[ ]*)[^\s#\-][^#]*:[ \t]*(?:#.*)?$")
_PLAIN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-/]*")


@dataclass
class Document:
    """A YAML file's text with the edits to make to it."""

    text: str
    starts: list[int] = field(init=False)
    newline: str = field(init=False)
    edits: list[tuple[int, int, str]] = field(default_factory=list)  # (start, end, replacement)

    def __post_init__(self) -> None:
        ends = list(_LINE_END.finditer(self.text))
        self.starts = [0] + [m.end() for m in ends]
        self.newline = ends[0].group() if ends else "\n"

    def line(self, line: int) -> str:
        """Line ``line`` (0-based) without its line end."""
        if line >= len(self.starts):
            return ""
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        return _LINE_END.sub("", self.text[self.starts[line] : end])

    def offset(self, line: int, column: int) -> int:
        return self.starts[line] + column

    def after_line(self, line: int) -> int:
        """Where the next line starts (the end of the text for the last line)."""
        return self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)

    def result(self) -> str:
        """The text with the edits made (text inserted at one place comes out in the order it was added)."""
        ordered = sorted((start, end) for start, end, _ in self.edits)
        if any(end > start for (_, end), (start, _) in zip(ordered, ordered[1:])):
            raise Unwritable("two edits of the config overlap")
        return spliced(self.text, self.edits)

    # --- spans -------------------------------------------------------------------------------------------

    def scalar_end(self, line: int, column: int, flow: bool, key_column: int = 0) -> int:
        """The column where the scalar starting at (``line``, ``column``) ends (the value of a key at
        ``key_column``); ``Unwritable`` where it spans lines or is not a plain or quoted scalar (an alias, an
        anchor, a tag, a block scalar)."""
        text = self.line(line)
        first = text[column : column + 1]
        if first in ("*", "&", "!"):
            raise Unwritable("the value is an alias, carries an anchor or a tag")
        if first in ("|", ">"):
            raise Unwritable("the value is a block scalar")
        if first in ("'", '"'):
            end = _closing_quote(text, column)
            if end is None:
                raise Unwritable("the quoted value spans lines")
            return end
        stops = ",]}" if flow else ""
        end = column
        while end < len(text) and text[end] not in stops and text[end : end + 2] != " #":
            end += 1
        end = len(text[:end].rstrip())
        if not flow and self._continues(line, key_column):
            raise Unwritable("the value spans lines")
        return end

    def comment(self, line: int, column: int) -> str | None:
        """The comment that ends ``line`` after ``column`` (where a value ends), with the blanks before it
        (``"   # multi gpu"``); None where there is none."""
        rest = self.line(line)[column:]
        match = COMMENT.search(rest)
        return rest[len(rest[: match.start()].rstrip(" \t")) :] if match is not None else None

    def leading_comments(self, line: int, column: int) -> int:
        """The first of the comment lines right above ``line`` at ``column`` (its key's): the lines that
        introduce the entry; ``line`` where there are none. A file's header (comments that open the file or
        a document, `# @package _global_`) introduces no entry."""
        first = line
        while first > 0 and _is_comment(self.line(first - 1), column):
            first -= 1
        above = self.line(first - 1).strip() if first > 0 else "---"
        return line if first < line and above.startswith(("---", "%")) else first

    def indent(self) -> int:
        """How far the file indents a block mapping's entries under their key (the most frequent step from a
        key line that opens a block to the line below it; 2 where the file shows none)."""
        steps: dict[int, int] = {}
        previous: tuple[int, bool] | None = None  # (the key's column, it opens a block) of the last line
        for number in range(len(self.starts)):
            text = self.line(number)
            stripped = text.lstrip(" ")
            if not stripped or stripped.startswith("#"):
                continue
            column = len(text) - len(stripped)
            if previous is not None and previous[1] and column > previous[0] and stripped[:2] != "- ":
                steps[column - previous[0]] = steps.get(column - previous[0], 0) + 1
            opens = _OPENS_BLOCK.match(text)
            previous = (opens.end(1), True) if opens else (column, False)
        return max(steps, key=lambda step: steps[step]) if steps else 2

    def _continues(self, line: int, key_column: int) -> bool:
        """Whether a plain block scalar on ``line`` goes on, on the lines below (those more indented than
        its key)."""
        for below in range(line + 1, len(self.starts)):
            text = self.line(below)
            stripped = text.lstrip()
            if not stripped or stripped.startswith("#"):
                continue
            return len(text) - len(stripped) > key_column
        return False

    def key_span(self, line: int, column: int, key: str) -> tuple[int, int]:
        """The offsets of a mapping key as written (plain or quoted)."""
        text = self.line(line)
        if text[column : column + 1] in ("'", '"'):
            end = _closing_quote(text, column)
            if end is None:
                raise Unwritable("the key spans lines")
            return self.offset(line, column), self.offset(line, end)
        if text[column : column + len(key)] != key:
            raise Unwritable(f"the key {key!r} is not written where the parser put it")
        return self.offset(line, column), self.offset(line, column + len(key))

    def block_end(self, line: int, indent: int) -> int:
        """The last line of the entry whose key is on ``line`` at column ``indent`` in a block mapping: its
        value's lines are the lines below that are more indented (or `- ` items at the same column), comment
        and blank lines between them included (not those after the last one)."""
        last = line
        for below in range(line + 1, len(self.starts)):
            text = self.line(below)
            stripped = text.lstrip()
            if not stripped or stripped.startswith("#"):
                continue
            column = len(text) - len(stripped)
            if column > indent or (column == indent and (stripped == "-" or stripped.startswith("- "))):
                last = below
                continue
            break
        return last


def _is_comment(text: str, column: int) -> bool:
    return text.startswith("#", column) and not text[:column].strip(" ")


def _closing_quote(text: str, column: int) -> int | None:
    """The column after the quote that closes the quoted scalar opening at ``column``."""
    quote = text[column]
    index = column + 1
    while index < len(text):
        char = text[index]
        if quote == '"' and char == "\\":
            index += 2
            continue
        if char == quote:
            if quote == "'" and text[index + 1 : index + 2] == "'":
                index += 2
                continue
            return index + 1
        index += 1
    return None


def spelled(value: Known, quote: str = "", capitalized: bool = False) -> str:
    """``value`` as a YAML scalar or flow sequence: a string plain where YAML reads it back as that string
    (quoted with ``quote`` where the old value was quoted), ``null``, ``true``/``false`` (``True``/``False``
    where the file writes them so); a value only known at run time (an interpolation) as it was written."""
    if isinstance(value, RunTime):
        return value.text
    if value is None:
        return "null"
    if isinstance(value, bool):
        word = "true" if value else "false"
        return word.capitalize() if capitalized else word
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        if not quote and _PLAIN.fullmatch(value) and not _NOT_A_STRING.fullmatch(value):
            return value
        if quote == "'":
            return "'" + value.replace("'", "''") + "'"
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(spelled(item, quote, capitalized) for item in value) + "]"
    raise Unwritable(f"`{value!r}` cannot be written as a YAML scalar")  # (an object, a conditional)

"""Write a rewrite into a YAML Trainer config: rename keys, replace scalars, insert and delete entries, rename
the class of a strategy object (``_target_``/``class_path``) and add the arguments the target needs, each as
a splice of the text (``text.Document``). The edits of one config are made together or not at all."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Mapping
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from lightning_migrate.edit.slots import SLOTS, place
from lightning_migrate.files.text import Unwritable
from lightning_migrate.frontends.yaml.read import arguments_of, class_path
from lightning_migrate.frontends.yaml.text import COMMENT, Document, spelled
from lightning_migrate.plan.knowledge import Known
from lightning_migrate.plan.planner import derived
from lightning_migrate.semantics.classes import lookup
from lightning_migrate.semantics.model import Obj

_NULLS = ("null", "Null", "NULL", "~")
_COMMA = re.compile(r"[ \t]*,[ \t]*")


class Writer:
    def __init__(self, document: Document, capitalized: bool) -> None:
        self.doc = document
        self.capitalized = capitalized  # the file writes `True`/`False`
        self._pending: list[tuple[int, int, str]] = []
        self._deleted: dict[int, int] = {}  # id(mapping) -> its entries deleted by the pending edits
        # new flag -> the comments of a deleted flag it takes the place of: (comment lines, a line's end)
        self._carried: dict[str, tuple[list[str], str | None]] = {}

    # --- one config at a time ------------------------------------------------------------------------------

    def rewrite(
        self, mapping: CommentedMap, old: Mapping[str, Known], new: Mapping[str, Known], order: list[str]
    ) -> None:
        """Turn the flags ``old`` of ``mapping`` (its own keys, written in ``order``) into ``new``; nothing
        is written unless all of it can be (``Unwritable``). The comments of a flag that goes move to the
        new flag that takes its place (``_successor``): `accelerator: ddp  # multi gpu` with the strategy
        object of `plugins:` becomes `strategy:  # multi gpu`."""
        self._pending, self._deleted, self._carried = [], {}, {}
        placements = place(order, old, new)
        last = order[-1] if order else _last_key(mapping)
        written = {k for p in placements.changed for k in p.slot} | set(placements.appended)
        flow = bool(mapping.fa.flow_style())
        successors = {
            p.key: None if flow else _successor(p.key, old, new, written)
            for p in placements.changed
            if p.heir is None
        }
        for key, successor in successors.items():  # (first: a comment may move to a flag written above)
            self._delete(mapping, key, successor)
        for placement in placements.changed:
            key = placement.key
            if placement.heir is not None:
                if placement.heir != key:
                    self._rename(mapping, key, placement.heir)
                self._write_value(mapping, key, old[key], new[placement.heir])
                self._attach(mapping, key, placement.heir)
            for added in placement.beside:
                self._insert(mapping, key, added, new[added])
        for added in placements.appended:
            self._insert(mapping, last, added, new[added])
        self.doc.edits.extend(self._pending)

    def edit_object(self, mapping: CommentedMap, old: Obj, new: Obj) -> None:
        """Make the ``_target_``/``class_path`` mapping that builds ``old`` build ``new`` (``derived``)."""
        self._pending = []
        self._edit_object(mapping, old, new)
        self.doc.edits.extend(self._pending)

    def retarget(self, mapping: CommentedMap, path: str) -> None:
        """Make the ``_target_`` of ``mapping`` name ``path`` (the shim's Trainer), quoted as it was."""
        self._pending = []
        start, end = self._value_span(mapping, "_target_")
        quote = self.doc.text[start] if self.doc.text[start] in "'\"" else ""
        self._replace(start, end, spelled(path, quote))
        self.doc.edits.extend(self._pending)

    def add_target(self, mapping: CommentedMap, before: str, path: str) -> None:
        """Give ``mapping`` (a block mapping without one) a ``_target_`` naming ``path`` (the shim's
        Trainer), as the entry before its key ``before``, which the other edits keep where it is."""
        self._pending = []
        if mapping.fa.flow_style() or "_target_" in mapping._ok:
            raise Unwritable("its mapping cannot take a `_target_` here")
        line, column = mapping.lc.key(before)
        at = self.doc.offset(line, 0)
        if self.doc.line(line)[:column].strip():
            raise Unwritable("its first key does not start its line")
        self._replace(at, at, f"{' ' * column}_target_: {spelled(path)}{self.doc.newline}")
        self.doc.edits.extend(self._pending)

    # --- edits ---------------------------------------------------------------------------------------------

    def _replace(self, start: int, end: int, text: str) -> None:
        self._pending.append((start, end, text))

    def _rename(self, mapping: CommentedMap, key: str, new_key: str) -> None:
        line, column = mapping.lc.key(key)
        start, end = self.doc.key_span(line, column, key)
        quote = self.doc.text[start] if self.doc.text[start] in "'\"" else ""
        self._replace(start, end, f"{quote}{new_key}{quote}")

    def _value_span(self, mapping: CommentedMap, key: str) -> tuple[int, int]:
        """The offsets of a scalar or one-line flow sequence value."""
        node = mapping[key]
        line, column = mapping.lc.value(key)
        if isinstance(node, CommentedMap) or (isinstance(node, CommentedSeq) and not node.fa.flow_style()):
            shape = "mapping" if isinstance(node, CommentedMap) else "list"
            raise Unwritable(f"`{key}` holds a block {shape}")
        if node is None and not self.doc.line(line)[column:].startswith(_NULLS):
            raise Unwritable(f"`{key}` is empty")
        if isinstance(node, CommentedSeq):
            end = _closing_bracket(self.doc.line(line), column)
            if end is None:
                raise Unwritable(f"the list of `{key}` spans lines")
        else:
            key_column = mapping.lc.key(key)[1]
            end = self.doc.scalar_end(line, column, bool(mapping.fa.flow_style()), key_column)
        return self.doc.offset(line, column), self.doc.offset(line, end)

    def _write_value(self, mapping: CommentedMap, key: str, old: Known, new: Known) -> None:
        if new == old and type(new) is type(old):  # (`enable_progress_bar: false` is no `0`)
            return
        node = mapping[key]
        if isinstance(new, Obj):
            if isinstance(node, CommentedMap) and isinstance(old, Obj) and derived(old, new):
                self._edit_object(node, old, new)
                return
            if (
                isinstance(node, CommentedSeq)
                and isinstance(old, list)
                and len(old) == 1
                and derived(old[0], new)
                and not node.fa.flow_style()
                and isinstance(node[0], CommentedMap)
            ):
                shift = self._unlist(mapping, key, node)
                assert isinstance(old[0], Obj)
                self._edit_object(node[0], old[0], new, shift)
                return
            raise Unwritable(f"`{key}` would need a strategy object written from scratch")
        start, end = self._value_span(mapping, key)
        written = self.doc.text[start:end]
        quote = written[0] if written[:1] in ("'", '"') and isinstance(new, str) else ""
        self._replace(start, end, spelled(new, quote, self.capitalized))

    def _unlist(self, mapping: CommentedMap, key: str, node: CommentedSeq) -> int:
        """Make the one item of the block list ``key`` holds its value, laid out as the file lays out a
        mapping under its key (at the key's column and the file's ``indent``, whatever the list's own
        indentation was); the columns the item's lines move by."""
        dash_line, dash = node.lc.line, node.lc.col
        item = node[0]
        text = self.doc.line(dash_line)
        if text[dash : dash + 1] != "-" or item.lc.line != dash_line or text[:dash].strip(" "):
            raise Unwritable(f"the list of `{key}` is not laid out as expected")
        key_line, key_column = mapping.lc.key(key)
        column = key_column + self.doc.indent()
        start = min(dash, column)
        self._replace(
            self.doc.offset(dash_line, start), self.doc.offset(dash_line, item.lc.col), " " * (column - start)
        )
        shift: int = column - item.lc.col
        for number in range(dash_line + 1, self.doc.block_end(key_line, key_column) + 1):
            at, written = self.doc.starts[number], self.doc.line(number)
            if shift > 0 and written:
                self._replace(at, at, " " * shift)
            elif shift < 0:
                self._replace(at, at + min(-shift, len(written) - len(written.lstrip(" "))), "")
        return shift

    def _edit_object(self, node: CommentedMap, old: Obj, new: Obj, shift: int = 0) -> None:
        """Make ``node`` build ``new`` (``shift``: columns the edits move its lines by)."""
        if old.cls != new.cls:
            self._retarget(node, new.cls)
        added = [key for key, _ in new.kwargs if key not in old.kw()]
        if not added:
            return
        args = arguments_of(node)
        if args is None and "init_args" not in node:  # (`class_path:` alone: its arguments' block is new)
            entries = [f"{key}: {spelled(new.kw()[key], '', self.capitalized)}" for key in added]
            self._insert_entry(node, _last_key(node), "init_args", entries, shift, block=True)
            return
        if args is None:
            raise Unwritable("the strategy object's `init_args` is not a mapping to add arguments to")
        for key in added:
            self._insert(args, _last_key(args), key, new.kw()[key], shift)

    def _retarget(self, node: CommentedMap, new_cls: str) -> None:
        named = class_path(node)
        row = lookup(new_cls)
        assert named is not None
        assert row is not None
        key, path = named
        root = "lightning.pytorch" if path.startswith("lightning.") else "pytorch_lightning"
        start, end = self._value_span(node, key)
        quote = self.doc.text[start] if self.doc.text[start] in "'\"" else ""
        self._replace(start, end, spelled(f"{root}.{row.module}.{new_cls}", quote))

    def _insert(self, mapping: CommentedMap, after: str, key: str, value: Known, shift: int = 0) -> None:
        """Write ``key: value`` as the entry after ``after``'s (``shift``: columns the edits move that entry
        by), with the comments carried to ``key``."""
        if isinstance(value, Obj) or (isinstance(value, list) and any(isinstance(v, Obj) for v in value)):
            raise Unwritable(f"`{key}` would need a strategy object written from scratch")
        self._insert_entry(mapping, after, key, [spelled(value, "", self.capitalized)], shift)

    def _insert_entry(
        self,
        mapping: CommentedMap,
        after: str,
        key: str,
        value: list[str],
        shift: int = 0,
        block: bool = False,
    ) -> None:
        """Write ``key``'s entry after ``after``'s: a scalar (``value``: its one spelling), or a new
        mapping (``block``; ``value``: its entries, laid out at the file's indent below ``key``)."""
        line, column = mapping.lc.key(after)
        if mapping.fa.flow_style():
            _, end = self._entry_value_end(mapping, after)
            written = "{" + ", ".join(v.strip() for v in value) + "}" if block else value[0]
            self._replace(end, end, f", {key}: {written}")
            return
        column += shift
        lines, trailing = self._carried.pop(key, ([], None))
        newline, indent = self.doc.newline, " " * (column + self.doc.indent())
        entry = f"{key}:{trailing or ''}" + "".join(f"{newline}{indent}{v}" for v in value) if block else ""
        text = self._lines(column, lines) + " " * column + (entry or f"{key}: {value[0]}{trailing or ''}")
        at = self.doc.after_line(self.doc.block_end(line, column - shift))
        if at == len(self.doc.text) and not self.doc.text.endswith(("\n", "\r")):
            self._replace(at, at, f"{newline}{text}")
        else:
            self._replace(at, at, f"{text}{newline}")

    def _attach(self, mapping: CommentedMap, key: str, heir: str) -> None:
        """Put the comments carried to ``heir`` on the entry of ``key``, which it takes over: the lines
        above its key, a line's end comment at the end of its key's line (above it where that has one)."""
        lines, trailing = self._carried.pop(heir, ([], None))
        line, column = mapping.lc.key(key)
        end = len(self.doc.line(line))
        if trailing is not None and self.doc.comment(line, column) is None:
            self._replace(self.doc.offset(line, end), self.doc.offset(line, end), trailing)
        elif trailing is not None:
            lines = [*lines, trailing.lstrip(" \t")]
        start = self.doc.starts[line]
        if lines:
            self._replace(start, start, self._lines(column, lines))

    def _entry_value_end(self, mapping: CommentedMap, key: str) -> tuple[int, int]:
        node = mapping[key]
        line, column = mapping.lc.value(key)
        if isinstance(node, (CommentedMap, CommentedSeq)):
            end = _closing_bracket(self.doc.line(line), column)
            if end is None:
                raise Unwritable(f"the value of `{key}` spans lines")
            return line, self.doc.offset(line, end)
        return line, self.doc.offset(line, self.doc.scalar_end(line, column, True))

    def _delete(self, mapping: CommentedMap, key: str, successor: str | None = None) -> None:
        """Remove the entry of ``key``; its comments (the lines that introduce it too) move to ``successor``.
        A flag that goes with nothing in its place (``amp_level: O0  # O1/O2 for mixed precision``) takes
        its own lines with it, and the comment lines above it stay (they may head a section)."""
        own = [k for k in mapping if k in mapping._ok]
        self._deleted[id(mapping)] = self._deleted.get(id(mapping), 0) + 1
        if self._deleted[id(mapping)] >= len(own):
            raise Unwritable("the config would be left empty")
        line, column = mapping.lc.key(key)
        if not mapping.fa.flow_style():
            last = self.doc.block_end(line, column)
            first = line
            if successor is not None:
                first = self.doc.leading_comments(line, column)
                inside, end = self._comments(mapping, key, line, last)
                introduced = [self.doc.line(n).strip() for n in range(first, line)]
                self._carried[successor] = ([*introduced, *inside], end)
            self._replace(self.doc.starts[first], self.doc.after_line(last), "")
            return
        self._delete_flow(mapping, own, key)

    def _delete_flow(self, mapping: CommentedMap, own: list[str], key: str) -> None:
        """Remove ``key``'s entry of a flow mapping with the comma that parts it from its neighbour; a
        comment between the entries (a mapping over several lines) stays where it is."""
        text, index = self.doc.text, own.index(key)
        line, column = mapping.lc.key(key)
        start = self.doc.key_span(line, column, key)[0]
        _, end = self._entry_value_end(mapping, key)
        if index + 1 < len(own):  # up to the next key: `key: value, `
            following = self.doc.offset(*mapping.lc.key(own[index + 1]))
            comma = _COMMA.match(text, end)
            cut = following if not COMMENT.search(text[end:following]) or comma is None else comma.end()
            self._replace(start, cut, "")
            return
        _, previous = self._entry_value_end(mapping, own[index - 1])
        if not COMMENT.search(text[previous:start]):  # from the value before: `, key: value`
            self._replace(previous, end, "")
            return
        comma = _COMMA.match(text, previous)
        if comma is None:
            raise Unwritable(f"the flow mapping around `{key}` is not laid out as expected")
        self._replace(previous, previous + len(comma.group().rstrip(" \t")), "")
        written = self.doc.line(line)
        if not written[:column].strip() and not written[end - self.doc.starts[line] :].strip():
            start, end = self.doc.starts[line], self.doc.after_line(line)  # the entry's line, all of it
        self._replace(start, end, "")

    def _lines(self, column: int, comments: list[str]) -> str:
        """Comment lines at ``column``."""
        return "".join(f"{' ' * column}{comment}{self.doc.newline}" for comment in comments)

    def _comments(
        self, mapping: CommentedMap, key: str, line: int, last: int
    ) -> tuple[list[str], str | None]:
        """The comments of the entry of ``key`` (lines ``line`` to ``last``): the comment lines among its
        value's, and the comment at the end of its key's line (with the blanks before it)."""
        node = mapping[key]
        after = self.doc.key_span(line, mapping.lc.key(key)[1], key)[1] - self.doc.starts[line]
        if not isinstance(node, (CommentedMap, CommentedSeq)) or node.fa.flow_style():
            with contextlib.suppress(Unwritable):  # (an empty value, one that spans lines: the key's end)
                after = self._value_span(mapping, key)[1] - self.doc.starts[line]
        lines: list[str] = []
        for number in range(line + 1, last + 1):
            text = self.doc.line(number).strip()
            found = COMMENT.search(text)
            if found is not None and ("'" in text[: found.start()] or '"' in text[: found.start()]):
                raise Unwritable(f"a comment inside the value of `{key}` would be lost")  # (or a quoted `#`)
            if found is not None:
                lines.append(text[found.start() :].lstrip(" \t"))
        return lines, self.doc.comment(line, after)


def _successor(key: str, old: Mapping[str, Known], new: Mapping[str, Known], written: set[str]) -> str | None:
    """The new flag written in the place of ``key``'s meaning (its slot's first: ``accelerator: ddp``'s
    training type goes to ``strategy``), whose entry takes ``key``'s comments; None for a flag that said
    nothing (``gpus: null``) or whose meaning no written flag takes."""
    if old[key] is None:
        return None
    return next((k for k in SLOTS.get(key, ()) if k in new and k in written), None)


def _last_key(mapping: CommentedMap) -> Any:
    own = [k for k in mapping if k in mapping._ok]
    if not own:
        raise Unwritable("the config has no key to write beside")
    return own[-1]


def _closing_bracket(text: str, column: int) -> int | None:
    """The column after the bracket closing the flow collection that opens at ``column`` (same line)."""
    depth, quote = 0, ""
    for index in range(column, len(text)):
        char = text[index]
        if quote:
            quote = "" if char == quote else quote
        elif char in "'\"":
            quote = char
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                return index + 1
    return None

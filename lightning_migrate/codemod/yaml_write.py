"""Write a rewrite into a YAML Trainer config: rename keys, replace scalars, insert and delete entries, rename
the class of a strategy object (``_target_``/``class_path``) and add the arguments the target needs, each as
a splice of the text (``yaml_text.Document``). The edits of one config are made together or not at all."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ruamel.yaml.comments import CommentedMap, CommentedSeq

from lightning_migrate.codemod.known import Known
from lightning_migrate.codemod.plan import derived
from lightning_migrate.codemod.slots import place
from lightning_migrate.codemod.text import Unwritable
from lightning_migrate.codemod.yaml_read import arguments_of, class_path
from lightning_migrate.codemod.yaml_text import Document, spelled
from lightning_migrate.semantics.classes import lookup
from lightning_migrate.semantics.model import Obj

_NULLS = ("null", "Null", "NULL", "~")


class Writer:
    def __init__(self, document: Document, capitalized: bool) -> None:
        self.doc = document
        self.capitalized = capitalized  # the file writes `True`/`False`
        self._pending: list[tuple[int, int, str]] = []
        self._deleted: dict[int, int] = {}  # id(mapping) -> its entries deleted by the pending edits

    # --- one config at a time ------------------------------------------------------------------------------

    def rewrite(
        self, mapping: CommentedMap, old: Mapping[str, Known], new: Mapping[str, Known], order: list[str]
    ) -> None:
        """Turn the flags ``old`` of ``mapping`` (its own keys, written in ``order``) into ``new``; nothing
        is written unless all of it can be (``Unwritable``)."""
        self._pending, self._deleted = [], {}
        placements = place(order, old, new)
        last = order[-1] if order else _last_key(mapping)
        for placement in placements.changed:
            key = placement.key
            if placement.heir is None:
                self._delete(mapping, key)
            else:
                if placement.heir != key:
                    self._rename(mapping, key, placement.heir)
                self._write_value(mapping, key, old[key], new[placement.heir])
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
                dash_line, dash_column = node.lc.line, node.lc.col
                if self.doc.line(dash_line)[dash_column : dash_column + 1] != "-":
                    raise Unwritable(f"the list of `{key}` is not laid out as expected")
                dash = self.doc.offset(dash_line, dash_column)
                self._replace(dash, dash + 1, " ")  # the one item becomes the value
                assert isinstance(old[0], Obj)
                self._edit_object(node[0], old[0], new)
                return
            raise Unwritable(f"`{key}` would need a strategy object written from scratch")
        start, end = self._value_span(mapping, key)
        written = self.doc.text[start:end]
        quote = written[0] if written[:1] in ("'", '"') and isinstance(new, str) else ""
        self._replace(start, end, spelled(new, quote, self.capitalized))

    def _edit_object(self, node: CommentedMap, old: Obj, new: Obj) -> None:
        if old.cls != new.cls:
            self._retarget(node, new.cls)
        added = [key for key, _ in new.kwargs if key not in old.kw()]
        if not added:
            return
        args = arguments_of(node)
        if args is None:
            raise Unwritable("the strategy object has no `init_args` to add arguments to")
        for key in added:
            self._insert(args, _last_key(args), key, new.kw()[key])

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

    def _insert(self, mapping: CommentedMap, after: str, key: str, value: Known) -> None:
        if isinstance(value, Obj) or (isinstance(value, list) and any(isinstance(v, Obj) for v in value)):
            raise Unwritable(f"`{key}` would need a strategy object written from scratch")
        entry = f"{key}: {spelled(value, '', self.capitalized)}"
        line, column = mapping.lc.key(after)
        if mapping.fa.flow_style():
            _, end = self._entry_value_end(mapping, after)
            self._replace(end, end, f", {entry}")
            return
        last = self.doc.block_end(line, column)
        at = self.doc.after_line(last)
        newline = self.doc.newline
        if at == len(self.doc.text) and not self.doc.text.endswith(("\n", "\r")):
            self._replace(at, at, f"{newline}{' ' * column}{entry}")
        else:
            self._replace(at, at, f"{' ' * column}{entry}{newline}")

    def _entry_value_end(self, mapping: CommentedMap, key: str) -> tuple[int, int]:
        node = mapping[key]
        line, column = mapping.lc.value(key)
        if isinstance(node, (CommentedMap, CommentedSeq)):
            end = _closing_bracket(self.doc.line(line), column)
            if end is None:
                raise Unwritable(f"the value of `{key}` spans lines")
            return line, self.doc.offset(line, end)
        return line, self.doc.offset(line, self.doc.scalar_end(line, column, True))

    def _delete(self, mapping: CommentedMap, key: str) -> None:
        own = [k for k in mapping if k in mapping._ok]
        self._deleted[id(mapping)] = self._deleted.get(id(mapping), 0) + 1
        if self._deleted[id(mapping)] >= len(own):
            raise Unwritable("the config would be left empty")
        line, column = mapping.lc.key(key)
        if not mapping.fa.flow_style():
            last = self.doc.block_end(line, column)
            self._replace(self.doc.starts[line], self.doc.after_line(last), "")
            return
        index = own.index(key)
        start = self.doc.key_span(line, column, key)[0]
        if index + 1 < len(own):
            following = mapping.lc.key(own[index + 1])
            self._replace(start, self.doc.offset(*following), "")
        else:
            _, previous_end = self._entry_value_end(mapping, own[index - 1])
            _, end = self._entry_value_end(mapping, key)
            self._replace(previous_end, end, "")


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

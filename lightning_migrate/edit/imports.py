"""What a rewrite asks of a file's imports (read with ``ast``; ``import_edits`` writes it with LibCST).

No rewritten file may import a name the target lacks: ``ImportChanges`` collects the classes a rewrite
renamed, the aliases it kept and the names it may have left unused, and ``stale_imports`` finds the imports
of renamed ``*Plugin`` classes in a file no rewrite touched.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass, field

from lightning_migrate.semantics.classes import RENAMED_STRATEGIES, lookup
from lightning_migrate.semantics.model import Version, v

LIGHTNING_ROOTS = ("pytorch_lightning", "lightning")


@dataclass
class ImportChanges:
    renamed: dict[str, tuple[str, str]] = field(default_factory=dict)  # old class -> (namespace, new class)
    aliased: dict[str, tuple[str, str]] = field(default_factory=dict)  # alias -> (namespace, new class)
    dropped: set[tuple[str, str]] = field(default_factory=set)  # (module, name) to remove when unused

    def __bool__(self) -> bool:
        return bool(self.renamed or self.aliased or self.dropped)


# The callbacks a fix of a removed Trainer keyword builds (``plan.gone``), and the module each comes from
_CALLBACKS = {"TQDMProgressBar": "callbacks", "ModelSummary": "callbacks"}


def new_module(namespace: str, cls: str) -> str:
    row = lookup(cls)
    return f"{namespace}.{row.module if row else _CALLBACKS.get(cls, 'strategies')}"


@dataclass(frozen=True)
class StaleImport:
    """``from <lightning module> import Old [as local]`` of a training-type class the target renamed."""

    line: int
    column: int
    name: str
    local: str
    namespace: str  # "pytorch_lightning" or "lightning.pytorch"
    new: str  # the class's 1.6 name
    used: bool  # the file uses ``local`` outside its imports
    module: str = ""  # the module it is imported from, as written


def stale_imports(imports: Iterable[ast.ImportFrom], used: set[str], target: Version) -> list[StaleImport]:
    """The ``imports`` of ``*Plugin`` training-type classes that ``target`` (1.6 or later) renamed (``used``:
    the names the file reads or writes), whether or not a Trainer call of the file is rewritten: an old name
    that no call uses still fails to import on 2.x."""
    if target < v("1.6"):
        return []
    found = []
    for node in imports:
        if node.level or not node.module or not node.module.startswith(LIGHTNING_ROOTS):
            continue
        namespace = "lightning.pytorch" if node.module.startswith("lightning.") else "pytorch_lightning"
        for alias in node.names:
            row = lookup(alias.name)
            if row is None or alias.name not in RENAMED_STRATEGIES:
                continue
            local = alias.asname or alias.name
            found.append(
                StaleImport(
                    node.lineno,
                    node.col_offset + 1,
                    alias.name,
                    local,
                    namespace,
                    row.renamed_to,
                    local in used,
                    node.module,
                )
            )
    return found

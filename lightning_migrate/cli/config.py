"""``[tool.lightning-migrate]`` in ``pyproject.toml``: found by walking up from the first path, checked key by
key, same names as the command-line flags (which override it)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

SECTION = "lightning-migrate"


class ConfigError(Exception):
    """A configuration the user must fix; the message names the file and the key."""


def _strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _per_file(value: Any) -> bool:
    return isinstance(value, dict) and all(_strings(codes) for codes in value.values())


def _bool(value: Any) -> bool:
    return isinstance(value, bool)


def _line_length(value: Any) -> int | None:
    """``value`` where it is a line length (a whole number above 0, not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


# key -> (check, what the check wants); every setting of `settings.CONVERSIONS` has its row
KEYS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "target-version": (lambda v: isinstance(v, str), 'a string such as "2.6" or "auto"'),
    "source-version": (lambda v: isinstance(v, str), 'a string such as "1.5"'),
    "select": (_strings, "a list of rule codes or prefixes"),
    "ignore": (_strings, "a list of rule codes or prefixes"),
    "exclude": (_strings, "a list of gitignore-style patterns"),
    "extend-exclude": (_strings, "a list of gitignore-style patterns"),
    "extend-include": (_strings, 'a list of gitignore-style patterns such as "*.md", "*.rst"'),
    "force-exclude": (_bool, "true or false"),
    "respect-gitignore": (_bool, "true or false"),
    "per-file-ignores": (_per_file, 'a table of pattern = ["LM001", ...]'),
    "output-format": (lambda v: isinstance(v, str), 'a string such as "text"'),
    "show-details": (_bool, "true or false"),
    "unsafe-fixes": (_bool, "true or false"),
    "shim": (_bool, "true or false"),
    "statistics": (_bool, "true or false"),
    "show-fixes": (_bool, "true or false"),
    "line-length": (lambda v: _line_length(v) is not None, "a whole number such as 88"),
}


@dataclass(frozen=True)
class Config:
    path: Path | None  # the pyproject.toml it came from, None when there is none
    root: Path  # the folder relative patterns are matched from
    values: Mapping[str, Any] = field(default_factory=dict)

    def get(self, key: str, default: Any = None) -> Any:
        return self.values.get(key, default)


def find(start: Path) -> Config:
    """The first ``pyproject.toml`` with a ``[tool.lightning-migrate]`` table at or above ``start``."""
    folder = start.resolve()
    if not folder.is_dir():
        folder = folder.parent
    for directory in (folder, *folder.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            table = _section(candidate)
            if table is not None:
                return Config(candidate, directory, _checked(table, candidate))
    return Config(None, Path.cwd().resolve())


# where a project's formatter says how long its lines are: file -> the tables in it, in the order asked
FORMATTERS: dict[str, tuple[tuple[str, ...], ...]] = {
    "ruff.toml": ((),),
    ".ruff.toml": ((),),
    "pyproject.toml": (("tool", "ruff"), ("tool", "black")),
}
DEFAULT_LINE_LENGTH = 88  # black's and ruff's


def formatter_line_length(start: Path) -> int:
    """The ``line-length`` of the project's ruff or black configuration, the nearest at or above ``start``
    (a rewrite wraps a call it makes longer where the project's formatter would); else 88, theirs."""
    folder = start.resolve()
    if not folder.is_dir():
        folder = folder.parent
    for directory in (folder, *folder.parents):
        for name, tables in FORMATTERS.items():
            candidate = directory / name
            if not candidate.is_file():
                continue
            try:
                document = _document(candidate)  # (once for all the tables it may hold)
            except ConfigError:  # (a formatter's file we cannot read is not ours to complain about)
                continue
            for table in tables:
                found: Any = document
                for key in table:
                    found = found.get(key, {}) if isinstance(found, dict) else {}
                length = _line_length(found.get("line-length")) if isinstance(found, dict) else None
                if length is not None:
                    return length
    return DEFAULT_LINE_LENGTH


def _document(path: Path) -> dict[str, Any]:
    if sys.version_info >= (3, 11):  # (imported here: a project without pyproject.toml needs no TOML parser)
        import tomllib
    else:
        import tomli as tomllib
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from exc


def _section(path: Path) -> dict[str, Any] | None:
    document = _document(path)
    table = document.get("tool", {}).get(SECTION)
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.{SECTION}] must be a table")
    return table


def _checked(table: dict[str, Any], path: Path) -> dict[str, Any]:
    for key, value in table.items():
        if key not in KEYS:
            known = ", ".join(KEYS)
            raise ConfigError(f"{path}: unknown key {key!r} in [tool.{SECTION}] (known keys: {known})")
        check, wanted = KEYS[key]
        if not check(value):
            raise ConfigError(f"{path}: [tool.{SECTION}] {key} must be {wanted}, not {value!r}")
    return table

"""One run's settings: each from the command line, else from ``[tool.lightning-migrate]``, else the default,
converted and checked by one table. A bad value names where it came from."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from lightning_migrate.cli.config import SECTION, Config, ConfigError
from lightning_migrate.cli.output import FORMATS
from lightning_migrate.files.discovery import DEFAULT_EXCLUDES, FileSelection
from lightning_migrate.report.rules import RULES
from lightning_migrate.run.file_kinds import WALKED_SUFFIXES
from lightning_migrate.run.options import Options
from lightning_migrate.semantics.model import RELEASES, Version

_RELEASE = re.compile(r"(\d+)\.(\d+)(?:\.(\d+))?")
_LAST_OF_LINE = {(r.major, r.minor): r for r in RELEASES}  # (RELEASES: the last release of each line)
_EXAMPLE = max(r for r in RELEASES if r.major == 1)  # (1.9.5: a release of a line, not the last line's)


def accepted_releases() -> str:
    """What ``--target-version`` and ``--source-version`` take, for an error message."""
    lines = ", ".join(version.minor_line for version in RELEASES)
    return f"a minor line the model knows ({lines}), one of its releases (such as {_EXAMPLE}), or auto"


def parse_release(value: str | None) -> Version | None:
    """``X.Y`` (the last release of a minor line the model knows) or ``X.Y.Z`` (a release of such a line, up
    to its last); None for ``auto``. Anything else is refused, not read as the nearest release: the model
    has no ``1.10`` nor ``2.3.99``, and ``2`` names no release."""
    if value is None or value == "auto":
        return None
    match = _RELEASE.fullmatch(value.strip())
    newest = _LAST_OF_LINE.get((int(match[1]), int(match[2]))) if match is not None else None
    if newest is not None and match is not None:
        if match[3] is None:
            return newest
        if int(match[3]) <= newest.patch:
            return Version(newest.major, newest.minor, int(match[3]))
    raise ValueError(f"{value!r} is not a release lightning-migrate knows; give {accepted_releases()}")


def parse_codes(values: Iterable[str]) -> tuple[str, ...]:
    """Rule codes or prefixes, comma- or space-separated, each checked against the registry."""
    codes = tuple(c.upper() for value in values for c in value.replace(",", " ").split())
    unknown = [c for c in codes if not any(rule.code.startswith(c) for rule in RULES)]
    if unknown:
        raise ValueError(f"unknown rule code or prefix {', '.join(unknown)} (see `lightning-migrate rules`)")
    return codes


def _output_format(value: str) -> str:
    if value not in FORMATS:
        raise ValueError(f"{value!r} is not one of {', '.join(FORMATS)}")
    return value


def _per_file_ignores(table: dict[str, list[str]]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    return tuple((pattern, parse_codes(codes)) for pattern, codes in table.items())


def _patterns(values: Any) -> tuple[str, ...]:
    """Patterns given once each or separated by commas, as ruff takes them (`--extend-include '*.md,*.rst'`;
    a second pattern after a space would be taken for a path)."""
    if isinstance(values, str):
        values = [values]
    return tuple(part.strip() for value in values for part in str(value).split(",") if part.strip())


# key (the flag and the configuration name) -> (conversion, default)
CONVERSIONS: dict[str, tuple[Callable[[Any], Any], Any]] = {
    "target-version": (parse_release, None),
    "source-version": (parse_release, None),
    "select": (parse_codes, ("LM",)),
    "ignore": (parse_codes, ()),
    "per-file-ignores": (_per_file_ignores, ()),
    "exclude": (_patterns, DEFAULT_EXCLUDES),
    "extend-exclude": (_patterns, ()),
    "extend-include": (_patterns, ()),
    "force-exclude": (bool, False),
    "respect-gitignore": (bool, True),
    "output-format": (_output_format, "text"),
    "show-details": (bool, False),
    "unsafe-fixes": (bool, False),
    "shim": (bool, False),
    "statistics": (bool, False),
    "show-fixes": (bool, False),
    # (None: the project's ruff or black setting, ``config.formatter_line_length``)
    "line-length": (int, None),
}


@dataclass(frozen=True)
class Settings:
    config: Config
    values: dict[str, Any]

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def selection(self) -> FileSelection:
        return FileSelection(
            self.config.root,
            self["exclude"],
            self["extend-exclude"],
            self["force-exclude"],
            self["respect-gitignore"],
            WALKED_SUFFIXES,
            self["extend-include"],
            skip_run_outputs=self["exclude"] == DEFAULT_EXCLUDES,  # (run outputs go with the default list)
        )

    def options(self, target: Version) -> Options:
        return Options(
            target,
            self["source-version"],
            self["select"],
            self["ignore"],
            self["per-file-ignores"],
            self.config.root,
            self["unsafe-fixes"],
            self["shim"],
        )


def resolve(config: Config, given: dict[str, Any]) -> Settings:
    """``given``: the command line's values by key, None (or empty) where a flag was not given."""
    values = {}
    for key, (convert, default) in CONVERSIONS.items():
        cli = given.get(key)
        if cli is not None and cli != ():
            try:
                values[key] = convert(cli)
            except ValueError as exc:
                raise click.BadParameter(str(exc), param_hint=f"'--{key}'") from exc
        elif key in config.values:
            try:
                values[key] = convert(config.values[key])
            except ValueError as exc:
                raise ConfigError(f"{config.path}: [tool.{SECTION}] {key}: {exc}") from exc
        else:
            values[key] = default
    return Settings(config, values)


def start_of(paths: Iterable[Path], stdin_filename: Path | None) -> Path:
    """Where the configuration and the project's pin are looked for."""
    first = next(iter(paths), Path())
    return stdin_filename or (Path.cwd() if first == Path("-") else first)

"""Run the codemod over files: find them, migrate each, and say which target release was chosen and why."""

from __future__ import annotations

import difflib
import importlib.metadata
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import libcst as cst

from .codemod.python import Finding, migrate
from .prefilter import may_need_migration
from .semantics.model import RELEASES, Version, release

SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".tox",
        ".nox",
        ".venv",
        "venv",
        "env",
        "__pycache__",
        "build",
        "dist",
        "node_modules",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".eggs",
        "site-packages",
    }
)


@dataclass
class FileResult:
    path: Path
    old: str = ""
    new: str = ""
    findings: list[Finding] = field(default_factory=list)
    error: str = ""

    @property
    def changed(self) -> bool:
        return not self.error and self.new != self.old

    def diff(self) -> str:
        """A unified diff that ``git apply`` and ``patch -p1`` accept from the current directory."""
        name = (
            Path(os.path.relpath(self.path)).as_posix()
            if not self.path.is_absolute()
            else self.path.as_posix().lstrip("/")
        )
        lines = difflib.unified_diff(
            self.old.splitlines(keepends=True), self.new.splitlines(keepends=True), f"a/{name}", f"b/{name}"
        )
        return "".join(_terminated(line) for line in lines)


def _terminated(line: str) -> str:
    return line if line.endswith("\n") else line + "\n\\ No newline at end of file\n"


def python_files(paths: Iterable[Path]) -> Iterator[Path]:
    """The Python files under ``paths``, in a deterministic order; explicit files are always taken."""
    for path in paths:
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info"))
                yield from (Path(root) / f for f in sorted(files) if f.endswith(".py"))
        else:
            yield path


def migrate_file(path: Path, target: Version, source: Version | None) -> FileResult:
    result = FileResult(path)
    try:
        result.old = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        result.error = f"cannot read: {exc}"
        return result
    if not may_need_migration(result.old, (target,), (source,)):
        result.new = result.old  # nothing LibCST could find: not parsed
        return result
    try:
        migrated = migrate(result.old, target, source)
    except cst.ParserSyntaxError as exc:
        result.error = f"{exc.raw_line}:{exc.raw_column}: cannot parse: {exc.message}"
        return result
    result.new, result.findings = migrated.code, migrated.findings
    return result


# --- the target release ------------------------------------------------------------------------------------

_PIN = re.compile(
    r"(?:pytorch[-_]lightning|lightning)\s*(?:\[[^\]]*\])?\s*(?:==|~=|>=)\s*v?(\d+\.\d+(?:\.\d+)?)", re.I
)
PIN_FILES = ("pyproject.toml", "setup.cfg", "setup.py", "environment.yml", "environment.yaml")


def auto_target(start: Path) -> tuple[Version, str]:
    """The release to migrate to: the project's own pin, else the installed release, else the newest."""
    folder = start.resolve() if start.is_dir() else start.resolve().parent
    for directory in (folder, *folder.parents):
        candidates = [directory / name for name in PIN_FILES] + sorted(directory.glob("requirements*.txt"))
        for candidate in candidates:
            pinned = _pinned(candidate)
            if pinned is not None:
                return pinned, f"pinned in {candidate}"
    for distribution in ("lightning", "pytorch-lightning"):
        try:
            installed = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            continue
        version = release(Version.parse(installed))
        if RELEASES[0] <= version <= RELEASES[-1]:
            return version, f"{distribution} {installed} is installed"
    return RELEASES[-1], "the newest release lightning-migrate knows"


def _pinned(path: Path) -> Version | None:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    match = _PIN.search(text)
    return release(match.group(1)) if match else None

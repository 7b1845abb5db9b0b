"""Which files a run looks at: directories walked in sorted order, ``.gitignore`` respected, default and user
excludes (gitignore-style patterns, matched from the project root); files named explicitly are always taken
unless ``force_exclude`` (what pre-commit needs, since it passes every staged file by name). A walk takes the
files with one of the ``suffixes`` and those ``extend_include`` patterns match. A walk takes regular files
only (a FIFO, socket or device named ``x.py`` is not source), skips a symbolic link that loops with a warning
(it can hide no file) and reports a folder it cannot read as an error (it could hide one). With the default
excludes, a walk also skips the folders a training run writes (``run_outputs``): their saved configs and
hyperparameters are records of a run, not sources to migrate."""

from __future__ import annotations

import errno
import os
import re
import stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import pathspec
from pathspec.util import normalize_file

from lightning_migrate.files import run_outputs

DEFAULT_EXCLUDES = (
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
    "*.egg-info",
    "site-packages",
)
PYTHON_SUFFIXES = (".py",)


@dataclass(frozen=True)
class FileSelection:
    root: Path  # patterns are relative to it: the configuration's folder, else the working directory
    exclude: Sequence[str] = DEFAULT_EXCLUDES
    extend_exclude: Sequence[str] = ()
    force_exclude: bool = False
    respect_gitignore: bool = True
    suffixes: tuple[str, ...] = PYTHON_SUFFIXES
    extend_include: Sequence[str] = ()
    skip_run_outputs: bool = True  # part of the default excludes: ``--exclude`` replaces both

    def excluded(self, path: Path, is_dir: bool = False) -> bool:
        return matches((*self.exclude, *self.extend_exclude), path, self.root, is_dir)

    def included(self, path: Path) -> bool:
        return path.name.endswith(self.suffixes) or (
            bool(self.extend_include) and matches(self.extend_include, path, self.root)
        )


def matches(patterns: Iterable[str], path: Path, root: Path, is_dir: bool = False) -> bool:
    """Whether ``path`` matches one of the gitignore-style ``patterns``, read from ``root``."""
    relative = _relative(os.path.abspath(path), os.path.abspath(root))
    return bool(_spec(tuple(patterns)).decision(relative + ("/" if is_dir else "")))


@lru_cache(maxsize=64)
def _spec(patterns: tuple[str, ...]) -> _Spec:
    return _Spec(pathspec.GitIgnoreSpec.from_lines(patterns))


# pathspec's mark of a pattern that matched a folder (a named group of each pattern's regex)
_DIR_MARK_GROUP = "(?P<ps_d>"


class _Spec:
    """A ``GitIgnoreSpec`` with a quick test first: pathspec tries its patterns one by one at Python's speed
    (the walk's main cost: ~40 regexes for every entry of a tree), but most entries match none of them, and
    one regex of all the patterns says so at C speed. Only an entry it matches is decided by pathspec (the
    last pattern that matches wins, a folder's pattern weighs less: its rules, untouched)."""

    def __init__(self, spec: pathspec.GitIgnoreSpec) -> None:
        self.spec = spec
        self.asked = 0
        self.any: re.Pattern[str] | None = None  # (made once the spec is asked often: its compile costs)

    def decision(self, file: str) -> bool | None:
        """``GitIgnoreSpec.check_file(file).include``: whether the patterns ignore ``file`` (None: none
        matches)."""
        self.asked += 1
        if self.asked == QUICK_AFTER:
            self.any = _joined(self.spec)
        if self.any is not None and self.any.search(normalize_file(file)) is None:
            return None
        return self.spec.check_file(file).include


# A spec is asked this often before its patterns are joined into one regex (compiling it costs about as
# much as pathspec's answers for a few dozen entries: not worth it for a folder of three files)
QUICK_AFTER = 32


def _joined(spec: pathspec.GitIgnoreSpec) -> re.Pattern[str]:
    """One regex that matches where one of ``spec``'s patterns does (the same regexes, without the named
    group pathspec reads the match by); one that matches everything where they cannot be joined."""
    regexes = [p.regex.pattern for p in spec.patterns if p.include is not None and p.regex is not None]
    alternatives = [r.replace(_DIR_MARK_GROUP, "(?:") for r in regexes if isinstance(r, str)]
    if not regexes:
        return re.compile("(?!)")  # (no pattern decides anything)
    if len(alternatives) != len(regexes):  # (bytes patterns)
        return re.compile("")
    try:
        return re.compile("|".join(f"(?:{a})" for a in alternatives))
    except re.error:
        return re.compile("")


def _relative(path: str, root: str) -> str:
    """``path`` from ``root``, with ``/``; a path outside the project keeps all its folders, so a pattern
    can still match its name or a folder on the way."""
    inside = path == root or path.startswith(root.rstrip(os.sep) + os.sep)
    return Path(os.path.relpath(path, root) if inside else path).as_posix().lstrip("/")


@dataclass
class Discovery:
    files: list[Path] = field(default_factory=list)
    errors: list[tuple[Path, str]] = field(default_factory=list)  # folders that cannot be read: exit 2
    warnings: list[tuple[Path, str]] = field(default_factory=list)  # entries skipped that hide no file
    skipped: list[tuple[Path, str]] = field(default_factory=list)  # run output folders, and why (``-v``)


def discover(paths: Iterable[Path], selection: FileSelection) -> Discovery:
    """The files to process, each once, in a deterministic order: the arguments' order, and the files
    under a folder sorted by path. A file named explicitly is taken whatever it is: reading it says what
    is wrong with it (a FIFO, a device: exit 2). A file reached by several paths is taken once (``_once``)."""
    reached: list[Path] = []
    found = Discovery()
    for path in paths:
        if path.is_dir():
            reached.extend(sorted(_walk(path, selection, found)))
        elif not (selection.force_exclude and _force_excluded(path, selection, found)):
            reached.append(path)
    found.files = _once(reached)
    return found


def _force_excluded(path: Path, selection: FileSelection, found: Discovery) -> bool:
    """Whether ``--force-exclude`` drops the file ``path`` named on the command line: an exclude pattern
    matches it, or (with the default excludes) a folder it lies in is a run output."""
    if selection.excluded(path):
        return True
    if not selection.skip_run_outputs:
        return False
    output = run_outputs.output_folder(path)
    if output is not None:
        found.skipped.append(output)
    return output is not None


def _once(paths: Sequence[Path]) -> list[Path]:
    """``paths`` with each file once, by the path it is shown by, in that path's place. A file is the
    regular file a path names when it is discovered (its device and inode): ``a.py ./a.py``, a link to a
    file of the tree, a folder given again through a link to it, a hard link, are one file, migrated,
    reported and written once (else its diff is printed twice, which no patch applies, and its second write
    finds it changed). Its path is the first one reached that goes through no symbolic link, else the first
    one reached: ``git apply`` refuses a path beyond a link, and neither it nor GNU patch edits a link."""
    chosen: dict[tuple[int, int] | Path, Path] = {}
    for path in paths:
        key = _identity(path) or path  # (a path that names no regular file is its own: reading it says why)
        kept = chosen.setdefault(key, path)
        if kept != path and _through_link(kept) and not _through_link(path):
            chosen[key] = path
    shown = set(chosen.values())
    return [path for path in dict.fromkeys(paths) if path in shown]


def _identity(path: Path) -> tuple[int, int] | None:
    """The device and inode of the regular file ``path`` names (through links), if it names one."""
    try:
        status = os.stat(path)
    except OSError:
        return None
    return (status.st_dev, status.st_ino) if stat.S_ISREG(status.st_mode) else None


def _through_link(path: Path) -> bool:
    """Whether ``path`` is a symbolic link or goes through one (a folder of it, as written)."""
    return any(os.path.islink(part) for part in (path, *path.parents) if part.name)


def _walk(top: Path, selection: FileSelection, found: Discovery | None = None) -> Iterator[Path]:
    """The files to take under ``top``; what cannot be read or is skipped with a warning goes in ``found``."""
    found = Discovery() if found is None else found
    ignores = _GitIgnores(top) if selection.respect_gitignore else None

    def unreadable(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename else top
        found.errors.append((where, f"cannot read folder, its files are not checked: {exc.strerror or exc}"))

    for folder, dirs, files in os.walk(top, onerror=unreadable):
        here = Path(folder)
        why = run_outputs.why_output(here.name, dirs, files) if selection.skip_run_outputs else None
        if why is not None and here != top:  # (a folder named on the command line is walked, as excludes go)
            found.skipped.append((here, why))
            dirs[:] = []
            continue
        excluded = _excluded_here(selection, here)
        ignored = ignores.here(here) if ignores else None
        dirs[:] = sorted(d for d in dirs if not excluded(d, True) and not (ignored and ignored(d, True)))
        for name in sorted(files):
            taken = name.endswith(selection.suffixes) or selection.included(here / name)  # (no path for most)
            if not taken or excluded(name, False):
                continue
            if not (ignored and ignored(name)) and _source_file(here / name, found):
                yield here / name


def _source_file(path: Path, found: Discovery) -> bool:
    """Whether a walk takes ``path``: a regular file, or a link to one. A link that loops is skipped with a
    warning; one to nothing is taken (reading it says so, as before)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            found.warnings.append((path, "symbolic link loop, skipped"))
            return False
        return True


def _excluded_here(selection: FileSelection, here: Path) -> Callable[[str, bool], bool]:
    """``selection.excluded`` for the entries of the folder ``here``: its path from the root is worked out
    once, not for each entry (the walk's main cost on a large tree)."""
    folder, root = os.path.abspath(here), os.path.abspath(selection.root)
    if not (folder == root or folder.startswith(root.rstrip(os.sep) + os.sep)):  # outside the project
        return lambda name, is_dir: selection.excluded(here / name, is_dir)
    spec = _spec((*selection.exclude, *selection.extend_exclude))
    relative = _relative(folder, root)
    prefix = "" if relative == "." else relative + "/"
    return lambda name, is_dir: bool(spec.decision(prefix + name + ("/" if is_dir else "")))


class _GitIgnores:
    """The ``.gitignore`` files that apply under ``top``: those of its folders and, inside a git repository,
    those of the folders above it up to the repository's root. The deepest file that decides, wins."""

    def __init__(self, top: Path) -> None:
        top = top.resolve()
        repository = next((d for d in (top, *top.parents) if (d / ".git").exists()), None)
        self._top = repository or top
        self._specs: dict[Path, _Spec | None] = {}
        # a resolved folder -> the specs that apply to its entries, deepest first, each with the folder's
        # path from the spec's own folder ("" for its own .gitignore, "sub/" one level down, ...)
        self._chains: dict[Path, list[tuple[str, _Spec]]] = {}

    def ignored(self, path: Path, is_dir: bool = False) -> bool:
        path = path.resolve()
        folders = [p for p in path.parents if p == self._top or self._top in p.parents]
        for folder in folders:  # deepest first
            spec = self._spec(folder)
            if spec is None:
                continue
            relative = path.relative_to(folder).as_posix() + ("/" if is_dir else "")
            decision = spec.decision(relative)
            if decision is not None:
                return decision
        return False

    def here(self, folder: Path) -> Callable[..., bool]:
        """``ignored`` for the entries (names) of ``folder``, with the folder resolved once: the same answers
        (a symbolic link is resolved as ``ignored`` resolves it, entry by entry)."""
        chain = self._chain(folder.resolve())

        where = str(folder)

        def ignored(name: str, is_dir: bool = False) -> bool:
            if os.path.islink(os.path.join(where, name)) and _resolves(folder / name):
                return self.ignored(folder / name, is_dir)
            entry = name + ("/" if is_dir else "")
            for prefix, spec in chain:
                decision = spec.decision(prefix + entry)
                if decision is not None:
                    return decision
            return False

        return ignored

    def _chain(self, folder: Path) -> list[tuple[str, _Spec]]:
        if folder not in self._chains:
            chain: list[tuple[str, _Spec]] = []
            if folder == self._top or self._top in folder.parents:
                spec = self._spec(folder)
                chain = [("", spec)] if spec is not None else []
                if folder != self._top:
                    chain += [(prefix + folder.name + "/", s) for prefix, s in self._chain(folder.parent)]
            self._chains[folder] = chain
        return self._chains[folder]

    def _spec(self, folder: Path) -> _Spec | None:
        if folder not in self._specs:
            ignore_file = folder / ".gitignore"
            try:
                lines = ignore_file.read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                lines = None
            spec = pathspec.GitIgnoreSpec.from_lines(lines) if lines is not None else None
            self._specs[folder] = _Spec(spec) if spec is not None else None
        return self._specs[folder]


def _resolves(link: Path) -> bool:
    """Whether the link ``link`` leads somewhere, or to nothing, without a loop: a loop is judged by its own
    name (``Path.resolve`` raises on it)."""
    try:
        os.stat(link)
    except OSError as exc:
        return exc.errno != errno.ELOOP
    return True

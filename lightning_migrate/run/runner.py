"""Run the codemod over files: one file per call of ``process_file`` (in a process pool for many), findings
filtered by ``# noqa`` and the selection, and which target release was chosen and why."""

from __future__ import annotations

import codecs
import difflib
import gc
import os
import re
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, NamedTuple

from lightning_migrate.files import run_cache, scratch, sourcefile
from lightning_migrate.plan.callsite import Run
from lightning_migrate.plan.prefilter import may_need_migration, mentions
from lightning_migrate.plan.trainers import RunSubclasses
from lightning_migrate.project import cli_classes, lightning_cli, star_imports
from lightning_migrate.project.hydra import NO_COMMANDS, CommandLine, CommandLines
from lightning_migrate.project.key_references import (
    NO_REFERENCES,
    KeyReferences,
    Ref,
    Taker,
    collected,
    in_file,
    may_refer,
)
from lightning_migrate.project.lightning_cli import NO_CLIS, Command, RunCLIs, launch_commands, may_build
from lightning_migrate.project.loaded_configs import LoadedConfigs, links, may_load
from lightning_migrate.project.subclasses import may_define, of_run
from lightning_migrate.project.takers import in_python, may_take
from lightning_migrate.report.findings import Finding, with_details
from lightning_migrate.run import file_kinds as kinds
from lightning_migrate.run.hydra_commands import command_lines, may_hold
from lightning_migrate.run.options import Options
from lightning_migrate.semantics.model import RELEASES, Version, release

if TYPE_CHECKING:  # (imported where a pool is started: most runs of a few files need none)
    from concurrent.futures import ProcessPoolExecutor


NOT_FIXED = " (not fixed: a linked finding is suppressed)"
NOT_FIXED_WHY = "another finding of this call is suppressed or deselected, and they share its rewrite"


@dataclass
class FileResult:
    path: Path
    findings: list[Finding] = field(default_factory=list)
    suppressed: int = 0  # findings hidden by a noqa comment
    error: str = ""
    error_line: int = 0
    error_column: int = 0
    # Only for a file that changes: the bytes read, the new text and the bytes to write.
    before: bytes = b""
    new: str = ""
    data: bytes | None = None
    skipped: bool = False  # the prefilter proved there is nothing to do
    read_as: sourcefile.Stamp | None = None  # what the path was when read: a write checks it still is
    would_change: bool = False  # the file changes, where its texts were not kept (``Options.texts``)
    patch: bytes | None = None  # its diff, where only that was kept (``Options.only_diffs``)

    @property
    def changed(self) -> bool:
        return self.data is not None or self.would_change

    def let_go(self) -> FileResult:
        """This result without its texts and bytes (written out, or not needed), still saying whether the
        file changes: what a run keeps of each file for its summary and exit status."""
        self.would_change = self.changed
        self.before, self.new = b"", ""
        self.data = self.patch = None
        return self

    @property
    def work_left(self) -> bool:
        """Findings the rewrite does not fix."""
        return any(not f.fixable for f in self.findings)

    def diff(self) -> bytes:
        """A unified diff that ``git apply`` and ``patch -p1`` accept from the current directory: applied to
        the bytes read, it gives the bytes a rewrite writes. Bytes, not text: each line is the file's own
        bytes, in its encoding (a Latin-1 file's diff is Latin-1, as ``git diff`` writes it), with its BOM
        and its line end. A line ends at ``\\n`` only, as for git and GNU patch: a CRLF line keeps its
        ``\\r``, and a file whose lines end with a lone ``\\r`` is one line (what ``git diff`` shows)."""
        if self.patch is not None:
            return self.patch
        name = (
            Path(os.path.relpath(self.path)).as_posix()
            if not self.path.is_absolute()
            else self.path.as_posix().lstrip("/")
        )
        path = os.fsencode(name)  # (the name's bytes on disk, whatever the locale)
        after = self.data if self.data is not None else self.before
        lines = difflib.diff_bytes(
            difflib.unified_diff, _lines(self.before), _lines(after), _named(b"a/", path), _named(b"b/", path)
        )
        return b"".join(_terminated(line) for line in lines)


# git's C quoting of a name (quote.c): these escapes, any other control character in octal
_ESCAPES = {ord(c): b"\\" + e.encode() for c, e in zip('\a\b\t\n\v\f\r"\\', 'abtnvfr"\\')}


def _named(prefix: bytes, path: bytes) -> bytes:
    """A ``---``/``+++`` line's name as ``git diff`` writes it (with ``core.quotepath`` off), which ``git
    apply`` and GNU patch both read back: in double quotes, C-escaped, where it holds a control character,
    ``"`` or ``\\``; followed by a tab where it holds a space (GNU patch ends a bare name at a space)."""
    name = prefix + path
    if any(byte < 0x20 or byte == 0x7F or byte in _ESCAPES for byte in path):
        name = b'"' + b"".join(map(_quoted, name)) + b'"'
    return name + (b"\t" if b" " in path else b"")


def _quoted(byte: int) -> bytes:
    if byte in _ESCAPES:
        return _ESCAPES[byte]
    return b"\\%03o" % byte if byte < 0x20 or byte == 0x7F else bytes([byte])


def _lines(data: bytes) -> list[bytes]:
    """``data`` cut after each ``\\n``, the ends kept; a last line without one is the last item."""
    *ended, last = data.split(b"\n")
    return [line + b"\n" for line in ended] + ([last] if last else [])


def _terminated(line: bytes) -> bytes:
    return line if line.endswith(b"\n") else line + b"\n\\ No newline at end of file\n"


def process_file(
    path: Path,
    options: Options,
    data: bytes | None = None,
    cleared: bool | None = None,
    decoded: sourcefile.Source | None = None,
) -> FileResult:
    """Migrate one file (``data``: its bytes when already read, e.g. from standard input, and ``decoded``
    their text when already decoded; ``cleared``: the prefilter's verdict on them when already asked).
    Never raises: whatever goes wrong is the result's error, so the other files of the run are still
    processed."""
    result = FileResult(path)
    try:
        _process(result, options, data, cleared, decoded)
    except sourcefile.SourceError as exc:
        result.error, result.error_line, result.error_column = str(exc), exc.line, exc.column
    except Exception as exc:  # a bug of ours must not stop the run; the file is left as it was
        result.error = f"internal error, file left unchanged: {type(exc).__name__}: {exc}"
    return result


def _process(
    result: FileResult,
    options: Options,
    data: bytes | None,
    cleared: bool | None,
    decoded: sourcefile.Source | None = None,
) -> None:
    if data is None:
        data = sourcefile.read_bytes(result.path)
        result.read_as = sourcefile.stamp(result.path, data)  # (what this process read: a write checks it)
    try:
        source = decoded if decoded is not None else _decode(result.path, data)
    except sourcefile.SourceError:
        if kinds.kind_of(result.path, data.decode("latin-1")).undecodable_is_error(data, result.path):
            raise
        result.skipped = True  # (another tool's file in another encoding: nothing of ours can be in it)
        return
    old = source.text
    kind = kinds.kind_of(result.path, old)
    if cleared is None:
        cleared = not (_needs_parsing(old, options) if kind.python else kind.candidate(old))
        cleared = cleared and not options.clis.of_script(result.path)  # (its CLI's defaults may change)
        cleared = cleared and not options.subclasses.starred_in(result.path)  # (`pl` from a star import)
    result.skipped = cleared
    new, shown, hidden, address = _migrate(old, result, options, frozenset())
    # a call with a suppressed or deselected fixable finding is left as it is: run again without its rewrite
    # (every finding of one rewrite is reported at the call's position)
    left = frozenset((f.line, f.column) for f in hidden if f.fixable)
    if left and new != old:
        new, shown, hidden, address = _migrate(old, result, options, left)
        shown = [
            replace(with_details(f, NOT_FIXED, NOT_FIXED_WHY), fixable=False)
            if f.fixable and (f.line, f.column) in left
            else f
            for f in shown
        ]
    result.findings = sorted(map(address, shown), key=lambda f: (f.line, f.column, f.code))
    if new != old and options.texts:
        result.before, result.new, result.data = data, new, source.encode(new)
    result.would_change = new != old and not options.texts
    if new != old and options.texts and options.only_diffs:
        patch = result.diff()
        result.let_go().patch = patch


def _decode(path: Path, data: bytes) -> sourcefile.Source:
    """``data`` decoded as its kind is: a PEP 263 cookie only in Python (the kind is told by the suffix, else
    by a ``#!`` line, which Latin-1 reads whatever the encoding, after a UTF-8 BOM)."""
    head = data[:256].removeprefix(codecs.BOM_UTF8).decode("latin-1")
    return sourcefile.decode(data, kinds.kind_of(path, head).python)


def _migrate(
    old: str, result: FileResult, options: Options, left: frozenset[tuple[int, int]]
) -> tuple[str, list[Finding], list[Finding], Callable[[Finding], Finding]]:
    """The new text, the findings to show (after ``# noqa`` and the selection) and those hidden, in the
    front end's terms, and how to address them in the file."""
    migrated = kinds.migrate(result.path, old, options, left, result.skipped)
    outcome = migrated.suppress(migrated.findings)
    result.suppressed = len(outcome.suppressed)
    shown = [f for f in (*outcome.kept, *outcome.unused) if options.selects(f.code, result.path)]
    seen = set(shown)  # (a list would make this quadratic in a file's findings)
    return migrated.code, shown, [f for f in migrated.findings if f not in seen], migrated.address


def process_all(
    paths: Sequence[Path], options: Options, jobs: int, progress: Callable[[], object] = lambda: None
) -> list[FileResult]:
    """``process_each``, all of it: the results in the order of ``paths``, for a run that needs them all
    before it goes on (a rewrite writes once every file is read)."""
    results = list(process_each(paths, options, jobs, progress))
    before_write()
    return results


def process_each(
    paths: Sequence[Path], options: Options, jobs: int, progress: Callable[[], object] = lambda: None
) -> Iterator[FileResult]:
    """``process_file`` over ``paths``, each result given as soon as it and those of every path before it are
    done, in the order of ``paths`` (so the output can be written as the run goes, in the order it always
    had). Every file is read here first, for the run's Trainer subclasses and the word-level half of the
    prefilter, and none is kept: those the words pass go to a process pool in batches (``_batches``) that
    each worker reads itself, and this process reads again and clears the rest while the workers work. The
    pool starts for two such files or more (for none or one it would only cost its start), and its workers
    are forked with the codemod's front end already imported. Memory stays that of the files at work, not
    of the tree. What an earlier run in this process remembered of the files by path is forgotten first
    (``files.run_cache``): they may have changed since. The run's temporary folder (``files.scratch``) is
    made here, before any worker is forked, and removed when the last result is given."""
    run_cache.forget()
    with scratch.for_run():
        yield from _each(paths, options, jobs, progress)


def _each(
    paths: Sequence[Path], options: Options, jobs: int, progress: Callable[[], object]
) -> Iterator[FileResult]:
    first = _first_pass(paths, options)
    sizes, quiet, clis = first.sizes, first.quiet, first.clis
    configs = frozenset(path.resolve() for path in first.configs)
    options = replace(
        options, subclasses=first.subclasses, clis=clis, commands=first.commands, configs=configs
    )
    options = _project(options, paths, first.loading, first.references, first.configs)
    options = _with_takers(options, first.python)
    quiet -= {path for path in quiet if os.path.abspath(path) in clis.scripts}
    distinct = list(dict.fromkeys(paths))
    candidates = [path for path in distinct if sizes[path] is not None and path not in quiet]
    chosen = set(candidates)
    here = [path for path in distinct if path not in chosen]  # (and those that cannot be read: reported here)
    ordered = _InOrder(paths)
    if jobs <= 1 or len(candidates) <= 1:
        for path in distinct:
            ordered.add(process_file(path, options) if path in chosen else _here(path, options))
            progress()
            yield from ordered.ready()
        return
    yield from _in_pool(
        [(path, sizes[path] or 0) for path in candidates], here, options, jobs, ordered, progress
    )


class _FirstPass(NamedTuple):
    """What the first pass over the run's files learns (see ``_first_pass``)."""

    sizes: dict[Path, int | None]
    quiet: set[Path]
    subclasses: RunSubclasses
    clis: RunCLIs
    loading: list[tuple[Path, str]]
    references: KeyReferences
    configs: list[Path]
    commands: CommandLines
    python: list[Path]


def _first_pass(paths: Sequence[Path], options: Options) -> _FirstPass:
    """Each file read once and let go: its size (None: it cannot be read or decoded), whether it is a Python
    file the prefilter's words clear, the Trainer subclasses the run's Python files define (read before
    any file is migrated: a file may call a class another file of the run defines), the LightningCLI
    defaults of its scripts judged with the configs its launch commands and folders tie to them, and the few
    Python files that may load a config whose section they pass to a Trainer (``project.loaded_configs``);
    and what in the run's files refers to a key of a Trainer config section (``project.key_references``: only
    where a YAML file of the run may hold a Trainer config, whose rewrite they must follow), with those YAML
    files; and the Hydra command lines of its shell scripts and documents (``run.hydra_commands``), which a
    rewrite of a config below them must not change."""
    sizes: dict[Path, int | None] = {}
    quiet: set[Path] = set()  # Python files without the words any candidate needs
    defining: list[tuple[Path, str]] = []  # (only the few files that may define a subclass are kept)
    starring: list[tuple[Path, list[tuple[int, str]]]] = []  # the files' star imports (not their texts)
    python: list[Path] = []  # the run's Python files (the modules a star import may name)
    building: list[tuple[Path, str]] = []  # (and those that may build a LightningCLI with defaults)
    commands: list[Command] = []  # the launch commands that give a config (not their files' texts)
    loading: list[tuple[Path, str]] = []  # (and those that may load a config)
    referring: list[tuple[tuple[str, str], Ref]] = []  # what refers to a config key (not the files)
    configs: list[Path] = []  # the YAML files of the run that may hold a Trainer config
    hydra_lines: list[CommandLine] = []  # the Hydra command lines that override Trainer flags
    for path in paths:
        try:
            data = sourcefile.read_bytes(path)
            text = _decode(path, data).text
        except sourcefile.SourceError:  # `process_file` reports it
            sizes[path] = None
            continue
        sizes[path] = len(data)
        commands += launch_commands(path, text)
        kind = kinds.kind_of(path, text)
        if kind.name == "yaml" and kind.candidate(text):
            configs.append(path)
        if may_hold(kind.name, text):
            hydra_lines += command_lines(path, kind.name, text)
        if kind.name == "yaml" or kind.python:
            referring += in_file(path, text, kind.python) if may_refer(text, kind.python) else []
        if kind.name in ("notebook", "markdown", "rest") and star_imports.star_modules(text):
            starring.append((path, star_imports.star_modules(text)))
        if not kind.python:
            continue
        if may_build(text):
            building.append((path, text))
        if mentions(text, (options.target,)) is False:
            quiet.add(path)
        if (
            may_define(text)
            or cli_classes.may_define(text)
            or (path.name == "__init__.py" and "import" in text)
        ):
            defining.append((path, text))  # (a Trainer or LightningCLI subclass, or a re-export)
        python.append(path)
        stars = star_imports.star_modules(text)
        if stars:
            starring.append((path, stars))
        if path not in quiet and may_load(text):
            loading.append((path, text))
    run = Run(
        options.target, options.source, options.unsafe, floor=options.floor, pinned=options.source_pinned
    )
    # the Trainer subclasses, and the LightningCLI ones (whose calls take LightningCLI's keywords)
    subclasses = replace(of_run(defining), cli=cli_classes.of_run(defining))
    clis = _clis(building, python, commands, run, paths, subclasses.cli)
    references = collected(referring) if configs else NO_REFERENCES
    hydra = CommandLines(tuple(hydra_lines)) if configs else NO_COMMANDS
    if starring:  # (the names star imports of the project's modules bind, for the files that have them)
        subclasses = replace(subclasses, starred=star_imports.of_run(starring, python, subclasses))
    return _FirstPass(sizes, quiet, subclasses, clis, loading, references, configs, hydra, python)


def _clis(
    building: list[tuple[Path, str]],
    python: list[Path],
    commands: list[Command],
    run: Run,
    paths: Sequence[Path],
    cli: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...],
) -> RunCLIs:
    """The run's LightningCLI calls judged with their configs (``project.lightning_cli``): in the files that
    name LightningCLI (``building``) and those that name a subclass of it another module defines."""
    building = building + _calling(python, building, cli)
    return lightning_cli.of_run(building, commands, run, paths, cli) if building else NO_CLIS


def _calling(
    python: list[Path],
    building: list[tuple[Path, str]],
    cli: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...],
) -> list[tuple[Path, str]]:
    """The Python files, but those of ``building``, that name one of the run's LightningCLI subclasses
    ``cli`` (read again: only in a run whose files define one)."""
    names = {name.rsplit(".", 1)[-1] for name, _, _ in cli}
    known = {path for path, _ in building}
    found = []
    for path in python if names else ():
        if path in known:
            continue
        try:
            text = _decode(path, sourcefile.read_bytes(path)).text
        except sourcefile.SourceError:  # `process_file` reports it
            continue
        if any(name in text for name in names):
            found.append((path, text))
    return found


def _project(
    options: Options,
    paths: Sequence[Path],
    loading: list[tuple[Path, str]],
    references: KeyReferences,
    configs: list[Path],
) -> Options:
    """``options`` with what the run learns across its files before any is migrated: the sections of loaded
    configs that calls pass to a Trainer alone (the YAML front end migrates them), which references to a
    config key follow its rewrite (the configs are migrated, with those sections, to know), then which calls
    their configs settle (judged with both)."""
    if not loading and not references.found:
        return options
    from lightning_migrate.run.followed import follow
    from lightning_migrate.run.loaded import beside, passed_alone, settle

    run_files = {path.resolve() for path in paths}
    linked = links(loading, options.subclasses) if loading else []
    alone = replace(options, loaded=LoadedConfigs(sections=passed_alone(linked, run_files)))
    options = alone
    if any(link.explicit for link in linked):  # (judged with the references the sections' rewrites follow)
        options = replace(alone, loaded=beside(linked, alone, run_files))
    if references.found:
        options = replace(options, references=follow(references, options, configs))
        for _ in range(_ROUNDS if options.loaded.apart else 0):
            judged = beside(linked, replace(alone, references=options.references), run_files)
            if judged == options.loaded:
                break
            options = replace(options, loaded=judged)
            options = replace(options, references=follow(references, options, configs))
        else:
            if options.loaded.apart:  # (no fixed point: the calls beside their configs are reported)
                options = replace(alone, references=follow(references, alone, configs))
    return replace(options, loaded=settle(linked, options, run_files)) if linked else options


# how many times the calls judged beside their configs are judged again with the references that follow
# their sections' rewrites (each time with fewer sections), before they are all left to be reported
_ROUNDS = 3


# the message of a finding whose call the Python front end hands to the runtime shim (`--shim`)
SHIM_FIX = "; fix: build `lightning_migrate.shim"


def _with_takers(options: Options, python: Sequence[Path]) -> Options:
    """``options`` with the Trainer calls of the run that may take a Trainer config's flags
    (``project.takers``), each with whether it builds the runtime shim's Trainer as written or once a run
    with ``--shim`` has written its file (the Python front end is asked, as that run asks it): a config
    whose keys other code reads is handed to the shim where every call that may take it builds it. Asked
    only where code refers to a config's keys (no other config is kept from its rewrite); the run's
    ``python`` files are read again for them."""
    if not options.references.found or not python:
        return options
    asking = replace(options, shim=True, texts=False, only_diffs=False)
    found: list[Taker] = []
    for path in python:
        try:
            data = sourcefile.read_bytes(path)
            source = _decode(path, data)
        except sourcefile.SourceError:
            continue
        if not may_take(source.text):
            continue
        takers = in_python(path, source.text, options.subclasses)
        shimmed: list[Finding] = []
        if any(not taker.built for taker in takers):
            result = process_file(path, asking, data, None, source)
            shimmed = [f for f in result.findings if f.fixable and SHIM_FIX in f.message]
        for taker in takers:
            by_run = any(taker.line <= f.line <= taker.end_line for f in shimmed) and not taker.instantiates
            found.append(replace(taker, by_run=by_run) if by_run else taker)
    return replace(options, references=replace(options.references, takers=tuple(found)))


def _here(path: Path, options: Options) -> FileResult:
    """A file the words cleared (or one that cannot be read), migrated in this process; one that calls a
    Trainer subclass of the run's is a candidate after all (its call is found by the class's name)."""
    try:
        data = sourcefile.read_bytes(path)
        source = _decode(path, data)
    except sourcefile.SourceError:
        return process_file(path, options)  # (it reports why the file cannot be read)
    subclass = any(name in source.text for name in options.subclasses.names)
    called = subclass or bool(options.clis.of_script(path))  # (a LightningCLI with defaults is a candidate)
    called = called or bool(options.subclasses.starred_in(path))  # (and a file star imports give `pl`)
    result = process_file(path, options, data, None if called else True, source)  # (decoded once)
    result.read_as = sourcefile.stamp(path, data)
    return result


class _InOrder:
    """Results taken in any order and given back in the order of ``paths``, each as soon as it and those of
    every path before it are there (a path named twice gets its result twice, as it always did)."""

    def __init__(self, paths: Sequence[Path]) -> None:
        self.paths = paths
        self.next = 0
        self.done: dict[Path, FileResult] = {}
        self.left = Counter(paths)  # how many times each path is still to be given

    def add(self, result: FileResult) -> None:
        self.done[result.path] = result

    def ready(self) -> Iterator[FileResult]:
        while self.next < len(self.paths) and self.paths[self.next] in self.done:
            path = self.paths[self.next]
            self.left[path] -= 1
            yield self.done[path] if self.left[path] else self.done.pop(path)
            self.next += 1


def _in_pool(
    candidates: list[tuple[Path, int]],
    here: list[Path],
    options: Options,
    jobs: int,
    ordered: _InOrder,
    progress: Callable[[], object],
) -> Iterator[FileResult]:
    """The ``candidates`` (path, size) in a pool's workers, the files ``here`` in this process meanwhile,
    each result given by ``ordered`` as soon as it can be. A worker that dies (a native crash) breaks the
    pool: the batches not done yet are migrated again a file at a time (``_alone``), so the file that kills
    a worker is reported, never the run. A worker whose memory passes ``WORKER_MEMORY_LIMIT`` stops after
    the file at work and hands back the rest of its batch: its pool is retired (it finishes the batches its
    workers have started) and a fresh one, forked again from this process, takes the batches left
    (``_Workers``)."""
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    workers = _Workers(jobs, options)

    def take(future: _Future) -> None:
        batch, pool = workers.pending.pop(future)
        try:
            done = future.result()
        except BrokenProcessPool:  # (every batch not done yet when a worker dies)
            workers.lost.extend(batch)
            return
        for result in done.results:
            ordered.add(result)
            progress()
        if done.left:  # (the worker's memory passed the limit)
            workers.renew(pool, done.left)

    try:
        with _ended_by_sigterm(workers.pools):
            for batch in _batches(candidates, jobs):
                workers.submit([path for path, _ in batch])
            for path in here:
                ordered.add(_here(path, options))
                progress()
                for future in [future for future in workers.pending if future.done()]:
                    take(future)
                yield from ordered.ready()
            while workers.pending:
                finished, _ = wait(list(workers.pending), return_when=FIRST_COMPLETED)
                for future in finished:
                    take(future)
                yield from ordered.ready()
    finally:
        for pool in workers.pools:
            pool.shutdown(cancel_futures=True)
    for path in workers.lost:
        ordered.add(_alone(path, options))
        progress()
        yield from ordered.ready()


if TYPE_CHECKING:
    from concurrent.futures import Future

    _Future = Future["_BatchDone"]


class _Workers:
    """The run's pool, and those it retired that still finish batches their workers started. ``pending``:
    each batch handed out and not taken back yet, with the pool it went to (in the order handed out, the
    largest files first)."""

    def __init__(self, jobs: int, options: Options) -> None:
        self.jobs, self.options = jobs, options
        self.pools = [_pool(jobs)]  # (the last one takes new batches)
        self.pending: dict[_Future, tuple[list[Path], ProcessPoolExecutor]] = {}
        self.lost: list[Path] = []  # the files of the batches a dead worker took with it

    def submit(self, batch: list[Path]) -> None:
        from concurrent.futures.process import BrokenProcessPool

        try:
            future = self.pools[-1].submit(process_batch, batch, self.options)
        except BrokenProcessPool:  # (a worker of the pool at work died: it takes nothing more)
            self.lost.extend(batch)
            return
        self.pending[future] = (batch, self.pools[-1])

    def renew(self, pool: ProcessPoolExecutor, left: list[Path]) -> None:
        """A worker of ``pool`` stopped with its memory past the limit, the files ``left`` of its batch not
        migrated: where that pool is the one at work, the batches it has not started move to a fresh pool
        with them (a pool cannot replace one worker: Python's ``max_tasks_per_child`` is 3.11's, and refuses
        forked workers); else (a pool already retired) they go to the one at work."""
        moved = [left]
        if pool is self.pools[-1]:
            for waiting, (batch, owner) in list(self.pending.items()):
                if owner is pool and waiting.cancel():  # (not started by a worker)
                    del self.pending[waiting]
                    moved.append(batch)
            pool.shutdown(wait=False)  # (its workers end once the batches they started are done)
            self.pools.append(_pool(self.jobs))
        for batch in moved:
            self.submit(batch)


def before_write() -> None:
    """Called between the reads and the writes of a run: a test's hook to change files there."""


WORKER_DIED = (
    "the process migrating this file died (a crash in LibCST's native parser: code nested too deeply?); "
    "file left unchanged"
)


def _alone(path: Path, options: Options) -> FileResult:
    """A file of a batch whose worker died, migrated again in a worker of its own: the file that kills it
    is reported (``WORKER_DIED``), never the run, and the other files of its batch are migrated."""
    from concurrent.futures.process import BrokenProcessPool

    pool = _pool(1)
    try:
        return pool.submit(process_file, path, options).result()
    except BrokenProcessPool:
        return FileResult(path, error=WORKER_DIED)
    finally:
        pool.shutdown()


class _BatchDone(NamedTuple):
    """A worker's answer for a batch: the results of its files in order, and the files ``left`` to migrate
    elsewhere when its memory passed ``WORKER_MEMORY_LIMIT`` (the worker is replaced)."""

    results: list[FileResult]
    left: list[Path]


# A worker whose resident memory (VmRSS) passes this after a file is replaced (``_in_pool``): what a long run
# leaves in its heap (fragments of freed syntax trees, decoded notebooks, caches) is not kept for the rest of
# the run, whatever the tree's size. Below the 150 MB goal by more than the largest growth of one file seen
# on the census corpus (a Hydra project's first composition, 14 MB; at 128 MB the largest worker still
# reached 150 MB there, after a file that began near the limit). Only once it has grown by ``WORKER_GROWTH``
# since it was forked (a fresh worker would start about where it did). Read from /proc where there is one
# (Linux); elsewhere workers are not replaced.
WORKER_MEMORY_LIMIT = 120 * 2**20
WORKER_GROWTH = 24 * 2**20
_forked_at = [0]  # a worker's resident memory when it started (set by ``_started``)


def process_batch(batch: Sequence[Path], options: Options) -> _BatchDone:
    """``process_file`` over a batch of files, each read here: a worker's task (no file's bytes cross
    between the processes, and a worker holds only those of the file at work). Stops after a file that
    leaves this process's memory past ``WORKER_MEMORY_LIMIT``, the rest of the batch left."""
    results: list[FileResult] = []
    for index, path in enumerate(batch):
        results.append(process_file(path, options))
        if index + 1 < len(batch) and _over_limit() and (not _trim() or _over_limit()):
            return _BatchDone(results, list(batch[index + 1 :]))
    return _BatchDone(results, [])


def _over_limit() -> bool:
    return _resident() > max(WORKER_MEMORY_LIMIT, _forked_at[0] + WORKER_GROWTH)


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _trim() -> bool:
    """Give the C heap's free pages back to the system (glibc's ``malloc_trim``): what a freed syntax tree
    or decoded notebook leaves between live blocks stays counted in a process's memory, and in that of every
    worker forked from it, until then. False where there is no glibc to ask."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        ctypes.CDLL(None).malloc_trim(0)  # (its result only says whether pages went back)
    except (OSError, AttributeError):  # (another C library: musl has no malloc_trim)
        return False
    return True


def _resident() -> int:
    """This process's resident memory in bytes (0 where /proc cannot tell: the limit is never reached)."""
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except (OSError, ValueError, IndexError):
        return 0


# Each batch is about this share of the work of one worker: few enough batches that little crosses between
# the processes, enough that the workers finish together.
BATCHES_PER_WORKER = 8


def _batches(files: Sequence[tuple[Path, int]], jobs: int) -> list[list[tuple[Path, int]]]:
    """The files (path, size in bytes) in batches, the largest files first: a big file started last would
    leave the other workers idle while it runs (the bigger a file, the longer its migration, roughly). A
    batch holds files up to ``1 / BATCHES_PER_WORKER`` of a worker's share of the bytes, or one file larger
    than that."""
    budget = sum(size for _, size in files) / (jobs * BATCHES_PER_WORKER)
    batches: list[list[tuple[Path, int]]] = []
    total = 0
    for path, size in sorted(files, key=lambda file: -file[1]):
        if not batches or total + size > budget:
            batches.append([])
            total = 0
        batches[-1].append((path, size))
        total += size
    return batches


def _pool(jobs: int) -> ProcessPoolExecutor:
    from concurrent.futures import ProcessPoolExecutor

    from lightning_migrate.frontends.python import frontend as python  # noqa: F401 (imported once here, shared by forked workers)

    _trim()  # (the first pass's freed texts are not the workers' memory)
    gc.freeze()  # the workers' collections leave what they inherit alone (no copies of its memory pages)

    return ProcessPoolExecutor(max_workers=jobs, initializer=_started, initargs=(os.getpid(),))


def _started(parent: int) -> None:
    """A worker's initializer: it ends with its parent (``_end_with_parent``), and knows its memory at its
    start (``WORKER_GROWTH``)."""
    _forked_at[0] = _resident()
    _end_with_parent(parent)


# Linux's prctl(2) option: the signal a process gets when the thread that started it ends (<linux/prctl.h>).
PR_SET_PDEATHSIG = 1
ORPHAN_POLL_S = 1.0  # where there is no prctl: how often a worker looks whether its parent is still there


def _end_with_parent(parent: int) -> None:
    """The worker ends with the run's process, even killed with ``kill -9`` (else it
    would go on under PID 1, holding its memory and the output pipe that a CI step waits on). On Linux the
    kernel kills it (PR_SET_PDEATHSIG); elsewhere a thread looks at its parent's id every second. Either way,
    a parent gone before this ran (the id already changed) ends it at once."""
    if not _kill_on_parent_death():
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()
    if os.getppid() != parent:
        os._exit(1)


def _kill_on_parent_death() -> bool:
    """Ask Linux to SIGKILL this process when its parent ends; False where that cannot be asked."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)) == 0
    except (OSError, AttributeError):  # no C library to load, or no prctl in it
        return False


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(ORPHAN_POLL_S)
    os._exit(1)


@contextmanager
def _ended_by_sigterm(pools: list[ProcessPoolExecutor]) -> Iterator[None]:
    """While the pools work, SIGTERM ends their workers before this process: the default action would leave
    them to finish their batches (or, where nothing ends them with their parent, to run on). The signal then
    goes to the handler it had: the run's (``scratch.leave_on_sigterm``: the run leaves through the normal
    path, removing its folder, and dies of the signal), or the default action, so the run ends as killed by
    it. Only where SIGTERM has one of those two and this is the main thread (the only one that can set a
    handler)."""
    previous = signal.getsignal(signal.SIGTERM)
    if threading.current_thread() is not threading.main_thread() or not (
        previous is signal.SIG_DFL or scratch.sets_sigterm(previous)
    ):
        yield
        return

    def terminate(signum: int, frame: FrameType | None) -> None:
        for pool in pools:
            for process in list((getattr(pool, "_processes", None) or {}).values()):  # (no public way)
                process.kill()
        signal.signal(signum, previous)
        if previous is signal.SIG_DFL:
            os.kill(os.getpid(), signum)
        else:
            scratch.leave_on_sigterm(signum, frame)

    signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _needs_parsing(text: str, options: Options) -> bool:
    return may_need_migration(text, (options.target,), (options.source,), options.subclasses.names)


# --- the target release ------------------------------------------------------------------------------------

_PIN = re.compile(
    r"(?:pytorch[-_]lightning|lightning)\s*(?:\[[^\]]*\])?\s*(==|~=|>=|>(?!=))\s*v?(\d+\.\d+(\.\d+|\.\*)?)",
    re.I,
)
PIN_FILES = ("pyproject.toml", "setup.cfg", "setup.py", "environment.yml", "environment.yaml")


class AutoTarget(NamedTuple):
    """The release ``auto`` chose, why (for the line that says it), and whether it is the project's pin."""

    version: Version
    why: str
    pinned: bool = False

    @property
    def current(self) -> bool:
        """Whether the pin is a release the code's forms are current in: older than 1.5, the first release
        that deprecated a hardware form of 1.4 code (``accelerator="ddp"`` as a training type, LM001;
        ``DDPPlugin`` in ``plugins=``, LM003), so that nothing there is to migrate to; only
        ``distributed_backend=``, which 1.4 itself deprecates, is."""
        return self.pinned and self.version < CURRENT_BEFORE

    @property
    def unreported(self) -> tuple[str, ...]:
        """The codes not reported at this target: those about other releases, where the pin is current."""
        return OTHER_RELEASES if self.current else ()

    @property
    def known(self) -> bool:
        """Whether the model knows the release (a pin older than 1.4 is a release it cannot judge code in)."""
        return (self.version.major, self.version.minor) >= (RELEASES[0].major, RELEASES[0].minor)


CURRENT_BEFORE = Version(1, 5, 0)
# The findings that judge what a call does in releases other than the target (a value only known at run time,
# a call that differed between releases, one the target cannot express, a value the model does not judge):
# not reported where the target is a pin the code is written for, the release it runs on.
OTHER_RELEASES = ("LM101", "LM102", "LM103", "LM104")


def auto_target(start: Path) -> AutoTarget:
    """The release to migrate to: the project's own pin, else the installed release, else the newest."""
    pin = _project_pin(start)
    if pin is not None and pin[0] > RELEASES[-1]:
        newer = f"{pin[0]} pinned in {pin[1]}, newer than the releases lightning-migrate knows"
        return AutoTarget(RELEASES[-1], newer)
    if pin is not None:
        return AutoTarget(pin[0], f"pinned in {pin[1]}", pinned=True)
    import importlib.metadata  # (only for `auto`, and only where no pin is found: a slow import)

    for distribution in ("lightning", "pytorch-lightning"):
        try:
            installed = importlib.metadata.version(distribution)
        except importlib.metadata.PackageNotFoundError:
            continue
        version = release(Version.parse(installed))
        if RELEASES[0] <= version <= RELEASES[-1]:
            return AutoTarget(version, f"{distribution} {installed} is installed")
    return AutoTarget(RELEASES[-1], "the newest release lightning-migrate knows")


def required_floor(start: Path) -> Version:
    """The oldest release the project's code may run on, as its own requirement says: the release its pin
    names (``lightning>=2.0.0``, ``pytorch-lightning==1.9.4``; a pin file of a ``requirements/`` folder
    too, as ``setup.py`` often reads it), else the oldest modelled. Whatever the target, its code runs
    there (``Run.floor``)."""
    pin = _project_pin(start, nested=True)
    return max(pin[0], RELEASES[0]) if pin is not None else RELEASES[0]


def pinned_source(start: Path) -> tuple[Version, Path] | None:
    """The release the project's code runs on where its pin (``required_floor``'s) names a single 1.x
    release line the model knows: `==1.7.7`, `==1.7.*`, `~=1.7.0` (not `>=1.7`, nor `~=1.7`, which takes 1.8
    too); that line as the model knows it (its last patch release), and the file that pins it. The code is
    then judged as that release's (``--source-version``, which wins): what it built there is what a rewrite
    keeps, not what any release might have built. None for any other pin: a range, 2.x (code in the
    target's own forms) or a release older than the model."""
    pin = _project_pin(start, nested=True, exact=True)
    if pin is None:
        return None
    line = release(f"{pin[0].major}.{pin[0].minor}")
    return (line, pin[1]) if line in RELEASES and line < V20 else None


V20 = Version(2, 0, 0)


def _project_pin(start: Path, nested: bool = False, exact: bool = False) -> tuple[Version, Path] | None:
    """The release the project pins and the file that pins it, the nearest folder first (``nested``: the
    pin files of its ``requirements/`` folder too, after its own); with ``exact``, only where that pin
    names one release line."""
    folder = start.resolve() if start.is_dir() else start.resolve().parent
    for directory in (folder, *folder.parents):
        candidates = [directory / name for name in PIN_FILES] + sorted(directory.glob("requirements*.txt"))
        if nested:
            candidates += sorted((directory / "requirements").glob("*.txt"))
        for candidate in candidates:
            match = _pinned(candidate)
            if match is None:
                continue
            one_line = match.group(1) == "==" or (match.group(1) == "~=" and match.group(3) is not None)
            if exact and not one_line:
                return None
            return release(match.group(2).removesuffix(".*")), candidate
    return None


def _pinned(path: Path) -> re.Match[str] | None:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return _PIN.search(text)

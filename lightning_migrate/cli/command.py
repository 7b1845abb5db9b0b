"""The migrate command's run: choose the target, find the files, process them (in a pool, with a progress
bar on a terminal), write or print the result, report, and return the exit status of the one contract:
0 nothing to do, 1 deprecated usage found / files changed / findings left, 2 error."""

from __future__ import annotations

import gc
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import chain
from pathlib import Path

import click

from lightning_migrate.cli import style
from lightning_migrate.cli.config import formatter_line_length
from lightning_migrate.cli.output import Stream
from lightning_migrate.cli.settings import Settings, start_of
from lightning_migrate.files import sourcefile
from lightning_migrate.files.discovery import FileSelection, discover
from lightning_migrate.run import file_kinds as kinds
from lightning_migrate.run.options import Options
from lightning_migrate.run.runner import (
    AutoTarget,
    FileResult,
    auto_target,
    pinned_source,
    process_all,
    process_each,
    process_file,
    required_floor,
)
from lightning_migrate.semantics.model import RELEASES, Version

OK, WORK, ERROR = 0, 1, 2
INTERRUPTED = 130  # the shell's status for a command ended by Ctrl-C (128 + SIGINT)
PROGRESS_DELAY_S = 0.5  # a bar only for runs long enough to be worth watching
# A run allocates syntax trees and the planner's answers by the hundred thousand and frees most of them by
# reference counting alone: at Python's default thresholds (a collection every 700 allocations) the cyclic
# collector walks the growing heap over and over, a quarter of a run's CPU on a real tree. mypy's setting
# (mypy/build.py), inherited by the forked workers; the cycles a run leaves are still collected.
GC_THRESHOLDS = (200_000, 30, 30)


@dataclass(frozen=True)
class Behaviour:
    """How the run talks and ends, as opposed to what it does to the code (``Settings``)."""

    jobs: int | None = None
    quiet: bool = False
    verbose: bool = False
    exit_zero: bool = False
    exit_zero_even_if_changed: bool = False


def default_jobs() -> int:
    """One process under pre-commit, which already runs hooks in parallel; else every CPU."""
    return 1 if os.environ.get("PRE_COMMIT") else os.cpu_count() or 1


def run(
    paths: Sequence[Path], mode: str, settings: Settings, stdin_filename: Path | None, how: Behaviour
) -> int:
    """``mode``: "rewrite", "diff" or "check"."""
    written: list[Path] = []
    try:
        return _run(paths, mode, settings, stdin_filename, how, written)
    except KeyboardInterrupt:
        # (click would print "Aborted!" and exit 1, saying nothing of the files a rewrite has written)
        done = "".join(f"\n  {path.as_posix()}" for path in written)
        told = f"{len(written)} file{'s' * (len(written) != 1)} written:{done}\nno other file was written"
        click.echo(f"lightning-migrate: interrupted; {told if written else 'no file was written'}.", err=True)
        return INTERRUPTED


def _target(settings: Settings, start: Path, how: Behaviour) -> tuple[Version, tuple[str, ...], bool]:
    """The release to migrate to, the codes not reported there, and whether the code is judged at all (not
    where ``auto`` finds a pin older than the model); said on stderr. The release ``auto`` chose is said under
    -q too (the findings mean nothing without it); one the command line or configuration named is not."""
    target = settings["target-version"]
    if target is not None:
        _say(how, f"lightning-migrate: target Lightning {target}")
        return target, (), True
    chosen = auto_target(start)
    click.echo(f"lightning-migrate: target Lightning {_chosen(chosen)}", err=True)
    return chosen.version, chosen.unreported, chosen.known or not chosen.current


def _run(
    paths: Sequence[Path],
    mode: str,
    settings: Settings,
    stdin_filename: Path | None,
    how: Behaviour,
    written: list[Path],
) -> int:
    started_ns = time.time_ns()
    gc.set_threshold(*GC_THRESHOLDS)
    if how.verbose:
        where = settings.config.path or "none found, defaults apply"
        click.echo(f"lightning-migrate: configuration: {where}", err=True)
    start = start_of(paths, stdin_filename)  # (where the project's pin is looked for)
    target, ignore, judged = _target(settings, start, how)
    options = settings.options(target)
    # (--check needs to know only that a file would change: its texts stay in the worker)
    floor = required_floor(start)
    options = replace(options, ignore=options.ignore + ignore, texts=mode != "check", floor=floor)
    options = _pinned_source(options, start)
    if mode != "check":  # (--check writes no code: the formatter's settings are not looked for)
        options = replace(options, line_length=settings["line-length"] or formatter_line_length(start))
    options = replace(options, only_diffs=mode == "diff")  # (a diff's texts wait for no one in this process)
    stdout_taken = mode == "diff" or (mode == "rewrite" and list(paths) == [Path("-")])
    stream = Stream(settings["output-format"], mode, stdout_taken, how.quiet, live=False)
    stream.details = settings["show-details"]
    stream.statistics, stream.show_fixes = settings["statistics"], settings["show-fixes"]
    stream.keep_plain = how.verbose  # (each file's fate is said)
    stream.colour = style.colour()
    if not judged:
        if list(paths) == [Path("-")] and mode == "rewrite":  # (a pipe never loses code)
            sys.stdout.buffer.write(sys.stdin.buffer.read())
        stream.close(summary_wanted=False)  # (an empty report in the format asked: JSON's `[]`)
        return OK
    if list(paths) == [Path("-")]:
        stream.add(_stdin(stdin_filename, settings, options, mode))
    else:
        selection = settings.selection()
        found = discover(paths, selection)
        for path, warning in found.warnings:
            _say(how, f"lightning-migrate: warning: {path.as_posix()}: {warning}")
        if how.verbose:
            click.echo(f"lightning-migrate: walked: {walked(found.files, selection)}", err=True)
            for folder, why in found.skipped:
                click.echo(
                    f"lightning-migrate: skipped {folder.as_posix()}/: {why}, written by a run", err=True
                )
        # a folder the walk cannot read is an error of its own: its files could hold old calls
        unread = [FileResult(path, error=message) for path, message in found.errors]
        if not found.files and not unread:
            _say(how, "lightning-migrate: no files to process (none found, or all excluded).")
            stream.close(summary_wanted=False)  # (an empty report in the format asked: JSON's `[]`)
            return OK
        if mode == "rewrite":  # (every file is read before the first is written)
            results = unread + (_process(found.files, options, how) if found.files else [])
            _write(results, started_ns, written)
            for result in results:
                stream.add(result)
        else:
            # findings as the files are done (a diff's come after the diffs, as they always did; a progress
            # bar or the fates of -v keep them to the end too); each file's texts let go once written out
            stream.live = mode == "check" and not how.verbose and not _bar(found.files, how)
            for result in chain(unread, _each(found.files, options, how) if found.files else ()):
                if mode == "diff" and result.changed:
                    _print_diff(result)
                stream.add(result.let_go())
    if how.verbose:
        for result in stream.results:
            click.echo(f"lightning-migrate: {_fate(result, mode)}", err=True)
    stream.close()
    return exit_status(stream.results, how)


def _pinned_source(options: Options, start: Path) -> Options:
    """``options`` with the release the project pins as the source, where no `--source-version` is given and
    the pin names one release line older than the target (``runner.pinned_source``); said on stderr, under
    -q too, as the target is (the findings mean nothing without it)."""
    pinned = pinned_source(start) if options.source is None else None
    if pinned is None or pinned[0] >= options.target:
        return options
    said = f"source Lightning {pinned[0]} (pinned in {pinned[1].name}; --source-version to say otherwise)"
    click.echo(f"lightning-migrate: {said}", err=True)
    return replace(options, source=pinned[0], source_pinned=True)


def _chosen(chosen: AutoTarget) -> str:
    """The line that says which release ``auto`` chose; for a pin the code's forms are current in, that
    there is nothing to migrate to, and how to migrate."""
    if not chosen.current:
        return f"{chosen.version} ({chosen.why})"
    newest = RELEASES[-1].minor_line
    pin = f"{chosen.version} is the project's pin ({chosen.why})"
    how = f"pass --target-version {newest} to migrate"
    if not chosen.known:
        older = f"older than the releases lightning-migrate knows ({RELEASES[0].minor_line} to {newest})"
        return f"{pin}, {older}: nothing to migrate to; {how}"
    return f"{pin}: nothing to migrate to but what {chosen.version.minor_line} deprecates itself; {how}"


def walked(files: Iterable[Path], selection: FileSelection) -> str:
    """The kinds of files a run takes, each with how many it found: those a walk takes by default, those
    ``extend-include`` takes (or a path named brought in), then those left to ``extend-include``."""
    counts = Counter(kinds.kind_of(path).name for path in files)
    taken = [
        kind.name
        for kind in kinds.KINDS
        if kind.walked or counts[kind.name] or any(selection.included(Path(f"a{s}")) for s in kind.suffixes)
    ]
    said = ", ".join(f"{name} ({counts[name]} file{'s' * (counts[name] != 1)})" for name in taken)
    left = [kind.name for kind in kinds.KINDS if kind.name not in taken]
    return said + (f"; {' and '.join(left)} only with --extend-include" if left else "")


def _say(how: Behaviour, message: str) -> None:
    if not how.quiet:
        click.echo(message, err=True)


def _bar(files: list[Path], how: Behaviour) -> bool:
    """Whether the run shows a progress bar: on a terminal, for more than one file."""
    return not how.quiet and sys.stderr.isatty() and len(files) > 1


def _process(files: list[Path], options: Options, how: Behaviour) -> list[FileResult]:
    return list(_each(files, options, how, process_all))


def _each(
    files: list[Path],
    options: Options,
    how: Behaviour,
    each: Callable[..., Iterable[FileResult]] = process_each,
) -> Iterator[FileResult]:
    jobs = how.jobs or default_jobs()
    if not _bar(files, how):
        yield from each(files, options, jobs)
        return
    from tqdm import tqdm  # (only for a bar on a terminal: its import costs more than a small run)

    with tqdm(total=len(files), unit="file", delay=PROGRESS_DELAY_S, leave=False) as bar:
        yield from each(files, options, jobs, progress=bar.update)


def _stdin(name: Path | None, settings: Settings, options: Options, mode: str) -> FileResult:
    """``-``: the source comes from standard input; rewrite mode prints the new source (or the input as it
    was, when there is nothing to do or it cannot be processed), so a pipe never loses code."""
    data = sys.stdin.buffer.read()
    path = name or Path("-")
    selection = settings.selection()
    if name is not None and selection.force_exclude and selection.excluded(name):
        result = FileResult(path)
    else:
        result = process_file(path, options, data)
    if mode == "rewrite":
        sys.stdout.buffer.write(result.data if result.data is not None else data)
    elif mode == "diff" and result.changed:
        _print_diff(result)
    return result


def _print_diff(result: FileResult) -> None:
    """The file's diff on standard output as bytes, each file's in its own encoding (click writes bytes to
    the binary stream under standard output, once the text stream is flushed)."""
    click.echo(result.diff(), nl=False)


def _write(results: list[FileResult], started_ns: int, written: list[Path]) -> None:
    """Write the rewritten files, each only if it is still what was read; ``written`` grows as they are."""
    for result in results:
        if result.data is None:
            continue
        try:
            if result.read_as is None:
                raise sourcefile.WriteError("cannot tell what the path was when it was read, not written")
            sourcefile.write_checked(result.path, result.data, result.read_as, started_ns)
        except sourcefile.WriteError as exc:
            _not_written(result, str(exc))
        except OSError as exc:  # (a read-only folder, a full disk)
            _not_written(result, f"cannot write, file left as it was: {exc.strerror or exc}")
        else:
            written.append(result.path)


def _not_written(result: FileResult, why: str) -> None:
    """A file whose rewrite was not written: an error, and none of its findings is fixed."""
    result.error, result.data = why, None
    result.findings = [replace(f, fixable=False) for f in result.findings]


def _fate(result: FileResult, mode: str) -> str:
    path = result.path.as_posix()
    if result.error:
        return f"{path}: error"
    if result.skipped and not result.findings:
        return f"{path}: skipped (no call in its text can need a migration: not parsed)"
    done = {"rewrite": "rewritten", "diff": "would be rewritten", "check": "would be rewritten"}[mode]
    fate = done if result.changed else "unchanged"
    count = len(result.findings)
    return f"{path}: {fate}, {count} finding{'s' * (count != 1)}"


def exit_status(results: Sequence[FileResult], how: Behaviour) -> int:
    if any(r.error for r in results):
        return ERROR
    if how.exit_zero:
        return OK
    if any(r.work_left for r in results):
        return WORK
    changes = any(r.changed or any(f.fixable for f in r.findings) for r in results)
    return WORK if changes and not how.exit_zero_even_if_changed else OK

"""Where the CPU of ``lightning-migrate --check`` goes on a tree: per kind of file, per project, per file.

    python benchmarks/profile_tree.py PATH/TO/TREE [--target-version 2.6] [--top 15] [--cprofile OUT]
        [-- EXTRA lightning-migrate OPTIONS]

One process (``--jobs 1``), so that each file's time is its own and every cache is the run's: the CPU
seconds (``time.process_time``) of the first pass over the run's files, of the project pass (the configs
scripts load, the key references a rewrite follows), and of each file's migration (a file the word test
clears included), summed by suffix and by the tree's first folder (a project of the census corpus), then
the slowest files; and the Hydra compositions the run composed (hydra-core's own work: how many, how long,
asked by which step). ``--cprofile OUT`` also writes a cProfile of the run, timed in CPU seconds too (the
wall clock of a shared machine says little); its clock makes the run slower, the shares still hold.
Nothing is written to the tree (``--check``); the report goes to standard output, the run's to /dev/null.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import sys
import time
import traceback
from collections import Counter, defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _timed(
    table: dict[str, float], key: Callable[..., str], function: Callable[..., Any]
) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            name = key(*args)
            table[name] = table.get(name, 0.0) + time.process_time() - start

    return timed


_COMPOSING = frozenset({"trainer_node", "_remembered", "_composed"})


def _asker(stack: traceback.StackSummary) -> str:
    """The step that asked for a composition (the innermost function of ours that is not the composing
    itself: ``hydra._selected``, ``compose.variants``, ``compose.composed_read`` ...)."""
    ours = [f.name for f in stack if "lightning_migrate" in f.filename and f.name not in _COMPOSING]
    return ours[-1] if ours else "?"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("tree", type=Path)
    parser.add_argument("--target-version", default="2.6")
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--cprofile", type=Path, help="write a cProfile of the run (CPU seconds) here")
    given = sys.argv[1:]
    cut = given.index("--") if "--" in given else len(given)  # (the options after `--` are the run's)
    args = parser.parse_args(given[:cut])
    args.extra = given[cut + 1 :]
    if not args.tree.is_dir():
        sys.exit(f"no tree at {args.tree}")

    from lightning_migrate.cli.main import main as cli
    from lightning_migrate.project import hydra
    from lightning_migrate.run import runner

    files: dict[str, float] = {}
    passes: dict[str, float] = {}
    runner.process_file = _timed(files, lambda path, *_: str(path), runner.process_file)
    runner._here = _timed(files, lambda path, *_: str(path), runner._here)
    runner._first_pass = _timed(passes, lambda *_: "first pass", runner._first_pass)
    runner._project = _timed(passes, lambda *_: "project pass", runner._project)
    runner._with_takers = _timed(passes, lambda *_: "takers pass", runner._with_takers)
    composed: list[tuple[str, float]] = []
    compose = hydra._composed

    def counted(*a: Any, **k: Any) -> Any:
        start, asker = time.process_time(), _asker(traceback.extract_stack())
        try:
            return compose(*a, **k)
        finally:
            composed.append((asker, time.process_time() - start))

    hydra._composed = counted
    sys.argv = ["lightning-migrate", "--check", "--target-version", args.target_version, "-j", "1"]
    sys.argv += [*args.extra, str(args.tree)]
    profile = cProfile.Profile(time.process_time) if args.cprofile else None
    start = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        if profile is not None:
            profile.enable()
        with contextlib.suppress(SystemExit):
            cli()
        if profile is not None:
            profile.disable()
    total = time.process_time() - start
    if profile is not None:
        profile.dump_stats(str(args.cprofile))

    _report(args.tree.resolve(), total, passes, files, composed, args.top)
    print(f"(tree: {args.tree}, target {args.target_version})")


def _shown(path: Path, root: Path) -> str:
    return str(path.relative_to(root)) if path.is_relative_to(root) else str(path)


def _table(
    title: str, rows: dict[str, float], counts: Counter[str] | None, top: int, counted: str = "files"
) -> None:
    counted = f" | {counted}" if counts is not None else ""
    print(f"\n| {title}{counted} | CPU s |\n|---|{'---|' if counts is not None else ''}---|")
    for name, seconds in sorted(rows.items(), key=lambda item: -item[1])[:top]:
        print(f"| {name}{f' | {counts[name]}' if counts is not None else ''} | {seconds:.2f} |")


def _report(
    root: Path,
    total: float,
    passes: dict[str, float],
    files: dict[str, float],
    composed: list[tuple[str, float]],
    top: int,
) -> None:
    by_kind: defaultdict[str, float] = defaultdict(float)
    counts: Counter[str] = Counter()
    by_project: defaultdict[str, float] = defaultdict(float)
    for name, seconds in files.items():
        path = Path(name).resolve()
        by_kind[path.suffix or "(none)"] += seconds
        counts[path.suffix or "(none)"] += 1
        inside = path.relative_to(root).parts if path.is_relative_to(root) else ()
        by_project[inside[0] if len(inside) > 1 else "."] += seconds
    print(f"one process: {total:.2f} CPU s in all")
    for name, seconds in passes.items():
        print(f"  {name}: {seconds:.2f} s")
    print(f"  files: {sum(files.values()):.2f} s ({len(files)} files)")
    _table("kind", by_kind, counts, len(by_kind))
    _table("project", by_project, None, top)
    _table("file", {_shown(Path(n).resolve(), root): s for n, s in files.items()}, None, top)
    askers: defaultdict[str, float] = defaultdict(float)
    asked: Counter[str] = Counter()
    for asker, seconds in composed:
        askers[asker] += seconds
        asked[asker] += 1
    print(f"\nHydra compositions composed: {len(composed)}, {sum(askers.values()):.2f} CPU s")
    _table("asked by", askers, asked, len(askers), "compositions")


if __name__ == "__main__":
    main()

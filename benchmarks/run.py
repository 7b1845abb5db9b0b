"""Time lightning-migrate against a plain LibCST pass, on generated corpora, in one run.

    python benchmarks/run.py --files 2000 --seed 0 --repeat 3

Generates two corpora with ``corpus.py`` (one with a few percent of deprecated calls, one with nothing to
migrate), then times, best of ``--repeat``, wall clock, each command in a fresh subprocess so interpreter and
import start-up count on both sides:

  (a) a plain LibCST pass: parse and re-emit every file (``cst.parse_module(text).code``), one process;
  (b) ``lightning-migrate --check`` and ``--diff`` on the corpus, through the installed console script;
  (c) ``lightning-migrate --check`` on the corpus with nothing to migrate,

and prints the ratios (a)/(b) and (a)/(c), the latter against the plain pass over that same clean corpus.
Goals (issue 4): (a)/(b) >= 10, (a)/(c) >= 30.

Every timed command runs with Python's bytecode cache on, as users have it: ``PYTHONDONTWRITEBYTECODE`` is
removed from its environment (set, it makes each process compile every module it imports, some 50 ms and
more per start), and each command runs once untimed first, so the ``.pyc`` files exist.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from corpus import generate

PLAIN_PASS = """
import sys
from pathlib import Path
import libcst as cst
for path in sorted(Path(sys.argv[1]).rglob("*.py")):
    text = path.read_text(encoding="utf-8")
    assert cst.parse_module(text).code == text
"""


def tool() -> list[str]:
    script = Path(sys.executable).parent / "lightning-migrate"
    if not script.exists():
        sys.exit(f"no {script}: install the project in this interpreter's environment (pip install -e .)")
    return [str(script)]


# the environment of every timed command: with the bytecode cache, as users run it
TIMED_ENV = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


def best_of(repeat: int, command: list[str], expect: set[int]) -> tuple[float, float]:
    """The best wall-clock time and the best CPU time (user + system) of ``repeat`` runs, after one untimed
    run that writes the ``.pyc`` files; CPU time says what the wall clock means on a machine that other work
    shares."""
    return best_of_each(repeat, [(command, expect)])[0]


def best_of_each(repeat: int, commands: list[tuple[list[str], set[int]]]) -> list[tuple[float, float]]:
    """``best_of`` for several commands (each with the exit statuses it may end with), run in turn in each
    round, so that the machine's other work weighs on all of them alike (the ratios between them are what
    the goals are about)."""
    for command, _ in commands:  # (writes the .pyc files)
        subprocess.run(command, capture_output=True, env=TIMED_ENV, check=False)
    walls: list[list[float]] = [[] for _ in commands]
    cpus: list[list[float]] = [[] for _ in commands]
    for _ in range(repeat):
        for index, (command, expect) in enumerate(commands):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            done = subprocess.run(
                command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=TIMED_ENV, check=False
            )
            walls[index].append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus[index].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            if done.returncode not in expect:
                sys.exit(f"{' '.join(command)} exited {done.returncode}:\n{done.stderr.decode()[-2000:]}")
    return [(min(w), min(c)) for w, c in zip(walls, cpus)]


def passed_by_prefilter(folder: Path, target: str) -> int:
    """How many files the prefilter passes to the codemod (the others are not parsed at all)."""
    from lightning_migrate.plan.prefilter import may_need_migration
    from lightning_migrate.semantics.model import release

    version = release(target)
    paths = folder.rglob("*.py")
    return sum(may_need_migration(p.read_text(encoding="utf-8"), (version,), (None,)) for p in paths)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    parser.add_argument("--target-version", default="2.6")
    parser.add_argument("--workdir", type=Path, help="keep the corpora here (default: a temporary folder)")
    parser.add_argument("--tool-arg", action="append", default=[], help="extra argument for the tool")
    args = parser.parse_args()

    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="lm-bench-"))
    corpus, clean = workdir / "corpus", workdir / "clean"
    for folder in (corpus, clean):
        shutil.rmtree(folder, ignore_errors=True)
    counts = generate(corpus, args.files, args.seed)
    generate(clean, args.files, args.seed, deprecated=0.0)
    size = sum(p.stat().st_size for p in corpus.rglob("*.py")) / 1e6
    print(f"corpus: {args.files} files, {size:.1f} MB, {counts}")
    for folder in (corpus, clean):
        passed = passed_by_prefilter(folder, args.target_version)
        print(f"  {folder.name}: the prefilter passes {passed} files")

    migrate = [*tool(), "--target-version", args.target_version, *args.tool_arg]
    plain = [sys.executable, "-c", PLAIN_PASS]
    rows = [
        ("(a) plain LibCST pass, corpus", best_of(args.repeat, [*plain, str(corpus)], {0})),
        ("(b) --check, corpus", best_of(args.repeat, [*migrate, "--check", str(corpus)], {1})),
        ("(b) --diff, corpus", best_of(args.repeat, [*migrate, "--diff", str(corpus)], {1})),
        ("(a') plain LibCST pass, clean corpus", best_of(args.repeat, [*plain, str(clean)], {0})),
        ("(c) --check, clean corpus", best_of(args.repeat, [*migrate, "--check", str(clean)], {0})),
    ]
    print(f"{'best of ' + str(args.repeat):40s} {'wall':>8s} {'cpu':>8s}")
    for label, (wall, cpu) in rows:
        print(f"{label:40s} {wall:7.2f}s {cpu:7.2f}s")
    times = dict(rows)
    plain, plain_clean = times["(a) plain LibCST pass, corpus"], times["(a') plain LibCST pass, clean corpus"]
    for label, base, mode, goal in (
        ("(a)/(b) --check", plain, "(b) --check, corpus", 10),
        ("(a)/(b) --diff", plain, "(b) --diff, corpus", 10),
        ("(a')/(c)", plain_clean, "(c) --check, clean corpus", 30),
    ):
        wall, cpu = (base[i] / times[mode][i] for i in (0, 1))
        print(f"{label:16s} wall {wall:6.1f}x   cpu {cpu:6.1f}x   (goal >= {goal}x)")
    if args.workdir is None:
        shutil.rmtree(workdir)


if __name__ == "__main__":
    main()

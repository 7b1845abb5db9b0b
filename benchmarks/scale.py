"""Time and memory of ``lightning-migrate --check`` on a tree of old projects beside ``ruff check``, one run.

    python benchmarks/scale.py PATH/TO/TREE --repeat 3

Nothing is fetched: the tree is the path given (the census corpus of old public projects, say); without
one, or where it is missing, the script says so and exits 0. Each command runs in a fresh process, in turn
in each round (so that other work on the machine weighs on all of them alike), best of ``--repeat``, in
wall seconds and in CPU seconds (user + system of the command and of every process below it, which says
what the wall clock means on a machine that other work shares):

  ruff:     ``ruff check --no-cache --select E,F --exit-zero TREE`` (the ruff of this interpreter's
            environment);
  all:      ``lightning-migrate --check --target-version 2.6 TREE``;
  .py only: the same without notebooks and YAML files (``--extend-exclude``);
  no .ipynb: the same without notebooks.

While a command runs, ``/proc/<pid>/status`` of its process and of every process below it is read every
few milliseconds: the peak resident memory (``VmHWM``) of the command's own process (the parent) and the
largest of its children's (the pool's workers, and those that replaced a worker past its memory limit),
each process on its own, which ``ru_maxrss`` of ``RUSAGE_CHILDREN`` cannot tell apart, and how many worker
processes the run started. Goals (issue 23): ``--check`` within 3x ``ruff check`` and each
process at most 150 MB, whatever the tree's size. Linux only (``/proc``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from run import TIMED_ENV, tool

SAMPLE_S = 0.005
VARIANTS: dict[str, list[str]] = {
    "all": [],
    ".py only": ["--extend-exclude", "*.ipynb", "--extend-exclude", "*.yaml", "--extend-exclude", "*.yml"],
    "no .ipynb": ["--extend-exclude", "*.ipynb"],
}


@dataclass
class Peaks:
    """The highest ``VmHWM`` seen of each process of a command's tree, in kB."""

    root: int
    seen: dict[int, int] = field(default_factory=dict)

    @property
    def parent_mb(self) -> float:
        return self.seen.get(self.root, 0) / 1024

    @property
    def worker_mb(self) -> float:
        return max((kb for pid, kb in self.seen.items() if pid != self.root), default=0) / 1024

    @property
    def workers(self) -> int:
        """How many worker processes the run started (a worker past its memory limit is replaced)."""
        return len(self.seen) - (self.root in self.seen)


def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in Path(f"/proc/{pid}/task").iterdir():
            found += [int(child) for child in (task / "children").read_text().split()]
    except (OSError, ValueError):  # (the process ended meanwhile)
        pass
    return found


def _hwm_kb(pid: int) -> int | None:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    return None


def _sample(peaks: Peaks, running: threading.Event) -> None:
    while running.is_set():
        stack = [peaks.root]
        while stack:
            pid = stack.pop()
            kb = _hwm_kb(pid)
            if kb is not None:
                peaks.seen[pid] = max(kb, peaks.seen.get(pid, 0))
            stack += _children(pid)
        time.sleep(SAMPLE_S)


def measured(command: list[str]) -> tuple[float, float, Peaks, int]:
    """Wall time, CPU time, the peaks of each process, and the exit status of one run of ``command``."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=TIMED_ENV)
    peaks = Peaks(process.pid)
    running = threading.Event()
    running.set()
    sampler = threading.Thread(target=_sample, args=(peaks, running), daemon=True)
    sampler.start()
    _, waited, usage = os.wait4(process.pid, 0)  # (its own usage and that of the workers it waited for)
    wall = time.perf_counter() - start
    process.returncode = status = os.waitstatus_to_exitcode(waited)
    running.clear()
    sampler.join()
    return wall, usage.ru_utime + usage.ru_stime, peaks, status


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("tree", nargs="?", type=Path, help="the tree of projects (nothing is fetched)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--target-version", default="2.6")
    args = parser.parse_args()
    if args.tree is None or not args.tree.is_dir():
        print(f"scale: no tree at {args.tree or '(none given)'}; nothing measured (pass the census corpus)")
        return
    ruff = Path(sys.executable).parent / "ruff"
    if not ruff.exists():
        sys.exit(f"no {ruff}: install the dev extras in this interpreter's environment")
    commands = {"ruff check (E, F)": [str(ruff), "check", "--no-cache", "--select", "E,F", "--exit-zero"]}
    for name, extra in VARIANTS.items():
        commands[f"--check, {name}"] = [*tool(), "--check", "--target-version", args.target_version, *extra]
    for command in commands.values():  # (writes the .pyc files)
        command.append(str(args.tree))
        subprocess.run(command, capture_output=True, env=TIMED_ENV, check=False)
    # the best times; the highest memory of any round
    best: dict[str, tuple[float, float, float, float, int]] = {}
    for _ in range(args.repeat):
        for name, command in commands.items():
            wall, cpu, peaks, status = measured(command)
            if status not in (0, 1, 2):
                sys.exit(f"{' '.join(command)} exited {status}")
            before = best.get(name, (wall, cpu, 0.0, 0.0, 0))
            best[name] = (
                min(wall, before[0]),
                min(cpu, before[1]),
                max(peaks.parent_mb, before[2]),
                max(peaks.worker_mb, before[3]),
                max(peaks.workers, before[4]),
            )
    ruff_wall, ruff_cpu = best["ruff check (E, F)"][:2]
    print(f"tree: {args.tree}, target {args.target_version}, best of {args.repeat} (memory: the highest)")
    print("| | wall s | / ruff | CPU s | / ruff | peak RSS parent MB | peak RSS max worker MB | workers |")
    print("|---|---|---|---|---|---|---|---|")
    for name, (wall, cpu, parent, worker, started) in best.items():
        largest = f"{worker:.0f}" if worker else "-"
        print(
            f"| {name} | {wall:.2f} | {wall / ruff_wall:.1f}x | {cpu:.2f} | {cpu / ruff_cpu:.1f}x"
            f" | {parent:.0f} | {largest} | {started or '-'} |"
        )


if __name__ == "__main__":
    main()

"""Compare the codemod with a migration Lightning's maintainers did by hand: PR #9931, "tests: Use strategy
flag instead of accelerator for training strategies", which rewrote Lightning's own test suite for 1.5.

    python benchmarks/hand_migration.py --repo PATH/TO/pytorch-lightning [--commit 5e8829b97d] [--target 1.5]

For every Python file the commit touches, the file before the commit is migrated with ``--target-version``
and the codemod's line changes are set beside the commit's. A *Trainer hunk* is a hunk of the commit (a run
of changed lines) whose old lines pass a hardware/distribution keyword; each is counted as

  same        the codemod changes those lines into the very same text (spaces aside),
  different   the codemod changes them otherwise (both are printed),
  left        the codemod leaves them (with the finding it reports there, if any),

and the codemod's hunks that change lines the commit left are counted as ``extra``. The repository comes
from the fetch tool or a clone; nothing of it is copied here.
"""

from __future__ import annotations

import argparse
import difflib
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.report.findings import Finding
from lightning_migrate.semantics.model import release
from lightning_migrate.semantics.signature import MODELLED

COMMIT = "5e8829b97d26fa857483756eeef8d302b351b83e"  # #9931
FLAG = re.compile(rf"\b(?:{'|'.join(sorted(MODELLED))})\s*=")


@dataclass(frozen=True)
class Hunk:
    start: int  # first old line, 0-based
    end: int  # one past the last old line
    new: tuple[str, ...]

    def touches(self, other: Hunk) -> bool:
        return (self.start < other.end and other.start < self.end) or self.start == other.start


def hunks(old: list[str], new: list[str]) -> list[Hunk]:
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    changed = (opcode for opcode in matcher.get_opcodes() if opcode[0] != "equal")
    return [Hunk(i1, i2, tuple(new[j1:j2])) for _, i1, i2, j1, j2 in changed]


def squashed(lines: tuple[str, ...] | list[str]) -> str:
    return re.sub(r"\s+", "", "".join(lines))


def show(repo: Path, spec: str) -> str | None:
    done = subprocess.run(["git", "-C", str(repo), "show", spec], capture_output=True, text=True, check=False)
    return done.stdout if done.returncode == 0 else None


def main() -> int:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    parser.add_argument("--repo", type=Path, required=True, help="a pytorch-lightning clone or bare mirror")
    parser.add_argument("--commit", default=COMMIT)
    parser.add_argument("--target", default="1.5")
    parser.add_argument("-v", "--verbose", action="store_true", help="print every hunk that differs")
    args = parser.parse_args()
    target = release(args.target)
    listed = subprocess.run(
        ["git", "-C", str(args.repo), "show", "--format=", "--name-only", args.commit],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    counts = {"same": 0, "different": 0, "left": 0, "extra": 0}
    for path in sorted(p for p in listed if p.endswith(".py")):
        before, after = show(args.repo, f"{args.commit}^:{path}"), show(args.repo, f"{args.commit}:{path}")
        if before is None or after is None:
            continue
        try:
            result = migrate(before, target)
        except SourceError:
            continue
        old = before.splitlines(keepends=True)
        theirs = [
            h
            for h in hunks(old, after.splitlines(keepends=True))
            if FLAG.search("".join(old[h.start : h.end]))
        ]
        ours = hunks(old, result.code.splitlines(keepends=True))
        for hunk in theirs:
            mine = [h for h in ours if h.touches(hunk)]
            if not mine:
                counts["left"] += 1
                said = _findings(result.findings, hunk)
                _report(args.verbose, "left", path, hunk, old, hunk.new, (), said)
            elif squashed(hunk.new) == squashed(_applied(old, hunk, mine)):
                counts["same"] += 1
            else:
                counts["different"] += 1
                _report(args.verbose, "different", path, hunk, old, hunk.new, _applied(old, hunk, mine), [])
        for hunk in ours:
            if not any(hunk.touches(t) for t in theirs):
                counts["extra"] += 1
                _report(args.verbose, "extra", path, hunk, old, (), hunk.new, [])
    total = counts["same"] + counts["different"] + counts["left"]
    print(f"commit {args.commit[:10]}, target {target}: {total} Trainer hunks")
    for key, value in counts.items():
        print(f"  {key:10} {value}")
    return 0


def _applied(old: list[str], region: Hunk, mine: list[Hunk]) -> list[str]:
    """The old lines of ``region`` (and of the codemod's hunks that overlap it) with those hunks applied."""
    start, end = min(region.start, *(h.start for h in mine)), max(region.end, *(h.end for h in mine))
    out, line = [], start
    for hunk in sorted(mine, key=lambda h: h.start):
        out += old[line : hunk.start] + list(hunk.new)
        line = hunk.end
    return out + old[line:end]


def _findings(findings: list[Finding], hunk: Hunk) -> list[str]:
    return [
        f"{f.code} {f.message[:160]}"
        for f in findings
        if hunk.start < f.line <= max(hunk.end, hunk.start + 1)
    ]


def _report(
    verbose: bool,
    kind: str,
    path: str,
    hunk: Hunk,
    old: list[str],
    theirs: tuple[str, ...],
    ours: list[str] | tuple[str, ...],
    said: list[str],
) -> None:
    if not verbose:
        return
    print(f"--- {kind}: {path}:{hunk.start + 1}")
    print("  old:    " + "".join(old[hunk.start : hunk.end]).strip())
    print("  theirs: " + "".join(theirs).strip())
    if ours:
        print("  ours:   " + "".join(ours).strip())
    for line in said:
        print("  finding: " + line)


if __name__ == "__main__":
    sys.exit(main())

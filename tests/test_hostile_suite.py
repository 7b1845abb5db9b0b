"""The fault and bad-input suite (``benchmarks/hostile.py``): every hostile input in check, diff and rewrite
mode, each in a process of its own with the pool in the way, bounded in time. Each case asserts the exit code
of every mode, the message that names the problem, no traceback or "internal error", and the bytes on disk:
unchanged after ``--check`` and ``--diff``, and after the rewrite exactly the expected files rewritten."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
import hostile


@pytest.mark.parametrize("case", list(hostile.cases()), ids=lambda case: case.name)
def test_hostile_input(case: hostile.Case) -> None:
    row = hostile.measure(case, "2.6")
    assert not row.problems, "\n".join(row.problems) + "\n" + row.results["rewrite"].output[-2000:]

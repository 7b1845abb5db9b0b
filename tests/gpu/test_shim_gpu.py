"""Real 2-GPU DDP through the shim. Needs a machine with two CUDA GPUs and a Lightning release installed
(run inside a tox environment: ``LM_LIGHTNING_ROOT=... pytest tests/gpu``); skipped everywhere else."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.skipif(
    not torch.cuda.is_available() or torch.cuda.device_count() < 2, reason="needs two CUDA GPUs"
)

SCRIPT = Path(__file__).parent.parent / "real" / "shim_train.py"
RESULT = re.compile(r"RESULT rank=(\d) world_size=(\d+) global_step=(\d+) loss=([-\d.]+)")


@pytest.mark.parametrize("strategy", ["ddp", "ddp_spawn"])
def test_two_gpu_ddp_through_the_shim(strategy: str) -> None:
    root = str(Path(__file__).resolve().parent.parent.parent)
    run = subprocess.run(
        [sys.executable, str(SCRIPT), strategy, "gpu", "2"],
        capture_output=True,
        text=True,
        timeout=300,
        env=dict(os.environ, PYTHONPATH=root),
        check=False,
    )
    report = f"rc={run.returncode}\n{run.stdout[-2000:]}\n{run.stderr[-3000:]}"
    results = {int(m[0]): m for m in RESULT.findall(run.stdout)}
    assert sorted(results) == [0, 1], report
    assert all(m[1:3] == ("2", "2") for m in results.values()), report
    assert "DONE" in run.stdout, report

"""Real-Lightning tests: collected only inside a tox environment that installed a release."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

if "LM_LIGHTNING_ROOT" not in os.environ:
    collect_ignore_glob = ["*.py"]  # no release installed here; run them with `tox -e pl195` etc.
else:
    sys.path.insert(0, str(Path(__file__).parent))

# Filled by the differential tests; printed at the end of the run so the log says how much agreed.
AGREEMENT: list[str] = []


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if AGREEMENT:
        terminalreporter.section("model vs real Lightning")
        for line in AGREEMENT:
            terminalreporter.write_line(line)

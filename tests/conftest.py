from __future__ import annotations

import sys
from pathlib import Path

# The call grid is shared by the unit property tests and the real-Lightning differential tests.
sys.path.insert(0, str(Path(__file__).parent / "real"))

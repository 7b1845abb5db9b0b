"""Where a rewrite that needs a module the file has no name for (``torch``, for a test of the machine's GPU
count) puts ``import torch``: on the line after the Lightning imports of the import block at the top of the
file, where they stand together, else where LibCST's ``AddImportsVisitor`` puts a new import (after that
block); always before any other statement, and the file's other bytes as they were."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from lightning_migrate.edit.import_edits import Parsed, add_module_import
from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.semantics.model import release

CASES = [
    (  # after Lightning's import, in the third-party group: as isort orders it
        "import argparse\nfrom pathlib import Path\n\nimport pytorch_lightning as pl\n\n"
        "from .data import D\n\nx = 1\n",
        "import argparse\nfrom pathlib import Path\n\nimport pytorch_lightning as pl\nimport torch\n\n"
        "from .data import D\n\nx = 1\n",
    ),
    (  # after the last of the Lightning imports that stand together
        "from pytorch_lightning import Trainer\nfrom pytorch_lightning.callbacks import C\nimport os\n",
        "from pytorch_lightning import Trainer\nfrom pytorch_lightning.callbacks import C\n"
        "import torch\nimport os\n",
    ),
    (  # the unified package, a docstring first
        '"""Doc."""\nimport lightning as L\nimport numpy as np\n\nL.Trainer()\n',
        '"""Doc."""\nimport lightning as L\nimport torch\nimport numpy as np\n\nL.Trainer()\n',
    ),
    (  # no Lightning import at the top: after the import block, a blank line before the code
        "import os\nimport sys\nfrom pl_helpers import make_trainer\nmake_trainer()\n",
        "import os\nimport sys\nfrom pl_helpers import make_trainer\nimport torch\n\nmake_trainer()\n",
    ),
    (  # Lightning imported below other code: not the top block's
        "import os\nos.environ['X'] = '1'\nimport pytorch_lightning as pl\n",
        "import os\nimport torch\n\nos.environ['X'] = '1'\nimport pytorch_lightning as pl\n",
    ),
    (  # the last line, with no line end
        "import pytorch_lightning as pl",
        "import pytorch_lightning as pl\nimport torch\n",
    ),
    (  # Windows line ends, kept
        "import pytorch_lightning as pl\r\nx = 1\r\n",
        "import pytorch_lightning as pl\r\nimport torch\r\nx = 1\r\n",
    ),
]


@pytest.mark.parametrize(("source", "expected"), CASES)
def test_import_torch_is_placed_with_the_files_imports(source: str, expected: str) -> None:
    out = add_module_import(source, Parsed(source), "torch")
    assert out == expected
    ast.parse(out)


FIXTURES = Path(__file__).parent.parent / "fixtures" / "runtime_values"


@pytest.mark.parametrize(
    ("fixture", "why"),
    [
        ("all_gpus_no_torch", ""),
        ("every_gpu_int_option_no_torch", ""),
        ("all_gpus_torch_bound_otherwise", "`torch` is another name here"),
        ("all_gpus_torch_parameter", "`torch` is another name here"),
        ("all_gpus_star_import", "a star import may bind `torch` to anything"),
    ],
)
def test_import_torch_is_added_only_where_torch_is_unbound(fixture: str, why: str) -> None:
    """A file that binds `torch` to something else, or may (a star import), gets no `import torch`: its
    finding says a test of the machine would keep the call, and why none is written."""
    source = (FIXTURES / f"{fixture}.py").read_text()
    result = migrate(source, release("2.6"))
    added = "\nimport torch\n" in result.code and "\nimport torch\n" not in source
    assert added == (not why)
    details = [d for f in result.findings for d in f.details if "would keep it" in d]
    assert [why in d for d in details] == ([True] if why else [])
    # in a notebook's cells (a document's code) the context is not the run's: no import is added
    pieces = migrate(source, release("2.6"), pieces=True)
    assert pieces.code.count("\nimport torch\n") == source.count("\nimport torch\n")
    assert any("the code's context is not seen here" in d for f in pieces.findings for d in f.details)

"""No rewritten file imports a name its target lacks: every golden output written for the installed
release's minor line has its Lightning imports executed against that real release (wherever the statement
is, in a function too), each on its own so a failure names the statement."""

from __future__ import annotations

import ast
import importlib
import re
import warnings
from pathlib import Path

import harness
import pytest

from lightning_migrate.semantics.model import Version

pytestmark = pytest.mark.real

FIXTURES = Path(__file__).parent.parent.parent / "fixtures"
LIGHTNING_ROOTS = ("pytorch_lightning", "lightning")
# an import of the unified package (`import lightning as L`, `from lightning.pytorch import ...`), not of
# `lightning_migrate` (the shim) or `pytorch_lightning`
UNIFIED = re.compile(r"^\s*(?:import|from)\s+lightning(?:\.|\s|$)", re.MULTILINE)


# The old imports a golden output keeps on purpose, because the run reports them as left (each with the
# finding that says so): (output, the statement as `ast.unparse` writes it). Each must still fail on its
# target, so the list cannot outlive what it excuses.
LEFT_REPORTED = {
    # fixtures written for a later release than this golden output's target (1.7's `cli` module, 1.6's
    # `LRSchedulerTypeUnion`): at target 1.5 nothing of them is old, and they are left as written
    ("cli_api/keywords.1.5.expected.py", "from pytorch_lightning.cli import LightningCLI"),
    (
        "cli_api/registries.1.5.expected.py",
        "from pytorch_lightning.utilities.cli import MODEL_REGISTRY, LightningArgumentParser,"
        " LRSchedulerTypeUnion",
    ),
    # an object no 2.x class builds the same (LM103), its import reported (LM005)
    ("shim/object_kept_in_shimmed_call.2.6.expected.py", "from pytorch_lightning.plugins import DDPPlugin"),
    # unused old imports: removed only with --unsafe-fixes (LM005), an alias and a re-export never
    (
        "unsafe_fixes/unused_old_import.2.6.expected.py",
        "from pytorch_lightning.plugins import DDPPlugin, DeepSpeedPlugin as DS",
    ),
    (
        "unsafe_fixes/unused_old_import.2.6.expected.py",
        "from pytorch_lightning.plugins import DDPSpawnPlugin, HorovodPlugin",
    ),
    (
        "unsafe_fixes/unused_old_import.2.6.unsafe.expected.py",
        "from pytorch_lightning.plugins import DeepSpeedPlugin as DS",
    ),
    (
        "unsafe_fixes/unused_old_import.2.6.unsafe.expected.py",
        "from pytorch_lightning.plugins import HorovodPlugin",
    ),
    # a LightningCLI registry, gone in 1.9 with nothing in its place (LM008)
    ("cli_api/registries.1.9.expected.py", "from pytorch_lightning.utilities.cli import MODEL_REGISTRY"),
    ("cli_api/registries.2.6.expected.py", "from pytorch_lightning.utilities.cli import MODEL_REGISTRY"),
}


def _target(path: Path) -> str:
    """``case.2.6.expected.py`` and ``case.2.6.unsafe.expected.py`` -> ``2.6``."""
    parts = path.name.removesuffix(".expected.py").removesuffix(".unsafe").split(".")
    return ".".join(parts[-2:])


def _lightning_imports(path: Path) -> list[ast.stmt]:
    found: list[ast.stmt] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and not node.level:
            modules = [node.module or ""]
        elif isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        else:
            continue
        if any(m.split(".")[0] in LIGHTNING_ROOTS for m in modules):
            found.append(node)
    return found


def _outputs_for(release: Version, root: str) -> list[Path]:
    """The golden outputs for ``release``'s minor line that import the installed namespace."""
    line = release.minor_line
    outputs = []
    for path in sorted(FIXTURES.rglob("*.expected.py")):
        if _target(path) != line:
            continue
        text = path.read_text()
        unified = UNIFIED.search(text) is not None
        if unified == (root == "lightning.pytorch"):
            outputs.append(path)
    return outputs


def test_golden_outputs_import_in_their_target_release() -> None:
    release = Version.parse(harness.release())
    outputs = _outputs_for(release, harness.ROOT)
    if not outputs:
        line = release.minor_line
        pytest.skip(f"no golden output targets Lightning {line} in the {harness.ROOT} namespace")
    failures, executed = [], 0
    for path in outputs:
        name = path.relative_to(FIXTURES).as_posix()
        for statement in _lightning_imports(path):
            code = ast.unparse(statement)
            left = (name, code) in LEFT_REPORTED
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # deprecation warnings are the fixtures' own subject
                    exec(compile(ast.Module([statement], []), str(path), "exec"), {})
            except Exception as exc:
                if not left:
                    failures.append(f"{name}: {code}: {type(exc).__name__}: {exc}")
            else:
                if left:
                    failures.append(f"{name}: {code}: imports, yet LEFT_REPORTED says it is left (stale)")
            executed += 1
    print(f"Lightning {release}: {executed} import statements of {len(outputs)} golden outputs executed")
    assert not failures, "\n".join(failures)
    assert executed > 0


def test_an_import_the_release_lacks_fails_here() -> None:
    """The test above can fail: a name no release exports does not import."""
    statement = ast.parse(f"from {harness.ROOT}.strategies import NoSuchStrategy").body[0]
    with pytest.raises(ImportError):
        exec(compile(ast.Module([statement], []), "<test>", "exec"), {})
    importlib.invalidate_caches()

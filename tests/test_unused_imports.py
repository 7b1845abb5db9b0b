"""An old `*Plugin` class imported and not used (LM005): the import fails on 2.x, and only a module that
imports the class from this one needs it, so removing it is an unsafe fix (``--unsafe-fixes``), said with
that reason; an alias and a name a string of the file holds (``__all__``) are left, each with its reason.
Golden fixture: ``fixtures/unsafe_fixes/unused_old_import``."""

from __future__ import annotations

from pathlib import Path

from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.report.findings import UNSAFE_FIXES
from lightning_migrate.semantics.model import release

CASE = Path(__file__).parent.parent / "fixtures" / "unsafe_fixes" / "unused_old_import.py"
TARGET = release("2.6")


def test_by_default_it_is_reported_with_the_flag_that_fixes_it() -> None:
    result = migrate(CASE.read_text(), TARGET)
    assert "from pytorch_lightning.plugins import DDPPlugin, DeepSpeedPlugin as DS" in result.code
    found = {f.message.split("`")[1]: f for f in result.findings if f.code == "LM005"}
    assert found["DDPPlugin"].remedy == UNSAFE_FIXES
    assert found["DDPPlugin"].message.endswith("lacks it; fixable with `--unsafe-fixes`")
    assert "it is `DDPStrategy` in Lightning 2.6.6" in found["DDPPlugin"].details
    assert (
        "a module that imports `DDPPlugin` from this one then fails to import it"
        in found["DDPPlugin"].details
    )
    assert found["DDPSpawnPlugin"].remedy == UNSAFE_FIXES
    assert not found["DeepSpeedPlugin"].remedy
    assert found["DeepSpeedPlugin"].details[0] == "imported as `DS`: the codemod removes no alias"
    assert not found["HorovodPlugin"].remedy
    assert "this module may re-export it" in found["HorovodPlugin"].details[0]


def test_unsafe_fixes_remove_it_and_say_what_may_break() -> None:
    result = migrate(CASE.read_text(), TARGET, unsafe=True)
    fixed = [f for f in result.findings if f.fixable and f.code == "LM005"]
    assert [f.message.split("`")[1] for f in fixed] == ["DDPPlugin", "DDPSpawnPlugin"]
    assert all(f.message.endswith("; unsafe fix: remove the import") for f in fixed)
    assert "DDPPlugin," not in result.code
    assert "DDPSpawnPlugin" not in result.code
    assert "DeepSpeedPlugin as DS" in result.code
    assert "import HorovodPlugin" in result.code


def test_a_deprecating_target_is_the_same() -> None:
    result = migrate(CASE.read_text(), release("1.6"), unsafe=True)
    said = [f.message for f in result.findings if f.fixable and "DDPPlugin" in f.message]
    assert said == [
        "`DDPPlugin` imported, unused; Lightning 1.6.5 deprecates it; unsafe fix: remove the import"
    ]


REEXPORTS = """\
from pytorch_lightning.plugins.training_type.ddp import DDPPlugin  # noqa: F401
from pytorch_lightning.plugins.training_type.dp import DataParallelPlugin  # noqa
from pytorch_lightning.plugins.training_type.horovod import HorovodPlugin  # noqa: E501
"""


def test_a_re_export_is_left_even_with_unsafe_fixes(tmp_path: Path) -> None:
    """Lightning 1.5's own `plugins/training_type/__init__.py` lists its classes with `# noqa: F401`: an
    import a line marks as unused on purpose, and any import of a package's `__init__.py`, is what the
    module exports, not dead code."""
    module = migrate(REEXPORTS, TARGET, unsafe=True)
    assert module.code.splitlines()[:2] == REEXPORTS.splitlines()[:2]
    assert "HorovodPlugin" not in module.code  # (`# noqa: E501` does not say the import is unused on purpose)
    left = [f for f in module.findings if f.code == "LM005" and not f.fixable]
    assert ["its line says it is unused on purpose" in f.details[0] for f in left] == [True, True]
    package = migrate(REEXPORTS, TARGET, unsafe=True, path=tmp_path / "pkg" / "__init__.py")
    assert package.code == REEXPORTS
    assert all("a package's `__init__.py`" in f.details[0] for f in package.findings if f.code == "LM005")

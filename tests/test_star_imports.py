"""Star imports of the project's own modules (``project.star_imports``): what names a file gets from them,
through chains and cycles, and what is not followed (a name the module binds otherwise, ``__all__``, a
private name, a module two files of the run may be, a module outside the run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lightning_migrate.plan.trainers import NO_SUBCLASSES, RunSubclasses
from lightning_migrate.project import star_imports
from lightning_migrate.run.options import Options
from lightning_migrate.run.runner import process_all
from lightning_migrate.semantics.model import release

IMPORTS = "import pytorch_lightning as pl\nfrom pytorch_lightning import Trainer as _T\n"


def _got(tmp_path: Path, files: dict[str, str], subclasses: RunSubclasses = NO_SUBCLASSES) -> dict[str, set]:
    paths = []
    for name, text in files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        paths.append(path)
    starring = [(p, star_imports.star_modules(p.read_text())) for p in paths]
    found = star_imports.of_run([s for s in starring if s[1]], paths, subclasses)
    return {Path(where).relative_to(tmp_path.resolve()).as_posix(): set(names) for where, names in found}


def test_a_chain_and_a_cycle_are_followed(tmp_path: Path) -> None:
    got = _got(
        tmp_path,
        {
            "lib/imports.py": f"if True:\n    {IMPORTS.replace(chr(10), chr(10) + '    ')}\n",
            "lib/all.py": "from lib.imports import *\nfrom .more import *\n",
            "lib/more.py": "from lib.all import *\nfrom pytorch_lightning.strategies import DDPStrategy\n",
            "main.py": "from lib.all import *\n",
        },
    )
    assert got["main.py"] == {
        ("pl", "pytorch_lightning"),
        ("DDPStrategy", "pytorch_lightning.strategies.DDPStrategy"),
    }  # (`_T` is private: not exported)


@pytest.mark.parametrize(
    "module",
    [
        "from lib.imports import *\npl = None\n",  # bound again by the module itself
        "from lib.imports import *\n__all__ = ['other']\nother = 1\n",  # not in its literal __all__
        "from lib.imports import *\n__all__ = [n for n in dir()]\n",  # an __all__ not known here
        "try:\n    from lib.imports import *\nexcept ImportError:\n    pl = None\n",  # bound otherwise too
    ],
)
def test_what_a_module_may_not_export_is_not_followed(tmp_path: Path, module: str) -> None:
    files = {"lib/imports.py": IMPORTS, "lib/all.py": module, "main.py": "from lib.all import *\n"}
    got = _got(tmp_path, files)
    assert ("pl", "pytorch_lightning") not in got.get("main.py", set())


def test_a_literal_all_exports_what_it_names(tmp_path: Path) -> None:
    files = {"lib/imports.py": IMPORTS + "__all__ = ('pl', '_T')\n", "main.py": "from lib.imports import *\n"}
    got = _got(tmp_path, files)["main.py"]
    assert got == {("pl", "pytorch_lightning"), ("_T", "pytorch_lightning.Trainer")}


def test_a_module_name_two_files_may_be_or_none_is_not_followed(tmp_path: Path) -> None:
    files = {
        "a/common.py": IMPORTS,
        "b/common.py": IMPORTS,
        "main.py": "from common import *\nfrom elsewhere import *\n",
    }
    assert _got(tmp_path, files) == {}


def test_only_names_of_lightning_and_the_runs_trainers_are_kept(tmp_path: Path) -> None:
    files = {  # (numpy: not kept)
        "lib/base.py": "import numpy\nimport pytorch_lightning as pl\nclass MyTrainer(pl.Trainer): pass\n",
        "main.py": "from lib.base import *\n",
    }
    subclasses = RunSubclasses(frozenset({"lib.base.MyTrainer", "base.MyTrainer"}))
    got = _got(tmp_path, files, subclasses)["main.py"]
    assert got == {("pl", "pytorch_lightning"), ("MyTrainer", "lib.base.MyTrainer")}


def test_a_call_through_a_star_import_is_migrated_and_not_one_through_another(tmp_path: Path) -> None:
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "imports.py").write_text(IMPORTS)
    (tmp_path / "train.py").write_text("from lib.imports import *\n\ntrainer = pl.Trainer(gpus=2)\n")
    (tmp_path / "other.py").write_text("from fastai.all import *\n\ntrainer = pl.Trainer(gpus=2)\n")
    paths = sorted(tmp_path.rglob("*.py"))
    results = {r.path.name: r for r in process_all(paths, Options(release("2.6"), root=tmp_path), jobs=1)}
    new = 'pl.Trainer(accelerator="cuda", devices=2, strategy="ddp_spawn_find_unused_parameters_true")'
    assert results["train.py"].new == f"from lib.imports import *\n\ntrainer = {new}\n"
    assert not results["other.py"].findings
    assert results["other.py"].data is None

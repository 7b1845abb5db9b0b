"""Trainer subclasses a run's files define are Trainers in every file of the run (issue 11, item 3): their
calls are migrated where the class passes the flags through, reported where it takes them itself, whichever
file of the run defines the class and however another file imports it."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_helpers import run

from lightning_migrate.project.subclasses import may_define, module_names, of_run

DEFINITIONS = '''import pytorch_lightning as pl


class Runner(pl.Trainer):
    """Logs more."""


class Eager(Runner):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)


class Fixed(pl.Trainer):
    def __init__(self, gpus=1, **kwargs):
        super().__init__(gpus=gpus, **kwargs)
'''
SCRIPT = """from mypkg.trainer import Eager, Fixed, Runner

Runner(accelerator="ddp", gpus=2)
Eager(distributed_backend="dp", gpus=2)
Fixed(accelerator="ddp", gpus=2)
"""
SIBLING = 'from .trainer import Runner as R\n\nR(accelerator="ddp", gpus=2)\n'


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "mypkg").mkdir()
    (tmp_path / "scripts").mkdir()
    (tmp_path / "mypkg" / "__init__.py").write_text("")
    (tmp_path / "mypkg" / "trainer.py").write_text(DEFINITIONS)
    (tmp_path / "mypkg" / "run.py").write_text(SIBLING)
    (tmp_path / "scripts" / "train.py").write_text(SCRIPT)
    return tmp_path


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_subclass_another_file_defines_is_a_trainer(project: Path, jobs: str) -> None:
    outcome = run("--target-version", "1.5", "--jobs", jobs, "--show-details", str(project))
    assert outcome.code == 1
    script = (project / "scripts" / "train.py").read_text()
    assert 'Runner(strategy="ddp", gpus=2)' in script
    assert 'Eager(strategy="dp", gpus=2)' in script  # a subclass of the subclass
    assert 'Fixed(accelerator="ddp", gpus=2)' in script  # it takes `gpus=` itself: reported
    assert "(not fixed: `Fixed` takes flags itself; migrate it by hand)" in outcome.out
    assert "\n    `Fixed` is a Trainer subclass and its `__init__` takes `gpus=` itself\n" in outcome.out
    assert 'R(strategy="ddp", gpus=2)' in (project / "mypkg" / "run.py").read_text()  # a relative import


CONSUMED = """import functools

from .trainer import Fixed

a = Fixed(accelerator="ddp", gpus=2)
b = functools.partial(Fixed, accelerator="ddp", gpus=2)
c = Fixed.from_argparse_args(args, accelerator="ddp", gpus=2)
"""


@pytest.mark.parametrize("where", ["mypkg/trainer.py", "mypkg/consumed.py"])
def test_a_subclass_that_takes_flags_is_never_rewritten_however_it_is_called(
    project: Path, where: str
) -> None:
    """Called directly, through `partial` or `from_argparse_args`, in its own file or imported relatively
    (these three were rewritten: the consuming class was looked up under the call's own callee only)."""
    path = project / where
    text = (
        CONSUMED
        if where.endswith("consumed.py")
        else DEFINITIONS + CONSUMED.replace("from .trainer import Fixed\n", "")
    )
    path.write_text(text)
    outcome = run("--target-version", "1.5", str(project))
    assert path.read_text() == text, outcome.out
    reported = [line for line in outcome.out.splitlines() if line.startswith(str(path))]
    assert len(reported) == 3, outcome.out
    *direct, namespace = reported  # (`from_argparse_args` passes a namespace: never rewritten either)
    assert all("(not fixed: `Fixed` takes flags itself; migrate it by hand)" in line for line in direct)
    assert "an argparse namespace holds every Trainer flag" in namespace


def test_a_file_of_the_run_alone_knows_no_other_file(project: Path) -> None:
    """Named alone, the script's classes are not known to be Trainers: nothing is guessed."""
    outcome = run("--check", "--target-version", "1.5", str(project / "scripts" / "train.py"))
    assert outcome.code == 0


def test_module_names_are_every_way_to_import_a_file() -> None:
    assert module_names(Path("src/mypkg/trainer.py")) == ["trainer", "mypkg.trainer", "src.mypkg.trainer"]
    assert module_names(Path("mypkg/__init__.py")) == ["mypkg"]


def test_the_run_knows_which_subclasses_pass_the_flags_through() -> None:
    found = of_run([(Path("mypkg/trainer.py"), DEFINITIONS)])
    assert {"mypkg.trainer.Runner", "trainer.Eager"} <= found.passing
    assert dict(found.consuming)["mypkg.trainer.Fixed"] == "its `__init__` takes `gpus=` itself"
    assert found.names == {"Runner", "Eager", "Fixed"}


@pytest.mark.parametrize(
    ("source", "defines"),
    [
        ("class T(pl.Trainer):\n    pass\n", True),
        ("import x\nclass T(\n    Trainer,\n):\n    pass\n", True),
        ("import x\n\nclass  T (Base, pl.Trainer): pass\n", True),
        ("def f():\n    class T(pl.Trainer):\n        pass\n", False),  # (not at module level)
        ("subclass T(pl.Trainer)\n", False),
        ("class T(MyTrainerBase):\n    pass\n", False),
        ("class T(Base):\n    pass\nx = 1\n", False),
        # a class line that does not match, then one that does: each line is tried on its own
        ("x = 'class A(B,'\nclass T(pl.Trainer):\n    pass\n", True),
        ("xclass A(B,\nclass T(pl.Trainer):\n    pass\n", True),
    ],
)
def test_a_file_may_define_a_subclass_where_a_line_starts_one(source: str, defines: bool) -> None:
    assert may_define(source) is defines
    # (what a multi-line regex anchored at each line's start finds, tried at every character)
    assert (re.search(r"^class\s+\w+\s*\([^)]*Trainer\b", source, re.MULTILINE) is not None) is defines


SUPER_INIT = Path(__file__).parent.parent / "fixtures" / "subclasses" / "super_init.py"


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_subclass_hands_its_own_flags_to_lightning_through_super_init(tmp_path: Path, jobs: str) -> None:
    """`super().__init__(gpus=2, distributed_backend="ddp")` in a Trainer subclass is where the flags reach
    Lightning: it was never read (scverse/scvi-tools' `Trainer(pl.Trainer)` passed `gpus=`,
    `weights_summary=`, `checkpoint_callback=`, ... there and got no finding for any target). One that also
    hands on `**kwargs` is reported, not rewritten; one that writes no keyword (`*args, **kwargs`), a mixin's
    `__init__` and a `super()` of another class are not read."""
    (tmp_path / "pkg").mkdir()
    path = tmp_path / "pkg" / "trainers.py"
    path.write_text(SUPER_INIT.read_text())
    (tmp_path / "pkg" / "other.py").write_text("import os\n")  # (a run of more than one file: the prefilter)
    outcome = run("--check", "--jobs", jobs, "--target-version", "2.6", str(tmp_path))
    found = sorted(
        (int(line), code) for line, code in re.findall(r"trainers\.py:(\d+):\d+: (LM\d+)", outcome.out)
    )
    assert found == [
        (10, "LM002"),
        (10, "LM004"),
        (15, "LM103"),
        (20, "LM001"),
        (20, "LM004"),
        (30, "LM002"),
        (30, "LM004"),
    ], outcome.out
    held = "(not fixed: `Forwarding`'s callers may pass the same flags; migrate it by hand)"
    assert outcome.out.count(held) == 2


def test_super_init_keeps_runtime_values_and_says_no_shim(tmp_path: Path) -> None:
    """A subclass that takes `gpus=` and hands it to `super().__init__` with keywords 2.0 removed: each is
    reported; the run-time `gpus=` (its callers' value) is not advised to `--shim`, which builds Lightning's
    own Trainer."""
    path = tmp_path / "trainer.py"
    text = (
        "import pytorch_lightning as pl\n\n\nclass Trainer(pl.Trainer):\n"
        "    def __init__(self, gpus=1, weights_summary=None, **kwargs):\n"
        "        super().__init__(gpus=gpus, weights_summary=weights_summary, checkpoint_callback=False,"
        " **kwargs)\n"
    )
    path.write_text(text)
    for shim in ("--no-shim", "--shim"):
        outcome = run("--target-version", "2.6", shim, str(tmp_path))
        assert path.read_text() == text
        assert (
            "LM101 `gpus=gpus`: run-time value, may be old usage; pass the flags literally\n" in outcome.out
        )
        assert "`weights_summary=` is not in Lightning 2.6.6" in outcome.out
        assert "`checkpoint_callback=False` is not in Lightning 2.6.6" in outcome.out
        assert "shim" not in outcome.out


REEXPORTED = """from mypkg import Base, Fixed

Base(accelerator="ddp", gpus=2)
Fixed(accelerator="ddp", gpus=2)
"""


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_subclass_a_package_re_exports_is_a_trainer_under_the_package(project: Path, jobs: str) -> None:
    """`from .trainer import Runner as Base` in `mypkg/__init__.py`: a script's `from mypkg import Base` is
    the subclass (scverse/scvi-tools' `from scvi.train import Trainer`): its calls were said nothing of."""
    (project / "mypkg" / "__init__.py").write_text("from .trainer import Runner as Base, Fixed\n")
    script = project / "scripts" / "reexported.py"
    script.write_text(REEXPORTED)
    outcome = run("--target-version", "1.5", "--jobs", jobs, str(project))
    text = script.read_text()
    assert 'Base(strategy="ddp", gpus=2)' in text, outcome.out
    # one that takes `gpus=` itself is not followed there: its calls would be reported for the keywords it
    # takes (`from scvi.train import Trainer; Trainer(progress_bar_refresh_rate=1)`, 2.x scvi-tools)
    assert 'Fixed(accelerator="ddp", gpus=2)' in text
    assert f"{script}:4:1:" not in outcome.out


SWALLOWING = '''import pytorch_lightning as pl


class Own(pl.Trainer):
    """Takes `gpus=` and hands Lightning `accelerator=` + `devices=` instead."""

    def __init__(self, gpus=None, max_epochs=400, **kwargs):
        accelerator = "gpu" if gpus else "cpu"
        super().__init__(accelerator=accelerator, devices=gpus or 1, max_epochs=max_epochs, **kwargs)


class Handed(pl.Trainer):
    def __init__(self, gpus=1, **kwargs):
        super().__init__(gpus=gpus, **kwargs)


class Keyed(pl.Trainer):
    def __init__(self, gpus=1, **kwargs):
        kwargs["gpus"] = gpus
        super().__init__(**kwargs)


class Inherits(Own):
    pass
'''


@pytest.mark.parametrize(
    ("call", "codes"),
    [
        ("Own(gpus=2, max_epochs=3)", []),  # `gpus=` never reaches Lightning as `gpus=`
        ("Inherits(gpus=2)", []),
        ("Own(gpus=2, num_processes=2)", ["LM004"]),  # `num_processes=` reaches it through `**kwargs`
        ("Own(gpus=2, distributed_backend='ddp')", ["LM002"]),
        ("Handed(gpus=2)", ["LM004"]),  # handed on as `gpus=`: a Trainer flag
        ("Keyed(gpus=2)", ["LM004"]),  # ... or set in `**kwargs` under its name
    ],
)
def test_a_keyword_a_subclass_takes_itself_is_a_flag_only_if_it_reaches_lightning_so(
    tmp_path: Path, call: str, codes: list[str]
) -> None:
    """A call's keyword is a Trainer flag only where it reaches ``Trainer.__init__`` under that name (old
    scverse/scvi-tools: a subclass's own parameters were reported at every call)."""
    (tmp_path / "trainers.py").write_text(SWALLOWING)
    (tmp_path / "train.py").write_text(f"from trainers import Handed, Inherits, Keyed, Own\n\nt = {call}\n")
    outcome = run("--check", "--target-version", "2.6", "--output-format", "json", str(tmp_path))
    found = [f for f in json.loads(outcome.out) if f["path"].endswith("train.py")]
    assert sorted({f["code"] for f in found}) == codes
    assert all(not f["fixable"] for f in found)  # (a subclass that takes flags itself is never rewritten)


def test_the_run_knows_which_flags_a_subclass_swallows() -> None:
    found = of_run([(Path("mypkg/trainers.py"), SWALLOWING)])
    swallowing = dict(found.swallowing)
    assert swallowing["mypkg.trainers.Own"] == ("gpus",)
    assert swallowing["mypkg.trainers.Inherits"] == ("gpus",)
    assert "mypkg.trainers.Handed" not in swallowing
    assert "mypkg.trainers.Keyed" not in swallowing

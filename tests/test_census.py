"""The real-code census (benchmarks/census.py) counts Trainer calls and their old flags as it says."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
import census

SCRIPT = """
import argparse
from functools import partial

import pytorch_lightning as pl
from pytorch_lightning import Trainer
from pytorch_lightning.plugins import DDPPlugin

BACKEND = "ddp"


def main(args, n_gpus):
    pl.Trainer(accelerator="ddp", gpus=2)                                   # line 13
    Trainer(distributed_backend=BACKEND, gpus=args.gpus)                    # line 14
    Trainer(gpus=1 if n_gpus else None, accelerator=args.accelerator)       # line 15
    Trainer(plugins=DDPPlugin(find_unused_parameters=False), num_processes=n_gpus)  # line 16
    Trainer.from_argparse_args(args, plugins="ddp_sharded")                 # line 17
    partial(Trainer, tpu_cores=8)                                           # line 18
    options = dict(max_epochs=3)
    options["auto_select_gpus"] = True
    Trainer(**options)                                                      # line 21
    Trainer(**vars(args))                                                   # line 22
    Trainer(strategy=DDPPlugin(), accelerator="gpu", devices=2)             # line 23
    Trainer(strategy="dp", accelerator="gpu")                               # line 24
    Trainer(accelerator="gpu", devices=2, max_epochs=1)                     # line 25
    Trainer(gpus=None)                                                      # line 26
"""


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (tmp_path / name).write_text(textwrap.dedent(text), encoding="utf-8")
    return tmp_path


def _census(tmp_path: Path, target: str, files: dict[str, str] | None = None) -> census.Census:
    root = _tree(tmp_path, files or {"train.py": SCRIPT})
    return census.count(census.read_tree(root), target)


def _flags(result: census.Census) -> set[tuple[int, str, str, str]]:
    return {(flag.line, flag.keyword, flag.kind, flag.value_class) for flag in result.flags}


def test_calls_and_forms(tmp_path: Path) -> None:
    result = _census(tmp_path, "2.6")
    assert result.files == result.files_with_calls == 1
    assert result.calls == 12
    assert dict(result.forms) == {"Trainer": 10, "from_argparse_args": 1, "partial": 1}
    assert result.opaque_calls == 2  # `**vars(args)` and the namespace of from_argparse_args
    assert result.argparse_api == 1


def test_release_1_5(tmp_path: Path) -> None:
    assert _flags(_census(tmp_path, "1.5")) == {
        (13, "accelerator", "accelerator=<training type>", "literal"),
        (14, "distributed_backend", "distributed_backend= (removed)", "named"),
        (16, "plugins", "plugins=<strategy>", "literal"),
        (17, "plugins", "plugins=<strategy>", "literal"),
    }


def test_release_1_7(tmp_path: Path) -> None:
    result = _census(tmp_path, "1.7")
    assert _flags(result) == {
        (13, "accelerator", "accelerator=<training type>", "literal"),
        (13, "gpus", "gpus= (deprecated)", "literal"),
        (14, "distributed_backend", "distributed_backend= (removed)", "named"),
        (14, "gpus", "gpus= (deprecated)", "run-time"),
        (15, "gpus", "gpus= (deprecated)", "conditional"),
        (16, "plugins", "plugins=<strategy>", "literal"),
        (16, "num_processes", "num_processes= (deprecated)", "run-time"),
        (17, "plugins", "plugins=<strategy>", "literal"),
        (18, "tpu_cores", "tpu_cores= (deprecated)", "literal"),
        (23, "strategy", "strategy=<*Plugin class>", "literal"),
    }
    assert result.calls_with_old == 7
    assert result.undecided == {"accelerator=<run-time>": 1}
    example = result.examples["Trainer(accelerator=<str>, gpus=<int>)"]
    assert (example.path, example.line, example.text) == (
        "train.py",
        13,
        'pl.Trainer(accelerator="ddp", gpus=2)',
    )


def test_release_2_6(tmp_path: Path) -> None:
    flags = _flags(_census(tmp_path, "2.6"))
    assert (21, "auto_select_gpus", "auto_select_gpus= (removed)", "literal") in flags  # `options[...] =`
    assert (24, "strategy", "strategy=<name the release lacks>", "literal") in flags  # 'dp' left in 2.0
    assert (13, "gpus", "gpus= (removed)", "literal") in flags
    assert (26, "gpus", "gpus= (removed)", "literal") in flags  # 1.7 took None silently, 2.0 has no gpus=
    assert not {flag for flag in flags if flag[0] == 25}


@pytest.mark.parametrize(
    ("source", "calls", "unbound"),
    [
        ("from transformers import Trainer\nTrainer(model, gpus=2)\n", 0, 0),  # another library's Trainer
        ("from helpers import *\nTrainer(gpus=2)\n", 0, 1),  # no import binds it: counted, not judged
        ("from pytorch_lightning import *\nTrainer(gpus=2)\n", 1, 0),
        ("import lightning as L\nL.Trainer(gpus=2)\n", 1, 0),
        ("import lightning.pytorch as pl\npl.trainer.Trainer(gpus=2)\n", 1, 0),
        ("from pytorch_lightning import Trainer as T\nclass Mine(T):\n    pass\nMine(gpus=2)\n", 1, 0),
        ("import flash\nflash.Trainer(gpus=2)\n", 1, 0),
    ],
)
def test_what_is_a_trainer(tmp_path: Path, source: str, calls: int, unbound: int) -> None:
    result = _census(tmp_path, "2.6", {"a.py": source})
    assert (result.calls, result.unbound_calls, result.old_flags) == (calls, unbound, calls)


def test_names_and_scopes(tmp_path: Path) -> None:
    source = """
    import pytorch_lightning as pl

    GPUS = 2

    def a(GPUS):
        pl.Trainer(gpus=GPUS)            # the parameter shadows the constant

    def b():
        pl.Trainer(gpus=GPUS)            # the module constant

    def c(n):
        backend = "ddp" if n > 1 else None
        pl.Trainer(accelerator=backend)  # a conditional through a name
    """
    flags = _flags(_census(tmp_path, "2.6", {"a.py": source}))
    assert flags == {
        (7, "gpus", "gpus= (removed)", "run-time"),
        (10, "gpus", "gpus= (removed)", "named"),
        (14, "accelerator", "accelerator=<training type>", "conditional"),
    }


def test_unparsable_file(tmp_path: Path) -> None:
    result = _census(tmp_path, "2.6", {"old.py": "print 'Trainer'\n"})
    assert (result.files, result.unparsable, result.calls) == (1, 1, 0)


def test_cli_before_after_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = tmp_path / "before"
    after = tmp_path / "after"
    before.mkdir()
    after.mkdir()
    (before / "t.py").write_text('import pytorch_lightning as pl\npl.Trainer(gpus=2, accelerator="ddp")\n')
    (after / "t.py").write_text(
        'import pytorch_lightning as pl\n\npl.Trainer(accelerator="gpu", devices=2)\n'
    )
    (before / "u.py").write_text("import pytorch_lightning as pl\npl.Trainer(gpus=args.gpus)\n")
    (after / "u.py").write_text("import pytorch_lightning as pl\n\n\npl.Trainer(gpus=args.gpus)\n")
    assert census.main([str(before), "--after", str(after), "--target-version", "2.6"]) == 0
    out = capsys.readouterr().out
    assert "target 2.6: before -> after" in out
    assert "calls with an old flag" in out
    assert "gpus= (removed)" in out
    assert census.main([str(before), "--after", str(after), "--shapes", "3", "--target-version", "2.6"]) == 0
    assert (
        "| 1 | 1 | `Trainer(gpus=<attr>)` | `u.py:2: pl.Trainer(gpus=args.gpus)` |" in capsys.readouterr().out
    )
    assert census.main([str(before), "--after", str(after), "--json", "--target-version", "1.7"]) == 0
    data = json.loads(capsys.readouterr().out)["targets"]["1.7"]
    assert data["before"]["old_flags"] == 3
    assert data["after"]["old_flags"] == 1
    assert data["before"]["kinds"]["gpus= (deprecated)"] == {
        "literal": 1,
        "named": 0,
        "conditional": 0,
        "run-time": 1,
        "total": 2,
    }


def test_dict_bound_twice(tmp_path: Path) -> None:
    source = """
    import pytorch_lightning as pl

    def main(cuda):
        gpus = 1 if cuda else 0
        params = {"gpus": gpus, "max_epochs": 3}
        pl.Trainer(**params)
        params = {"max_epochs": 1}
        params["distributed_backend"] = "ddp"
        pl.Trainer(**params)
    """
    flags = _flags(_census(tmp_path, "2.6", {"a.py": source}))
    assert flags == {
        (7, "gpus", "gpus= (removed)", "conditional"),
        (10, "distributed_backend", "distributed_backend= (removed)", "literal"),
    }


def test_argparse_defaults(tmp_path: Path) -> None:
    source = """
    from argparse import ArgumentParser
    import pytorch_lightning as pl

    parser = ArgumentParser()
    parser = pl.Trainer.add_argparse_args(parser)
    parser.add_argument("--num-processes", type=int, default=2)
    parser.set_defaults(gpus=2, accelerator="ddp", max_epochs=3)
    args = parser.parse_args()
    pl.Trainer.from_argparse_args(args)
    """
    result = _census(tmp_path, "1.7", {"a.py": source})
    assert _flags(result) == {
        (10, "num_processes", "num_processes= (deprecated)", "run-time"),
        (10, "gpus", "gpus= (deprecated)", "run-time"),
        (10, "accelerator", "accelerator=<training type>", "run-time"),
    }
    flags = "argparse --accelerator, argparse --gpus, argparse --num_processes"
    assert list(result.shapes) == [f"Trainer.from_argparse_args(ns, {flags}, **<run-time>)"]

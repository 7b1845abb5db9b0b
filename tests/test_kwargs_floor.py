"""A `**dict` whose keys are only known at run time, in a project whose own requirement is a release that
rejects training types in `accelerator=`/`plugins=` (``Run.floor``, read by ``runner.required_floor``): where
nothing the file writes into the dict is older usage (``frontends.python.dict_keys``), it cannot hold one, so
the call gets no LM101 for what it might hold. A dict that writes an old key or value is reported as before,
whatever the pin says; one filled elsewhere (a parameter, an attribute, a config's section) only where the
project requires 2.0 or later (no release since removed a flag: whoever fills it writes flags the target
takes); flags the call writes are judged as ever."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import run

from lightning_migrate.frontends.python.dict_keys import is_read, written_keys
from lightning_migrate.run.runner import required_floor
from lightning_migrate.semantics.model import RELEASES, release

# as a library builds its Trainer from its own config (a dict filtered by the Trainer's signature)
MODEL = """\
import inspect

import pytorch_lightning as pl


def prepare_trainer(config, logger, callbacks):
    names = [p for p in inspect.signature(pl.Trainer.__init__).parameters if p != "self"]
    trainer_args_config = {k: v for k, v in config.items() if k in names}
    return pl.Trainer(logger=logger, callbacks=callbacks, **trainer_args_config)
"""


def project(tmp_path: Path, pin: str | None, code: str = MODEL) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "model.py").write_text(code)
    (tmp_path / "setup.py").write_text("from setuptools import setup\n\nsetup(name='tabular')\n")
    if pin is not None:
        (tmp_path / "requirements").mkdir()
        (tmp_path / "requirements" / "base.txt").write_text(f"numpy>=1.17\n{pin}\n")
    return tmp_path


@pytest.mark.parametrize(
    "pin", ["pytorch-lightning >=2.0.0, <2.5.0", "lightning>=2.1", "pytorch_lightning==1.7.7"]
)
def test_a_dict_of_a_project_that_requires_a_release_without_training_types_is_left(
    tmp_path: Path, pin: str
) -> None:
    outcome = run(str(project(tmp_path, pin)), "--check", "--target-version", "2.6")
    assert outcome.code == 0, outcome.out
    assert "LM101" not in outcome.out


@pytest.mark.parametrize("pin", [None, "pytorch-lightning>=1.6.0", "pytorch-lightning==1.0.4"])
def test_a_dict_that_may_be_written_for_1_6_or_older_is_reported(tmp_path: Path, pin: str | None) -> None:
    outcome = run(str(project(tmp_path, pin)), "--check", "--target-version", "2.6", "--show-details")
    assert outcome.code == 1
    assert "LM101 `**trainer_args_config`" in outcome.out
    assert "up to Lightning 1.6.5, a `**` dict could hold a training type" in outcome.out


def test_an_old_flag_beside_the_dict_is_reported_whatever_the_pin(tmp_path: Path) -> None:
    code = MODEL.replace("callbacks=callbacks,", 'callbacks=callbacks, accelerator="ddp",')
    checked = ("--check", "--target-version", "2.6", "--show-details")
    outcome = run(str(project(tmp_path, "lightning>=2.0.0", code)), *checked)
    assert outcome.code == 1
    assert "LM101 `**trainer_args_config`" in outcome.out
    assert "`accelerator='ddp'` is old usage for Lightning 2.6.6" in outcome.out


def test_the_required_release_is_the_nearest_pin(tmp_path: Path) -> None:
    assert required_floor(tmp_path) == RELEASES[0]  # no pin: any release
    (tmp_path / "requirements").mkdir()
    (tmp_path / "requirements" / "base.txt").write_text("pytorch-lightning>=2.0.0,<2.5.0\n")
    assert required_floor(tmp_path / "requirements") == release("2.0.0")
    assert required_floor(tmp_path) == release("2.0.0")  # (a `requirements/` folder's pin files)
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["pytorch-lightning~=1.9.0"]\n')
    assert required_floor(tmp_path) == release("1.9.0")  # (the folder's own pin files first)
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["pytorch-lightning==1.0.4"]\n')
    assert required_floor(tmp_path) == RELEASES[0]  # (older than any release modelled: any)
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["lightning>2.2.1,<=2.4.0"]\n')
    assert required_floor(tmp_path) == release("2.2.1")
    (tmp_path / "pyproject.toml").write_text('[project]\ndependencies = ["lightning>=2.2,!=2.3.0"]\n')
    assert required_floor(tmp_path) == release("2.2")


# a dict pinned code fills with old keys (real code pins `pytorch-lightning>=1.8.0` and writes these)
BUILT = "    trainer_args_config = {k: v for k, v in config.items() if k in names}\n"
CALL = "    return pl.Trainer("
IF_MANY = '    if config["n_gpu"] > 1:\n        trainer_args_config'
OLD_KEYS = {
    "display": MODEL.replace(
        BUILT, '    trainer_args_config = {"gpus": config["gpus"]}\n    print(trainer_args_config)\n'
    ),
    "store": MODEL.replace(CALL, f'{IF_MANY}["distributed_backend"] = "ddp"\n{CALL}'),
    "value": MODEL.replace(CALL, f'{IF_MANY}["accelerator"] = "ddp"\n{CALL}'),
    "update": MODEL.replace(CALL, f'    trainer_args_config.update(dict(tpu_cores=config["cores"]))\n{CALL}'),
}


@pytest.mark.parametrize("case", sorted(OLD_KEYS))
def test_a_dict_that_shows_older_usage_is_reported_whatever_the_pin(tmp_path: Path, case: str) -> None:
    outcome = run(
        str(project(tmp_path, "pytorch-lightning>=2.0.0", OLD_KEYS[case])),
        "--check",
        "--target-version",
        "2.6",
    )
    assert outcome.code == 1
    assert "LM101 `**trainer_args_config`" in outcome.out


# dicts the file cannot see filled: a library's user kwargs (Nixtla/neuralforecast 2.x:
# `pl.Trainer(**model.trainer_kwargs)`), a config's section, a parameter
FILLED_ELSEWHERE = {
    "parameter": MODEL.replace("(config, logger", "(trainer_args_config, config, logger").replace(BUILT, ""),
    "attribute": MODEL.replace("**trainer_args_config", "**config.trainer_kwargs").replace(BUILT, ""),
    "section": MODEL.replace("**trainer_args_config", '**config["trainer"]').replace(BUILT, ""),
}


@pytest.mark.parametrize("case", sorted(FILLED_ELSEWHERE))
@pytest.mark.parametrize(
    ("pin", "reported"),
    [
        ("pytorch-lightning>=1.8.0", True),  # its fillers may write `gpus=`, which 1.8 and 1.9 take
        ("pytorch-lightning>=2.0.0", False),
        ("lightning>2.2.1", False),  # (`>`: the releases after it; NVIDIA/NeMo's pin)
    ],
)
def test_a_dict_filled_elsewhere_is_left_only_where_the_project_requires_2_0(
    tmp_path: Path, case: str, pin: str, reported: bool
) -> None:
    outcome = run(str(project(tmp_path, pin, FILLED_ELSEWHERE[case])), "--check", "--target-version", "2.6")
    assert ("LM101 `**" in outcome.out) is reported, outcome.out
    assert outcome.code == (1 if reported else 0)


def test_the_keys_a_file_writes_into_a_dict() -> None:
    import ast

    tree = ast.parse(
        "kw = {'gpus': 2, **{'strategy': s}}\n"
        "kw['precision'] = 16\n"
        "kw.update(num_nodes=n)\n"
        "kw.setdefault('plugins', 'ddp')\n"
        "other['devices'] = 1\n"
        "if kw['accelerator'] == 'gpu':\n    pass\n"
    )
    found = {(key, value if is_read(value) else "?") for key, value in written_keys(tree, "kw")}
    assert found == {
        ("gpus", 2),
        ("strategy", "?"),
        ("precision", 16),
        ("precision", "?"),
        ("num_nodes", "?"),
        ("plugins", "ddp"),
        ("accelerator", "?"),
    }

"""A LightningCLI's ``trainer_defaults`` and the config beside its script, migrated together in one run
(``fixtures/lightning_cli/beside/``: no command line ties them), on the real release installed here.

LightningCLI sets ``trainer_defaults`` as its parser's defaults and merges the config's ``trainer:`` keys over
them (1.5 to 2.6), so the Trainer gets the merged flags as keywords. As written, the real Trainer of the
release installed here builds what the model says of them; migrated to this release, they build what the
pair built in 1.5, the release it was written for (whose own environment checks the first test). LightningCLI
itself cannot be built on 1.5.10 under Python 3.11 (jsonargparse's ``Union[()]``): the merge is read here.
"""

from __future__ import annotations

import ast
import shutil
from pathlib import Path

import harness
import pytest
import yaml
from grid import HARDWARE

from lightning_migrate.plan.planner import comparable
from lightning_migrate.run.options import Options
from lightning_migrate.run.runner import process_all
from lightning_migrate.semantics import Setup, interpret
from lightning_migrate.semantics.model import Obj, Value, Version, release
from lightning_migrate.semantics.signature import MODELLED

pytestmark = pytest.mark.real

FIXTURE = Path(__file__).parents[2] / "fixtures" / "lightning_cli" / "beside" / "project"
WRITTEN_FOR = release("1.5")


def merged(tree: Path) -> dict[str, Value]:
    """The Trainer flags of ``train.py``'s ``trainer_defaults`` display with ``config.yaml``'s ``trainer:``
    merged over them, as LightningCLI merges them."""
    flags: dict[str, Value] = {}
    for node in ast.walk(ast.parse((tree / "train.py").read_text())):
        if isinstance(node, ast.keyword) and node.arg == "trainer_defaults":
            assert isinstance(node.value, ast.Dict)
            for key, value in zip(node.value.keys, node.value.values):
                assert isinstance(key, ast.Constant)
                if isinstance(value, ast.Call):
                    assert isinstance(value.func, ast.Name)
                    kwargs = {k.arg: ast.literal_eval(k.value) for k in value.keywords if k.arg}
                    flags[key.value] = Obj.of(value.func.id, **kwargs)
                else:
                    flags[key.value] = ast.literal_eval(value)
    trainer = yaml.safe_load((tree / "config.yaml").read_text())["trainer"]
    flags.update({k: v for k, v in trainer.items() if k in MODELLED})
    return flags


def test_the_pair_as_written_builds_what_the_model_says() -> None:
    if harness.ROOT != "pytorch_lightning":
        pytest.skip("1.x plugin classes never existed in the lightning.pytorch namespace")
    installed = Version.parse(harness.release())
    old = merged(FIXTURE)
    for hardware in HARDWARE:
        model = interpret(old, installed, hardware, harness.ROOT).outcome
        real = harness.observe(old, hardware)
        if isinstance(model, Setup):
            assert isinstance(real, Setup), (hardware.describe(), real)
            assert comparable(real) == comparable(model), hardware.describe()
        else:
            assert not isinstance(real, Setup), (hardware.describe(), real)


def test_the_pair_migrated_together_builds_what_it_built(tmp_path: Path) -> None:
    target = Version.parse(harness.release())
    if target <= WRITTEN_FOR:
        pytest.skip(f"written for {WRITTEN_FOR}: nothing to migrate to {target}")
    tree = tmp_path / "project"
    shutil.copytree(FIXTURE, tree)
    for result in process_all(sorted(p for p in tree.rglob("*") if p.is_file()), Options(target), jobs=1):
        assert not result.error, result.error
        if result.data is not None:
            result.path.write_bytes(result.data)
    old, new = merged(FIXTURE), merged(tree)
    assert new != old
    compared = 0
    for hardware in HARDWARE:
        before = interpret(old, WRITTEN_FOR, hardware, harness.ROOT).outcome
        after = harness.observe(new, hardware)
        if isinstance(before, Setup):
            assert isinstance(after, Setup), (new, hardware.describe(), after)
            assert comparable(after) == comparable(before), (new, hardware.describe())
            compared += 1
    assert compared, "the pair built nothing on any machine"

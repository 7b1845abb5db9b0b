"""``--shim`` on a Hydra project whose trainer configs code elsewhere reads
(``fixtures/projects/hydra_shim/``, ``tests/test_config_shim.py``): after the run, each of the project's
compositions is composed by Hydra and its Trainer built with ``hydra.utils.instantiate``, as the project's
script builds it, on the installed release under simulated hardware. A config handed to the shim builds the
shim's Trainer, which must build what the codemod's rewrite of the flags as they were builds with the
release's own Trainer."""

from __future__ import annotations

import shutil
import tempfile
import warnings
from dataclasses import replace
from pathlib import Path
from typing import Any

import harness
import pytest

from lightning_migrate.frontends.yaml.read import load, read
from lightning_migrate.plan.callsite import CallSite, Run
from lightning_migrate.plan.planner import Rewrite
from lightning_migrate.run.file_kinds import BY_SUFFIX
from lightning_migrate.run.options import Options
from lightning_migrate.run.runner import process_all
from lightning_migrate.semantics import Hardware, Rejected, Version

pytestmark = pytest.mark.real
hydra = pytest.importorskip("hydra")

PROJECT = Path(__file__).parent.parent.parent / "fixtures" / "projects" / "hydra_shim"
RELEASE = Version.parse(harness.release())
RUNS = (([], Hardware()), (["trainer=ddp"], Hardware(cuda=4)), (["+experiment=cpu"], Hardware()))
RUNS += ((["trainer=gpu"], Hardware(cuda=1)),)  # (the shim's Trainer through the file it extends)


@pytest.fixture(scope="module")
def migrated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hydra_shim") / "project"
    shutil.copytree(PROJECT, root)
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in BY_SUFFIX)
    for result in process_all(files, Options(RELEASE, root=root, shim=True), jobs=1):
        assert not result.error
        if result.data is not None:
            result.path.write_bytes(result.data)
    return root


def _node(folder: Path, overrides: list[str]) -> Any:
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=str(folder / "configs"), version_base=None):
            return compose("config", overrides).trainer
    finally:
        GlobalHydra.instance().clear()


@pytest.mark.skipif(
    harness.ROOT != "pytorch_lightning", reason="the fixture's configs name pytorch_lightning"
)
@pytest.mark.parametrize(
    ("overrides", "machine"), RUNS, ids=lambda r: " ".join(r) if isinstance(r, list) else ""
)
def test_the_shims_trainer_builds_what_the_rewrite_builds(
    migrated: Path, overrides: list[str], machine: Hardware
) -> None:
    from hydra.utils import instantiate
    from omegaconf import OmegaConf

    before, after = _node(PROJECT, overrides), _node(migrated, overrides)
    assert after._target_ == "lightning_migrate.shim.Trainer"
    old = dict(read(load(OmegaConf.to_yaml(before))[0]).flags)
    rewrite = Run(RELEASE).plan(CallSite(1, 1, old))  # type: ignore[arg-type]
    assert isinstance(rewrite, Rewrite)
    want = harness.observe(dict(rewrite.flags), machine)
    assert not isinstance(want, Rejected)
    with harness.simulated(machine), warnings.catch_warnings(), tempfile.TemporaryDirectory() as tmp:
        warnings.simplefilter("ignore")
        trainer = instantiate(after, default_root_dir=tmp)
        got = replace(harness.read_setup(trainer), plugins=())
    assert type(trainer).__module__ == "lightning_migrate.shim"
    assert isinstance(trainer, harness.lightning().Trainer)
    assert got == replace(want, plugins=()), (overrides, got, want)

"""What the tests of whole project folders share: a run over a folder in-process (every file a front end
reads, one worker), and the files it changed written back, as the command writes them."""

from __future__ import annotations

import shutil
import warnings
from pathlib import Path
from typing import Any

from lightning_migrate.run.file_kinds import BY_SUFFIX
from lightning_migrate.run.options import Options
from lightning_migrate.run.runner import FileResult, process_all
from lightning_migrate.semantics.model import Version


def migrate_tree(root: Path, target: Version, **options: Any) -> dict[str, FileResult]:
    """Each file of ``root``'s result, by its path under ``root``; no file may fail."""
    files = sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in BY_SUFFIX)
    results = process_all(files, Options(target, root=root, **options), jobs=1)
    assert not [r.error for r in results if r.error]
    return {r.path.relative_to(root).as_posix(): r for r in results}


def write_results(root: Path, results: dict[str, FileResult]) -> None:
    for name, result in results.items():
        if result.data is not None:
            (root / name).write_bytes(result.data)


def migrated_copy(
    project: Path, root: Path, target: Version, **options: Any
) -> tuple[Path, dict[str, FileResult]]:
    """``project`` copied to ``root`` and migrated there, the changed files written."""
    shutil.copytree(project, root)
    results = migrate_tree(root, target, **options)
    write_results(root, results)
    return root, results


def trainer_node(folder: Path, overrides: list[str]) -> dict[str, Any]:
    """The Trainer node Hydra composes from ``folder``'s ``configs/config.yaml`` with ``overrides``."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from omegaconf import OmegaConf

    GlobalHydra.instance().clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with initialize_config_dir(config_dir=str(folder / "configs"), version_base=None):
                config = compose("config", overrides)
        finally:
            GlobalHydra.instance().clear()
    node: dict[str, Any] = OmegaConf.to_container(config.trainer)  # type: ignore[assignment]
    return node

"""What a run remembers by path is forgotten when the next run starts (``files.run_cache``): a second run in
one process, after the files changed, reads them again. The runs themselves are in
``test_config_shim.test_a_shim_config_is_a_fixed_point_with_nothing_to_report`` (a Hydra project migrated,
then run again on what it wrote) and ``test_command_line_shim.test_after_a_shim_run_the_command_lines_are_
finished`` (a script's parser rewritten, then read again): both cleared the caches by hand before."""

from __future__ import annotations

import functools
import importlib
import inspect
import pkgutil
import shutil
from pathlib import Path

import lightning_migrate
from lightning_migrate.files import run_cache
from lightning_migrate.run.options import Options
from lightning_migrate.run.runner import process_all
from lightning_migrate.semantics.model import release

# Caches keyed by a path that are right across runs: what they remember cannot change with the files
KEPT: dict[str, str] = {}
_PATH_PARAMETERS = ("path", "folder", "root", "start", "script", "directory")


def _caches() -> list[tuple[str, functools._lru_cache_wrapper[object]]]:
    found = []
    for info in pkgutil.walk_packages(lightning_migrate.__path__, "lightning_migrate."):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            if isinstance(value, functools._lru_cache_wrapper) and value.__module__ == info.name:
                found.append((f"{info.name}.{name}", value))
    return found


def test_every_cache_keyed_by_a_path_is_forgotten_per_run() -> None:
    by_path = []
    for name, cache in _caches():
        parameters = list(inspect.signature(cache.__wrapped__).parameters)  # type: ignore[attr-defined]
        if parameters and parameters[0] in _PATH_PARAMETERS:
            by_path.append(name)
            assert cache in run_cache._CACHES or name in KEPT, name
    assert len(by_path) >= 10, by_path  # (the walk found them)


PROJECT = Path(__file__).parent.parent / "fixtures" / "projects" / "hydra_shim"


def _run(root: Path) -> list[tuple[str, str, bool]]:
    files = sorted(p for p in root.rglob("*") if p.is_file())
    results = process_all(files, Options(release("2.6"), root=root, shim=True), jobs=1)
    for result in results:
        if result.data is not None:
            result.path.write_bytes(result.data)
    return [
        (r.path.relative_to(root).as_posix(), f.message, r.data is not None)
        for r in results
        for f in r.findings
    ]


def test_a_second_run_after_the_first_wrote_reads_the_files_again(tmp_path: Path) -> None:
    """A Hydra project handed to the shim, then run again in the same process: the second run composes the
    configs the first wrote (Hydra's compositions are remembered by path), as a run on a copy does."""
    root = tmp_path / "project"
    shutil.copytree(PROJECT, root)
    _run(root)
    copy = tmp_path / "copy"
    shutil.copytree(root, copy)
    again = _run(root)
    assert again == _run(copy)

"""Folders a training run writes, which a walk skips: their YAML is a record of what a run was given
(LightningCLI's saved ``config.yaml``, a logger's ``hparams.yaml``, Hydra's composed ``.hydra/config.yaml``),
not a source to migrate. Rewriting it changes no run, and judging it reports flags of a machine long gone
(``You requested GPUs: [4, 5, 6, 7]``).

A folder is told by what it holds where its name is also a project's own word: a source package named
``outputs``, ``wandb`` or ``tensorboard`` (an examples folder for those integrations) is walked, while a Hydra
run folder is found wherever ``hydra.run.dir`` put it (by its ``.hydra/``), and a logger's folder by the files
the logger writes. Only ``lightning_logs`` and Hydra's ``.hydra`` are told by name alone: no project names
its sources so. Each test reads only the entries the walk has already listed (no extra I/O)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Collection
from pathlib import Path

from lightning_migrate.files import run_cache

_VERSION = re.compile(r"version_\d+\Z")  # what Lightning's loggers name a run's folder when none is given
_TENSORBOARD_EVENTS = "events.out.tfevents."
# what a logger writes in its version folder, and LightningCLI's saved config (written to the log_dir)
_LOGGER_FILES = frozenset({"hparams.yaml", "metrics.csv", "config.yaml"})
_WANDB_ENTRIES = frozenset({"latest-run", "debug.log", "debug-internal.log"})

# (the test on the folder's name, its sub-folders and its files) -> why it is skipped
_Test = Callable[[str, Collection[str], Collection[str]], bool]
RUN_OUTPUTS: tuple[tuple[_Test, str], ...] = (
    (lambda name, dirs, files: name == "lightning_logs", "Lightning's log folder"),
    (lambda name, dirs, files: name == ".hydra", "Hydra's record of a run's composed config"),
    (lambda name, dirs, files: ".hydra" in dirs, "a Hydra run folder (it holds .hydra/)"),
    (  # (a project's own `multirun.yaml` config sits among configs, not beside the numbered jobs of a sweep)
        lambda name, dirs, files: "multirun.yaml" in files and any(d.isdigit() for d in dirs),
        "a Hydra sweep folder (it holds multirun.yaml)",
    ),
    (
        lambda name, dirs, files: (
            bool(_VERSION.match(name)) and (bool(_LOGGER_FILES.intersection(files)) or "checkpoints" in dirs)
        ),
        "a Lightning logger's version folder",
    ),
    (
        lambda name, dirs, files: any(f.startswith(_TENSORBOARD_EVENTS) for f in files),
        "a TensorBoard log folder (it holds event files)",
    ),
    (
        lambda name, dirs, files: (
            name == "wandb"
            and any(e in _WANDB_ENTRIES or e.startswith(("run-", "offline-run-")) for e in (*dirs, *files))
        ),
        "a Weights & Biases run folder",
    ),
    (
        lambda name, dirs, files: name == "mlruns" and any(d == ".trash" or d.isdigit() for d in dirs),
        "an MLflow tracking folder",
    ),
)


def why_output(name: str, dirs: Collection[str], files: Collection[str]) -> str | None:
    """Why the folder ``name``, which holds the folders ``dirs`` and the files ``files``, is a run's
    output, or None where it is not one."""
    return next((why for test, why in RUN_OUTPUTS if test(name, dirs, files)), None)


def output_folder(path: Path) -> tuple[Path, str] | None:
    """The run output folder the file ``path`` lies in, and why it is one (the outermost such folder), or
    None: for a file named on the command line with ``--force-exclude``."""
    found = None
    for folder in Path(os.path.abspath(path)).parents:
        why = _why_folder(folder)
        if why is not None:
            found = (folder, why)
    return found


@run_cache.per_run(1024)
def _why_folder(folder: Path) -> str | None:
    try:
        entries = [(e.name, e.is_dir()) for e in os.scandir(folder)]
    except OSError:  # (a folder that cannot be listed is no run output we can tell)
        return None
    dirs = [name for name, is_dir in entries if is_dir]
    return why_output(folder.name, dirs, [name for name, is_dir in entries if not is_dir])

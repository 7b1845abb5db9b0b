"""The whole-project measurement (benchmarks/finished.py) counts a command line's words handed to the
runtime shim apart from the old forms left, as it does Python calls and YAML configs handed to it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "benchmarks"))
import finished

SHIMMED = """\
import argparse
import lightning_migrate.shim
import pytorch_lightning as pl

parser = lightning_migrate.shim.add_argparse_args(argparse.ArgumentParser())
args = parser.parse_args()
trainer = lightning_migrate.shim.from_argparse_args(pl.Trainer, args)
"""
OLD = """\
import argparse
import pytorch_lightning as pl

parser = pl.Trainer.add_argparse_args(argparse.ArgumentParser())
trainer = pl.Trainer.from_argparse_args(parser.parse_args(), gpus=2)
"""
HYDRA = """\
import hydra
import pytorch_lightning as pl


@hydra.main(config_path="conf", config_name="config")
def main(cfg):
    hydra.utils.instantiate(cfg.trainer)
"""
BUILDS = """\
from src.build import build

build()
"""
BUILD = """\
import lightning_migrate.shim


def build():
    return lightning_migrate.shim.Trainer()
"""
RUN = """\
python train.py --gpus 2 --max_epochs 3
python old.py --gpus 2
python -m tools.train \\
    --gpus 4 --distributed_backend ddp
python hydra_app.py trainer.gpus=2
python other_hydra.py trainer.gpus=2
python builds.py --gpus 2
python ${REPO_PATH}/tools/train.py --gpus 1
docker run --gpus all image
"""


def _project(root: Path) -> None:
    files = {
        "train.py": SHIMMED,
        "old.py": OLD,
        "tools/train.py": SHIMMED,
        "hydra_app.py": HYDRA,
        "conf/config.yaml": "defaults:\n  - trainer: default\n",
        "conf/trainer/default.yaml": "_target_: lightning_migrate.shim.Trainer\ngpus: 1\n",
        "other_hydra.py": HYDRA.replace('"conf"', '"other_conf"'),
        "other_conf/trainer/default.yaml": "_target_: pytorch_lightning.Trainer\ndevices: 1\n",
        "builds.py": BUILDS,
        "src/build.py": BUILD,
        "scripts/run.sh": RUN,
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def test_command_line_words_of_scripts_handed_to_the_shim_are_not_old(tmp_path: Path) -> None:
    _project(tmp_path)
    # handed: train.py's `--gpus`, tools/train.py's `--gpus` and `--distributed_backend` (a continued line),
    # hydra_app.py's override (its trainer config builds the shim's Trainer), builds.py's (through its
    # module), `${REPO_PATH}/tools/train.py`'s (a variable's folder: looked for from the project's folders)
    # old: old.py's `--gpus` and other_hydra.py's override (docker's `--gpus` is docker's)
    assert finished.count_file(tmp_path / "scripts/run.sh", "2.6", tmp_path) == ("sh", 2, 6, True)


@pytest.mark.parametrize(
    ("line", "old"),
    [
        ("docker run --gpus all -it image", 0),
        ("docker run --gpus '\"device=0\"' image", 0),
        ("nvidia-docker run --gpus=all image", 0),
        ("sudo podman run --rm --gpus all image bash", 0),
        ("docker container run --gpus all image python train.py --max_epochs 3", 0),
        ("docker run --gpus all image python train.py --gpus 2", 1),  # the script's `--gpus` is a Trainer's
        ("docker run --gpus all \\\n    image python -m pkg.train --num_processes 2", 1),
        ("python train.py --gpus 2  # not in docker", 1),
    ],
)
@pytest.mark.parametrize("kind", ["sh", "md"])
def test_a_container_runners_own_gpus_option_is_no_trainer_flag(
    tmp_path: Path, line: str, old: int, kind: str
) -> None:
    """`docker run --gpus all` was counted as an old Trainer form left in shell scripts and documents (the
    tool reports nothing there: `tests/test_front_end_edges.py`)."""
    path = tmp_path / f"run.{kind}"
    path.write_text(f"```bash\n{line}\n```\n" if kind == "md" else f"{line}\n")
    assert finished.count_file(path, "2.6", tmp_path) == (kind, old, 0, True)


def test_python_calls_and_yaml_configs_handed_to_the_shim_are_counted_apart(tmp_path: Path) -> None:
    _project(tmp_path)
    assert finished.count_file(tmp_path / "old.py", "2.6", tmp_path) == ("py", 1, 0, True)
    handed = "import lightning_migrate.shim\nlightning_migrate.shim.Trainer(gpus=2, accelerator='ddp')\n"
    (tmp_path / "handed.py").write_text(handed)
    assert finished.count_file(tmp_path / "handed.py", "2.6", tmp_path) == ("py", 0, 2, True)
    shim_config = tmp_path / "conf/trainer/default.yaml"
    assert finished.count_file(shim_config, "2.6", tmp_path) == ("yaml", 0, 1, True)
    (tmp_path / "plain.yaml").write_text("trainer:\n  gpus: 1\n")
    assert finished.count_file(tmp_path / "plain.yaml", "2.6", tmp_path) == ("yaml", 1, 0, True)

"""A Hydra app's ``Trainer(**cfg.trainer)`` linked to its ``trainer`` group (``project.loaded_configs``): the
config followed back to the ``@hydra.main`` function, through the functions only it calls, and what a
write of the config before the call does to that."""

from __future__ import annotations

from pathlib import Path

import pytest

from lightning_migrate.project.loaded_configs import links

HEAD = "import hydra\nimport pytorch_lightning as pl\nfrom omegaconf import OmegaConf\n\n\n"
MAIN = '@hydra.main(config_path="conf", config_name="config")\ndef main(cfg):\n'


def _app(tmp_path: Path, script: str, experiment: str = "") -> Path:
    (tmp_path / "conf" / "trainer").mkdir(parents=True)
    (tmp_path / "conf" / "config.yaml").write_text("defaults:\n  - trainer: default\n")
    (tmp_path / "conf" / "trainer" / "default.yaml").write_text("gpus: 2\n")
    (tmp_path / "conf" / "trainer" / "cpu.yaml").write_text("gpus: 0\n")
    if experiment:
        (tmp_path / "conf" / "experiment").mkdir()
        (tmp_path / "conf" / "experiment" / "big.yaml").write_text(experiment)
    path = tmp_path / "train.py"
    path.write_text(HEAD + script)
    return path


def _linked(tmp_path: Path, script: str, experiment: str = "") -> bool | None:
    """None: the call is not linked; else whether its link is complete."""
    path = _app(tmp_path, script, experiment)
    found = links([(path, path.read_text())])
    if not found:
        return None
    (link,) = found
    assert link.group
    assert link.keys == ()
    assert sorted(p.name for p in link.configs) == ["cpu.yaml", "default.yaml"]
    return link.complete


RUN = "def run(cfg):\n{before}    trainer = pl.Trainer(**cfg.trainer)\n{after}\n\n"


@pytest.mark.parametrize(
    ("before", "after", "main", "linked"),
    [
        ("", "", "    run(cfg)\n", True),
        ("    cfg.trainer.max_epochs = 3\n", "", "    run(cfg)\n", True),  # a key the model does not read
        ("    cfg.data.path = 'x'\n    load(cfg.data)\n", "", "    run(cfg)\n", True),  # another section
        ("", "    extras(cfg)\n", "    run(cfg)\n", True),  # handed on after the Trainer is built
        ("", "", "    print(OmegaConf.to_yaml(cfg))\n    run(cfg)\n", True),  # only looked at
        ("    cfg.trainer.gpus = 4\n", "", "    run(cfg)\n", None),  # a flag set in Python
        ("    cfg.trainer.pop('gpus')\n", "", "    run(cfg)\n", None),
        ("    extras(cfg)\n", "", "    run(cfg)\n", None),  # handed to a function before
        ("    prepare(cfg.trainer)\n", "", "    run(cfg)\n", None),
        ("", "", "    cfg.trainer.gpus = 1\n    run(cfg)\n", None),  # set by the caller before
        ("", "", "    run(OmegaConf.create({}))\n", None),  # another config
        ("", "", "    run(cfg)\n    callbacks = [run]\n", None),  # the function used otherwise
    ],
)
def test_the_config_is_followed_to_hydra_main(
    tmp_path: Path, before: str, after: str, main: str, linked: bool | None
) -> None:
    assert _linked(tmp_path, RUN.format(before=before, after=after) + MAIN + main) is linked


def test_a_handoff_after_the_call_in_a_loop_may_change_it(tmp_path: Path) -> None:
    script = MAIN + "    for _ in range(2):\n        pl.Trainer(**cfg.trainer)\n        extras(cfg)\n"
    assert _linked(tmp_path, script) is None


def test_the_hydra_main_function_itself(tmp_path: Path) -> None:
    assert _linked(tmp_path, MAIN + "    pl.Trainer(**cfg.trainer).fit(None)\n") is True


def test_an_app_whose_other_configs_set_trainer_keys_is_not_complete(tmp_path: Path) -> None:
    experiment = "# @package _global_\ntrainer:\n  gpus: 4\n"
    assert _linked(tmp_path, MAIN + "    pl.Trainer(**cfg.trainer)\n", experiment) is False

"""Whole-project golden fixtures (``fixtures/projects/<case>/``, each file's output for 2.6 in
``<case>.2.6.expected/`` where it changes): what a run learns across files before it judges a call or a
config. The configs a script loads and passes as ``Trainer(**cfg.trainer)`` (``project.loaded_configs``), and
what refers to a config's keys (``project.key_references``). Each case is migrated as one run, must be a
fixed point, and every rewritten call and config must build in the target what it built before."""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path

import pytest
from test_fixtures import assert_behaviour_kept, assert_flags_kept
from test_kind_fixtures import assert_yaml_behaviour_kept, substituted

from lightning_migrate.cli.callparse import Call, trainer_calls
from lightning_migrate.files.text import Text
from lightning_migrate.plan.locate import locate
from lightning_migrate.project import key_references, loaded_configs
from lightning_migrate.run import followed
from lightning_migrate.run.file_kinds import BY_SUFFIX
from lightning_migrate.run.options import Options
from lightning_migrate.run.runner import FileResult, process_all
from lightning_migrate.semantics.model import RELEASES, release

PROJECTS = Path(__file__).parent.parent / "fixtures" / "projects"
TARGET = "2.6"
CASES = sorted(p.name for p in PROJECTS.iterdir() if p.is_dir() and ".expected" not in p.name)

# (file, code, a piece of its message) each case must report for 2.6
EXPECTED_FINDINGS = {
    "loaded_config": [
        (
            "tools/evaluate.py",
            "LM101",
            '`**params["trainer"]`: run-time value, may be old usage; use `--shim`',
        ),
        ("tools/sweep.py", "LM101", "from `cluster.yaml` (`trainer`), which cannot be migrated there"),
        # a config beside the option's default that the command line may give is judged with it
        ("tools/ablate.py", "LM101", "from `cluster.yaml` (`trainer`), which cannot be migrated there"),
        ("ablations/cluster.yaml", "LM101", "`gpus=${oc.env:NUM_GPUS}`"),
        ("configs/cluster.yaml", "LM101", "`gpus=${oc.env:NUM_GPUS}`"),
        ("run.py", "LM001", "fix: accelerator='cuda', strategy='ddp_find_unused_parameters_true', devices=2"),
    ],
    "key_references": [
        ("configs/trainer/default.yaml", "LM004", "(not fixed: keys read elsewhere)"),
        ("configs/trainer/default.yaml", "LM004", "the rewrite changes `trainer.gpus` and"),
        ("configs/trainer/ddp.yaml", "LM001", "src/utils.py:11 (`config.trainer.gpus`)"),
        ("configs/trainer/ddp.yaml", "LM004", "configs/logger/wandb.yaml:4 (`${trainer.gpus}`)"),
    ],
    "key_reads": [
        ("train.py", "LM004", "`cfg.trainer.gpus` reads `gpus`, which the config now writes as `devices`"),
        ("train.py", "LM004", '`cfg["trainer"]["gpus"]` reads `gpus`'),
        ("configs/train.yaml", "LM004", "`${trainer.gpus}` reads `gpus`"),
    ],
    "hydra_base": [
        ("conf/trainer/default.yaml", "LM101", "files of its group extend it, and composed by Hydra"),
        ("conf/trainer/default.yaml", "LM101", "`trainer/deepspeed.yaml`, `config.yaml trainer=deepspeed`"),
        ("conf/trainer/deepspeed.yaml", "LM101", "it extends the configs its defaults list selects"),
        ("conf/trainer/fp16.yaml", "LM101", "composed by Hydra after the rewrite, `trainer/fp16.yaml`"),
    ],
    # a Hydra app's `Trainer(**cfg.trainer)`, its config handed on from the `@hydra.main` function: the
    # `trainer` group's files are its flags, migrated; an app whose experiment sets Trainer keys: reported
    "hydra_app": [
        ("conf/trainer/default.yaml", "LM001", "`accelerator='ddp'` is a training type"),
        ("conf/trainer/cpu.yaml", "LM004", "`gpus=0` is replaced"),
        ("other/train.py", "LM101", "`**cfg.trainer`: run-time value"),
    ],
    # a star import of the project's own module, followed through a chain (and a cycle) to Lightning
    "star_imports": [
        ("tests/test_fit.py", "LM004", "`gpus=1` is replaced"),
        ("pkg/train.py", "LM001", "`accelerator='ddp'` is a training type"),
        ("notebooks/demo.ipynb", "LM004", "`gpus=1` is replaced"),
        # the `torch` the star import binds tests the machine; one a third party's may bind is not trusted
        ("scripts/every_gpu.py", "LM004", "if torch.cuda.device_count() > 1 else 'auto'"),
        ("scripts/every_gpu_third_party.py", "LM103", "cannot build what this call built"),
    ],
    "hydra_shim": [  # (`--shim` hands them to the shim's Trainer: tests/test_config_shim.py)
        ("configs/trainer/default.yaml", "LM004", "`--shim` makes its `_target_` the runtime shim's Trainer"),
        ("configs/trainer/ddp.yaml", "LM001", "(not fixed: keys read elsewhere)"),
        ("configs/trainer/sampler.yaml", "LM007", "`trainer.replace_sampler_ddp`"),
    ],
    # a call that passes flags of its own beside its configs' section, judged with each config it may load
    "loaded_beside": [
        (
            "run.py",
            "LM005",
            "`DDPPlugin` is renamed; fix: strategy=DDPStrategy(find_unused_parameters=False)",
        ),
        ("configs/beta_vae.yaml", "LM004", "`gpus=[1]` is replaced; fix: accelerator='cuda', devices=[1]"),
        (
            "tools/evaluate.py",
            "LM101",
            "from `dp.yaml` (`trainer_params`), which holds flags beside the call's",
        ),
        ("tools/twice.py", "LM101", '`**config["trainer_params"]`: run-time value'),
        ("tools/multi.py", "LM101", '`**config["trainer_params"]`: run-time value'),
    ],
    "script_reads_options": [
        ("scripts/old.sh", "LM101", "a sign of old usage: Lightning 2.6.6 has no `gpus=`"),
        ("train.py", "LM105", "`pl.Trainer.from_argparse_args` was removed in Lightning 2.0"),
    ],
    # configs no loader the codemod follows reads, whose keys code reads too (`--shim` hands them to the
    # runtime shim through the Trainer calls that take them: tests/test_config_takers.py)
    "shim_takers": [
        ("configs/train.yaml", "LM001", "`--shim` makes the Trainer calls that take its flags build"),
        ("configs/eval.yaml", "LM002", "(not fixed: keys read elsewhere)"),
        ("train.py", "LM101", "`**config.trainer`: run-time value"),
        ("evaluate.py", "LM101", "`**kwargs`: run-time value"),
    ],
    # a group file extending another, whose keys code reads: handed to the shim with `--shim` only
    # (tests/test_composed_shim.py); its remedy without
    "shim_extenders": [
        ("configs/trainer/debug.yaml", "LM007", "`--shim` hands it to the runtime shim"),
        ("configs/trainer/cpu.yaml", "LM001", "`accelerator='ddp_cpu'` is a training type"),
        ("configs/trainer/dp_debug.yaml", "LM103", "Lightning 2.6.6 has no dp strategy"),
    ],
    "shim_extenders_takers": [
        ("configs/trainer/debug.yaml", "LM004", "(not fixed: keys read elsewhere)"),
        ("train.py", "LM101", "`**config.trainer`: run-time value"),
    ],
    # a project as `--unsafe-fixes --shim` leaves it: the calls of the shim's Trainer judged
    # (tests/test_shim_check.py)
    "shim_check": [
        ("train.py", "LM100", "`early_stop_callback=` is in no Lightning release from 1.4"),
        ("config.yaml", "LM103", "`distributed_backend='dp'`: the runtime shim cannot build the dp strategy"),
        ("conf/trainer/dp.yaml", "LM103", "the runtime shim cannot build the dp strategy on Lightning 2.6.6"),
        ("evaluate.py", "LM103", '`distributed_backend="dp"` and 1 more: the runtime shim cannot build'),
    ],
    "script_shim": [
        ("launch.sh", "LM101", "`--gpus 0,1 --accelerator ddp --num_node…`: options of `train.py`, read by"),
        ("README.md", "LM101", "options of `train.py`, read by the script too"),
        ("own.py", "LM101", "`gpus=args.gpus`: no rewrite keeps every value"),
    ],
}
# the Python files whose rewritten call passes a section of the configs it loads beside flags of its own
# (``run.loaded.beside``): the call alone is not what runs, so it is checked with each config, old with old
# and migrated with migrated: (the `**` argument as written, the section's key, the configs)
WITH_CONFIGS = {
    "loaded_beside": {
        "run.py": (
            '**config["trainer_params"]',
            "trainer_params",
            ("configs/vae.yaml", "configs/beta_vae.yaml"),
        )
    }
}
# (each piece is looked for in a finding's message or evidence: ``Finding.details``)
# (file, code) a case must not report: the calls its configs settle
NOT_REPORTED = {
    "loaded_config": [
        ("train.py", "LM101"),
        ("run.py", "LM101"),
        ("tools/finetune.py", "LM101"),
        ("tools/experiment.py", "LM101"),  # every config beside its option's default is migrated
    ],
    "key_references": [],
    "key_reads": [("train.py", "LM101")],
    # each config migrated, the call's own object renamed: the two build what they built together; the
    # configs of the calls reported are not migrated (`multi/`: one of them would write a strategy too)
    "loaded_beside": [
        ("run.py", "LM101"),
        ("eval/dp.yaml", "LM004"),
        ("eval/twice.yaml", "LM004"),
        ("multi/one.yaml", "LM004"),
        ("multi/two.yaml", "LM004"),
    ],
    "hydra_base": [],
    "hydra_app": [("train.py", "LM101")],
    # `pl` that the module binds again itself, one left out of a literal `__all__`, a module not in the
    # project: not followed (the calls are not known to be Lightning's)
    "star_imports": [
        ("scripts/shadowed.py", "LM004"),
        ("scripts/limited.py", "LM004"),
        ("scripts/third_party.py", "LM004"),
    ],
    "hydra_shim": [],
    # the target's own form on a command line: nothing to report, whatever the script does with it
    "script_reads_options": [("scripts/pretrain.sh", "LM101"), ("README.md", "LM101")],
    "script_shim": [],
    "shim_takers": [],
    "shim_extenders": [],
    "shim_extenders_takers": [],
    "shim_check": [("conf/trainer/ddp.yaml", "LM001"), ("conf/trainer/ddp.yaml", "LM007")],
}


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix in BY_SUFFIX)


def _migrate(root: Path) -> dict[str, FileResult]:
    results = process_all(_files(root), Options(release(TARGET), root=root), jobs=1)
    assert not [r.error for r in results if r.error]
    return {r.path.relative_to(root).as_posix(): r for r in results}


@pytest.mark.parametrize("case", CASES)
def test_project(case: str, tmp_path: Path) -> None:
    root = tmp_path / case
    shutil.copytree(PROJECTS / case, root)
    results = _migrate(root)
    expected = PROJECTS / f"{case}.{TARGET}.expected"
    for name, result in results.items():
        old = (root / name).read_text()
        want = (expected / name).read_text() if (expected / name).is_file() else old
        new = result.new if result.data is not None else old
        assert new == want, name
        if new != old and name in WITH_CONFIGS.get(case, {}):
            star, key, configs = WITH_CONFIGS[case][name]
            pairs = [((root / c).read_text(), results[c].new) for c in configs]
            _assert_kept_with_configs(old, new, star, key, pairs)
        elif new != old and name.endswith(".py"):
            checked = assert_behaviour_kept(old, new, release(TARGET), None)
            assert checked > 0 or _only_followed(old, new), name
        if new != old and name.endswith(".yaml"):
            assert_yaml_behaviour_kept(root / name, old, new, release(TARGET))
            _sections_kept(old, new)
    found = [
        (name, f.code, "\n".join((f.message, *f.details))) for name, r in results.items() for f in r.findings
    ]
    for name, code, piece in EXPECTED_FINDINGS[case]:
        assert any(n == name and c == code and piece in m for n, c, m in found), (name, code, piece)
    for name, code in NOT_REPORTED[case]:
        assert not [f for n, c, f in found if n == name and c == code], (name, code)
    for name, result in results.items():  # a fixed point: the rewritten project migrates to itself
        if result.data is not None:
            (root / name).write_bytes(result.data)
    assert not [name for name, r in _migrate(root).items() if r.data is not None]


def _assert_kept_with_configs(
    old: str, new: str, star: str, key: str, configs: list[tuple[str, str]]
) -> None:
    """The call of ``old`` with each config's section (``star`` written as its flags), as every release
    before the target built it, builds in the target what the call of ``new`` builds with that config
    migrated."""
    from lightning_migrate.frontends.yaml.read import load, read

    target = release(TARGET)
    for old_config, new_config in configs:
        built = []
        for code, config in ((old, old_config), (new, new_config)):
            flags = dict(read(load(config)[0][key]).flags)
            assert star in code
            (call,) = [c for c in trainer_calls(code.replace(star, f"**{flags!r}")) if isinstance(c, Call)]
            built.append(call.flags)
        assert_flags_kept(built[0], built[1], target, [r for r in RELEASES if r < target], label=star)


def _sections_kept(old: str, new: str) -> None:
    """Every top-level section of a YAML file that holds Trainer flags (a config a call passes alone,
    ``trainer_params:``) builds in the target what it built before, if the rewrite changed it."""
    from lightning_migrate.frontends.yaml.read import load, read

    for before, after in zip(load(old), load(new)):
        for key, section in before.items():
            if not hasattr(section, "_ok") or not hasattr(after.get(key), "_ok"):
                continue
            old_flags, new_flags = read(section).flags, read(after[key]).flags
            if old_flags != new_flags:
                for old_values, new_values in substituted(old_flags, new_flags):
                    assert_flags_kept(old_values, new_values, release(TARGET), RELEASES[:-1], label=key)


def _only_followed(old: str, new: str) -> bool:
    """Is ``new`` ``old`` with only references to a config's ``gpus`` renamed ``devices``?"""
    return new != old and new.replace("devices", "gpus") == old


def _links(source: str, path: Path) -> list[loaded_configs.Link]:
    return list(loaded_configs._links_of(path, locate(ast.parse(source), Text(source)), Text(source)))


def test_a_loaded_config_is_found_beside_the_script_or_above_it(tmp_path: Path) -> None:
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "a.yaml").write_text("trainer: {}\n")
    (tmp_path / "configs" / "b.yaml").write_text("trainer: {}\n")
    (tmp_path / "scripts").mkdir()
    script = tmp_path / "scripts" / "train.py"
    source = (
        "import pytorch_lightning as pl\nfrom omegaconf import OmegaConf\n"
        "cfg = OmegaConf.load('configs/a.yaml' if fast else 'configs/b.yaml')\n"
        "pl.Trainer(**OmegaConf.to_container(cfg.trainer, resolve=True))\n"
    )
    (link,) = _links(source, script)
    assert link.complete
    assert not link.explicit
    assert link.keys == ("trainer",)
    assert link.configs == (tmp_path / "configs" / "a.yaml", tmp_path / "configs" / "b.yaml")
    missing = _links(source.replace("b.yaml", "c.yaml"), script)
    assert [lk.complete for lk in missing] == [False]


def test_the_configs_beside_an_options_default_with_its_section_are_candidates(tmp_path: Path) -> None:
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "vae.yaml").write_text("trainer_params:\n  max_epochs: 3\n")
    (tmp_path / "configs" / "big.yaml").write_text("# four GPUs\ntrainer_params:\n  gpus: 4\n")
    (tmp_path / "configs" / "notes.yaml").write_text("summary: not a run's config\n")
    (tmp_path / "configs" / "other.yaml").write_text("trainer_params:\n  gpus: 1\n")
    (tmp_path / "configs" / "data.json").write_text('{"trainer_params": {"gpus": 2}}\n')
    source = (
        "import argparse, yaml\nimport pytorch_lightning as pl\n"
        "parser = argparse.ArgumentParser()\n"
        "parser.add_argument('--config', default='configs/vae.yaml')\n"
        "args = parser.parse_args()\n"
        "config = yaml.safe_load(open(args.config))\n"
        "pl.Trainer(**config['trainer_params'])\n"
    )
    (link,) = _links(source, tmp_path / "run.py")
    configs = tmp_path / "configs"
    assert link.complete
    assert link.configs == (configs / "vae.yaml", configs / "big.yaml", configs / "other.yaml")
    assert link.siblings == (configs / "big.yaml", configs / "other.yaml")
    # a sibling that another script loads by its name is that script's config, not a choice of the option
    named = "import yaml\nimport pytorch_lightning as pl\n" + (
        "pl.Trainer(**yaml.safe_load(open('configs/other.yaml'))['trainer_params'])\n"
    )
    found = loaded_configs.links([(tmp_path / "run.py", source), (tmp_path / "other.py", named)])
    assert [lk.configs for lk in found] == [
        (configs / "vae.yaml", configs / "big.yaml"),
        (configs / "other.yaml",),
    ]
    # a literal path, or a choice among several, names its files alone
    (literal,) = _links(source.replace("args.config", "'configs/vae.yaml'"), tmp_path / "run.py")
    assert literal.configs == (configs / "vae.yaml",)
    assert literal.siblings == ()
    chosen = source.replace("default=", "choices=['configs/vae.yaml', 'configs/big.yaml'], default=")
    (choice,) = _links(chosen, tmp_path / "run.py")
    assert choice.configs == (configs / "vae.yaml", configs / "big.yaml")


@pytest.mark.parametrize(
    "change",
    [
        "kwargs['gpus'] = 2",  # a flag set where the config is passed
        "kwargs.update(extra)",  # anything may be set
        "config.trainer.gpus = 0",  # the loaded config itself changed
        "extras(config)",  # handed whole to a function that may change it
        "OmegaConf.set_struct(config, False)",  # (even one that does not: it is not known here)
    ],
)
def test_a_section_changed_in_python_is_not_the_configs(change: str, tmp_path: Path) -> None:
    source = (
        "import pytorch_lightning as pl\nimport yaml\n"
        "config = yaml.safe_load(open('x.yaml'))\nkwargs = config.trainer\n"
        f"{change}\npl.Trainer(**kwargs)\n"
    )
    assert _links(source, tmp_path / "train.py") == []
    kept = source.replace(change, "kwargs['logger'] = None")  # a key the model does not read
    assert len(_links(kept, tmp_path / "train.py")) == 1


def test_key_references_in_python() -> None:
    source = "\n".join(
        [
            "n = cfg.trainer.gpus",
            "m = cfg['trainer']['tpu_cores']",
            "if cfg.trainer.get('accelerator'): pass",
            "cfg.train.trainer.gpus = 0",
            "x = OmegaConf.select(cfg, 'train.trainer.num_processes')",
            "y = 'strategy' in cfg.trainer",
            "z = self.trainer.gpus",  # a module's Trainer object, not a config
            "w = args.gpus",  # an argparse namespace: no section
        ]
    )
    found = [(where, ref.line, ref.write) for where, ref in key_references.in_python(Path("u.py"), source)]
    assert sorted(found) == sorted(
        [
            (("trainer", "gpus"), 1, False),
            (("trainer", "tpu_cores"), 2, False),
            (("trainer", "accelerator"), 3, False),
            (("trainer", "gpus"), 4, True),
            (("trainer", "num_processes"), 5, False),
            (("trainer", "strategy"), 6, False),
        ]
    )


def test_key_references_in_yaml() -> None:
    text = "name: run_${trainer.gpus}\nnodes: ${oc.select:train.trainer.num_nodes,1}\nother: ${model.lr}\n"
    found = [(where, ref.line, ref.column) for where, ref in key_references.in_yaml(Path("c.yaml"), text)]
    assert found == [(("trainer", "gpus"), 1, 13), (("trainer", "num_nodes"), 2, 20)]


@pytest.mark.parametrize(
    ("gpus", "follows"),
    [
        ("2", True),  # `devices: 2` holds what `gpus: 2` held
        ("0", False),  # `gpus: 0` becomes `accelerator: cpu`: a read of the device count has no exact rewrite
        ("${oc.env:GPUS}", False),  # the config itself is not migrated
    ],
)
def test_a_read_follows_only_where_every_config_holds_the_same_value(
    gpus: str, follows: bool, tmp_path: Path
) -> None:
    (tmp_path / "a.yaml").write_text("trainer:\n  gpus: 2\n  max_epochs: 1\n")
    (tmp_path / "b.yaml").write_text(f"trainer:\n  gpus: {gpus}\n  max_epochs: 1\n")
    (tmp_path / "log.py").write_text("def name(cfg):\n    return f'run_{cfg.trainer.gpus}'\n")
    results = _migrate(tmp_path)
    read = results["log.py"]
    assert (read.data is not None) == follows
    assert (results["a.yaml"].data is not None) == follows
    if not follows:
        left = [detail for f in results["a.yaml"].findings if not f.fixable for detail in f.details]
        assert any("log.py:2 (`cfg.trainer.gpus`)" in m for m in left)


@pytest.mark.parametrize(("first", "migrated"), [("0", ["a.yaml"]), ("2", ["a.yaml", "b.yaml", "c.yaml"])])
def test_the_configs_are_migrated_for_a_rename_only_until_one_breaks_it(
    first: str, migrated: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A rename one config breaks (`gpus: 0` becomes `accelerator: cpu`) stays broken: the pass that judges
    it migrates no config after that one (each migration may compose Hydra configs), and the run's outcome
    is the one the whole pass gave."""
    (tmp_path / "a.yaml").write_text(f"trainer:\n  gpus: {first}\n  max_epochs: 1\n")
    for name in ("b.yaml", "c.yaml"):
        (tmp_path / name).write_text("trainer:\n  gpus: 2\n  max_epochs: 1\n")
    (tmp_path / "log.py").write_text("def name(cfg):\n    return f'run_{cfg.trainer.gpus}'\n")
    asked: list[str] = []

    def whole(path: Path, text: str, options: Options, unfixed: bool = False) -> object:
        asked.append(path.name)
        return loaded_whole(path, text, options, unfixed)

    loaded_whole = followed.whole
    monkeypatch.setattr(followed, "whole", whole)
    results = _migrate(tmp_path)
    assert asked == migrated
    follows = first == "2"
    assert (results["log.py"].data is not None) == follows
    for name in ("a.yaml", "b.yaml", "c.yaml"):
        left = [detail for f in results[name].findings if not f.fixable for detail in f.details]
        assert (results[name].data is not None) == follows
        assert any("log.py:2 (`cfg.trainer.gpus`)" in m for m in left) != follows


@pytest.mark.parametrize(
    ("config", "reported"),
    [
        ('{"trainer": {"max_epochs": 2}}', False),  # no hardware flag: the call has none either
        ('{"trainer": {"gpus": 2, "accelerator": "ddp"}}', True),  # no front end of ours writes JSON
    ],
)
def test_a_json_config(config: str, reported: bool, tmp_path: Path) -> None:
    (tmp_path / "c.json").write_text(config)
    script = "import json\nimport pytorch_lightning as pl\nwith open('c.json') as f:\n    c = json.load(f)\n"
    (tmp_path / "t.py").write_text(script + "pl.Trainer(**c['trainer'])\n")
    results = process_all([tmp_path / "t.py"], Options(release(TARGET)), jobs=1)
    assert [f.code for r in results for f in r.findings] == (["LM101"] if reported else [])


def test_a_config_beside_the_calls_own_flags_is_named(tmp_path: Path) -> None:
    """A training type beside the config's GPUs that 2.x lacks (`dp`): no rewrite of the two keeps the call,
    which is reported, the config named; `ddp` beside it: the call takes the strategy, the config the
    devices, judged together."""
    (tmp_path / "vae.yaml").write_text("trainer_params:\n  gpus: [1]\n  max_epochs: 100\n")
    script = "import yaml\nfrom pytorch_lightning import Trainer\nconfig = yaml.safe_load(open('vae.yaml'))\n"
    (tmp_path / "run.py").write_text(script + "Trainer(accelerator='dp', **config['trainer_params'])\n")
    results = _migrate(tmp_path)
    (finding,) = [f for f in results["run.py"].findings if f.code == "LM101"]
    assert (
        "come from `vae.yaml` (`trainer_params`), which holds flags beside the call's own"
        in finding.details[0]
    )
    assert results["run.py"].data is None
    assert results["vae.yaml"].data is None
    (tmp_path / "run.py").write_text(script + "Trainer(accelerator='ddp', **config['trainer_params'])\n")
    results = _migrate(tmp_path)
    assert [f.code for f in results["run.py"].findings] == ["LM001"]
    assert "Trainer(strategy='ddp_find_unused_parameters_true', **config" in results["run.py"].new
    assert "  devices: [1]\n  accelerator: cuda\n" in results["vae.yaml"].new


@pytest.mark.parametrize("noqa", ["  # noqa: LM004", "  # noqa"])
def test_a_config_left_by_noqa_settles_nothing(noqa: str, tmp_path: Path) -> None:
    (tmp_path / "c.yaml").write_text(f"trainer:\n  gpus: 2{noqa}\n  max_epochs: 1\n")
    script = (
        "import pytorch_lightning as pl\nfrom omegaconf import OmegaConf\ncfg = OmegaConf.load('c.yaml')\n"
    )
    (tmp_path / "t.py").write_text(script + "n = cfg.trainer.gpus\npl.Trainer(**cfg.trainer)\n")
    results = _migrate(tmp_path)
    assert results["c.yaml"].data is None
    assert results["t.py"].data is None  # the read is not renamed: the config keeps `gpus`
    assert [f.code for f in results["t.py"].findings] == ["LM101"]


def test_references_are_renamed_where_python_and_yaml_count_lines(tmp_path: Path) -> None:
    """A form feed or a line separator inside a line ends no line for Python (``str.splitlines`` would say
    it does); a YAML file's lines may end with CRLF."""
    (tmp_path / "a.yaml").write_bytes(b"data:\r\n  workers: ${trainer.gpus}\r\ntrainer:\r\n  gpus: 2\r\n")
    (tmp_path / "log.py").write_text(
        "x = 1  # \x0c page\ny = '\u2028'\ndef name(cfg):\n    return cfg.trainer.gpus\n"
    )
    results = _migrate(tmp_path)
    assert results["log.py"].new.endswith("    return cfg.trainer.devices\n")
    assert b"  workers: ${trainer.devices}\r\n" in (results["a.yaml"].data or b"")


FOLLOWED_SECTIONS = ({"trainer"}, {"pl_trainer"}, {"trainer_params"}, {"model"}, {"lightning", "trainer"})


@pytest.mark.parametrize(
    "text",
    [
        '"\\x74rainer":\n  gpus: 2\n',  # (an escape spells the key: the text test cannot tell)
        "'trainer':\n  gpus: 2\n",
        "pl_trainer:\n  _target_: pytorch_lightning.Trainer\n  gpus: 2\n",
        "model:\n  lr: 1\n",
    ],
)
def test_a_config_of_a_followed_section_is_never_skipped_unread(text: str, tmp_path: Path) -> None:
    _assert_may_hold_is_sound(text, tmp_path / "configs" / "conf.yaml")
    _assert_may_hold_is_sound(text, tmp_path / "trainer" / "gpu.yaml")


def test_the_fixture_configs_a_followed_section_skips_unread_hold_none_of_it() -> None:
    root = Path(__file__).parent.parent
    paths = sorted(p for folder in ("fixtures", "tests") for p in (root / folder).rglob("*.y*ml"))
    assert len(paths) > 100
    skipped = sum(_assert_may_hold_is_sound(path.read_text(encoding="utf-8"), path) for path in paths)
    assert skipped > 0


def _assert_may_hold_is_sound(text: str, path: Path) -> int:
    """``followed._may_hold`` says False only where the file holds no config of the sections; how many times
    it said False."""
    from lightning_migrate.files.sourcefile import SourceError
    from lightning_migrate.frontends.yaml.read import configs, load

    try:
        found = {config.section for document in load(text) for config in configs(document, text, path)}
    except SourceError:
        found = set()
    skipped = 0
    for sections in FOLLOWED_SECTIONS:
        if not followed._may_hold(text, path, sections):
            skipped += 1
            assert not found & sections, (path, sections)
    return skipped


def test_the_code_a_config_is_left_for_is_named_in_reading_order(tmp_path: Path) -> None:
    """(``ast.walk`` goes breadth first: the read nested deeper, line 4, came after line 5.)"""
    (tmp_path / "a.yaml").write_text("trainer:\n  accelerator: ddp\n  gpus: 2\n")
    (tmp_path / "check.py").write_text(
        "def check(cfg):\n    if cfg.trainer.accelerator:\n        if cfg.x:\n"
        "            cfg.trainer.accelerator = 'ddp'\n    print(cfg.trainer.accelerator)\n"
    )
    details = _migrate(tmp_path)["a.yaml"].findings[0].details
    assert [int(line) for line in re.findall(r"check\.py:(\d+) ", "\n".join(details))] == [2, 4, 5]

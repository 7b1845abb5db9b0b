"""A script's own options are followed to the Trainer across modules (issue 24, parts 2 and 3): the parser
that defines them (in the script, or built in another module of the project), the Trainer keyword each
reaches, the options of Lightning's parser the script changes itself, and the narrowing a parser built in
another module gives the values where the Trainer is built."""

from __future__ import annotations

from pathlib import Path

import pytest

from lightning_migrate.project.script_options import imported, of_script, script_file
from lightning_migrate.run.options import Options
from lightning_migrate.run.runner import process_file
from lightning_migrate.semantics.model import release

OPT = """import argparse


def get_opts():
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpus", type=int, choices=[1, 2, 4], default=1)
    parser.add_argument("--num_nodes", type=int, default=1)
    args = parser.parse_args()
    return args
"""
MODEL = """class Model:
    @staticmethod
    def add_model_specific_args(parser):
        parser.add_argument("--gpus", type=int, choices=[2, 4], default=2)
        return parser
"""


def write(folder: Path, files: dict[str, str]) -> Path:
    (folder / "setup.py").write_text("")
    for name, text in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text)
    return folder


def findings(path: Path, target: str = "2.6") -> list[str]:
    result = process_file(path, Options(release(target)))
    assert not result.error, result.error
    return [f"{f.code} {f.message}" for f in result.findings]


@pytest.mark.parametrize(
    "script",
    [
        "from opt import get_opts\nargs = get_opts()\nTrainer(gpus=args.gpus)\n",
        "import opt\nargs = opt.get_opts()\nn = args.gpus\nTrainer(gpus=n)\n",
        "from opt import get_opts\n\ndef main(hparams):\n    Trainer(devices=hparams['gpus'])\n\n"
        "main(get_opts())\n",
    ],
    ids=["by-name", "module-and-bound-name", "subscript-in-a-function"],
)
def test_an_option_of_another_modules_parser_is_followed_to_the_trainer(tmp_path: Path, script: str) -> None:
    header = "from pytorch_lightning import Trainer\n"
    write(tmp_path, {"opt.py": OPT, "train.py": header + script})
    found = of_script(tmp_path / "train.py")
    assert found is not None
    assert not found.trainer_parser
    assert {"gpus", "num_nodes"} <= found.own
    assert "gpus" in found.reaching
    assert "num_nodes" not in found.reaching


def test_a_method_that_adds_options_is_the_scripts_parser(tmp_path: Path) -> None:
    script = (
        "import argparse\nimport pytorch_lightning as pl\nfrom model import Model\n"
        "parser = Model.add_model_specific_args(argparse.ArgumentParser())\nargs = parser.parse_args()\n"
        "pl.Trainer(gpus=args.gpus)\n"
    )
    write(tmp_path, {"model.py": MODEL, "train.py": script})
    found = of_script(tmp_path / "train.py")
    assert found is not None
    assert found.own == {"gpus"}
    assert found.reaching == {"gpus": "gpus"}
    assert dict(imported(tmp_path / "train.py").options)["gpus"].choices == (2, 4)


def test_lightnings_parser_changed_by_the_script(tmp_path: Path) -> None:
    script = (
        "import argparse\nimport pytorch_lightning as pl\nparser = argparse.ArgumentParser()\n"
        "parser = pl.Trainer.add_argparse_args(parser)\nparser.set_defaults(num_nodes=2)\n"
        "args = parser.parse_args()\nargs.gpus = len(args.gpus.split(','))\n"
        "pl.Trainer.from_argparse_args(args, precision=args.precision)\n"
    )
    write(tmp_path, {"train.py": script})
    found = of_script(tmp_path / "train.py")
    assert found is not None
    assert found.trainer_parser
    assert set(found.changed) == {"gpus", "num_nodes"}  # `precision` is read in the call: it reaches it
    assert "set_defaults(num_nodes=...)" in found.changed["num_nodes"]
    assert found.reaching["precision"] == "precision"


def test_a_script_that_cannot_be_found_or_read_is_not_followed(tmp_path: Path) -> None:
    write(tmp_path, {"broken.py": "def (:\n"})
    assert script_file(tmp_path, "missing.py") is None
    assert of_script(tmp_path / "broken.py") is None


def test_the_command_line_of_a_followed_option_gets_no_finding(tmp_path: Path) -> None:
    train = (
        "from opt import get_opts\nimport pytorch_lightning as pl\nargs = get_opts()\n"
        "pl.Trainer(gpus=args.gpus)\n"
    )
    write(tmp_path, {"opt.py": OPT, "train.py": train, "run.sh": "python train.py --gpus 1\n"})
    assert findings(tmp_path / "run.sh") == []
    # an option the Trainer call does not read stays reported, as before
    (tmp_path / "other.sh").write_text("python train.py --num_nodes 2 --accelerator ddp\n")
    assert [f.split(":")[0] for f in findings(tmp_path / "other.sh")] == [
        "LM101 `--num_nodes 2 --accelerator ddp`"
    ]


def test_options_lightnings_parser_passes_unchanged_are_still_rewritten(tmp_path: Path) -> None:
    train = (
        "import argparse\nimport pytorch_lightning as pl\nparser = argparse.ArgumentParser()\n"
        "parser = pl.Trainer.add_argparse_args(parser)\nargs = parser.parse_args()\n"
        "pl.Trainer.from_argparse_args(args)\n"
    )
    write(tmp_path, {"train.py": train, "run.sh": "python train.py --accelerator ddp --gpus 2\n"})
    result = process_file(tmp_path / "run.sh", Options(release("1.6")))
    assert result.new == "python train.py --strategy ddp --gpus 2\n"


def test_a_changed_option_of_lightnings_parser_is_not_rewritten(tmp_path: Path) -> None:
    train = (
        "import argparse\nimport pytorch_lightning as pl\nparser = argparse.ArgumentParser()\n"
        "parser = pl.Trainer.add_argparse_args(parser)\nopt = parser.parse_args()\n"
        "config = vars(opt)\nconfig['accelerator'] = 'ddp' if config['gpus'] else None\n"
        "pl.Trainer.from_argparse_args(argparse.Namespace(**config))\n"
    )
    write(tmp_path, {"train.py": train, "run.sh": "python train.py --gpus 8\n"})
    result = process_file(tmp_path / "run.sh", Options(release("2.6")))
    assert result.data is None
    (message,) = ["\n".join((f.message, *f.details)) for f in result.findings]  # (with the evidence)
    assert "sets or reads them itself (`config['gpus']` at train.py:7)" in message


def test_a_parser_in_another_module_narrows_the_values_where_the_trainer_is_built(tmp_path: Path) -> None:
    train = (
        "import pytorch_lightning as pl\nfrom opt import get_opts\nhparams = get_opts()\n"
        'pl.Trainer(gpus=hparams.gpus, accelerator="ddp")\n'
    )
    write(tmp_path, {"opt.py": OPT, "train.py": train})
    result = process_file(tmp_path / "train.py", Options(release("2.6")))
    assert "devices=hparams.gpus" in result.new
    # alone (standard input: no project), the same call is reported: `gpus` may be None or 0 there
    alone = process_file(Path("-"), Options(release("2.6")), train.encode())
    assert alone.data is None
    assert any(f.code == "LM101" for f in alone.findings)


def test_flags_beside_a_default_the_script_sets_are_judged_with_it_unknown(tmp_path: Path) -> None:
    train = (
        "import argparse\nimport pytorch_lightning as pl\nparser = argparse.ArgumentParser()\n"
        "parser = pl.Trainer.add_argparse_args(parser)\nparser.set_defaults(accelerator='ddp')\n"
        "pl.Trainer.from_argparse_args(parser.parse_args())\n"
    )
    write(tmp_path, {"train.py": train, "run.sh": "python train.py --gpus 1\n"})
    result = process_file(tmp_path / "run.sh", Options(release("2.6")))
    assert result.data is None  # `--devices 2 --accelerator cuda` would drop the default's training type
    (message,) = ["\n".join((f.message, *f.details)) for f in result.findings]  # (with the evidence)
    assert "the script sets or reads the Trainer flags `accelerator` itself" in message


BESIDE_KEYWORD = (
    "import argparse\nimport pytorch_lightning as pl\nparser = argparse.ArgumentParser()\n"
    "parser = pl.Trainer.add_argparse_args(parser)\n"
    "pl.Trainer.from_argparse_args(parser.parse_args(), distributed_backend='ddp')\n"
)


@pytest.mark.parametrize(
    ("target", "reported"),
    [
        ("1.5", False),  # `--gpus 4` is 1.5's own form: the call's `distributed_backend=` is the script's
        ("2.6", True),  # `--gpus` is gone: the words need a change, weighed with the call's keyword
    ],
)
def test_words_of_the_targets_form_beside_a_keyword_of_the_call_get_no_finding(
    tmp_path: Path, target: str, reported: bool
) -> None:
    """The script's own keyword (`distributed_backend="ddp"` beside the namespace) is reported in the script;
    the command line gets a finding only where its own words are old for the target."""
    write(tmp_path, {"train.py": BESIDE_KEYWORD, "run.sh": "python train.py --gpus 4 --precision 16\n"})
    assert bool(findings(tmp_path / "run.sh", target)) is reported
    assert findings(tmp_path / "train.py", target)  # (the call itself is reported in both)


def test_a_project_without_a_marker_is_searched_a_few_levels_up(tmp_path: Path) -> None:
    (tmp_path / "parser").mkdir()
    (tmp_path / "scripts" / "ctb").mkdir(parents=True)
    (tmp_path / "parser" / "train.py").write_text("")
    assert script_file(tmp_path / "scripts" / "ctb", "parser/train.py") == tmp_path / "parser" / "train.py"


def test_a_packages_setup_module_is_no_project_root(tmp_path: Path) -> None:
    setup = "from solo.args.utils import fix\n\ndef parse():\n    return fix(parser.parse_args())\n"
    utils = "def fix(args):\n    args.devices = [int(d) for d in args.devices.split(',')]\n    return args\n"
    script = (
        "import pytorch_lightning as pl\nfrom solo.args.setup import parse\n"
        "parser = pl.Trainer.add_argparse_args(None)\npl.Trainer.from_argparse_args(parse())\n"
    )
    write(tmp_path, {"solo/__init__.py": "", "solo/args/__init__.py": "", "solo/args/setup.py": setup})
    write(tmp_path, {"solo/args/utils.py": utils, "main.py": script})
    found = of_script(tmp_path / "main.py")
    assert found is not None
    assert found.changed["devices"].endswith("at utils.py:2")


def test_flags_beside_an_option_a_trainer_keyword_reads_are_judged_with_it_unknown(tmp_path: Path) -> None:
    train = (
        "import argparse\nimport pytorch_lightning as pl\nparser = argparse.ArgumentParser()\n"
        "parser = pl.Trainer.add_argparse_args(parser)\nargs = parser.parse_args()\n"
        "pl.Trainer.from_argparse_args(args, num_nodes=args.num_nodes)\n"
    )
    write(tmp_path, {"train.py": train, "run.sh": "python train.py --num_nodes 2 --accelerator ddp\n"})
    result = process_file(tmp_path / "run.sh", Options(release("1.6")))
    assert (
        result.data is None
    )  # `--num_nodes 2` is the call's, and reaches the Trainer beside `--accelerator`
    (message,) = ["\n".join((f.message, *f.details)) for f in result.findings]  # (with the evidence)
    assert "`--num_nodes` reach the Trainer too, through a keyword of the script's call" in message


OWN_PARSER = """import argparse

from pytorch_lightning import Trainer

parser = argparse.ArgumentParser()
parser.add_argument("--gpus", type=int, default=1)
{more}args = parser.parse_args()
Trainer(**make_kwargs(args))
"""


@pytest.mark.parametrize(
    ("more", "reported"),
    [
        ("", False),  # the parser has no `--accelerator`/`--devices`: the words are the script's own
        (  # it defines every option a rewrite would pass: the advice can be followed, and is given
            'parser.add_argument("--accelerator", default=None)\n'
            'parser.add_argument("--devices", default=None)\n',
            True,
        ),
    ],
    ids=["own-options", "parser-also-defines-the-rewrite"],
)
def test_a_scripts_own_options_get_no_finding_where_no_words_could_replace_them(
    tmp_path: Path, more: str, reported: bool
) -> None:
    write(tmp_path, {"train.py": OWN_PARSER.format(more=more), "run.sh": "python train.py --gpus 1\n"})
    found = [f for f in findings(tmp_path / "run.sh") if f.startswith("LM101")]
    assert bool(found) == reported, found
    if reported:
        assert "pass `--accelerator cuda --devices 1` instead" in found[0]


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("cd app", "app"),
        ("cd ./app/", "app"),
        ("cd app/..", "."),
        ("cd missing", "."),  # (a folder the tree does not hold)
        ("cd $ROOT", "."),
        ("cd /abs", "."),
        ("cd", "."),
        ("(cd app", "."),  # (a subshell's: the commands after the parenthesis are not in it)
    ],
)
def test_a_cd_moves_the_folder_the_next_commands_run_in(tmp_path: Path, line: str, found: str) -> None:
    from lightning_migrate.frontends.shell.command_line import moved
    from lightning_migrate.frontends.shell.words import commands

    (tmp_path / "app").mkdir()
    command = commands(line)[0]
    assert moved(command, line, tmp_path) == (tmp_path / found).resolve()

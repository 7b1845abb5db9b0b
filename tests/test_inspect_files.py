"""``inspect --file`` on every kind the codemod reads (Python, a notebook, YAML Trainer configs, shell
scripts, Markdown), files it cannot read (a clear error, exit 2, no traceback), a machine's answers feeding
the values (``torch.cuda.device_count()``) and a table whose exception spans lines. The README's ``inspect``
example is checked with its other examples, in ``tests/test_readme.py``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_helpers import run


def notebook(*sources: list[str]) -> str:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# Training\n"]}]
    cells += [
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}
        for source in sources
    ]
    metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    return json.dumps({"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}, indent=1)


def titles(out: str) -> list[str]:
    """The first line of each call's report."""
    return [block.splitlines()[0] for block in out.strip().split("\n\n")]


def test_a_notebook_s_calls_are_found_in_their_cells(tmp_path: Path) -> None:
    path = tmp_path / "train.ipynb"
    path.write_text(
        notebook(
            ["import pytorch_lightning as pl\n", "!nvidia-smi\n", "gpus = 2\n"],
            [
                "%time x = 1\n",
                'trainer = pl.Trainer(gpus=gpus, accelerator="ddp")\n',
                "pl.Trainer(tpu_cores=8)",
            ],
        )
    )
    outcome = run("inspect", "--file", str(path), "--cuda", "2")
    assert outcome.code == 0, outcome.err
    assert titles(outcome.out) == [
        f'{path}:cell 3:2: Trainer(gpus=2, accelerator="ddp") on 2 CUDA GPUs',
        f"{path}:cell 3:3: Trainer(tpu_cores=8) on 2 CUDA GPUs",
    ]
    (first, _) = json.loads(run("inspect", "--file", str(path), "--output-format", "json").out)
    assert (first["line"], first["where"]) == (2, "cell 3:2")


def test_a_yaml_trainer_config_is_inspected_as_the_trainer_gets_it(tmp_path: Path) -> None:
    path = tmp_path / "config.yaml"
    path.write_text("model:\n  lr: 0.1\ntrainer:\n  accelerator: ddp\n  gpus: 2\n  max_epochs: 3\n")
    outcome = run("inspect", "--file", str(path), "--cuda", "2")
    assert outcome.code == 0, outcome.err
    assert titles(outcome.out) == [f'{path}:3: Trainer(accelerator="ddp", gpus=2) on 2 CUDA GPUs']
    assert "1.4.9   cuda [0, 1], strategy ddp(start_method=popen, find_unused_parameters=True)" in outcome.out


def test_a_hydra_config_s_value_left_to_run_time_is_not_inspected(tmp_path: Path) -> None:
    path = tmp_path / "ddp.yaml"
    path.write_text("trainer:\n  gpus: ${oc.env:NGPU}\n")
    outcome = run("inspect", "--file", str(path))
    assert outcome.code == 0, outcome.err
    value = "${oc.env:NGPU}"
    assert outcome.out == (
        f"{path}:1: trainer: {{gpus: {value}}}\n  not inspected: `gpus: {value}` only known at run time\n"
    )


def test_a_shell_script_s_command_lines_that_reach_the_trainer(tmp_path: Path) -> None:
    path = tmp_path / "run.sh"
    path.write_text(
        "#!/bin/bash\nexport PL_TRAINER_GPUS=2\nexport PL_TRAINER_ACCELERATOR=ddp\n"
        "python train.py fit --trainer.gpus 4 --trainer.accelerator ddp_spawn\n"
        "python train.py fit --trainer.gpus=$N\n"
    )
    outcome = run("inspect", "--file", str(path), "--cuda", "4")
    assert outcome.code == 0, outcome.err
    assert titles(outcome.out) == [
        f'{path}:2: Trainer(gpus=2, accelerator="ddp") on 4 CUDA GPUs',
        f'{path}:4: Trainer(gpus=4, accelerator="ddp_spawn") on 4 CUDA GPUs',
        f"{path}:5: python train.py fit --trainer.gpus=$N",
    ]
    assert "  not inspected: `gpus` expands at run time" in outcome.out


def test_markdown_code_blocks(tmp_path: Path) -> None:
    path = tmp_path / "README.md"
    path.write_text(
        "# Train\n\n```python\nimport pytorch_lightning as pl\n\npl.Trainer(gpus=2)\n```\n\n"
        "```bash\npython train.py --trainer.num_processes 2\n```\n"
    )
    outcome = run("inspect", "--file", str(path))
    assert outcome.code == 0, outcome.err
    assert titles(outcome.out) == [
        f"{path}:6: Trainer(gpus=2) on CPU only",
        f"{path}:10: Trainer(num_processes=2) on CPU only",
    ]


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "train.py",
            "import pytorch_lightning as pl\ndef f(:\n    pass\n",
            ":2:7: cannot parse: invalid syntax",
        ),
        ("config.yaml", "trainer:\n  gpus: [1, 2\n", ":3:1: cannot parse YAML: expected ',' or ']'"),
        ("train.ipynb", '{"cells": [', ":1: cannot parse the notebook's JSON"),
        (
            "nb.ipynb",
            notebook(["import pytorch_lightning as pl\n"], ["def f(:\n"]),
            ": cell 3:1: cannot parse",
        ),
        ("latin.py", None, ": cannot decode"),
    ],
)
def test_a_file_that_cannot_be_read_is_a_clear_error(
    tmp_path: Path, name: str, text: str | None, message: str
) -> None:
    path = tmp_path / name
    if text is None:
        path.write_bytes(b"x = '\xff\xfe'\n")
    else:
        path.write_text(text)
    outcome = run("inspect", "--file", str(path))
    assert outcome.code == 2
    assert outcome.out == ""
    assert outcome.err.startswith(f"lightning-migrate: error: {path}")
    assert message in outcome.err
    assert "Traceback" not in outcome.err


@pytest.mark.parametrize(("cuda", "devices"), [("0", "cpu [0]"), ("2", "cuda [0]")])
def test_the_machine_s_device_count_feeds_the_value(tmp_path: Path, cuda: str, devices: str) -> None:
    path = tmp_path / "train.py"
    path.write_text(
        "import torch\nimport pytorch_lightning as pl\n\n"
        "pl.Trainer(gpus=min(1, torch.cuda.device_count()))\n"
        "pl.Trainer(gpus=torch.cuda.device_count() if torch.cuda.is_available() else None)\n"
    )
    outcome = run("inspect", "--file", str(path), "--cuda", cuda)
    assert outcome.code == 0, outcome.err
    assert "not inspected" not in outcome.out
    first, second = outcome.out.split("\n\n")
    assert f"1.4.9   {devices}, strategy" in first
    gpus = {"0": "None", "2": "2"}[cuda]
    assert second.startswith(f"{path}:5: Trainer(gpus={gpus}) on ")


def test_an_exception_of_several_lines_keeps_the_table_s_columns() -> None:
    outcome = run("inspect", "gpus=4", "--cuda", "2")
    assert outcome.code == 0, outcome.err
    rows = outcome.out.splitlines()[2:]
    assert "1.4.9   error: MisconfigurationException: You requested GPUs: [0, 1, 2, 3]" in rows[0]
    assert rows[1] == "          But your machine only has: [0, 1]"
    assert all(re.match(r"  \d\.\d+\.\d+ +\S|          \S", row) for row in rows), rows


@pytest.mark.parametrize(
    ("body", "flags"),
    [
        # the plain binding nearest before the call's statement, in the same statement list
        ("p = {'gpus': 1}\n    t(p)\n    p = {'gpus': 2}\n    Trainer(**p)", {"gpus": 2}),
        ("p = {'gpus': 1}\n    Trainer(**p)\n    p = {'gpus': 2}", {"gpus": 1}),
        ("p = {'gpus': 1}\n    p = {'gpus': 3}\n    if x:\n        Trainer(**p)", {"gpus": 3}),
        # bound otherwise in between (a loop, a branch): not read
        ("p = {'gpus': 1}\n    for p in ps:\n        pass\n    Trainer(**p)", None),
        ("p = {'gpus': 1}\n    if x:\n        p = {'gpus': 2}\n    Trainer(**p)", None),
    ],
)
def test_the_independent_reader_reads_the_dict_binding_nearest_before_a_call(
    body: str, flags: dict[str, int] | None
) -> None:
    from lightning_migrate.cli.callparse import Call, trainer_calls

    source = f"from pytorch_lightning import Trainer\n\n\ndef f(x, ps, t):\n    {body}\n"
    (found,) = trainer_calls(source)
    assert (found.flags if isinstance(found, Call) else None) == flags

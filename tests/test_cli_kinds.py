"""Files that are not Python through the command line: which ones a walk takes (`extend-include`), how
their findings are addressed in every output format (a notebook's cell included), `# noqa` in YAML, and
errors that name the cell."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run

SCHEMA = Path(__file__).parent / "data" / "sarif-schema-2.1.0.json"
TARGET = ("--target-version", "2.6")
CONFIG = "trainer:\n  accelerator: ddp  # the training type\n  gpus: 2\n"
CONFIG_FIXED = (
    "trainer:\n  strategy: ddp_find_unused_parameters_true  # the training type\n  accelerator: cuda\n"
    "  devices: 2\n"
)


def notebook(*sources: list[str], markdown_first: bool = True) -> str:
    cells = [{"cell_type": "markdown", "metadata": {}, "source": ["# Title\n"]}] if markdown_first else []
    cells += [
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": source}
        for source in sources
    ]
    metadata = {"kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"}}
    return json.dumps({"cells": cells, "metadata": metadata, "nbformat": 4, "nbformat_minor": 5}, indent=1)


NOTEBOOK = notebook(["import pytorch_lightning as pl\n"], ["!nvidia-smi\n", "trainer = pl.Trainer(gpus=1)"])


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "config.yaml").write_text(CONFIG)
    (tmp_path / "train.ipynb").write_text(NOTEBOOK)
    (tmp_path / "stub.pyi").write_text("import pytorch_lightning as pl\nt = pl.Trainer(gpus=1)\n")
    (tmp_path / "run.sh").write_text("export PL_TRAINER_GPUS=2\n")
    (tmp_path / "README.md").write_text(
        "```python\nimport pytorch_lightning as pl\npl.Trainer(gpus=2)\n```\n"
    )
    return tmp_path


def paths(outcome_out: str) -> set[str]:
    return {line.split(":", 1)[0] for line in outcome_out.splitlines()}


def test_a_walk_takes_python_stubs_notebooks_yaml_and_shell_and_the_rest_with_extend_include(
    project: Path,
) -> None:
    assert paths(run("--check", *TARGET, ".").out) == {"config.yaml", "train.ipynb", "stub.pyi", "run.sh"}
    included = run("--check", *TARGET, "--extend-include", "*.md", ".").out
    assert paths(included) == {"config.yaml", "train.ipynb", "stub.pyi", "run.sh", "README.md"}


def test_verbose_says_which_kinds_were_walked(project: Path) -> None:
    said = [line for line in run("--check", "-v", *TARGET, ".").err.splitlines() if "walked:" in line]
    assert said == [
        "lightning-migrate: walked: python (1 file), notebook (1 file), yaml (1 file), shell (1 file);"
        " markdown and rest only with --extend-include"
    ]
    said = [
        line
        for line in run("--check", "-v", *TARGET, "--extend-include", "*.md", ".").err.splitlines()
        if "walked:" in line
    ]
    assert said == [
        "lightning-migrate: walked: python (1 file), notebook (1 file), yaml (1 file), markdown (1 file),"
        " shell (1 file); rest only with --extend-include"
    ]


def test_patterns_separated_by_commas_as_ruff_takes_them(project: Path) -> None:
    (project / "guide.rst").write_text(
        ".. code-block:: python\n\n    import pytorch_lightning as pl\n    pl.Trainer(gpus=2)\n"
    )
    everything = {"config.yaml", "train.ipynb", "stub.pyi", "run.sh", "README.md", "guide.rst"}
    assert paths(run("--check", *TARGET, "--extend-include", "*.md, *.rst", ".").out) == everything
    left = paths(
        run("--check", *TARGET, "--extend-include", "*.md,*.rst", "--extend-exclude", "*.sh,*.pyi", ".").out
    )
    assert left == everything - {"run.sh", "stub.pyi"}


def test_extend_include_from_the_configuration(project: Path) -> None:
    (project / "pyproject.toml").write_text('[tool.lightning-migrate]\nextend-include = ["*.md"]\n')
    assert "README.md" in paths(run("--check", *TARGET, ".").out)


def test_a_file_named_on_the_command_line_is_always_taken(project: Path) -> None:
    assert paths(run("--check", *TARGET, "README.md").out) == {"README.md"}


def test_yaml_rewrite_and_text_address(project: Path) -> None:
    outcome = run("--check", *TARGET, "config.yaml")
    assert outcome.out.startswith("config.yaml:2:3: LM001 ")
    assert run(*TARGET, "config.yaml").code == 1
    assert (project / "config.yaml").read_text() == CONFIG_FIXED
    assert run("--check", *TARGET, "config.yaml").code == 0


def test_noqa_in_a_yaml_comment(project: Path) -> None:
    (project / "config.yaml").write_text(CONFIG.replace("# the training type", "# noqa: LM001, LM004"))
    outcome = run("--check", *TARGET, "config.yaml")
    assert outcome.code == 0, outcome.out
    assert "2 findings suppressed" in outcome.err


def test_a_notebook_finding_is_addressed_by_cell_in_text(project: Path) -> None:
    outcome = run("--check", *TARGET, "train.ipynb")
    assert outcome.out.startswith("train.ipynb:cell 3:2:11: LM004 ")


def test_json_gives_the_file_position_and_the_cell(project: Path) -> None:
    rows = json.loads(run("--check", *TARGET, "--output-format", "json", "train.ipynb").out)
    (row,) = rows
    assert row["cell"] == {"number": 3, "line": 2, "column": 11}
    line = NOTEBOOK.splitlines()[row["line"] - 1]
    assert line[row["column"] - 1 :].startswith("pl.Trainer(gpus=1)")


def test_github_annotates_the_notebooks_json_line_and_names_the_cell(project: Path) -> None:
    outcome = run("--check", *TARGET, "--output-format", "github", "train.ipynb", "config.yaml")
    lines = outcome.out.splitlines()
    assert lines[0].startswith("::error file=train.ipynb,line=")
    assert "::cell 3:2:11: `gpus=1` is replaced; fix: " in lines[0]
    assert lines[1].startswith("::error file=config.yaml,line=2,col=3,title=LM001::")


def test_sarif_locates_a_notebook_finding_in_the_file_and_names_the_cell(project: Path) -> None:
    import jsonschema

    log = json.loads(run("--check", *TARGET, "--output-format", "sarif", "train.ipynb", "config.yaml").out)
    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text())).validate(log)
    results = log["runs"][0]["results"]
    first = results[0]
    location = first["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "train.ipynb"
    assert location["logicalLocations"] == [{"name": "cell 3", "kind": "module"}]
    assert first["message"]["text"].startswith("cell 3:2:11: ")
    where = {"fixable": True, "cell": 3, "cellLine": 2, "cellColumn": 11}
    assert first["properties"] == {**where, "details": first["properties"]["details"]}
    assert first["properties"]["details"][0].startswith("`gpus=` was replaced by `accelerator=` + `devices=`")
    assert results[-1]["locations"][0]["physicalLocation"]["region"] == {"startLine": 2, "startColumn": 3}


def test_a_notebook_is_rewritten_only_in_the_changed_cell(project: Path) -> None:
    assert run(*TARGET, "train.ipynb").code == 1
    after = json.loads((project / "train.ipynb").read_text())
    assert after["cells"][2]["source"] == [
        "!nvidia-smi\n",
        'trainer = pl.Trainer(accelerator="cuda", devices=1)',
    ]
    changed = [
        (a, b)
        for a, b in zip(NOTEBOOK.splitlines(), (project / "train.ipynb").read_text().splitlines())
        if a != b
    ]
    assert len(changed) == 1


def test_a_cell_python_cannot_parse_is_an_error_at_the_cell(project: Path) -> None:
    broken = notebook(["import pytorch_lightning as pl\n", "def f(:\n", "    pl.Trainer(gpus=2)"])
    (project / "train.ipynb").write_text(broken)
    outcome = run("--check", *TARGET, "train.ipynb")
    assert outcome.code == 2
    assert "train.ipynb:" in outcome.err
    assert "error: cell 2:2:7: cannot parse" in outcome.err
    assert (project / "train.ipynb").read_text() == broken


def test_a_cell_python_cannot_parse_that_holds_nothing_to_migrate_is_left_alone(project: Path) -> None:
    """Jupyter compiles a cell whole: one with a typo runs nothing, and the others run (a tutorial's
    `save_directory "."` stopped the migration of its `Trainer(gpus=1, ...)` two cells above)."""
    cells = (["import pytorch_lightning as pl\n"], ["t = pl.Trainer(gpus=1)\n"], ['save_directory "."\n'])
    (project / "train.ipynb").write_text(notebook(*cells))
    outcome = run("--check", *TARGET, "train.ipynb")
    assert outcome.code == 1
    assert "train.ipynb:cell 3:1:5: LM004" in outcome.out
    assert "Rewrote train.ipynb (1 fix)" in run(*TARGET, "train.ipynb").err
    assert json.loads((project / "train.ipynb").read_text())["cells"][2:] == [
        {
            "cell_type": "code",
            "execution_count": None,
            "metadata": {},
            "outputs": [],
            "source": ['t = pl.Trainer(accelerator="cuda", devices=1)\n'],
        },
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": cells[2]},
    ]


def test_a_piece_to_keep_that_the_rewrite_would_change_is_an_error() -> None:
    from lightning_migrate.frontends.python import cells
    from lightning_migrate.plan.callsite import Run
    from lightning_migrate.semantics.model import release

    piece = "import pytorch_lightning as pl\nt = pl.Trainer(gpus=1)\n"
    assert cells.migrate([piece], Run(release("2.6")), False).pieces != [piece]
    with pytest.raises(cells.PieceError):
        cells.migrate([piece], Run(release("2.6")), False, strict={0})


def test_a_cell_magic_that_is_not_python_is_left_alone(project: Path) -> None:
    cell = ["%%writefile train.py\n", "import pytorch_lightning as pl\n", "pl.Trainer(gpus=2)\n"]
    (project / "train.ipynb").write_text(notebook(cell))
    assert run("--check", *TARGET, "train.ipynb").code == 0


DOC = """# Title

Text `pl.Trainer(gpus=2)`.

- A list item:

  ```python
  import pytorch_lightning as pl
  trainer = pl.Trainer(gpus=1)
  ```

```console
$ python main.py fit --trainer.gpus 1
output
```
"""


def test_findings_in_a_document_are_addressed_at_their_line_and_column(project: Path) -> None:
    (project / "README.md").write_text(DOC)
    lines = run("--check", *TARGET, "README.md").out.splitlines()
    assert [line.split(": ")[0] for line in lines] == ["README.md:9:13", "README.md:13:22"]
    doc_lines = DOC.splitlines()
    assert doc_lines[8][12:].startswith("pl.Trainer(gpus=1)")
    assert doc_lines[12][21:].startswith("--trainer.gpus 1")


def test_findings_in_a_shell_script_are_addressed_at_their_line_and_column(project: Path) -> None:
    script = "#!/bin/sh\nexport PL_TRAINER_GPUS=2\npython main.py fit \\\n  --trainer.gpus 2\n"
    (project / "run.sh").write_text(script)
    outcome = run("--check", *TARGET, "--output-format", "json", "run.sh")
    assert [(r["line"], r["column"], r["code"]) for r in json.loads(outcome.out)] == [
        (2, 8, "LM004"),
        (4, 3, "LM004"),
    ]

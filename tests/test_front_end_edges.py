"""Front-end edges where old calls were missed silently or data was rewritten (issue 22): notebooks of
nbformat 3 and of formats the notebook front end does not know, Markdown fences as CommonMark closes (or
never closes) them, and shell heredocs, whose bodies are data, not command lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run

TARGET = ("--target-version", "2.6")
NEW = 'accelerator="cuda", devices=2, strategy="ddp_spawn_find_unused_parameters_true"'  # gpus=2 for 2.6

# --- notebooks ----------------------------------------------------------------------------------------------


def _v3(*worksheets: list[dict[str, object]], **top: object) -> str:
    notebook = {
        "metadata": {"name": ""},
        "nbformat": 3,
        "nbformat_minor": 0,
        "worksheets": [{"cells": cells, "metadata": {}} for cells in worksheets],
        **top,
    }
    return json.dumps(notebook, indent=1)


def _code3(source: object, language: str = "python") -> dict[str, object]:
    return {
        "cell_type": "code",
        "collapsed": False,
        "input": source,
        "language": language,
        "metadata": {},
        "outputs": [],
        "prompt_number": 1,
    }


_MARKDOWN3 = {"cell_type": "markdown", "metadata": {}, "source": ["Trainer(gpus=2) in prose"]}


def test_nbformat_3_cells_of_every_worksheet_are_migrated_and_numbered_as_jupyter_does(
    tmp_path: Path,
) -> None:
    path = tmp_path / "nb.ipynb"
    text = _v3(
        [_code3(["import pytorch_lightning as pl\n"]), _MARKDOWN3],
        [_code3("%%time\nt = pl.Trainer(gpus=2)\n"), _code3(["!ls\n", "u = pl.Trainer(gpus=2)"])],
    )
    path.write_text(text)
    check = run("--check", *TARGET, str(path))
    assert check.code == 1
    assert f"{path}:cell 3:2:5: LM004" in check.out  # (worksheets flattened, the Markdown cell counted)
    assert f"{path}:cell 4:2:5: LM004" in check.out
    assert run(*TARGET, str(path)).code == 1
    after = json.loads(path.read_text())
    first, second = after["worksheets"]
    assert second["cells"][0]["input"] == f"%%time\nt = pl.Trainer({NEW})\n"
    assert second["cells"][1]["input"][0] == "!ls\n"
    assert second["cells"][1]["input"][1] == f"u = pl.Trainer({NEW})"
    assert first == json.loads(text)["worksheets"][0]
    assert {k: v for k, v in after.items() if k != "worksheets"} == {
        k: v for k, v in json.loads(text).items() if k != "worksheets"
    }


def test_nbformat_3_cells_of_another_language_are_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "nb.ipynb"
    text = _v3([_code3(["Trainer(gpus=2)\n"], language="julia")])
    path.write_text(text)
    assert run("--check", *TARGET, str(path)).code == 0
    assert path.read_text() == text


@pytest.mark.parametrize(
    ("top", "message", "line"),
    [
        (
            {"nbformat": 2},
            "unsupported notebook format: nbformat 2 (lightning-migrate reads nbformat 3 and 4)",
            2,
        ),
        ({"nbformat": 5}, "unsupported notebook format: nbformat 5", 2),
        ({"nbformat": "4"}, 'unsupported notebook format: nbformat "4"', 2),
        ({}, "unsupported notebook format: no `nbformat`", 1),
    ],
)
def test_a_notebook_of_an_unknown_format_is_an_error_naming_it(
    tmp_path: Path, top: dict[str, object], message: str, line: int
) -> None:
    """It was read as a notebook without cells: exit 0, the old call unseen."""
    path = tmp_path / "nb.ipynb"
    cell = {"cell_type": "code", "input": "Trainer(gpus=2)\n", "language": "python", "outputs": []}
    text = json.dumps({**top, "metadata": {}, "worksheets": [{"cells": [cell]}]}, indent=1)
    path.write_text(text)
    done = run("--check", *TARGET, str(path))
    assert done.code == 2
    assert f"nb.ipynb:{line}:" in done.out + done.err
    assert message in done.out + done.err
    assert "internal error" not in done.out + done.err
    assert path.read_text() == text


@pytest.mark.parametrize(
    ("worksheets", "message"),
    [
        ({"cells": []}, "malformed notebook: `worksheets` is not a list"),
        ([["x"]], "malformed notebook: worksheet 1 is not a JSON object"),
        ([{"cells": {"a": 1}}], "malformed notebook: `cells` is not a list"),
        ([{"metadata": {}}], "malformed notebook: no `cells`"),
        ([{"cells": [_code3(["Trainer(gpus=2)\n", 3])]}], "cell 1's `input` is neither text nor a list"),
    ],
)
def test_malformed_nbformat_3_notebooks_are_named(tmp_path: Path, worksheets: object, message: str) -> None:
    path = tmp_path / "nb.ipynb"
    metadata = {"name": "gpus=2"}  # (the word test passes it to the front end)
    text = json.dumps({"metadata": metadata, "nbformat": 3, "nbformat_minor": 0, "worksheets": worksheets})
    path.write_text(text)
    done = run("--check", *TARGET, str(path))
    assert done.code == 2, done.out + done.err
    assert message in done.out + done.err
    assert path.read_text() == text


def test_a_notebook_of_another_kernel_needs_no_known_format(tmp_path: Path) -> None:
    path = tmp_path / "nb.ipynb"
    text = json.dumps({"metadata": {"kernelspec": {"language": "R"}}, "nbformat": 5, "x": "gpus=2"})
    path.write_text(text)
    assert run("--check", *TARGET, str(path)).code == 0


# --- Markdown fences ----------------------------------------------------------------------------------------


def _codes(text: str) -> list[tuple[str, str]]:
    from lightning_migrate.frontends.docs import frontend as docs

    return [(block.language, block.code) for block in docs.blocks(text, rest=False)]


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        # CommonMark 0.31, 4.5: a closing fence is at least as long as the opening one, of its character
        ("```py\naaa\n`````\nprose\n", [("py", "aaa\n")]),
        ("````python\naaa\n```\n````\n", [("python", "aaa\n```\n")]),
        ("~~~python\naaa\n```\n~~~\n", [("python", "aaa\n```\n")]),
        ("```python\naaa\n``` not a closing fence\n```\n", [("python", "aaa\n``` not a closing fence\n")]),
        # never closed: to the end of the document
        ("```python\naaa\n\n# bbb\n", [("python", "aaa\n\n# bbb\n")]),
        ("```python\naaa", [("python", "aaa")]),
        ("```python\n", [("python", "")]),
        ("```python", [("python", "")]),
        # up to three spaces before a fence (the closing one independently), four make indented code
        ("   ```python\n   aaa\n ```\n", [("python", "aaa\n")]),
        ("    ```python\n    aaa\n    ```\n", []),
        ("```python\naaa\n    ```\n```\n", [("python", "aaa\n    ```\n")]),
        # no backtick in a backtick fence's info string (an inline code span)
        ("```python x = `y` ```\naaa\n", []),
        ("~~~python `y`\naaa\n~~~\n", [("python", "aaa\n")]),
        # in a list item: the item's content column is the fence's margin
        ("- item\n\n  ```python\n  aaa\n  ```\n", [("python", "aaa\n")]),
        ("1. item\n\n   ```python\n   aaa\n       ```\n   ```\n", [("python", "aaa\n    ```\n")]),
        ("1. item\n\n   ```python\n   aaa\n      ```\n", [("python", "aaa\n")]),
        ("- ```python\n  aaa\n  ```\n", [("python", "aaa\n")]),
        ("10. ```python\n    aaa\n    ```\n", [("python", "aaa\n")]),
        ("- a\n  - ```python\n    aaa\n    ```\n", [("python", "aaa\n")]),
        # ... never closed there: it ends with the item, at the first line indented less than its content
        (
            "- item\n\n  ```python\n  aaa\n\nprose\n```python\nbbb\n```\n",
            [("python", "aaa\n\n"), ("python", "bbb\n")],
        ),
        # ... a fence at the left margin is outside the item (it ends the list)
        ("- item\n```python\naaa\n```\n", [("python", "aaa\n")]),
        # CRLF line ends
        ("```python\r\naaa\r\n```\r\nprose\r\n", [("python", "aaa\r\n")]),
    ],
)
def test_markdown_fences_close_as_commonmark_closes_them(text: str, codes: list[tuple[str, str]]) -> None:
    assert _codes(text) == codes


def test_an_unclosed_fence_is_migrated_to_the_end_of_the_file(tmp_path: Path) -> None:
    """It was missed: exit 0, the old call left (the old reader needed a closing fence)."""
    path = tmp_path / "README.md"
    path.write_text("# Train\n\n```python\nimport pytorch_lightning as pl\n\nt = pl.Trainer(gpus=2)\n")
    assert run("--check", *TARGET, str(path)).code == 1
    assert run(*TARGET, str(path)).code == 1
    assert (
        path.read_text() == f"# Train\n\n```python\nimport pytorch_lightning as pl\n\nt = pl.Trainer({NEW})\n"
    )


# --- shell here-documents -----------------------------------------------------------------------------------

TRAIN = (
    "from argparse import ArgumentParser\nfrom pytorch_lightning import Trainer\n\n"
    "parser = Trainer.add_argparse_args(ArgumentParser())\nargs = parser.parse_args()\n"
)
OLD_LINE = "python train.py --gpus 2 --accelerator ddp"
NEW_LINE = "python train.py --devices 2 --accelerator cuda --strategy ddp_find_unused_parameters_true"


def _script(tmp_path: Path, text: str) -> Path:
    (tmp_path / "train.py").write_text(TRAIN)
    path = tmp_path / "run.sh"
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "heredoc",
    [
        f"cat > notes.txt <<'EOF'\n{OLD_LINE}  # it's what we ran\nEOF\n",
        f"cat > notes.txt <<EOF\n{OLD_LINE}\nEOF\n",
        f'cat > notes.txt << "EOF"\n{OLD_LINE}\nEOF\n',
        f"cat > notes.txt <<\\EOF\n{OLD_LINE}\nEOF\n",
        f"cat > notes.txt <<-EOF\n\t{OLD_LINE}\n\tEOF\n",
        f"cat <<A >a.txt; cat <<'B' >b.txt\n{OLD_LINE}\nA\n{OLD_LINE}\nB\n",
        f"write() {{\n  cat > notes.txt <<EOF\n{OLD_LINE}\nEOF\n}}\n",
        f"ssh node <<EOF\n{OLD_LINE}\nEOF\n",  # (another program's input: not this script's command line)
        f"python other.py <<EOF\n{OLD_LINE}\nEOF\n",  # (a script's standard input)
    ],
)
def test_a_heredoc_body_is_data(tmp_path: Path, heredoc: str) -> None:
    """It was rewritten as a command line, changing what the script writes; the command after its
    terminator is a command line again."""
    text = f"#!/bin/bash\n{heredoc}{OLD_LINE}\n"
    path = _script(tmp_path, text)
    check = run("--check", *TARGET, str(path))
    assert check.code == 1
    assert {line.split(":")[1] for line in check.out.splitlines()} == {str(text.count("\n"))}
    assert run(*TARGET, str(path)).code == 1
    assert path.read_text() == f"#!/bin/bash\n{heredoc}{NEW_LINE}\n"


def test_a_heredoc_never_closed_runs_to_the_end_of_the_script(tmp_path: Path) -> None:
    text = f"cat > notes.txt <<EOF\n{OLD_LINE}\n EOF\nEOF \n{OLD_LINE}\n"  # (the delimiter alone closes)
    path = _script(tmp_path, text)
    assert run("--check", *TARGET, str(path)).code == 0
    assert path.read_text() == text


@pytest.mark.parametrize(
    "line",
    [
        'cat <<< "--gpus 5"',
        "cat <<<EOF",
        "echo \"<<EOF\" '<<EOF' \\<<EOF",
        "echo $((1<<2)) $(( 4 << 1 ))",
        "(( shift = 1 << 2 ))",
        "for ((i = 0; i < 1<<2; i++)); do :; done",
        "cat notes.txt # <<EOF",
    ],
)
def test_what_is_no_heredoc(tmp_path: Path, line: str) -> None:
    """A here-string, `<<` quoted, in arithmetic or a comment: the next line is a command line."""
    from lightning_migrate.frontends.shell.words import heredocs

    text = f"{line}\n{OLD_LINE}\n"
    assert heredocs(text) == []
    path = _script(tmp_path, text)
    assert run(*TARGET, str(path)).code == 1
    assert path.read_text() == f"{line}\n{NEW_LINE}\n"


PY_OLD = "import pytorch_lightning as pl\ntrainer = pl.Trainer(gpus=2)\n"
PY_NEW = f"import pytorch_lightning as pl\ntrainer = pl.Trainer({NEW})\n"


@pytest.mark.parametrize(
    "command",
    [
        "python - <<'PY'",
        "python3 <<PY",
        "python3.11 -u - << 'PY'",
        'env CUDA_VISIBLE_DEVICES=0 python <<"PY"',
        "python - > log.txt 2>&1 <<'PY'",
        "python - &>log.txt <<'PY'",
    ],
)
def test_python_fed_by_a_heredoc_is_migrated_as_python(tmp_path: Path, command: str) -> None:
    text = f"{command}\n{PY_OLD}PY\n{OLD_LINE}\n"
    path = _script(tmp_path, text)
    check = run("--check", *TARGET, str(path))
    assert "run.sh:3:11: LM004" in check.out
    assert run(*TARGET, str(path)).code == 1
    assert path.read_text() == f"{command}\n{PY_NEW}PY\n{NEW_LINE}\n"


@pytest.mark.parametrize(
    ("command", "body", "why"),
    [
        ("python3 <<PY", PY_OLD.replace("gpus=2", "gpus=$GPUS"), "the shell expands `$`"),
        ("python3 <<PY", PY_OLD.replace("2)", "2)  # `date`"), "the shell expands `$`"),
        ("python3 <<-PY", PY_OLD.replace("trainer", "\ttrainer"), "`<<-` removes the tabs"),
    ],
)
def test_python_the_shell_changes_is_reported(tmp_path: Path, command: str, body: str, why: str) -> None:
    text = f"{command}\n{body}PY\n"
    path = _script(tmp_path, text)
    check = run("--check", *TARGET, "--show-details", str(path))
    assert check.code == 1
    assert check.out.startswith(
        f"{path}:1:9: LM101 Python in a here-document is not migrated; quote its delimiter"
    )
    assert f"\n    {why}" in check.out  # (why, under the finding)
    assert run(*TARGET, str(path)).code == 1
    assert path.read_text() == text
    path.write_text(text.replace(command, f"{command}  # noqa: LM101"))
    assert run("--check", *TARGET, str(path)).code == 0


@pytest.mark.parametrize(
    "command",
    ["python train.py <<PY", "python -c 'import sys' <<PY", "python -m pip <<PY", "cat <<PY"],
)
def test_a_heredoc_that_is_no_program_of_python_is_data(tmp_path: Path, command: str) -> None:
    text = f"{command}\n{PY_OLD}PY\n"
    path = _script(tmp_path, text)
    assert run("--check", *TARGET, str(path)).code == 0


def test_modern_python_the_shell_expands_gets_no_finding(tmp_path: Path) -> None:
    body = 'import pytorch_lightning as pl\ntrainer = pl.Trainer(accelerator="cuda", devices=$GPUS)\n'
    path = _script(tmp_path, f"python3 <<PY\n{body}PY\n")
    assert run("--check", *TARGET, str(path)).code == 0


def test_noqa_in_python_fed_by_a_heredoc(tmp_path: Path) -> None:
    text = f"python - <<'PY'\n{PY_OLD.replace('=2)', '=2)  # noqa: LM004')}PY\n"
    path = _script(tmp_path, text)
    assert run("--check", *TARGET, str(path)).code == 0


def test_heredocs_in_a_markdown_shell_block_and_a_bash_cell(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(TRAIN)
    doc = f"```bash\ncat > notes.txt <<'EOF'\n{OLD_LINE}\nEOF\n{OLD_LINE}\npython - <<'PY'\n{PY_OLD}PY\n```\n"
    (tmp_path / "README.md").write_text(doc)
    cell = {
        "cell_type": "code",
        "metadata": {},
        "outputs": [],
        "source": f"%%bash\ncat <<EOF\n{OLD_LINE}\nEOF\n",
    }
    notebook = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}, indent=1)
    (tmp_path / "nb.ipynb").write_text(notebook)
    assert run(*TARGET, str(tmp_path / "README.md"), str(tmp_path / "nb.ipynb")).code == 1
    migrated = doc.replace(f"{OLD_LINE}\npython", f"{NEW_LINE}\npython").replace(PY_OLD, PY_NEW)
    assert (tmp_path / "README.md").read_text() == migrated
    assert (tmp_path / "nb.ipynb").read_text() == notebook


@pytest.mark.parametrize("suffix", [".sh", ".md"])
def test_a_backslash_before_a_space_ends_the_command_line_as_the_shell_ends_it(
    tmp_path: Path, suffix: str
) -> None:
    """`\\ ` at a line's end (a README's typo for a continuation) escapes the space: the shell ends the
    command at the line's end and runs the next line on its own, where an option is no program. The first
    command is read (and rewritten) as the shell reads it, the space word kept; the words the typo broke off
    are left alone; nothing of the text is lost."""
    broken = "python main.py fit --trainer.gpus 2 \\ \n    --trainer.accelerator ddp\n"
    joined = "python main.py fit --trainer.gpus 2 \\\n    --trainer.accelerator ddp\n"
    first = (
        "python main.py fit --trainer.devices 2 --trainer.accelerator cuda"
        " --trainer.strategy ddp_spawn_find_unused_parameters_true \\ \n"
    )
    fence = ("```bash\n", "```\n") if suffix == ".md" else ("", "")
    for text, codes in ((broken, ["LM004"]), ("python main.py fit \\ \n    --trainer.gpus 2\n", [])):
        path = tmp_path / f"run{suffix}"
        path.write_text(fence[0] + text + fence[1])
        check = run("--check", "--output-format", "json", "--extend-include", "*.md", *TARGET, str(path))
        assert [f["code"] for f in json.loads(check.out)] == codes
        assert check.code == (1 if codes else 0)
    path.write_text(fence[0] + broken + fence[1])
    run("--extend-include", "*.md", *TARGET, str(path))
    assert path.read_text() == fence[0] + first + "    --trainer.accelerator ddp\n" + fence[1]
    # the continuation written right is one command line, read and rewritten whole
    path.write_text(fence[0] + joined + fence[1])
    check = run("--check", "--output-format", "json", "--extend-include", "*.md", *TARGET, str(path))
    assert sorted(f["code"] for f in json.loads(check.out)) == ["LM001", "LM004"]


@pytest.mark.parametrize(
    "line",
    [
        "docker run --gpus all -it image",
        "docker run --gpus '\"device=0\"' image",
        "nvidia-docker run --gpus=all image",
        "docker run --rm --gpus all image python train.py --max_epochs 3",
        "docker run --gpus all image python main.py fit --trainer.max_epochs 1",
    ],
)
@pytest.mark.parametrize("suffix", [".sh", ".md"])
def test_a_container_runners_gpus_option_is_no_trainer_flag(tmp_path: Path, line: str, suffix: str) -> None:
    path = _script(tmp_path, f"```bash\n{line}\n```\n" if suffix == ".md" else f"{line}\n")
    path = path.rename(path.with_suffix(suffix))
    check = run("--check", "--extend-include", "*.md", *TARGET, str(path))
    assert check.code == 0, check.out

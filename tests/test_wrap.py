"""A call written on one line that a rewrite makes longer than the line length is written one argument a
line (``edit.splice``), as black and ruff would; nothing else of the file's layout changes, and the code
is the same code: every fixture, wrapped at every call, gives the tree it gives unwrapped."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_fixtures import CASES, UNSAFE, source_of

from lightning_migrate.cli.config import DEFAULT_LINE_LENGTH, formatter_line_length
from lightning_migrate.cli.main import main
from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.semantics.model import release

TARGET = release("2.6")
HEADER = "import pytorch_lightning as pl\nimport torch\n"
COUNT = "torch.cuda.device_count()"


def _migrated(body: str, width: int | None = 88) -> str:
    return migrate(HEADER + body, TARGET, width=width).code.removeprefix(HEADER)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (  # a statement at the top level: its arguments four spaces in, the parenthesis back
            f"trainer = pl.Trainer(max_epochs=3, gpus={COUNT}, fast_dev_run=True)\n",
            "trainer = pl.Trainer(\n"
            "    max_epochs=3,\n"
            f'    accelerator="cuda" if {COUNT} else "cpu",\n'
            f"    devices={COUNT} or 1,\n"
            f'    strategy="ddp_spawn_find_unused_parameters_true" if {COUNT} > 1 else "auto",\n'
            "    fast_dev_run=True,\n"
            ")\n",
        ),
        (  # in a block, under its indentation; what follows on the line stays after the parenthesis
            f"def main():\n    return pl.Trainer(gpus={COUNT}).fit  # the fit\n",
            "def main():\n"
            "    return pl.Trainer(\n"
            f'        accelerator="cuda" if {COUNT} else "cpu",\n'
            f"        devices={COUNT} or 1,\n"
            f'        strategy="ddp_spawn_find_unused_parameters_true" if {COUNT} > 1 else "auto",\n'
            "    ).fit  # the fit\n",
        ),
        (  # a result that fits stays on its line
            "trainer = pl.Trainer(gpus=1)\n",
            'trainer = pl.Trainer(accelerator="cuda", devices=1)\n',
        ),
    ],
)
def test_a_call_made_too_long_is_wrapped(body: str, expected: str) -> None:
    assert _migrated(body) == expected
    assert _migrated(expected) == expected  # (a fixed point)


@pytest.mark.parametrize(
    "body",
    [
        # written over several lines: the user's layout
        f"trainer = pl.Trainer(\n    max_epochs=3, gpus={COUNT},\n)\n",
        # a line already longer than the limit: the user's choice
        f"trainer = pl.Trainer(max_epochs=3, gpus={COUNT})  # {'x' * 60}\n",
        # after a quote on the line: maybe in an f-string's braces, which span no lines before Python 3.12
        f"print(f'{{pl.Trainer(max_epochs=3, gpus={COUNT}, fast_dev_run=True, logger=False)}}')\n",
    ],
)
def test_a_call_is_not_wrapped_where_its_line_is_not_ours_to_wrap(body: str) -> None:
    out = _migrated(body)
    assert out != body
    assert out.count("\n") == body.count("\n")


def test_no_width_no_wrap() -> None:
    body = f"trainer = pl.Trainer(max_epochs=3, gpus={COUNT}, fast_dev_run=True)\n"
    assert _migrated(body, None).count("\n") == 1


def test_line_ends_are_the_files() -> None:
    text = f"import torch\r\nimport pytorch_lightning as pl\r\nt = pl.Trainer(max_epochs=3, gpus={COUNT})\r\n"
    out = migrate(text, TARGET, width=70).code
    assert "\r\n    max_epochs=3,\r\n" in out
    assert "\n" not in out.replace("\r\n", "")


WRAPPED = [(c, t) for c, e, t in CASES if e is not None]


def _longest(text: str) -> int:
    return max(map(len, text.splitlines()))


@pytest.mark.parametrize(("case", "target"), WRAPPED, ids=lambda v: getattr(v, "stem", v))
def test_wrapping_changes_no_code(case: Path, target: str) -> None:
    """At the length of the fixture's longest line, every one-line call a rewrite makes longer than that
    is wrapped: the tree is the one without wrapping, and it is a fixed point."""
    text = case.read_text()
    version, source, unsafe = release(target.removesuffix(UNSAFE)), source_of(text), target.endswith(UNSAFE)
    plain = migrate(text, version, source, unsafe).code
    wrapped = migrate(text, version, source, unsafe, width=_longest(text)).code
    assert ast.dump(ast.parse(wrapped)) == ast.dump(ast.parse(plain))
    assert migrate(wrapped, version, source, unsafe, width=_longest(text)).code == wrapped


def test_the_fixtures_wrap_calls() -> None:
    """(``test_wrapping_changes_no_code`` checks something.)"""
    wrapped = 0
    for case, target in WRAPPED:
        text = case.read_text()
        version, source, unsafe = (
            release(target.removesuffix(UNSAFE)),
            source_of(text),
            target.endswith(UNSAFE),
        )
        plain = migrate(text, version, source, unsafe).code
        wrapped += migrate(text, version, source, unsafe, width=_longest(text)).code != plain
    assert wrapped >= 100  # (369 of 580 when written)


@pytest.mark.parametrize(
    ("name", "text", "width"),
    [
        ("ruff.toml", "line-length = 120\n", 120),
        (".ruff.toml", "line-length = 100\n", 100),
        ("pyproject.toml", "[tool.ruff]\nline-length = 110\n", 110),
        ("pyproject.toml", "[tool.black]\nline-length = 79\n", 79),
        ("pyproject.toml", "[tool.isort]\nline_length = 79\n", DEFAULT_LINE_LENGTH),
        ("pyproject.toml", "[tool.ruff\n", DEFAULT_LINE_LENGTH),  # (not ours to complain about)
    ],
)
def test_the_line_length_is_the_formatters(name: str, text: str, width: int, tmp_path: Path) -> None:
    (tmp_path / name).write_text(text)
    (tmp_path / "src").mkdir()
    assert formatter_line_length(tmp_path / "src" / "train.py") == width


@pytest.mark.parametrize(
    ("config", "option", "lines"),
    [
        ("", (), 7),  # 88: wrapped
        ("[tool.ruff]\nline-length = 400\n", (), 1),
        ("[tool.ruff]\nline-length = 400\n", ("--line-length", "88"), 7),  # the command line wins
        ("[tool.lightning-migrate]\nline-length = 400\n[tool.black]\nline-length = 88\n", (), 1),
    ],
)
def test_the_command_line_and_configuration_set_it(
    config: str, option: tuple[str, ...], lines: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text(config)
    script = tmp_path / "train.py"
    script.write_text(HEADER + f"trainer = pl.Trainer(max_epochs=3, gpus={COUNT}, fast_dev_run=True)\n")
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["--target-version", "2.6", *option, "train.py"])
    assert result.exit_code == 1, result.output
    assert script.read_text().removeprefix(HEADER).count("\n") == lines

"""``[tool.lightning-migrate]`` in pyproject.toml: found by walking up, same names as the flags, overridden by
the command line; a bad configuration is exit 2 with a message that names the file and the key."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import FIXABLE, UNFIXABLE, run

from lightning_migrate.cli.config import KEYS
from lightning_migrate.cli.settings import CONVERSIONS


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "src" / "legacy").mkdir(parents=True)
    (tmp_path / "src" / "train.py").write_text(FIXABLE)
    (tmp_path / "src" / "legacy" / "old.py").write_text(FIXABLE)
    (tmp_path / "src" / "cfg.py").write_text(UNFIXABLE)
    return tmp_path


def configure(root: Path, body: str) -> None:
    (root / "pyproject.toml").write_text(f'[project]\nname = "demo"\n\n[tool.lightning-migrate]\n{body}\n')


def findings(*args: str) -> tuple[int, list[tuple[str, str]], str]:
    outcome = run("--check", "--output-format", "json", *args)
    rows = json.loads(outcome.out) if outcome.out else []
    return outcome.code, [(Path(r["path"]).name, r["code"]) for r in rows if "code" in r], outcome.err


def test_found_by_walking_up_and_overridden_by_the_command_line(project: Path) -> None:
    configure(project, 'target-version = "1.6"\nselect = ["LM001", "LM1"]')
    code, rows, err = findings(str(project / "src" / "legacy"))
    assert "target Lightning 1.6.5" in err
    assert rows == [("old.py", "LM001")]
    assert code == 1
    _, rows, err = findings("--target-version", "2.6", "--select", "LM004", str(project / "src" / "legacy"))
    assert "target Lightning 2.6.6" in err
    assert rows == [("old.py", "LM004")]


def test_per_file_ignores_and_excludes(project: Path) -> None:
    configure(
        project,
        'target-version = "2.6"\nextend-exclude = ["legacy/"]\n'
        '[tool.lightning-migrate.per-file-ignores]\n"src/cfg.py" = ["LM101"]\n"*/train.py" = ["LM004"]',
    )
    code, rows, _ = findings(str(project / "src"))
    assert rows == [("train.py", "LM001")]
    assert code == 1


def test_output_format_and_gitignore_switch(project: Path) -> None:
    configure(project, 'target-version = "2.6"\noutput-format = "github"\nrespect-gitignore = false')
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("src/\n")
    outcome = run("--check", str(project))
    assert outcome.out.count("::error file=") == 5  # 2 x (LM001, LM004) + LM101, .gitignore not applied


def test_a_pyproject_without_the_table_is_passed_over(project: Path) -> None:
    configure(project, 'target-version = "1.9"')
    (project / "src" / "pyproject.toml").write_text('[project]\nname = "inner"\n')
    assert "target Lightning 1.9.5" in findings(str(project / "src" / "train.py"))[2]


def test_every_setting_can_be_configured() -> None:
    assert set(KEYS) == set(CONVERSIONS)


def test_unsafe_fixes_and_shim_from_the_configuration(project: Path) -> None:
    configure(project, 'target-version = "2.6"\nunsafe-fixes = true\nshim = true')
    files = [str(project / "src" / name) for name in ("train.py", "cfg.py")]
    diff = run("--diff", *files).out
    assert '+trainer = pl.Trainer(strategy="ddp", accelerator="cuda", devices=2, max_epochs=3)' in diff
    assert "+    return lightning_migrate.shim.Trainer(gpus=args.gpus)" in diff
    diff = run("--diff", "--no-unsafe-fixes", "--no-shim", *files).out
    assert "ddp_find_unused_parameters_true" in diff
    assert "lightning_migrate.shim" not in diff


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('target-versoin = "2.6"', "unknown key 'target-versoin' in [tool.lightning-migrate]"),
        ('select = "LM001"', "select must be a list of rule codes or prefixes, not 'LM001'"),
        ('target-version = "3.0"', "target-version: '3.0' is not a release lightning-migrate knows; give a"),
        ('source-version = "1.10"', "source-version: '1.10' is not a release lightning-migrate knows"),
        ('ignore = ["LM77"]', "ignore: unknown rule code or prefix LM77"),
        ('output-format = "xml"', "output-format: 'xml' is not one of text, json, github, sarif"),
        ("force-exclude = 1", "force-exclude must be true or false, not 1"),
        ('[tool.lightning-migrate.per-file-ignores]\n"x.py" = "LM001"', "per-file-ignores must be a table"),
        ("select = [", "cannot read"),
    ],
)
def test_bad_configuration_is_exit_2_with_a_clear_message(project: Path, body: str, message: str) -> None:
    configure(project, body)
    outcome = run("--check", str(project / "src"))
    assert outcome.code == 2
    assert outcome.err.startswith(f"lightning-migrate: error: {project / 'pyproject.toml'}: ")
    assert message in outcome.err

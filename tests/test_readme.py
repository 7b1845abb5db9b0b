"""The README and docs/ say what is true: the first screen's commands are the ones that work (the test command
is CI's own), the rules table is the registry's, the example outputs are what the commands print, and every
link points at a file and heading that exist.

These read the checkout's files (README.md, docs/, .ci/run), not the installed package's.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from lightning_migrate.cli.main import main
from lightning_migrate.report.rules import RULES

ROOT = Path(__file__).parent.parent
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
FIRST_SCREEN = 40  # lines
INSTALL_AND_RUN = (
    "python3 -m venv .venv && .venv/bin/pip install -e . && "
    ".venv/bin/lightning-migrate --diff examples/ --target-version 2.6"
)
RULES_MARK = "<!-- generated from lightning_migrate/report/rules.py; tests/test_readme.py checks it -->"
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def ci_test_command() -> str:
    """The one command `.ci/run` runs (its line that builds the virtual environment)."""
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    (command,) = [line for line in lines if line.startswith("python3 -m venv")]
    return command


def code_lines(text: str) -> list[str]:
    """The lines of every fenced code block of ``text``."""
    found, inside = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            inside = not inside
        elif inside:
            found.append(line)
    return found


def console_blocks(text: str) -> list[tuple[str, list[str]]]:
    """Each ```console block: the command after its ``$`` and the lines it shows."""
    blocks = re.findall(r"^```console\n\$ ([^\n]*)\n(.*?)^```$", text, re.MULTILINE | re.DOTALL)
    return [(command, shown.splitlines()) for command, shown in blocks]


def rules_table() -> list[str]:
    """The README's rules table as `report/rules.py` makes it."""
    rows = [
        "| code | name | fixed automatically | deprecated in | removed in | what it finds |",
        "|---|---|---|---|---|---|",
    ]
    for rule in RULES:
        fixed = "yes" if rule.fixable else "no"
        cells = (rule.code, f"`{rule.name}`", fixed, rule.deprecated_in, rule.removed_in, rule.title)
        rows.append(f"| {' | '.join(cells)} |")
    return rows


def slug(heading: str) -> str:
    """A Markdown heading's anchor, as GitHub writes it."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    prose = "\n".join(line for line in text.splitlines() if line not in set(code_lines(text)))
    return {slug(h) for h in re.findall(r"^#+ (.*)$", prose, re.MULTILINE)}


def test_the_first_screen_installs_and_runs_the_example_and_runs_cis_tests() -> None:
    first = README.read_text(encoding="utf-8").splitlines()[:FIRST_SCREEN]
    assert INSTALL_AND_RUN in first
    assert ci_test_command() in first


def test_the_testing_page_gives_cis_command() -> None:
    assert ci_test_command() in code_lines((ROOT / "docs" / "testing.md").read_text(encoding="utf-8"))


def test_the_rules_table_is_the_registry() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    start = lines.index(RULES_MARK) + 1
    table = lines[start : start + len(RULES) + 3]
    assert table[-1] == "", "the table ends where the registry does"
    assert table[:-1] == rules_table(), "paste:\n" + "\n".join(rules_table())


EXAMPLES = console_blocks(README.read_text(encoding="utf-8"))


@pytest.mark.parametrize(("command", "shown"), EXAMPLES, ids=[command for command, _ in EXAMPLES])
def test_a_readme_example_prints_what_the_readme_shows(
    command: str, shown: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Standard output in full and in order; the lines of standard error the README shows, in their order."""
    words = shlex.split(command)
    assert words[0] == "lightning-migrate"
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(main, words[1:], catch_exceptions=False)
    err = result.stderr.splitlines()
    assert [line for line in shown if line not in err] == result.stdout.splitlines(), (
        f"paste the output of `{command}`"
    )
    shown_err = [line for line in shown if line in err]
    assert shown_err == [line for line in err if line in shown_err]


def test_the_readme_has_its_examples() -> None:
    commands = [command.split()[:2] for command, _ in EXAMPLES]
    assert ["lightning-migrate", "--check"] in commands
    assert ["lightning-migrate", "--diff"] in commands
    assert ["lightning-migrate", "inspect"] in commands


@pytest.mark.parametrize("page", [README, *DOCS], ids=lambda page: page.name)
def test_every_link_points_at_a_file_and_heading_that_exist(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    prose = "\n".join(line for line in text.splitlines() if line not in set(code_lines(text)))
    for target in LINK.findall(prose):
        if target.startswith(("http://", "https://")):
            continue
        file, _, anchor = target.partition("#")
        path = (page.parent / file).resolve() if file else page
        assert path.exists(), f"{page.name}: {target}"
        if anchor:
            assert anchor in anchors(path), f"{page.name}: {target}"


def test_the_readme_links_every_docs_page() -> None:
    linked = set(LINK.findall(README.read_text(encoding="utf-8")))
    assert {f"docs/{page.name}" for page in DOCS} <= linked


def test_the_slug_is_githubs() -> None:
    assert slug("`lightning-migrate PATH...`: migrate") == "lightning-migrate-path-migrate"
    assert slug("Layout: the folders are the pipeline") == "layout-the-folders-are-the-pipeline"

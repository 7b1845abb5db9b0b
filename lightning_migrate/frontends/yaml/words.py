"""What a YAML file's text says before it is parsed (or where it cannot be): whether anything in it can be
read as a Trainer config or a Lightning object (``may_hold``: a file without any is not parsed at all), and
whether it holds one (``holds``: a file that cannot be read, decoded or parsed is an error only then; a
``mkdocs.yml`` with a duplicate key, a CloudFormation template's ``!Ref`` tags, a file in another encoding are
none of this codemod's business). Text only: the runner asks ``holds`` of a file it cannot even decode,
without importing ruamel.yaml."""

from __future__ import annotations

import re
from pathlib import Path

from lightning_migrate.files import run_cache
from lightning_migrate.plan.trainers import LIGHTNING_TRAINERS, SHIM_TRAINERS

GROUP_FOLDER = "trainer"  # a Hydra config group of Trainer configs
# What the names of the training-type classes 1.6 renamed end with (`DDPPlugin`); the tests check the table.
PLUGIN_ENDING = "Plugin"
_TRAINER_KEY = re.compile(r"""^[ \t]*(?:trainer|"trainer"|'trainer')[ \t]*:""", re.M)
# a `_target_`/`class_path` naming a Lightning class the front end reads: the Trainer or a `*Plugin` (or the
# runtime shim's Trainer, `lightning_migrate.shim.Trainer`)
_LIGHTNING_TARGET = re.compile(
    r"""(?:_target_|class_path)["']?[ \t]*:[ \t]*["']?"""
    rf"""(?:pytorch_lightning|lightning|lightning_migrate\.shim)\.[\w.]*(?:Trainer|{PLUGIN_ENDING})\b"""
)


def may_hold(text: str, path: Path) -> bool:
    """Whether the front end can find anything in the file: a Trainer config needs a `trainer` key, a class
    named `...Trainer` or a file of a `trainer` group folder; a Lightning object to rename, a `*Plugin`."""
    return path.parent.name == GROUP_FOLDER or "trainer" in text or "Trainer" in text or PLUGIN_ENDING in text


def holds(text: str, path: Path) -> bool:
    """Whether the file holds a Trainer config or a Lightning object by its text: a `trainer:` key, a
    `_target_`/`class_path` that names Lightning's Trainer or a `*Plugin`, or it is a file of a Hydra
    `trainer` group whose siblings name Lightning's Trainer."""
    if _TRAINER_KEY.search(text) or _LIGHTNING_TARGET.search(text):
        return True
    return path.parent.name == GROUP_FOLDER and any(sibling_is_trainer(p) for p in siblings(path))


def siblings(path: Path) -> list[Path]:
    """The other YAML files of the file's folder."""
    return [p for p in yaml_files(path.parent) if p != path]


def yaml_files(folder: Path) -> list[Path]:
    try:
        return sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml"))
    except OSError:
        return []


@run_cache.per_run(64)
def sibling_is_trainer(path: Path) -> bool:
    """Whether a YAML file names Lightning's Trainer."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return any(name in text for name in (*LIGHTNING_TRAINERS, *SHIM_TRAINERS))


# Flow collections (`[`, `{`) inside each other: ruamel's scanner rechecks every open level at every token, so
# its time grows with the cube of the depth (480 levels, where Python's recursion limit stops it: 10 s for a
# 6 kB file). No config nests a hundred deep; deeper is refused before ruamel sees it.
MAX_FLOW_DEPTH = 100
_SPECIAL = re.compile(r"""[\[\]{}"'#]""")
_QUOTED = {'"': re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"'), "'": re.compile(r"'[^']*(?:''[^']*)*'")}
_FLOW_BEFORE = frozenset("[{,:")  # what may stand before a node inside a flow collection
_BLOCK_BEFORE = frozenset("-:?")  # ... and in a block, followed by a blank


def too_deep(text: str, limit: int = MAX_FLOW_DEPTH) -> tuple[int, int] | None:
    """The (line, column) of the first `[`/`{` nested deeper than ``limit``, read as YAML's scanner reads it
    (quoted scalars and comments skipped, a bracket inside a plain scalar of a block not counted)."""
    depth, at = 0, 0
    while (found := _SPECIAL.search(text, at)) is not None:
        char, start = found.group(), found.start()
        at = start + 1
        if char == "#":
            if start == 0 or text[start - 1] in " \t\r\n":  # a comment, to the end of its line
                end = text.find("\n", start)
                if end < 0:
                    return None
                at = end
        elif char in _QUOTED:
            if (
                _begins_node(text, start, depth > 0)
                and (closed := _QUOTED[char].match(text, start)) is not None
            ):
                at = closed.end()
        elif char in "[{":
            if depth or _begins_node(text, start, flow=False):  # (a flow scalar holds no bracket)
                depth += 1
                if depth > limit:
                    line = text.count("\n", 0, start)
                    return line + 1, start - (text.rfind("\n", 0, start) + 1) + 1
        elif depth:
            depth -= 1
    return None


def _begins_node(text: str, index: int, flow: bool) -> bool:
    """Whether what starts at ``index`` starts a node: only blanks stand before it on its line, or an
    indicator (in a block, an indicator and a blank: `key: [`, `- [`; `a:[` and `b#[` are plain text)."""
    line = text[text.rfind("\n", 0, index) + 1 : index]
    before = line.rstrip(" \t")
    if not before:
        return True
    if flow:
        return before[-1] in _FLOW_BEFORE
    return before[-1] in _BLOCK_BEFORE and len(before) < len(line)

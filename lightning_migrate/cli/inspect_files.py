"""``inspect --file``: the Trainer calls of a file of every kind the codemod reads, as the flags each gives
the Trainer: Python's calls, a notebook's (its code cells read together, IPython lines masked, as the
notebook front end reads them), a YAML file's Trainer configs (LightningCLI, Hydra), a shell script's
command lines that reach the Trainer, and the Python and shell code blocks of Markdown and reST. A file that
cannot be read is an ``InspectError`` (a clear message, never a traceback)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from lightning_migrate.cli.callparse import Call, Unread, trainer_calls
from lightning_migrate.files import sourcefile
from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.frontends.python import cells
from lightning_migrate.plan.knowledge import Choice, RunTime
from lightning_migrate.run.file_kinds import kind_of
from lightning_migrate.semantics.model import Hardware, Value

if TYPE_CHECKING:  # (each kind's reader is imported only for a file of its kind: ruamel only for YAML)
    from lightning_migrate.frontends.shell.command_line import Site

Found = list[Call | Unread]


class InspectError(Exception):
    """A file ``inspect`` cannot read, with where (1-based; 0: unknown)."""

    def __init__(self, message: str, line: int = 0, column: int = 0) -> None:
        super().__init__(message)
        self.line, self.column = line, column


def calls_in(path: Path, machine: Hardware) -> Found:
    """The Trainer calls (or configs, or command lines) of the file at ``path``, in the order of the file."""
    try:
        data = sourcefile.read_bytes(path)
        head = data[:256].decode("latin-1")
        kind = kind_of(path, head)
        text = sourcefile.decode(data, kind.python).text
        return _READERS[kind.name](text, path, machine)
    except SyntaxError as exc:
        raise InspectError(f"cannot parse: {exc.msg}", exc.lineno or 0, exc.offset or 0) from exc
    except SourceError as exc:
        raise InspectError(str(exc), exc.line, exc.column) from exc
    except OSError as exc:
        raise InspectError(f"cannot read: {exc.strerror or exc}") from exc


def _python(text: str, path: Path, machine: Hardware) -> Found:
    return sorted(trainer_calls(text, machine), key=lambda call: call.line)


def _pieces(pieces: list[tuple[str, str]], machine: Hardware) -> list[tuple[int, Call | Unread]]:
    """The calls of Python read in pieces (a notebook's cells, a document's blocks) that run as one
    program (a name bound in one serves the calls of the next), each piece (how it is named, its code): each
    call with the index of its piece and its line there."""
    joined = cells.join([code for _, code in pieces])
    try:
        calls = sorted(trainer_calls(joined.text, machine), key=lambda call: call.line)
    except SyntaxError as exc:
        index, line = joined.locate(exc.lineno or 1)
        raise InspectError(f"{pieces[index][0]}:{line}: cannot parse: {exc.msg}") from exc
    return [(joined.locate(call.line)[0], _moved(call, joined.locate(call.line)[1])) for call in calls]


def _moved(call: Call | Unread, line: int, where: str = "") -> Call | Unread:
    """``call`` at another line (and place)."""
    return replace(call, line=line, where=where)


def _notebook(text: str, path: Path, machine: Hardware) -> Found:
    from lightning_migrate.frontends.notebook.frontend import python_cells

    numbered = python_cells(text)
    found = _pieces([(f"cell {number}", code) for number, code in numbered], machine)
    return [_moved(call, call.line, f"cell {numbered[index][0]}:{call.line}") for index, call in found]


def _yaml(text: str, path: Path, machine: Hardware) -> Found:
    """Each Trainer config as it is written in the file (a config merged with others is shown with a note
    saying so: its flags are not all here)."""
    from lightning_migrate.frontends.yaml.read import configs, load, read

    found: Found = []
    for document in load(text):
        for config in configs(document, text, path):
            own = read(config.mapping)
            line = config.start[0] + 1
            written = ", ".join(f"{key}: {config.mapping[key]}" for key in own.order)
            shown = f"{config.section}: {{{written}}}"
            holes = [f"`{key}: {config.mapping[key]}`" for key, v in own.flags.items() if _hole(v)]
            reasons = [unknown.reason for unknown in own.unknown.values()]
            if holes or reasons:
                holes_why = f"{', '.join(holes)} only known at run time" if holes else ""
                found.append(Unread(line, shown, "; ".join([*reasons, *([holes_why] if holes else [])])))
                continue
            flags = {
                key: value for key, value in own.flags.items() if not isinstance(value, (RunTime, Choice))
            }
            found.append(Call(line, shown, flags, note=config.overrides))
    return found


def _hole(value: object) -> bool:
    """A value the config leaves to run time (an interpolation, ``???``)."""
    return isinstance(value, (RunTime, Choice))


def _shell(text: str, path: Path, machine: Hardware, first_line: int = 1) -> Found:
    """The flags each command line passes the Trainer; a script's ``export PL_TRAINER_*`` lines together,
    at the first of them, as they act together."""
    from lightning_migrate.frontends.shell.command_line import Site, read
    from lightning_migrate.frontends.shell.words import commands

    found: Found = []
    exports: list[tuple[int, str]] = []
    exported: Site | None = None
    for command in commands(text):
        start, end = command.words[0].start, command.words[-1].end
        line, written = text.count("\n", 0, start) + first_line, text[start:end]
        for site in read(command, text, path.parent):
            if site.flavour.name == "env" and site.script == "export":
                exported = exported or Site(site.flavour, script="export")
                exported.entries.update(site.entries)
                exports.append((line, written))
            else:
                found.append(_site(site, line, written))
    if exported is not None:
        found.append(_site(exported, exports[0][0], "; ".join(written for _, written in exports)))
    return sorted(found, key=lambda call: call.line)


def _site(site: Site, line: int, written: str) -> Call | Unread:
    """One command line's flags (``site``: those it passes one way) as the Trainer gets them."""
    from lightning_migrate.frontends.shell.command_line import NotAValue

    if not site.reaches:
        why = f"the options of `{site.script}` are not known to reach Lightning's Trainer"
        return Unread(line, written, why + (f" ({site.changed_by})" if site.changed_by else ""))
    flags: dict[str, Value] = {}
    for flag, entry in site.entries.items():
        if entry.text is None:
            return Unread(line, written, f"`{flag}` expands at run time")
        try:
            flags[flag] = site.flavour.read(flag, entry.text)
        except NotAValue as exc:
            return Unread(line, written, f"`{entry.text}` {exc}")
    return Call(line, written, flags, note=site.unknown_rest)


def _docs(text: str, path: Path, machine: Hardware) -> Found:
    """A document's Python blocks together (as the docs front end reads them), then its shell blocks."""
    from lightning_migrate.frontends.docs.frontend import (
        PYTHON_LANGUAGES,
        SHELL_LANGUAGES,
        blocks,
        shell_view,
    )

    found = list(blocks(text, kind_of(path).name == "rest"))
    python = [block for block in found if block.language in PYTHON_LANGUAGES and cells.parses(block.code)]
    pieces = _pieces([(f"the block at line {block.line}", block.code) for block in python], machine)
    in_file: Found = [_moved(call, python[index].line + call.line - 1) for index, call in pieces]
    for block in found:
        if block.language in SHELL_LANGUAGES:
            in_file += _shell(shell_view(block), path, machine, block.line)
    return sorted(in_file, key=lambda call: call.line)


_READERS: dict[str, Callable[[str, Path, Hardware], Found]] = {
    "python": _python,
    "notebook": _notebook,
    "yaml": _yaml,
    "shell": _shell,
    "markdown": _docs,
    "rest": _docs,
}


def cannot_parse(path: Path, error: InspectError) -> str:
    """The message for a file ``inspect`` cannot read: ``path:line:column: why``, as the codemod says it."""
    where = "".join(f":{n}" for n in (error.line, error.column) if n) if error.line else ""
    return f"{path}{where}: {error}"

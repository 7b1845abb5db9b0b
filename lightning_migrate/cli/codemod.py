"""The codemod as a LibCST codemod command, for projects that run their codemods through ``python -m
libcst.tool codemod``::

    python -m libcst.tool codemod --no-format -x lightning_migrate.cli.codemod.MigrateTrainerFlags \\
        --target-version 2.6 src/

or, with ``modules: [lightning_migrate.cli]`` in ``.libcst.codemod.yaml``, ``codemod.MigrateTrainerFlags``
(``--no-format``: LibCST runs black over what a command writes unless told not to, or given a formatter).
Each Python file goes through the same planner as ``lightning-migrate FILE`` run on that file alone (its
``# noqa`` comments and the selection included; what a run learns from the other files of a project, such
as a Trainer subclass defined elsewhere, is not gathered: LibCST hands a command one file at a time), and
its findings are the command's warnings (``path:line:column: CODE message``), as LibCST prints them. A file
that cannot be migrated is a failure of LibCST's run, left as it was."""

from __future__ import annotations

import argparse
from dataclasses import replace
from pathlib import Path

import libcst as cst
from libcst.codemod import CodemodCommand, CodemodContext, SkipFile

from lightning_migrate.cli.settings import accepted_releases, parse_codes, parse_release
from lightning_migrate.run.options import Options
from lightning_migrate.run.runner import (
    FileResult,
    auto_target,
    pinned_source,
    process_all,
    process_file,
    required_floor,
)
from lightning_migrate.semantics.model import Version


def _release(text: str) -> Version | None:
    """``--target-version`` as the ``lightning-migrate`` command reads it (argparse's error otherwise)."""
    try:
        return parse_release(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


def _codes(text: str) -> tuple[str, ...]:
    try:
        return parse_codes([text])
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from exc


class MigrateTrainerFlags(CodemodCommand):
    DESCRIPTION: str = (
        "Move PyTorch Lightning code off the old hardware/distribution Trainer flags without changing what"
        " training does (lightning-migrate's planner; findings are printed as warnings)."
    )

    @staticmethod
    def add_args(arg_parser: argparse.ArgumentParser) -> None:
        arg_parser.add_argument(
            "--target-version",
            type=_release,
            default=None,
            metavar="X.Y|auto",
            help=f"Lightning release to migrate to: {accepted_releases()} (default auto: the project's pin,"
            " else the installed release, else the newest).",
        )
        arg_parser.add_argument(
            "--source-version",
            type=_release,
            default=None,
            metavar="X.Y",
            help="Release the code was written for, when its behaviour differs between releases.",
        )
        arg_parser.add_argument("--unsafe-fixes", action="store_true", help="As lightning-migrate's.")
        arg_parser.add_argument("--shim", action="store_true", help="As lightning-migrate's.")
        arg_parser.add_argument("--select", type=_codes, default=("LM",), help="Report only these codes.")
        arg_parser.add_argument("--ignore", type=_codes, default=(), help="Do not report these codes.")

    def __init__(
        self,
        context: CodemodContext,
        target_version: Version | None = None,
        source_version: Version | None = None,
        unsafe_fixes: bool = False,
        shim: bool = False,
        select: tuple[str, ...] = ("LM",),
        ignore: tuple[str, ...] = (),
    ) -> None:
        super().__init__(context)
        self.target, self.source = target_version, source_version
        self.unsafe, self.shim, self.select, self.ignore = unsafe_fixes, shim, select, ignore

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        filename = self.context.filename
        path = Path(filename) if filename and filename != "-" else None
        options = self._options(path or Path.cwd())
        if path is None or not path.is_file():  # (standard input: the text LibCST was given)
            result = process_file(Path(filename or "-"), options, tree.code.encode())
        else:  # as `lightning-migrate FILE` does it, the file's own first pass included
            (result,) = process_all([path], options, jobs=1)
        if result.error:
            raise CodemodError(f"{result.path}: {result.error}")
        for finding in result.findings:
            fixed = " [*]" if finding.fixable else ""
            self.warn(
                f"{result.path}:{finding.line}:{finding.column}: {finding.code} {finding.message}{fixed}"
            )
        return cst.parse_module(result.new) if _changed(result) else tree

    def _options(self, start: Path) -> Options:
        """The run's options for a file at ``start``; ``auto``: its project's pin, as the command picks it."""
        ignore = self.ignore
        target = self.target
        if target is None:
            chosen = auto_target(start)
            if chosen.current and not chosen.known:
                raise SkipFile(
                    f"target {chosen.version} is the project's pin, older than the model: nothing to do"
                )
            ignore += chosen.unreported
            target = chosen.version
        floor = required_floor(start)  # (the project's own requirement, as the command reads it)
        source = self.source
        pinned = pinned_source(start) if source is None else None
        if pinned is not None and pinned[0] < target:  # (a pin of one release line, as the command reads it)
            source = pinned[0]
        unsafe, shim = self.unsafe, self.shim
        options = Options(target, source, self.select, ignore, unsafe=unsafe, shim=shim, floor=floor)
        return replace(options, source_pinned=source is not self.source)


class CodemodError(Exception):
    """A file this command cannot migrate (it cannot be parsed, or read): LibCST reports it as failed."""


def _changed(result: FileResult) -> bool:
    return result.data is not None and bool(result.new)

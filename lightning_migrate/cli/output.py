"""Findings and errors in the four output formats, and the summary line. ``text`` is for people
(``path:line:col: CODE message [*]``, in colour on a terminal), ``json`` for scripts, ``github`` for workflow
annotations, ``sarif`` for code scanning. Each writer gets the results in path order and the stream the
findings belong on. In rewrite mode a rewritten file gets a line of its own and only the findings left are
written (the fixed ones are counted, and listed by ``--show-fixes``); ``--statistics`` writes each code's
count instead of the findings."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

import click

from lightning_migrate import __version__
from lightning_migrate.cli import style
from lightning_migrate.cli.sarif import sarif_log
from lightning_migrate.cli.summary import count, statistics_lines, statistics_rows, summary
from lightning_migrate.report.findings import Finding
from lightning_migrate.run.runner import FileResult


@dataclass(frozen=True)
class Report:
    results: Sequence[FileResult]
    mode: str  # "rewrite", "diff" or "check"
    to_stderr: bool  # findings go to stderr when stdout carries a diff or the rewritten source
    quiet: bool = False
    statistics: bool = False  # each code's count instead of the findings
    show_fixes: bool = False  # the fixes made (rewrite and diff modes), one a line
    colour: bool | None = None  # ``click.echo``'s: off, on, or on a terminal only (``style.colour``)
    details: bool = False  # `--show-details`: the text format prints each finding's evidence under it


def report(output_format: str, run: Report) -> None:
    stream = Stream(output_format, run.mode, run.to_stderr, run.quiet, live=False, details=run.details)
    stream.statistics, stream.show_fixes, stream.colour = run.statistics, run.show_fixes, run.colour
    for result in run.results:
        stream.add(result)
    stream.close()


@dataclass
class Stream:
    """A report written as the run goes: ``live``, each result's findings (and errors) as soon as it is
    added, in the order added; what needs every result comes at ``close`` (JSON's errors and closing
    bracket, a SARIF log, the summary). The bytes are those of a report of all the results at once. Not
    ``live``, everything is written at ``close`` (a diff's findings come after the diffs)."""

    output_format: str
    mode: str
    to_stderr: bool
    quiet: bool = False
    live: bool = True
    results: list[FileResult] = field(default_factory=list)  # every result added that says something
    # results added that say nothing (no finding, no error, no change): counted, not kept (the parent's memory
    # does not grow with the tree's clean files), unless each is wanted (`-v` says each file's fate)
    plain: int = 0
    keep_plain: bool = False
    written: int = 0  # how many of them are written out
    rows: int = 0  # the JSON rows written
    statistics: bool = False
    show_fixes: bool = False
    colour: bool | None = None
    details: bool = False  # `--show-details`

    @property
    def run(self) -> Report:
        return Report(
            self.results,
            self.mode,
            self.to_stderr,
            self.quiet,
            self.statistics,
            self.show_fixes,
            self.colour,
            self.details,
        )

    def add(self, result: FileResult) -> None:
        if not self.keep_plain and _says_nothing(result):
            self.plain += 1  # (no writer writes anything of it: the order of what is written is kept)
            return
        self.results.append(result)
        if self.live:
            self._flush()

    def close(self, summary_wanted: bool = True) -> None:
        """The output's end (JSON's closing bracket, SARIF's run), then the summary unless told not to (a run
        that judged no file, having said why)."""
        self._flush()
        (_statistics if self.statistics else CLOSERS[self.output_format])(self)
        if self.show_fixes and self.mode != "check" and not self.quiet:
            _show_fixes(self)
        said = summary(self.results, self.mode, self.plain) if summary_wanted else ""
        if said:
            click.echo(said, err=True)

    def _flush(self) -> None:
        run = self.run
        for result in self.results[self.written :]:
            _rewrote(result, run)
            (_errors if self.statistics else WRITERS[self.output_format])(self, result, run)
        self.written = len(self.results)


def _says_nothing(result: FileResult) -> bool:
    """Whether a result adds nothing to a report but a file to count: no finding, none suppressed, no error,
    no change."""
    return not (result.findings or result.suppressed or result.error or result.changed)


def _where(result: FileResult, line: int, column: int) -> str:
    path = result.path.as_posix()
    return f"{path}:{line}:{column}" if column else f"{path}:{line}" if line else path


def _where_finding(result: FileResult, finding: Finding) -> str:
    """``path:line:col``, or ``path:cell N:line:col`` in a notebook (the cell as Jupyter shows it)."""
    if finding.cell is None:
        return _where(result, finding.line, finding.column)
    return f"{result.path.as_posix()}:{finding.in_cell}"


def _shown(result: FileResult, run: Report) -> list[Finding]:
    """The findings to write: in rewrite mode those left (a fixable finding there is one the run fixed)."""
    return [f for f in result.findings if not f.fixable] if run.mode == "rewrite" else result.findings


def _line(result: FileResult, finding: Finding, mark: bool = True) -> str:
    """``path:line:col: CODE message [*]``, styled (``style``: click strips it where colour is off)."""
    where = style.located(result.path.as_posix(), _where_finding(result, finding))
    fixed = " " + style.mark("[*]") if finding.fixable and mark else ""
    return f"{where} {style.code(finding.code)} {finding.message}{fixed}"


def _rewrote(result: FileResult, run: Report) -> None:
    """``Rewrote path (N fixes)`` for a file the rewrite wrote (not standard input: its rewrite is output)."""
    if run.mode != "rewrite" or run.to_stderr or run.quiet or not result.changed or result.error:
        return
    fixes = sum(f.fixable for f in result.findings)
    said = f" ({fixes} fix{'es' * (fixes != 1)})" if fixes else ""
    click.echo(f"Rewrote {style.path(result.path.as_posix())}{said}", err=True, color=run.colour)


def _show_fixes(stream: Stream) -> None:
    """``--show-fixes``: every fix the rewrite made (or the diff makes), one a line."""
    fixed = [(r, f) for r in stream.results for f in r.findings if f.fixable]
    made = "Fixed" if stream.mode == "rewrite" else "The diff fixes"
    click.echo(f"{made} {count(len(fixed), 'deprecated usage')}{':' if fixed else '.'}", err=True)
    for result, finding in fixed:
        click.echo(_line(result, finding, mark=False), err=True, color=stream.colour)
        if stream.details:  # (what an unsafe fix changes is among them)
            _text_details(finding, True)


def _errors(stream: Stream, result: FileResult, run: Report) -> None:
    """A file's error as the text report writes it (``--statistics`` writes only these: the findings are
    counted)."""
    if result.error:
        where = _where(result, result.error_line, result.error_column)
        click.echo(f"{where}: error: {result.error}", err=True)


def _statistics(stream: Stream) -> None:
    if stream.output_format == "json":
        import json

        click.echo(json.dumps(statistics_rows(stream.results), indent=2), err=stream.to_stderr)
        return
    for line in statistics_lines(stream.results, stream.mode):
        click.echo(line, err=stream.to_stderr, color=stream.colour)


def _text(stream: Stream, result: FileResult, run: Report) -> None:
    _errors(stream, result, run)
    if run.quiet:
        return
    for f in _shown(result, run):
        click.echo(_line(result, f), err=run.to_stderr, color=run.colour)
        if run.details:
            _text_details(f, run.to_stderr)


def _text_details(finding: Finding, to_stderr: bool) -> None:
    """``--show-details``: the evidence behind a finding, one item a line, indented under it (an item that
    spans lines keeps its own lines, each indented the same)."""
    for detail in finding.details:
        click.echo("\n".join("    " + line for line in detail.splitlines() or [""]), err=to_stderr)


def _json(stream: Stream, result: FileResult, run: Report) -> None:
    """The rows of a result's findings, each written as ``json.dumps`` of the list of every row with
    ``indent=2`` writes it (the errors' rows come after all the findings', at ``_json_end``)."""
    for f in _shown(result, run):
        _json_row(
            stream,
            {
                "path": result.path.as_posix(),
                "line": f.line,
                "column": f.column,
                "code": f.code,
                "message": f.message,
                "fixable": f.fixable,
                "details": list(f.details),  # the evidence behind the message (`--show-details`)
                "remedy": f.remedy or None,  # the flag whose run would fix it (unsafe-fixes, shim, ...)
                # in a notebook, line and column are the JSON file's; the cell is where Jupyter shows it
                **({"cell": dict(zip(("number", "line", "column"), f.cell))} if f.cell else {}),
            },
        )


def _json_end(stream: Stream) -> None:
    for r in stream.results:
        if r.error:
            row = {"path": r.path.as_posix(), "line": r.error_line or None, "column": r.error_column or None}
            _json_row(stream, {**row, "error": r.error})
    click.echo("\n]" if stream.rows else "[]", err=stream.to_stderr)


def _json_row(stream: Stream, row: dict[str, object]) -> None:
    import json  # (only for these formats: a text report does not need it)

    lead = ",\n" if stream.rows else "[\n"
    indented = "\n".join("  " + line for line in json.dumps(row, indent=2).split("\n"))
    click.echo(lead + indented, nl=False, err=stream.to_stderr)
    stream.rows += 1


def _github(stream: Stream, result: FileResult, run: Report) -> None:
    """Workflow commands: GitHub shows each as an annotation on the line in the pull request."""
    if result.error:
        click.echo(_annotation(result, result.error_line, result.error_column, "error", result.error))
    for f in _shown(result, run):
        message = (f"{f.in_cell}: " if f.cell else "") + f.message + (" [*]" if f.fixable else "")
        click.echo(_annotation(result, f.line, f.column, f.code, message))


def _annotation(result: FileResult, line: int, column: int, title: str, message: str) -> str:
    properties = {"file": result.path.as_posix(), "line": line, "col": column, "title": title}
    fields = ",".join(f"{key}={_escape(str(value), True)}" for key, value in properties.items() if value)
    return f"::error {fields}::{_escape(message, False)}"


def _escape(value: str, is_property: bool) -> str:
    """The escaping of GitHub's workflow-command parser (actions/toolkit ``command.ts``)."""
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return value.replace(":", "%3A").replace(",", "%2C") if is_property else value


def _sarif(stream: Stream) -> None:
    import json

    run = stream.run
    shown = [replace(r, findings=_shown(r, run)) for r in stream.results]
    click.echo(json.dumps(sarif_log(shown, __version__), indent=2), err=stream.to_stderr)


def _nothing(*_: object) -> None:
    """(a format with nothing to write at this point)"""


# what each format writes of a result as it comes, and what at the end
WRITERS: dict[str, Callable[[Stream, FileResult, Report], None]] = {
    "text": _text,
    "json": _json,
    "github": _github,
    "sarif": _nothing,
}
CLOSERS: dict[str, Callable[[Stream], None]] = {
    "text": _nothing,
    "json": _json_end,
    "github": _nothing,
    "sarif": _sarif,
}
FORMATS = tuple(WRITERS)
STATISTICS_FORMATS = ("text", "json")  # what `--statistics` writes (a table, or its rows)

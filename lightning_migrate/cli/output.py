"""Findings and errors in the four output formats, and the summary line. ``text`` is for people
(``path:line:col: CODE message [*]``), ``json`` for scripts, ``github`` for workflow annotations, ``sarif``
for code scanning. Each writer gets the results in path order and the stream the findings belong on."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import click

from lightning_migrate import __version__
from lightning_migrate.cli.sarif import sarif_log
from lightning_migrate.report.findings import Finding
from lightning_migrate.run.runner import FileResult


@dataclass(frozen=True)
class Report:
    results: Sequence[FileResult]
    mode: str  # "rewrite", "diff" or "check"
    to_stderr: bool  # findings go to stderr when stdout carries a diff or the rewritten source
    quiet: bool = False


def report(output_format: str, run: Report) -> None:
    WRITERS[output_format](run)
    summary = _summary(run)
    if summary:
        click.echo(summary, err=True)


def _where(result: FileResult, line: int, column: int) -> str:
    path = result.path.as_posix()
    return f"{path}:{line}:{column}" if column else f"{path}:{line}" if line else path


def _where_finding(result: FileResult, finding: Finding) -> str:
    """``path:line:col``, or ``path:cell N:line:col`` in a notebook (the cell as Jupyter shows it)."""
    if finding.cell is None:
        return _where(result, finding.line, finding.column)
    return f"{result.path.as_posix()}:{finding.in_cell}"


def _text(run: Report) -> None:
    for result in run.results:
        if result.error:
            where = _where(result, result.error_line, result.error_column)
            click.echo(f"{where}: error: {result.error}", err=True)
        if run.quiet:
            continue
        for f in result.findings:
            mark = " [*]" if f.fixable else ""
            click.echo(f"{_where_finding(result, f)}: {f.code} {f.message}{mark}", err=run.to_stderr)


def _json(run: Report) -> None:
    rows: list[dict[str, object]] = [
        {
            "path": r.path.as_posix(),
            "line": f.line,
            "column": f.column,
            "code": f.code,
            "message": f.message,
            "fixable": f.fixable,
            # in a notebook, line and column are those of the JSON file; the cell is where Jupyter shows it
            **({"cell": dict(zip(("number", "line", "column"), f.cell))} if f.cell else {}),
        }
        for r in run.results
        for f in r.findings
    ]
    rows += [
        {
            "path": r.path.as_posix(),
            "line": r.error_line or None,
            "column": r.error_column or None,
            "error": r.error,
        }
        for r in run.results
        if r.error
    ]
    import json  # (only for these formats: a text report does not need it)

    click.echo(json.dumps(rows, indent=2), err=run.to_stderr)


def _github(run: Report) -> None:
    """Workflow commands: GitHub shows each as an annotation on the line in the pull request."""
    for result in run.results:
        if result.error:
            click.echo(_annotation(result, result.error_line, result.error_column, "error", result.error))
        for f in result.findings:
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


def _sarif(run: Report) -> None:
    import json

    click.echo(json.dumps(sarif_log(run.results, __version__), indent=2), err=run.to_stderr)


WRITERS: dict[str, Callable[[Report], None]] = {
    "text": _text,
    "json": _json,
    "github": _github,
    "sarif": _sarif,
}
FORMATS = tuple(WRITERS)


def _summary(run: Report) -> str:
    results = run.results
    findings = [f for r in results for f in r.findings]
    parts = []
    if findings:
        fixable = sum(f.fixable for f in findings)
        usages = _count(len(findings), "deprecated usage")
        where = _count(sum(1 for r in results if r.findings), "file")
        counts = (
            f"{fixable} fixed, {len(findings) - fixable} left"
            if run.mode == "rewrite"
            else f"{fixable} fixable"
        )
        parts.append(f"Found {usages} in {where} ({counts}).")
    else:
        parts.append(f"No deprecated Trainer flags in {_count(len(results), 'file')}.")
    suppressed = sum(r.suppressed for r in results)
    if suppressed:
        parts.append(f"{_count(suppressed, 'finding')} suppressed by noqa comments.")
    errors = sum(1 for r in results if r.error)
    if errors:
        parts.append(f"{_count(errors, 'file')} could not be processed.")
    return " ".join(parts)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"

"""Findings as text (``path:line:col: CODE message [*]`` and a summary) or JSON (one object per finding)."""

from __future__ import annotations

import json
from collections.abc import Sequence

import click

from .runner import FileResult


def report(results: Sequence[FileResult], output_format: str, to_stderr: bool) -> None:
    if output_format == "json":
        rows = [
            {
                "path": r.path.as_posix(),
                "line": f.line,
                "column": f.column,
                "code": f.code,
                "message": f.message,
                "fixable": f.fixable,
            }
            for r in results
            for f in r.findings
        ]
        rows += [{"path": r.path.as_posix(), "error": r.error} for r in results if r.error]
        click.echo(json.dumps(rows, indent=2), err=to_stderr)
        return
    for result in results:
        if result.error:
            click.echo(f"{result.path.as_posix()}:{result.error}", err=True)
        for f in result.findings:
            mark = " [*]" if f.fixable else ""
            click.echo(
                f"{result.path.as_posix()}:{f.line}:{f.column}: {f.code} {f.message}{mark}", err=to_stderr
            )
    findings = [f for r in results for f in r.findings]
    files = sum(1 for r in results if r.findings)
    fixable = sum(f.fixable for f in findings)
    if findings:
        usages, where = _count(len(findings), "deprecated usage"), _count(files, "file")
        summary = f"Found {usages} in {where} ({fixable} fixable)."
    else:
        summary = f"No deprecated Trainer flags in {_count(len(results), 'file')}."
    click.echo(summary, err=True)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' * (n != 1)}"

"""Command lines as call sites: each site of ``command_line`` is decided by the planner
(``site_judge.judge``), and its rewrite written word by word, in the site's own way of passing flags. Shared
by the shell front end and by the shell code blocks of documents and notebooks, which hand over a *view* of
their text: the same length, with everything that is not a command line blanked, so offsets are those of the
file.

A here-document's body is data, not command lines (``words``), except that fed to ``python`` as its program
(``python - <<'EOF'``): that is Python, migrated as a piece of Python (``cells``) where the shell hands it
over as written (a quoted delimiter, or a body with nothing to expand), and reported where the shell changes
it first (``$``/backquote/backslash expansions, ``<<-`` removing tabs): an edit of what the shell rewrites
could not be proven."""

from __future__ import annotations

import functools
import re
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from lightning_migrate.edit.slots import place
from lightning_migrate.files.text import Unwritable
from lightning_migrate.frontends.python import cells
from lightning_migrate.frontends.shell import hydra_overrides
from lightning_migrate.frontends.shell.command_line import Entry, NotAValue, Site, moved, read, yaml_value
from lightning_migrate.frontends.shell.words import Heredoc, Word, commands, heredocs, quoted
from lightning_migrate.plan import gone
from lightning_migrate.plan.callsite import UNPACKED, CallSite, Run
from lightning_migrate.plan.knowledge import keywords
from lightning_migrate.plan.planner import PLANNED_FLAGS, Decision, Refusal, Rewrite, builds_the_same
from lightning_migrate.plan.prefilter import may_need_migration
from lightning_migrate.plan.site_judge import Unknown, judge, not_fixed
from lightning_migrate.project import hydra
from lightning_migrate.project.script_options import BY_LIGHTNING, BY_SHIM
from lightning_migrate.report.findings import MESSAGE_WIDTH, SHIM, Finding, Span, written
from lightning_migrate.semantics.model import Value, Version
from lightning_migrate.semantics.signature import REMOVED_METHODS, accepts

ADVICE = "pass the flags by hand, or use the runtime shim"


@dataclass
class Found:
    edits: list[tuple[int, int, str]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)


class _Lines:
    """An offset's (line, column): by ``locate`` where the text is a view of another, else in the text."""

    def __init__(self, text: str, locate: Locate | None) -> None:
        self.text, self.locate = text, locate

    @functools.cached_property
    def starts(self) -> list[int]:
        return [0] + [i + 1 for i, c in enumerate(self.text) if c == "\n"]

    def position(self, offset: int) -> tuple[int, int]:
        if self.locate is not None:
            return self.locate(offset)
        line = bisect_right(self.starts, offset) - 1
        return line + 1, offset - self.starts[line] + 1


Locate = Callable[[int], tuple[int, int]]


def migrate_commands(
    view: str,
    run: Run,
    folder: Path | None,
    locate: Locate | None = None,
    shim: bool = False,
    hydra_lines: hydra.CommandLines = hydra.NO_COMMANDS,
) -> Found:
    """The edits and findings of every command line in ``view`` (``locate``: an offset's line and column
    in the front end's terms, where they are not those of ``view``), and of the Python that here-documents
    feed ``python`` (``shim``: as the Python front end's ``--shim``; ``hydra_lines``: the run's Hydra command
    lines, which keep some configs below them as written)."""
    lines = _Lines(view, locate)
    found = Found()
    for body in heredocs(view):
        if _runs_python(body.program):
            _python_body(body, view, lines, run, shim, found)
    exported: Site | None = None
    for command in commands(view):
        if command.words[0].text(view).startswith("-"):
            # no program: the rest of a command line a `\ ` (a backslash before a space, not the line end)
            # broke off; the shell runs it on its own, and fails. Not read as the command it was meant to be
            continue
        first, last = lines.position(command.words[0].start), lines.position(command.words[-1].end)
        gone_found = _gone_options(command.words, view, lines, run)
        if gone_found:
            found.spans.append((first[0], 0, last[0], 1 << 30))
            found.findings.extend(gone_found)
        folder = moved(command, view, folder)  # (`cd explain`: the commands after it run there)
        for site in read(command, view, folder):
            if site.flavour.name == "env" and site.script == "export":  # a script's exports act together
                exported = exported or Site(site.flavour, script="export")
                exported.entries.update(site.entries)
                continue
            found.spans.append((first[0], 0, last[0], 1 << 30))
            _decide(site, view, lines, run, found, hydra_lines, shim)
    if exported is not None:
        span_lines = [lines.position(e.name[0])[0] for e in exported.entries.values()]
        found.spans.extend((line, 0, line, 1 << 30) for line in span_lines)
        _decide(exported, view, lines, run, found)
    return found


_PYTHON = re.compile(r"(?:.*/)?python[\d.]*")
_ASSIGNMENT = re.compile(r"[A-Za-z_]\w*=")


def _runs_python(program: tuple[str | None, ...]) -> bool:
    """Whether a command with these words runs its standard input as Python: ``python``, ``python3 -u -``,
    ``env X=1 python`` (no script, no ``-c``/``-m``: a word that is no option is the script)."""
    words = list(program)
    while words and (words[0] == "env" or (words[0] is not None and _ASSIGNMENT.match(words[0]))):
        words.pop(0)
    if not words or words[0] is None or not _PYTHON.fullmatch(words[0]):
        return False
    for word in words[1:]:
        if word is None or not word.startswith("-"):
            return False
        if not word.startswith("--") and ("c" in word or "m" in word):  # (`-c`, `-m`, `-uc`)
            return False
    return True


# A shell expansion in a here-document the shell expands: a name stands for it where the Python is judged
_EXPANSION = re.compile(r"\$\{[^}\n]*\}|\$\([^)\n]*\)|\$\w+|`[^`\n]*`")


def _python_body(body: Heredoc, view: str, lines: _Lines, run: Run, shim: bool, found: Found) -> None:
    """The Python of a here-document fed to ``python``: migrated as a piece of Python where the shell hands
    it over as written, else reported where it may hold old usage."""
    code = view[body.start : body.end]
    expands = not body.literal and any(c in code for c in "$`\\")
    tabbed = body.strip_tabs and any(line.startswith("\t") for line in code.split("\n"))
    if expands or tabbed:
        masked = _EXPANSION.sub("_shell_value_", code) if expands else code
        if may_need_migration(masked, (run.target,), (run.source,)):
            why = (
                "the shell expands `$`, backquotes and `\\` in it first (its delimiter is not quoted)"
                if expands
                else "`<<-` removes the tabs that start its lines first"
            )
            line, column = lines.position(body.at)
            found.spans.append((line, 0, line, 1 << 30))
            message = (
                "Python in a here-document is not migrated; quote its delimiter (`<<'EOF'`) or migrate it"
            )
            where = "quote the delimiter where the body has nothing to expand"
            found.findings.append(Finding(line, column, "LM101", message, False, details=(why, where)))
        return
    try:
        outcome = cells.migrate([code], run, shim)
    except cells.PieceError:
        return  # (Python refuses it too, or it is too deep to migrate safely: left as written)
    starts = [0] + [m.end() for m in re.finditer("\n", code)]

    def position(joined_line: int, column: int = 1) -> tuple[int, int]:
        line = min(outcome.joined.locate(joined_line)[1], len(starts)) - 1
        return lines.position(body.start + starts[line] + max(column - 1, 0))

    for finding in outcome.findings:
        line, column = position(finding.line, finding.column)
        found.findings.append(replace(finding, line=line, column=column))
    for first, _, last, _ in outcome.calls:
        found.spans.append((position(first)[0], 0, position(last)[0], 1 << 30))
    if outcome.pieces[0] != code:
        found.edits.append((body.start, body.end, outcome.pieces[0]))


def _gone_options(words: list[Word], view: str, lines: _Lines, run: Run) -> list[Finding]:
    """LightningCLI's ``--trainer.NAME`` options whose keyword the target rejects or deprecates (LM007):
    reported, not rewritten (a command line is written for a shell; the rename is the user's to make)."""
    options: dict[str, object] = {}
    where: dict[str, int] = {}
    for index, word in enumerate(words):
        raw = word.text(view)
        if not raw.startswith(_CLI):
            continue
        name, joined, text = raw[len(_CLI) :].partition("=")
        if not joined:
            following = words[index + 1] if index + 1 < len(words) else None
            alone = following is None or following.text(view).startswith("--")
            text = "true" if alone else following.value  # type: ignore[union-attr,assignment]
        elif word.value is not None:
            text = word.value.split("=", 1)[1]
        else:
            text = None  # type: ignore[assignment]
        options[name], where[name] = _option_value(text), word.start
    findings = []
    for name, start in where.items():  # (Lightning 0.x's keywords: every release raises for them)
        ancient = gone.ancient(name)
        if ancient is not None:
            findings.append(
                Finding(*lines.position(start), gone.ANCIENT_CODE, ancient[0], False, details=ancient[1])
            )
    for judged in gone.judge(options, run.target, opaque=True):
        message = f"{judged.message} (`{_CLI}{judged.old}`; rename it by hand)"
        findings.append(
            Finding(*lines.position(where[judged.old]), gone.CODE, message, False, details=judged.details)
        )
    return findings


_CLI = "--trainer."


def _option_value(text: str | None) -> object:
    if text is None:
        return gone.RUN_TIME  # (it expands at run time)
    try:
        return yaml_value(text)
    except NotAValue:
        return gone.RUN_TIME


def decide_site(site: Site, view: str, locate: Locate, run: Run, found: Found) -> None:
    """Decide one site of ``view`` (its offsets addressed by ``locate``) into ``found``."""
    _decide(site, view, _Lines(view, locate), run, found)


def _decide(
    site: Site,
    view: str,
    lines: _Lines,
    run: Run,
    found: Found,
    hydra_lines: hydra.CommandLines = hydra.NO_COMMANDS,
    shim: bool = False,
) -> None:
    if site.flavour.name == "hydra" and site.primary is not None:
        outcome = hydra_overrides.composed(site, view, lines.position, run, ADVICE, hydra_lines)
        if not isinstance(outcome, str):
            found.findings.extend(outcome[0])
            found.edits.extend(outcome[1])
            return
        site.unknown_rest += f" ({outcome})"
    flags: dict[str, Value] = {}
    unknown: dict[str, Unknown] = {}
    for flag, entry in site.entries.items():
        line, column = lines.position(entry.name[0] - len(site.flavour.prefix))
        written = _written(entry, view)
        if entry.text is None:
            unknown[flag] = Unknown("expands at run time", line, column, written=written)
            continue
        try:
            flags[flag] = site.flavour.read(flag, entry.text)
        except NotAValue as exc:
            unknown[flag] = Unknown(str(exc), line, column, written=written)
    first = site.first
    line, column = lines.position(first.name[0] - len(site.flavour.prefix))
    call = CallSite(line, column, flags, site.since)
    words = " ".join(_written(e, view) for e in site.entries.values())
    if not site.reaches:
        own = _own_options(site, replace(call, unknown=dict.fromkeys(unknown)), words, run)
        found.findings.extend(_handed(site, own, run.plan(call), run, shim, words))
        return
    alone_said: tuple[str, ...] = ()
    if site.unknown_rest:
        alone_known = not unknown
        words_only = replace(call, unknown={k: u.cls for k, u in unknown.items()})
        if site.rest_flags and run.old_api(words_only) is None:
            # (the rest is the script's own call's keywords, judged in the script: words that are the
            # target's own form need no change whatever the script passes beside them)
            return
        # (the flags the rest may set, where the script names them; else any: a `**` dict's)
        named = [flag for flag in site.rest_flags if flag not in flags and flag not in unknown]
        for flag in named if named and len(named) == len(site.rest_flags) else [UNPACKED]:
            unknown[flag] = Unknown(site.unknown_rest, line, column, written=words)
        alone = run.plan(call)
        if isinstance(alone, Rewrite) and alone_known:
            plus = "; `+` before a key the trainer config lacks" if site.flavour.name == "hydra" else ""
            alone_said = (f"written alone, they would be `{_spelled(site, alone.values)}`{plus}",)
    verdict = judge(run, call, unknown, ADVICE, *alone_said)
    if verdict.rewrite is None:
        found.findings.extend(_handed(site, verdict.findings, verdict.decision, run, shim, words))
        return
    try:
        edits = _edits(site, flags, verdict.rewrite.values, view, run.target)
    except Unwritable as exc:
        unwritten = not_fixed(verdict.findings, str(exc))
        found.findings.extend(_handed(site, unwritten, verdict.decision, run, shim, words))
        return
    found.edits.extend(edits)
    found.findings.extend(verdict.findings)


def _handed(
    site: Site, findings: list[Finding], decision: Decision, run: Run, shim: bool, words: str
) -> list[Finding]:
    """``findings`` of options of Lightning's parser that the script hands to the runtime shim's Trainer,
    which takes every old flag on every release and migrates them when it is built: none where the script
    already builds the shim's Trainer (``BY_SHIM``); one fixed finding where this ``--shim`` run makes it the
    shim's (Lightning's own ``Trainer.from_argparse_args``, which the target removed), and the findings with
    the `--shim` remedy in a run without it. Not where the shim's parser lacks one of the options on the
    target (`--auto_select_gpus` on 2.x), nor where no rewrite can keep what they build (a strategy the
    target no longer has: the shim passes that to the Trainer, which rejects it)."""
    if not findings or not site.built or any(f.fixable for f in findings):
        return findings
    if any(not accepts(flag, run.target) and flag not in PLANNED_FLAGS for flag in site.entries):
        return findings
    if isinstance(decision, Refusal) and decision.code not in ("LM101", "LM102"):
        return findings
    if site.built == BY_SHIM:
        return []
    if site.built != BY_LIGHTNING or run.target < REMOVED_METHODS["from_argparse_args"]:
        return findings
    if not shim:
        return [replace(f, remedy=SHIM) for f in findings]
    first = findings[0]
    script = written(str(site.script), 30)
    head = f"`{written(words)}`: options of `{script}`; fix: they reach the shim's Trainer"
    why = (
        "`--shim` makes the script build its Trainer with the runtime shim's `from_argparse_args`, which"
        " takes every old flag on every release and migrates them when the Trainer is built: they need no"
        " change",
        *(f"without the shim: {f.message}" for f in findings),
    )
    return [Finding(first.line, first.column, "LM101", head, True, details=why)]


def _own_options(site: Site, call: CallSite, words: str, run: Run) -> list[Finding]:
    """A script's options not known to reach Lightning's Trainer, or that the script reads or changes
    itself: reported (never rewritten) where they are old usage for the target (``Run.old_api`` on the words
    alone, whatever release they were written for: the script may change their values before a Trainer
    gets them), with what to pass instead if they reached it as written. A command line with nothing old
    for the target gets no finding."""
    if replace(run, source=None).old_api(call) is None:
        return []
    call = replace(call, unknown={})
    decision = run.plan(call)
    told: tuple[str, ...] = ()
    if isinstance(decision, Rewrite):
        spelled = _spelled(site, decision.values)
        change = f"pass `{spelled}` instead"
    elif isinstance(decision, Refusal):
        change, told = decision.message, decision.details
    else:
        return []
    if _own_words(site, decision):
        return []
    head = f"`{written(words)}`: options of `{written(str(site.script), 30)}`"
    if site.changed_by:  # Lightning's options, but what the script does with them would change too
        alone = (
            f"alone, Lightning's parser would take them as `{spelled}`"
            if isinstance(decision, Rewrite)
            else change
        )
        message = f"{head}, read by the script too; migrate its use first"
        why = (
            f"the script takes them from `Trainer.add_argparse_args` but sets or reads them itself"
            f" ({site.changed_by}): what it does with them could change",
            alone,
            *told,
        )
        return [Finding(call.line, call.column, "LM101", message, False, details=why)]
    how = (
        "no Hydra trainer config of Lightning's Trainer was found in this project"
        if site.flavour.name == "hydra"
        else "its parser is not known to come from `Trainer.add_argparse_args`"
    )
    message = f"{head}; if they reach the Trainer, {change}"
    if len(message) > MESSAGE_WIDTH:
        message = f"{head}; if they reach the Trainer, migrate them by hand"
        told = (change, *told)
    return [Finding(call.line, call.column, "LM101", message, False, details=(how, *told))]


def _own_words(site: Site, decision: Decision) -> bool:
    """Are the options of ``site`` all defined by the script's own parser (not Lightning's), so that the
    command line gives the script its own options, whatever it does with their values? Then a Trainer call
    that gets a value (``Trainer(devices=args.gpus)``, ``Trainer(**kwargs)`` after ``kwargs["devices"] =
    args.gpus``) is the Python's to migrate or report, where it is: the command line keeps its meaning as
    it is and needs no change, and no other words could be offered in its place, since the parser defines
    none (``--accelerator cuda --devices 2`` would stop the script). Not where the parser also defines
    every option a rewrite would pass (a script that hands its namespace to the Trainer as it is)."""
    if not site.defined or site.changed_by or not set(site.entries) <= site.defined:
        return False
    offered = set(decision.values) if isinstance(decision, Rewrite) else set()
    return not (offered and offered <= site.defined)


def _written(entry: Entry, view: str) -> str:
    start = entry.words[0].start
    return view[start : entry.words[-1].end]


def _spelled(site: Site, flags: dict[str, Value]) -> str:
    flavour = site.flavour
    parts = []
    for flag, value in flags.items():
        name = flavour.written(flag)
        separator = "=" if flavour.joined else " "
        parts.append(f"{flavour.prefix}{name}{separator}{quoted(flavour.spell(value))}")
    return " ".join(parts)


def _edits(
    site: Site, old: dict[str, Value], new: dict[str, Value], view: str, target: Version
) -> list[tuple[int, int, str]]:
    """The edits that write ``new`` in place of ``old``. What is written is read back the way the site's
    flavour reads it (1.x's argparse gives `--devices 2` as the string "2"): the rewrite is written only if
    that builds in ``target`` what ``new`` builds, on every machine."""
    flavour = site.flavour
    if any(flag not in old for flag in site.entries):
        raise Unwritable("a flag's value is only known at run time")
    order = sorted(site.entries, key=lambda f: site.entries[f].name[0])
    placements = place(order, old, new)
    edits: list[tuple[int, int, str]] = []
    read_back = {flag: value for flag, value in old.items() if flag in new and new[flag] == value}

    def value_text(flag: str, value: Value) -> str:
        spelled = flavour.spell(value)
        read_back[flag] = _read(flag, spelled)
        return quoted(spelled)

    def fresh(entry: Entry, flag: str, value: Value) -> str:
        name = flavour.written(flag)
        joined = entry.joined or flavour.joined
        prefix = view[entry.words[0].start : entry.name[0]]  # `--trainer.`, `+trainer.`, `PL_TRAINER_`
        return f" {prefix}{name}{'=' if joined else ' '}{value_text(flag, value)}"

    def _read(flag: str, text: str) -> Value:
        try:
            return flavour.read(flag, text)
        except NotAValue as exc:
            raise Unwritable(f"`{flag}` {exc} as a {flavour.what} value") from exc

    last = site.entries[order[-1]]
    for placement in placements.changed:
        entry = site.entries[placement.key]
        if placement.heir is None:
            start = entry.words[0].start
            while start > 0 and view[start - 1] in " \t":
                start -= 1
            edits.append((start, entry.words[-1].end, ""))
        else:
            heir = placement.heir
            if heir != placement.key:
                edits.append((*entry.name, flavour.written(heir)))
            if new[heir] != old[placement.key]:
                if entry.value is None:
                    raise Unwritable(f"`{placement.key}` is given without a value")
                edits.append((*entry.value, value_text(heir, new[heir])))
            else:
                read_back[heir] = _read(heir, entry.text or "")
        end = entry.words[-1].end
        edits.extend((end, end, fresh(entry, flag, new[flag])) for flag in placement.beside)
    end = last.words[-1].end
    edits.extend((end, end, fresh(last, flag, new[flag])) for flag in placements.appended)
    if read_back != new and not builds_the_same(read_back, new, target):
        raise Unwritable(f"the {flavour.what} values would not be read as `{keywords(new)}`")
    return edits


def locator(view: str, first_line: int) -> Locate:
    """An offset of a block's ``view`` (a shell block, a cell's shell lines) as (line of the joined text,
    column in the block's line), the block starting at ``first_line``."""

    def locate(offset: int) -> tuple[int, int]:
        line_start = view.rfind("\n", 0, offset) + 1
        return first_line + view.count("\n", 0, offset), offset - line_start + 1

    return locate

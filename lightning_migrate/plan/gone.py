"""The Trainer keywords beside the model's: those the target's Trainer does not accept, or deprecates, that a
call site still writes (LM007). The model only reads the hardware keywords (``signature.MODELLED``); every
other keyword is judged here against the table read from the releases (``semantics.keywords``) and
Lightning's own advice (``semantics.removed``), by every front end alike.

A keyword is rewritten only where Lightning documents the same meaning under a keyword the target has
(``removed.Rename``), or dropped where it is at a default (the releases that removed a keyword build, without
it, what its default built); anything else is reported as work left, so that a call is never counted fixed
while it passes a keyword the target rejects. A keyword no release has is not ours (a subclass's own).
"""

from __future__ import annotations

import enum
import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

from lightning_migrate.report.findings import MESSAGE_WIDTH, UNSAFE_FIXES, written
from lightning_migrate.semantics.keywords import KEYWORDS
from lightning_migrate.semantics.model import Value, Version, v
from lightning_migrate.semantics.removed import ANCIENT, BY_KEYWORD, GONE, SHIM_REFUSES, Gone
from lightning_migrate.semantics.signature import MODELLED

CODE = "LM007"
NO_TOOL_SINCE = v("1.7")  # the first target whose Trainer no tool can give 1.5's `SHIM_REFUSES` keywords
ANCIENT_CODE = "LM100"  # a keyword of Lightning 0.x's Trainer: every release the model knows raises


def ancient(keyword: str) -> tuple[str, tuple[str, ...]] | None:
    """The finding's message and details for a keyword of Lightning 0.x's Trainer that no release from 1.4
    takes (``removed.ANCIENT``), in every front end's words alike; None for any other keyword. Reported,
    never fixed."""
    advice = ANCIENT.get(keyword)
    if advice is None:
        return None
    said = f"`{keyword}=` is in no Lightning release from 1.4: {advice}"
    # (a Trainer call raises TypeError; LightningCLI's parser refuses the key or option)
    return said, ("every release from 1.4 rejects it (an unexpected keyword)", "change it by hand")


class _RunTime:
    def __repr__(self) -> str:
        return "RUN_TIME"


RUN_TIME = _RunTime()  # a keyword's value is only known at run time
_DROPPED = None  # an edit's new keyword: the old one goes


class Callbacks(enum.Enum):
    """What a call's ``callbacks=`` holds, as much as a fix that adds a callback to it needs to know."""

    ABSENT = "absent"  # not written, or None: the fix writes `callbacks=[new]`
    KNOWN = "known"  # Lightning callbacks, none of them a progress bar (a list display, or one object)
    BAR = "bar"  # a list display (or one object) holding a Lightning progress bar
    ITEMS = "items"  # a list display with items only known at run time (one may be a progress bar)
    OPEN = "open"  # an expression: `[*x, new]` is only right where `x` is a list


OLD = "<old>"  # an added callback's argument that takes the old keyword's value as written


@dataclass(frozen=True)
class Added:
    """A callback a fix appends to ``callbacks=``: ``cls(argument=value)``, ``value`` OLD for the old
    keyword's value as written (``cls`` None: that value is the callback)."""

    cls: str | None
    argument: str = ""
    value: Value = OLD

    def __str__(self) -> str:
        value = "..." if self.value == OLD else repr(self.value)
        return "the object" if self.cls is None else f"`{self.cls}({self.argument}={value})`"

    @property
    def short(self) -> str:
        """The callback named without its arguments, for a message that has no room for them."""
        return "the object" if self.cls is None else f"`{self.cls}`"


class _Object:
    def __repr__(self) -> str:
        return "CALLBACK"


CALLBACK = _Object()  # a keyword's value is a Lightning callback object (built by the call of its class)


class _Bool:
    def __repr__(self) -> str:
        return "BOOL"


BOOL = _Bool()  # a keyword's value is only known at run time, and is a bool on every run (narrowed)


@dataclass(frozen=True)
class Judged:
    """One keyword of the call the target does not take as written: what to say, and the edit that fixes
    it (``keyword`` None: the old keyword is dropped), if there is one, with the callback it adds to
    ``callbacks=`` (``added``)."""

    old: str
    head: str  # the keyword as written and what is wrong with it
    edit: tuple[str | None, Value] | None = None
    added: Added | None = None
    remedy: str = ""  # the flag whose run makes the edit (``Finding.remedy``)
    notes: tuple[str, ...] = ()  # the evidence: when Lightning deprecated and removed it, ...
    advice: str = ""  # what Lightning says to do instead
    fix: str = ""  # the fix said ("; fix: ..."), where there is one
    no_tool: str = ""  # that no tool can make it, not the runtime shim either (``removed.SHIM_REFUSES``)

    @property
    def message(self) -> str:
        """One line: the keyword, what is wrong, and the fix or else what to do (Lightning's advice, where
        it fits on the line; else it is the first detail)."""
        if self.no_tool and not self.fix:
            return f"{self.head}; {self.no_tool}, change it by hand"
        if self.fix or not self.advice:
            return self.head + self.fix
        if self._advice_fits:
            return f"{self.head}: {self.advice}"
        return f"{self.head}; change it by hand"

    @property
    def details(self) -> tuple[str, ...]:
        """The evidence behind the message: the advice where the message does not say it, then the notes."""
        if not self.advice or (not self.fix and self._advice_fits):
            return self.notes
        return (self.advice, *self.notes)

    @property
    def _advice_fits(self) -> bool:
        return len(self.head) + len(self.advice) + 2 <= MESSAGE_WIDTH

    def said(self, fix: str, *notes: str, **changes: object) -> Judged:
        """This finding with ``fix`` said (in place of the advice) and ``notes`` added to its evidence."""
        return replace(self, fix=fix, notes=(*self.notes, *notes), **changes)  # type: ignore[arg-type]

    @property
    def fixable(self) -> bool:
        return self.edit is not None


def accepts(keyword: str, version: Version) -> bool:
    since, until, _ = KEYWORDS[keyword]
    return since <= version and (until is None or version < until)


def is_default(keyword: str, value: object) -> bool:
    return any(type(value) is type(d) and value == d for d in KEYWORDS[keyword][2])


def concerns(keyword: str, target: Version) -> bool:
    """Is ``keyword`` one this module may report for ``target``: a keyword beside the model's that some
    release has, and that ``target`` lacks or that a release deprecates or takes only some values of; or one
    of the model's whose deprecation the planner leaves be (``removed.DEPRECATED_MODELLED``), which
    ``target`` still takes?"""
    if keyword in MODELLED:  # (where the target lacks one, the planner drops or reports it)
        return keyword in BY_KEYWORD and accepts(keyword, target)
    if keyword not in KEYWORDS:
        return False
    return keyword in BY_KEYWORD or not accepts(keyword, target)


@functools.lru_cache(maxsize=16)
def words(targets: tuple[Version, ...]) -> re.Pattern[str] | None:
    """What a text must hold for this module to find anything in it for some of ``targets``: one of the
    keywords it may report, or `max_steps=None` (a keyword only some values of which are old: only the
    literal value is looked for, so `Trainer(max_steps=args.steps)` costs no file a parse). None: nothing."""
    keywords = {
        k
        for k in KEYWORDS
        for t in targets
        if concerns(k, t) and not (k in BY_KEYWORD and BY_KEYWORD[k].values)
    }
    keywords |= set(ANCIENT)  # (no target takes them)
    alternatives = sorted(keywords, key=len, reverse=True)
    alternatives += [
        rf"{row.keyword}\s*[=:]\s*(?:{'|'.join(_spellings(value))})"
        for row in GONE
        if row.values and any(concerns(row.keyword, t) for t in targets)
        for value in row.values
    ]
    # (no `\b` before: a pattern that starts with a word is searched for at C speed; callers check that a
    # match starts a word)
    return re.compile(rf"(?:{'|'.join(alternatives)})\b") if alternatives else None


def _spellings(value: Value) -> list[str]:
    """How Python, YAML and command lines write ``value``."""
    return ["None", "null"] if value is None else [re.escape(repr(value))]


def judge(
    written: Mapping[str, object],
    target: Version,
    opaque: bool = False,
    callbacks: Callbacks | None = None,
    unsafe: bool = False,
    fixes: bool = False,
) -> list[Judged]:
    """The keywords among ``written`` (every keyword the call writes, with its value or ``RUN_TIME``) that
    ``target`` rejects or deprecates, in the order written. ``opaque``: the call also passes a ``**dict`` or
    ``*args`` nobody can read, which may hold a keyword a rename must not meet. ``callbacks``: what the
    call's ``callbacks=`` holds, where the front end can add a callback to it (None: it cannot, and no
    keyword is moved there); ``fixes``: the front end makes the fixes of ``_FIXES`` (``unsafe``: those right
    only for some run-time values too)."""
    found = []
    for keyword, value in written.items():
        if not concerns(keyword, target):
            continue
        judged = _judge(keyword, value, written, target, opaque)
        if judged is not None and not judged.fixable and not opaque and fixes and keyword in _FIXES:
            judged = _FIXES[keyword](judged, value, written, callbacks, unsafe) or judged
        if judged is not None:
            found.append(judged)
    return found


def _judge(
    keyword: str, value: object, written: Mapping[str, object], target: Version, opaque: bool
) -> Judged | None:
    since, _, _ = KEYWORDS[keyword]
    row = BY_KEYWORD.get(keyword)
    known = value is not RUN_TIME
    head = _quoted(keyword, value)
    if target < since:
        added = f"{head} is not in Lightning {target} (added in {_line(since)})"
        return Judged(keyword, added, advice="remove it")
    dates = _dates(row)
    if row is not None and row.values:  # only some values are old (`max_steps=None`)
        if not known or not any(_same(value, old) for old in row.values) or target < _deprecated(row):
            return None
        status = _status(target, row.removed)
        return Judged(keyword, f"{head} is {status} in Lightning {target}", notes=dates, advice=row.advice)
    if accepts(keyword, target):
        if row is None or target < _deprecated(row) or (known and is_default(keyword, value)):
            return None  # (a deprecated keyword at its default does not warn)
        status = f"{head} is deprecated in Lightning {target}"
    elif known and is_default(keyword, value) and not opaque:
        gone = f"{head} is not in Lightning {target}"
        return Judged(
            keyword, gone, (_DROPPED, None), notes=(*dates, "at its default"), fix="; fix: remove it"
        )
    else:
        status = f"{head} is not in Lightning {target}"
    advice = row.advice if row is not None else "remove it"
    rename = row.rename(value) if row is not None and known else None  # type: ignore[arg-type]
    if keyword in SHIM_REFUSES and not accepts(keyword, target) and target >= NO_TOOL_SINCE:
        # (a false value is what the target does without it: the shim drops it)
        said = "no tool can do it" + (" where it is true" if value is RUN_TIME or value is BOOL else "")
        why = f"{said}, not the runtime shim either: {SHIM_REFUSES[keyword]}"
        return Judged(keyword, status, notes=(*dates, why), advice=advice, no_tool=said)
    if opaque:  # (nothing is rewritten beside a `**dict` that may hold anything)
        return Judged(keyword, status, notes=dates, advice=advice)
    if (
        rename is not None
        and (rename.keyword is None or accepts(rename.keyword, target))
        and not any(k in written for k in (*rename.unless, rename.keyword))
    ):
        new = "remove it" if rename.keyword is None else f"{rename.keyword}={rename.new!r}"
        return Judged(
            keyword, status, (rename.keyword, rename.new), notes=(*dates, advice), fix=f"; fix: {new}"
        )
    return Judged(keyword, status, notes=dates, advice=advice)


def _quoted(keyword: str, value: object) -> str:
    """The keyword as a message quotes it: with its value (cut where long) where the file writes one."""
    if any(value is unknown for unknown in (RUN_TIME, BOOL, CALLBACK)):
        return f"`{keyword}=`"
    return f"`{keyword}={written(repr(value))}`"


def _status(target: Version, removed: Version | None) -> str:
    return "rejected" if removed is not None and target >= removed else "deprecated"


def _deprecated(row: Gone) -> Version:
    """The first release line that warns for it (one that never warned: the one that removed it)."""
    when = row.deprecated or row.removed
    assert when is not None
    return when


def _dates(row: Gone | None) -> tuple[str, ...]:
    """When Lightning deprecated and removed the keyword, as a detail (none where it did neither)."""
    if row is None:
        return ()
    said = [f"deprecated in {_line(row.deprecated)}"] if row.deprecated else []
    said += [f"removed in {_line(row.removed)}"] if row.removed else []
    return (", ".join(said).capitalize(),) if said else ()


def _line(version: Version) -> str:
    return f"{version.major}.{version.minor}"


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and a == b


# --- fixes that move a keyword's value into `callbacks=`, or that hold only for some values ---------------

# a fix: the finding, the keyword's value, the call's keywords, what its `callbacks=` holds, `--unsafe-fixes`
_Fix = Callable[[Judged, object, Mapping[str, object], Callbacks | None, bool], Judged | None]

# Why a callback appended to `callbacks=` may change what the call did: 1.4-1.6 added their own progress bar
# (and model summary) only where `callbacks` held none, and used the user's instead
_UNSURE_CALLBACKS = {
    Callbacks.ITEMS: "only right if no item of `callbacks=` is a progress bar, which 1.4-1.6 used instead",
    Callbacks.OPEN: "only right if `callbacks=` is a list with no progress bar, which 1.4-1.6 used instead",
}


# Why a trainer config's keyword whose fix is a callback is left: a config cannot append one
_NO_CALLBACK = "a trainer config cannot append a callback: add it where the Trainer's `callbacks` are built"


def _unsafe(judged: Judged, unsafe: bool, fix: str, why: str, **edit: object) -> Judged:
    """``judged`` with the fix ``--unsafe-fixes`` makes, made (``unsafe``) or said."""
    if not unsafe:
        fix = f"`--unsafe-fixes` writes: {fix}"
        return judged.said("; fixable with `--unsafe-fixes`", fix, why, remedy=UNSAFE_FIXES)
    return judged.said(f"; unsafe fix: {fix}", why, **edit)


def _moved(
    judged: Judged, added: Added, callbacks: Callbacks, unsafe: bool, why: str | None = None
) -> Judged:
    """``judged``'s keyword dropped and ``added`` appended to ``callbacks=``: made where ``callbacks`` is
    known to hold no progress bar (and ``why`` is None), else only with ``unsafe``."""
    fix = f"{added} appended to `callbacks=`"
    reason = why or _UNSURE_CALLBACKS.get(callbacks)
    said = f"; {'unsafe ' if reason is not None else ''}fix: {fix}"
    shown = reason is None or unsafe  # (else the message says `--unsafe-fixes`, its evidence the fix)
    if shown and len(judged.head) + len(said) > MESSAGE_WIDTH:  # (the callback in full: in the evidence)
        judged = judged.said("", f"the fix appends {added} to `callbacks=`")
        fix = f"{added.short} appended to `callbacks=`"
    if reason is None:
        return judged.said(f"; fix: {fix}", edit=(_DROPPED, None), added=added)
    return _unsafe(judged, unsafe, fix, reason, edit=(_DROPPED, None), added=added)


def _progress_bar(
    judged: Judged, value: object, written: Mapping[str, object], callbacks: Callbacks | None, unsafe: bool
) -> Judged | None:
    """`progress_bar_refresh_rate=N` is `TQDMProgressBar(refresh_rate=N)` in `callbacks=` (1.5/1.6
    `CallbackConnector.configure_progress_bar`, 1.4's with `ProgressBar`: with no progress bar in `callbacks`
    and N > 0 it appended `TQDMProgressBar(refresh_rate=N, process_position=...)`; with one there, it used
    that one and ignored N). 1.4's `ProgressBar` is the same class, renamed in 1.5.

    Where no callback can be appended (``callbacks`` None: a trainer config), N = 1 is the target's default
    bar, dropped: 2.x (2.6 `CallbackConnector._configure_progress_bar`) adds `TQDMProgressBar()`, whose rate
    is 1, or `RichProgressBar()` where `rich` is installed; a bar in `callbacks` is used as in 1.x. So it
    is an unsafe fix (``--unsafe-fixes``): the bar's class may change, training does not."""
    if (
        callbacks is None
    ):  # (`process_position=0` and `enable_progress_bar=True` are the defaults: the same bar)
        if not _same(written.get("process_position", 0), 0) or not _same(
            written.get("enable_progress_bar", True), True
        ):
            return None
        if type(value) is int and value == 1:
            why = "where `rich` is installed, 2.x's default bar is `RichProgressBar`, not 1.x's TQDM bar"
            return _unsafe(judged, unsafe, "remove it (the default bar)", why, edit=(_DROPPED, None))
        return judged.said("", _NO_CALLBACK)
    if any(k in written for k in ("process_position", "enable_progress_bar")):
        return None
    if callbacks is Callbacks.BAR:  # (N ignored: the bar `callbacks` holds is used)
        why = "`callbacks=` holds a progress bar, which 1.4-1.6 used, ignoring the rate"
        return judged.said("; fix: remove it", why, edit=(_DROPPED, None))
    added = Added("TQDMProgressBar", "refresh_rate")
    if value is RUN_TIME:  # (0 left the bar out, None took the default: `TQDMProgressBar(None)` fails)
        why = "only right if the value is a positive int"
        return _moved(judged, added, callbacks, unsafe, _UNSURE_CALLBACKS.get(callbacks, why))
    if type(value) is int and value > 0:
        return _moved(judged, added, callbacks, unsafe)
    if (
        type(value) is int and value == 0 and callbacks is Callbacks.KNOWN
    ):  # (no bar there: 1.6 adds none, and does not raise)
        why = "`progress_bar_refresh_rate=0` is `enable_progress_bar=False` where `callbacks=` has no bar"
        return judged.said("; fix: enable_progress_bar=False", why, edit=("enable_progress_bar", False))
    return None


def _checkpoint(
    judged: Judged, value: object, written: Mapping[str, object], callbacks: Callbacks | None, unsafe: bool
) -> Judged | None:
    """`checkpoint_callback=` given a `ModelCheckpoint` (the form of 1.3 and before, which used it) or a value
    only known at run time. 1.4.9 `_configure_checkpoint_callbacks` raised for any value not a bool ("Pass
    callback instances to the `callbacks` argument"); 1.5/1.6 took it as `enable_checkpointing =
    checkpoint_callback and enable_checkpointing`, adding a default `ModelCheckpoint` where that `is True`
    (an object only turned checkpointing on: moving it into `callbacks=` restores what the code meant, not
    what 1.5 did). 2.x (2.5.0 `_configure_checkpoint_callbacks`) adds it where `enable_checkpointing` is
    true, and raises where it is false beside a `ModelCheckpoint`, where 1.5/1.6 raised only for `False`: a
    run-time value renamed `enable_checkpointing=` keeps what 1.5/1.6 did unless it is a false value other
    than `False` (0, "", None is the default in both)."""
    if callbacks is None or "enable_checkpointing" in written:
        return None
    if value is CALLBACK:
        why = "1.4 rejected an object here, 1.5/1.6 ignored it and saved with a default `ModelCheckpoint`"
        return _moved(judged, Added(None), callbacks, unsafe, why)
    if value is BOOL:  # (`enable_checkpointing = checkpoint_callback and True`: the same bool)
        why = "renamed `enable_checkpointing=`: the value is a bool on every run"
        return judged.said(
            "; fix: rename it `enable_checkpointing=`", why, edit=("enable_checkpointing", BOOL)
        )
    if value is RUN_TIME:
        why = "only right if the value is a bool or an object on every run: 1.5/1.6 took another false value"
        why += " as no checkpointing, 2.x raises for it beside a `ModelCheckpoint`"
        fix = "rename it `enable_checkpointing=`"
        return _unsafe(judged, unsafe, fix, why, edit=("enable_checkpointing", RUN_TIME))
    return None


def _weights_summary(
    judged: Judged, value: object, written: Mapping[str, object], callbacks: Callbacks | None, unsafe: bool
) -> Judged | None:
    """`weights_summary="full"` is `ModelSummary(max_depth=-1)` in `callbacks=` (1.5/1.6
    `_configure_model_summary_callback`: `ModelSummaryMode.get_max_depth("full")` is -1, and the summary is
    added only where `callbacks` holds no `ModelSummary`; a `RichProgressBar` made it `RichModelSummary`).
    `weights_summary=None` returned before any of that (1.5.10: before it read `enable_model_summary`), so
    beside `enable_model_summary=` it is `enable_model_summary=False`, which 2.x reads the same way (a
    `ModelSummary` in `callbacks` runs in both)."""
    if value is None and type(written.get("enable_model_summary")) is bool:  # (else the rename applies)
        why = "1.4-1.6 added no summary for None whatever `enable_model_summary` says"
        return judged.said("; fix: enable_model_summary=False", why, edit=("enable_model_summary", False))
    if value != "full" or "enable_model_summary" in written:
        return None
    if callbacks is None:
        return judged.said("", _NO_CALLBACK)
    unsure = None if callbacks is Callbacks.ABSENT else "only right if `callbacks=` holds no `ModelSummary`"
    return _moved(judged, Added("ModelSummary", "max_depth", -1), callbacks, unsafe, unsure)


def _max_steps(
    judged: Judged, value: object, written: Mapping[str, object], callbacks: Callbacks | None, unsafe: bool
) -> Judged | None:
    """`max_steps=None` is `max_steps=-1` where `max_epochs` is given (1.5.10 `Trainer.__init__`: `max_epochs
    if max_epochs is not None else (1000 if max_steps == -1 and max_time is None else -1)`, as 2.x's
    `_FitLoop`; 1.4.9: 1000 epochs only with neither). Without it, 1.4 and 2.x stop after 1000 epochs and
    1.5/1.6 never did."""
    epochs = written.get("max_epochs", None)
    fix = "max_steps=-1"
    if epochs is not None and epochs is not RUN_TIME:
        return judged.said(f"; fix: {fix}", edit=("max_steps", -1))
    why = "`max_epochs` may be None: 1.5/1.6 then never stopped, 2.x stops after 1000 epochs"
    return _unsafe(judged, unsafe, fix, why, edit=("max_steps", -1))


# the keywords beside those judged whose values a fix reads
READ = frozenset({"max_epochs", "enable_model_summary", "enable_progress_bar"})
NARROWED = frozenset({"checkpoint_callback"})  # those whose run-time values a fix needs narrowed (BOOL)

_FIXES: dict[str, _Fix] = {
    "progress_bar_refresh_rate": _progress_bar,
    "checkpoint_callback": _checkpoint,
    "weights_summary": _weights_summary,
    "max_steps": _max_steps,
}

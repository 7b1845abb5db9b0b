"""A cheap text test run before the codemod parses a file: can the codemod change or report anything in it?

The codemod only acts on calls whose callee resolves, through an import, to Lightning's ``Trainer``
(directly, through ``functools.partial(Trainer, ...)`` or ``Trainer.from_argparse_args``), and only on their
modelled keyword arguments (``accelerator=``, ``gpus=``, ... : ``signature.MODELLED``), written out or passed
in a ``**`` dict. So a file is a candidate only if its text has the word ``Trainer``, the word ``lightning``
or ``pytorch_lightning`` (the import), and a modelled keyword or a ``*`` (``mentions``, run in the main
process).

A file that passes gets a second, still cheap look. Unless the name of a possible callee (``Trainer``,
``partial``, ``from_argparse_args`` or an ``import ... as`` alias of one) is followed by a ``(`` or ``[`` (or
a ``)`` and then one), no call in it can build a Trainer. Otherwise a lexer (``scan``: strings, comments,
brackets) finds every call whose callee may be a Trainer, and each one that holds a modelled keyword or a
``*`` has its argument list parsed on its own and read as the codemod reads it, every way it may read it
without the file's scopes (``readings``). Each reading is judged by the codemod's own rules for the run's
targets and sources, with the package the call can be written with (``pytorch_lightning``: any release;
``lightning``: 1.8 on): a call whose values are all known must be left unchanged by the planner; one with a
value known only at run time (a parameter, ``args.accelerator``, ``"cuda" if gpu else "cpu"``, an object
the codemod cannot read, a ``**cfg`` dict) must show no sign of old usage (``Run.old_api``). The file is
skipped only if every reading of every call is quiet, so already-migrated code is skipped without a table
that could drift from the model: ``Trainer(accelerator="gpu", devices=2, strategy="ddp")``,
``Trainer(strategy=DDPStrategy(static_graph=True), accelerator=accelerator)``,
``Trainer(**trainer_kwargs)`` in a file that imports ``lightning``.

Treated as "maybe" (the file is parsed) although the codemod may well leave it alone:
- a file that names ``lightning_migrate``: a call of the runtime shim's Trainer is judged too (the keywords
  the shim does not take, a setup it cannot build on the target);
- a value the codemod reads from an assignment: a name an assignment statement may bind (its target
  outside every bracket), a ``**cfg`` whose name an assignment may bind to a dict or ``dict(...)`` with a
  modelled key (or to a parenthesized value, or with an annotation);
- a call with more than ``readings.MAX_OBJECTS`` objects, the same modelled keyword twice, an object built
  by a callee that is an import alias or not a plain (dotted) name;
- a file that defines a class on top of one named like the Trainer and calls an ``__init__`` (its
  ``super().__init__(...)`` may pass flags to Lightning);
- a file that mentions ``from_argparse_args`` (the codemod drops that call's first argument, keyword or
  not), or imports a training-type class 1.6 renamed (for a target of 1.6 or later);
- an f-string (or t-string) with a possible callee in a replacement field, or cut short by a nested quote
  (PEP 701), brackets that do not balance, a quote that starts no string, an argument list that does not
  parse on its own;
- a character that Python may read as another in an identifier (NFKC, PEP 3131: a fullwidth ``l`` is
  ``l``), as the words above may hide behind it;
- a call of another class that happens to be named or aliased like the Trainer (``transformers.Trainer``),
  or of a parenthesized callee: it is judged as if it were Lightning's;
- a call the codemod's rules fail on (that error should surface from the real run).
Skipped although LibCST would fail on it: a file with a syntax error and no candidate is not parsed, so it is
not reported as unparsable.
"""

from __future__ import annotations

import ast
import functools
import re
import unicodedata
from collections.abc import Iterable, Iterator, Sequence

from lightning_migrate.files import scan
from lightning_migrate.plan import gone
from lightning_migrate.plan.callsite import LIGHTNING_PACKAGE, CallSite, Run
from lightning_migrate.plan.domains import parametrized
from lightning_migrate.plan.locate import SHIM_PACKAGE
from lightning_migrate.plan.planner import Unchanged
from lightning_migrate.plan.readings import Reading, readings
from lightning_migrate.plan.trainers import ECOSYSTEM, PARTIAL_CALLEES
from lightning_migrate.semantics.classes import RENAMED_STRATEGIES
from lightning_migrate.semantics.model import RELEASES, Value, Version
from lightning_migrate.semantics.removed import CLI_MODULE_SINCE, mentions_cli_api
from lightning_migrate.semantics.signature import MODELLED, REMOVED_METHODS

EVERY_SOURCE: tuple[Version | None, ...] = (None, *RELEASES)  # None: no --source-version

# Lightning, or an ecosystem package whose Trainer subclass passes the flags through (`flash.Trainer`)
_PACKAGES = ("lightning", "pytorch_lightning", *sorted({name.split(".")[0] for name in ECOSYSTEM}))


def _common_ending(names: Iterable[str]) -> str:
    names = list(names)
    ending = min(names, key=len)
    while not all(name.endswith(ending) for name in names):
        ending = ending[1:]
    return ending


# What the names of the classes 1.6 renamed end with ("Plugin"): a text without it names none of them (one
# search of the text, not one per class).
_RENAMED_ENDING = _common_ending(RENAMED_STRATEGIES)
# The word test of every kind but Python: what a file of it needs to hold a flag: one of the Trainer's
# keywords the model reads (the signature's table: `replace_sampler_ddp: false` alone is work for 2.x), a
# `*Plugin` class or a settings variable ...
FLAG_NAMES = "|".join(sorted(MODELLED, key=len, reverse=True))
# ... or a keyword beside the model's that some release rejects or deprecates (`plan.gone`)
_GONE = gone.words(RELEASES)
FLAG_WORDS = re.compile(
    rf"{FLAG_NAMES}|Plugin|PL_TRAINER_" + (f"|{_GONE.pattern}" if _GONE else ""), re.IGNORECASE
)
# A class and its bases: one that subclasses a Trainer (or such a class) is called as a Trainer is.
_CLASS = re.compile(r"class\s+(\w+)\s*\(([^)]*)\)")
_MODELLED_WORD = re.compile(rf"\b(?:{FLAG_NAMES})\b")
_READS_ATTRIBUTE = re.compile(r"\w\s*\.\s*[A-Za-z_]")  # (`args.gpus`; a float's `1.5` is not one)
# The `*Plugin` training-type classes 1.6 renamed: a file that imports one follows the rename (from 1.6 on)
# even without a Trainer call (`edit.imports.stale_imports`).
V16 = Version(1, 6)
_NOT_ASCII = re.compile(r"[^\x00-\x7f]")
_ASCII_WORD = re.compile(r"[A-Za-z0-9_]")

GAP = scan.GAP
# The names a Trainer call's callee can end with: qualified names come from imports and attributes, never
# from assignments (`T = pl.Trainer; T(...)` is not resolved by the codemod either).
CALLEES = ("Trainer", *PARTIAL_CALLEES, "from_argparse_args")
_PARTIALS = frozenset(PARTIAL_CALLEES)
# (Patterns that start with a word, not with `\b`, which would keep the regex engine from searching for that
# word at C speed; the word boundary before it is checked by `_words`.)
_ALIASES = {callee: re.compile(rf"{callee}{GAP}\bas\b{GAP}(\w+)") for callee in CALLEES}
_ANY_ALIAS = re.compile(rf"as\b{GAP}(\w+)")
_PARAMETRIZE = re.compile(r"parametrize\(")


def may_need_migration(
    text: str,
    targets: Sequence[Version] = RELEASES,
    sources: Sequence[Version | None] = EVERY_SOURCE,
    subclasses: frozenset[str] = frozenset(),
) -> bool:
    """False only if ``frontends.python.frontend.migrate(text, target, source)`` changes nothing and reports
    nothing for every ``target`` and ``source`` given (by default every release, with or without
    ``--source-version``). ``subclasses``: the names of the Trainer subclasses other files of the run define
    (the codemod takes a call of one imported from there for a Trainer call)."""
    if any(_has_word(text, name) for name in subclasses):
        return True  # (rare: a file of the run that calls its own Trainer subclass is looked at)
    words = mentions(text, targets)
    if words is not None:
        return words
    roles, trainers, local = _roles(text)
    if (
        ".__init__(" in text
        and "class" in text
        and any((local | trainers) & set(_NAMES.findall(found.group(2))) for found in _words(_CLASS, text))
    ):
        return True  # (a subclass's `super().__init__(...)` passes flags to Lightning: `locate.super_inits`)
    callees = frozenset(roles)
    found = scan.calls(text, callees)
    if not found:
        return False  # no callee is called or subscripted: no call can build a Trainer
    file = _File(text, callees, roles)
    if file.scanned is None:  # a file that does not lex cleanly: the codemod must look (and say why)
        return True
    for call in found:
        if call.close is not None and _quiet_call(text, call, call.close, file, targets, sources):
            continue
        if not file.scanned.in_string(call.open):  # (not a call if it is not code)
            return True
    return False


def _roles(text: str) -> tuple[dict[str, set[str]], set[str], set[str]]:
    """The names a Trainer call's callee may end with in ``text``, each with what it may be (``Trainer``,
    ``partial``, ...: ``CALLEES``, their import aliases, and the classes the file defines on a Trainer),
    then the names of the Trainer and its aliases, and those of the file's own subclasses."""
    roles: dict[str, set[str]] = {}  # a callee's name -> what it may be: `Trainer`, `partial`, ...
    for name in CALLEES:
        roles[name] = {name}
    for callee, pattern in _ALIASES.items():
        for alias in _words(pattern, text):
            roles.setdefault(alias.group(1), set()).add(callee)
    trainers = {name for name, role in roles.items() if "Trainer" in role}
    local = _subclasses(text, trainers)
    for subclass in local:
        roles.setdefault(subclass, set()).add("Trainer")
    return roles, trainers, local


def may_call_trainer(text: str, subclasses: frozenset[str] = frozenset()) -> bool:
    """False only if the Python ``text`` holds no call that ``plan.locate`` takes for a Trainer call (its
    ``calls``, a subclass's ``super().__init__(...)`` aside), whatever the call's arguments: such a call's
    callee ends with one of the names ``_roles`` finds (the proof ``may_need_migration`` rests on), or with
    one of the ``subclasses`` of the run (their own names: a file that names one as a word may call it).
    For the passes that want every Trainer call, old or modern, not only those a migration needs
    (``project.takers``); no file is parsed. A text with a character Python reads as an ASCII letter in a
    name (``_may_hide_words``) may name any of them otherwise: True."""
    if not text.isascii() and _may_hide_words(text):
        return True
    if any(_has_word(text, name) for name in subclasses):
        return True
    return bool(scan.calls(text, frozenset(_roles(text)[0])))


def _subclasses(text: str, names: set[str]) -> set[str]:
    """The classes the file defines on top of a class named like the Trainer (``names``: it, its aliases),
    or of such a class (``plan.trainers``: the codemod tells those that pass the flags through)."""
    if "class" not in text:
        return set()
    bases = {found.group(1): found.group(2) for found in _words(_CLASS, text)}
    trainers = set(names)
    while True:
        more = {
            name
            for name, written in bases.items()
            if name not in trainers and trainers & set(_NAMES.findall(written))
        }
        if not more:
            return trainers - names
        trainers |= more


_NAMES = re.compile(r"\w+")


def _quiet_call(
    text: str,
    call: scan.Call,
    close: int,
    file: _File,
    targets: Sequence[Version],
    sources: Sequence[Version | None],
) -> bool:
    """Does the codemod leave this call unchanged and unreported, however it reads it?"""
    if _gone(text[call.open : close], targets):
        return False  # a keyword beside the model's that a target rejects or deprecates (`plan.gone`)
    if "**" in text[call.open : close] and _gone(text, targets):
        return False  # ... or a key of a dict it unpacks, judged as a keyword (`_Migrator._unpacked_gone`)
    if not (_MODELLED_WORD.search(text, call.open, close) or "*" in text[call.open : close]):
        return True  # no modelled keyword, no `**`: the codemod has no flag to read
    arguments = text[call.open + 1 : close]
    if call.callee is not None and file.roles[call.callee] <= _PARTIALS and not file.partial_of(arguments):
        return True
    if file.lists_choices and _READS_ATTRIBUTE.search(arguments):
        # an argparse option's `choices=` are values the file writes, which the codemod reads as told (old
        # usage on their own: `choices=["ddp", "dp"]` for `accelerator=args.accelerator`); the readings here
        # take an attribute for a value nothing narrows
        return False
    found = readings(arguments, file)
    return found is not None and all(
        _quiet(reading, target, source, since)
        for reading in found
        for target in targets
        for source in sources
        for since in file.sinces
    )


REMOVED_IN = min(REMOVED_METHODS.values())


def mentions(text: str, targets: Sequence[Version] = RELEASES) -> bool | None:
    """The first, word-level half of ``may_need_migration``: False when the text lacks the words any
    candidate needs, True when it surely is one, None when only a look at its calls can tell. (Quick
    enough for the main process; the rest can be left to the workers.)"""
    if not text.isascii() and _may_hide_words(text):
        return True
    if SHIM_PACKAGE in text and _has_word(text, SHIM_PACKAGE):
        return True  # (a call of the runtime shim's Trainer is judged too: `_Migrator._shim_call`)
    if not any(_has_word(text, package) for package in _PACKAGES):
        return False
    if (
        "import" in text
        and any(target >= V16 for target in targets)
        and _RENAMED_ENDING in text
        and any(_has_word(text, name) for name in RENAMED_STRATEGIES)
    ):
        return True
    # LightningCLI's API a release moved or removed (`frontends.python.cli_api`), whatever the Trainer calls
    if any(target >= CLI_MODULE_SINCE for target in targets) and mentions_cli_api(text):
        return True
    # a LightningCLI's `trainer_defaults` keys, judged as keywords (`_Migrator.cli_keys`)
    if "LightningCLI" in text and "trainer_defaults" in text and _gone(text, targets):
        return True
    if "Trainer" not in text:
        return False
    # a Trainer method 2.0 removed (`Trainer.add_argparse_args(parser)`), whatever the flags
    if any(target >= REMOVED_IN for target in targets) and any(m in text for m in REMOVED_METHODS):
        return True
    if "*" not in text and not any(_has_word(text, word) for word in MODELLED) and not _gone(text, targets):
        return False
    if "from_argparse_args" in text:
        return True
    return None


def _gone(text: str, targets: Sequence[Version]) -> bool:
    """Does the text hold a keyword beside the model's that some target rejects or deprecates?"""
    pattern = gone.words(tuple(targets))
    return pattern is not None and next(_words(pattern, text), None) is not None


def _has_word(text: str, word: str) -> bool:
    """Is ``word`` in the text as a word? (A plain-text search first, then the boundaries: at C speed, where
    a pattern that starts with ``\\b`` is tried at every position.)"""
    return word in text and next(_words(_word(word), text), None) is not None


@functools.lru_cache(maxsize=64)
def _word(word: str) -> re.Pattern[str]:
    return re.compile(rf"{word}\b")


def _words(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """The matches of ``pattern`` that start a word."""
    for found in pattern.finditer(text):
        if not (found.start() and scan.is_word(text[found.start() - 1])):
            yield found


def _may_hide_words(text: str) -> bool:
    """Has the text a character that Python reads as an ASCII letter, digit or ``_`` in an identifier (NFKC,
    PEP 3131)? A fullwidth ``l`` is ``l`` to the codemod: no word test here can be trusted then."""
    return any(_ASCII_WORD.search(unicodedata.normalize("NFKC", c)) for c in set(_NOT_ASCII.findall(text)))


class _File:
    """What the readings of a file's calls need to know of the whole file (``readings.File``)."""

    def __init__(self, text: str, callees: frozenset[str], roles: dict[str, set[str]]) -> None:
        self.text = text
        # an argparse option with `choices=` (the codemod reads an option's choices as values the file writes)
        self.lists_choices = "choices" in text and "add_argument" in text
        self.callees = callees
        self.roles = roles
        self._values: dict[str, list[ast.expr] | None] = {}
        self._bound: dict[str, bool] = {}
        self._defaults: dict[str, tuple[Value, ...] | None] = {}
        # The package the codemod takes a call to be written with (`CallSite.since`) is `lightning`'s (1.8 on)
        # exactly when a name the call uses is imported from `lightning`: a file that names one package only
        # has calls of that package only.
        self.sinces = [
            since
            for since, used in (
                (RELEASES[0], "pytorch_lightning" in self.text),
                (LIGHTNING_PACKAGE, _has_word(self.text, "lightning")),  # (not `pytorch_lightning`)
            )
            if used
        ] or [RELEASES[0]]  # (an ecosystem package's Trainer, `flash.Trainer`: any release)

    @functools.cached_property
    def scanned(self) -> scan.Scanned | None:
        """The whole file's structure (lexed only for a call that needs it); None: it does not lex cleanly."""
        return scan.scan(self.text, self.callees)

    @functools.cached_property
    def aliases(self) -> frozenset[str]:
        """Every name an ``... as name`` may bind (imports, and ``with``/``except`` too)."""
        return frozenset(found.group(1) for found in _words(_ANY_ALIAS, self.text))

    def partial_of(self, arguments: str) -> bool:
        """May a ``partial(...)`` call with these arguments be ``partial(Trainer, ...)``? Its first argument
        must name the Trainer (``plan.locate.trainer_skip``)."""
        trainers = [name for name, roles in self.roles.items() if "Trainer" in roles]
        return re.search(rf"\b(?:{'|'.join(trainers)})\b", arguments) is not None

    @functools.cached_property
    def _decorators(self) -> list[ast.FunctionDef] | None:
        """Each ``parametrize(...)`` of the file, parsed on its own (as the only decorator of a function, as
        ``domains.parametrized`` reads them); None where one's text cannot be found."""
        found = []
        for start in _words(_PARAMETRIZE, self.text):
            decorator = _decorator(self.text, start.start())
            if decorator is None:
                return None
            found.append(ast.FunctionDef(name="_", args=None, body=[], decorator_list=[decorator]))  # type: ignore[arg-type]
        return found

    @functools.cache  # noqa: B019 (one file's, dropped with it)
    def parametrized(self, name: str) -> tuple[Value, ...] | None:
        """Every value a ``parametrize`` of the file lists for ``name`` (``domains.parametrized``: those of
        every test, more than the codemod reads for one); () for none; None where a decorator's text cannot
        be found."""
        if "parametrize" not in self.text or name not in self.text:
            return ()
        if self._decorators is None:
            return None
        # (a decorator whose values do not read leaves the codemod with none it is told of either)
        return tuple(value for function in self._decorators for value in parametrized(function, name) or ())

    def defaults(self, name: str) -> tuple[Value, ...] | None:
        """Every plain default a ``def`` of the file gives a parameter ``name`` (each signature parsed on its
        own); None where a signature does not parse so, or such a default is not a literal (the codemod may
        read a constant's value)."""
        if name not in self._defaults:
            self._defaults[name] = _defaults(self.text, name) if "def" in self.text else ()
        return self._defaults[name]

    def may_be_bound(self, name: str) -> bool:
        """May the codemod read a value for ``name``? It reads a name bound by an assignment statement
        (``n = ...``, ``n: T = ...``, ``a = n = ...``), whose target stands outside every bracket, or is
        parenthesized (``(n) = ...``). (A quick test: ``values`` tells which.)"""
        if self.scanned is None:
            return True  # (and `values` cannot tell which)
        if name not in self._bound:
            self._bound[name] = next(_assignments(self.scanned.top_level, name), None) is not None or (
                next(_assignments(self.text, name, _PARENTHESIZED), None) is not None
            )
        return self._bound[name]

    def values(self, name: str) -> list[ast.expr] | None:
        """The value of every assignment statement that may bind ``name`` (as ``may_be_bound`` finds them,
        strings and comments aside), each parsed on its own; None where one does not parse so (an
        annotation with a ``=`` in it, a chained assignment: the codemod must look)."""
        scanned = self.scanned
        if scanned is None:
            return None
        if name not in self._values:
            starts = [scanned.position(end - 1) + 1 for end in _assignments(scanned.top_level, name)]
            starts += list(_assignments(self.text, name, _PARENTHESIZED))
            self._values[name] = self._parsed([at for at in starts if not scanned.in_string(at - 1)])
        return self._values[name]

    def _parsed(self, starts: list[int]) -> list[ast.expr] | None:
        values = []
        for start in starts:
            end = scan.statement_end(self.text, start)
            if end is None:
                return None
            try:
                values.append(ast.parse(f"(\n{self.text[start:end]}\n)", mode="eval").body)
            except Exception:
                return None
        return values


# What follows a name an assignment statement binds, up to its `=`: an annotation maybe, or (`(name) =`) the
# closing brackets of a parenthesized target.
_ASSIGNED = re.compile(rf"{GAP}(?::[^\r\n]*?)?=(?!=)")
_PARENTHESIZED = re.compile(rf"(?:{GAP}\))+{GAP}(?::[^\r\n]*?)?=(?!=)")


def _assignments(text: str, name: str, after: re.Pattern[str] = _ASSIGNED) -> Iterator[int]:
    """Where the ``=`` of each assignment of ``name`` ends (the name found as a word, then ``after``). The
    name is searched for as plain text: no pattern is compiled for each name."""
    at = text.find(name)
    while at >= 0:
        if not (at and (scan.is_word(text[at - 1]) or text[at - 1] == ".")):
            found = after.match(text, at + len(name))
            if found is not None:
                yield found.end()
        at = text.find(name, at + 1)


_VERDICTS: dict[tuple[str, str, str, Version, Version | None, Version], bool] = {}


_DEF = re.compile(rf"\bdef{GAP}\w+{GAP}\(")


def _defaults(text: str, name: str) -> tuple[Value, ...] | None:
    """``_File.defaults``: the signatures are found as text, so a ``def`` in a string counts too."""
    found: list[Value] = []
    for start in _words(_DEF, text):
        close = scan.matching(text, start.end() - 1)
        if close is None:
            return None
        signature = text[start.end() : close]
        if name not in signature:
            continue
        try:
            function = ast.parse(f"def _({signature}\n): pass").body[0]
        except Exception:
            return None
        assert isinstance(function, ast.FunctionDef)
        arguments = function.args
        positional = [*arguments.posonlyargs, *arguments.args]
        pairs = [*zip(positional[len(positional) - len(arguments.defaults) :], arguments.defaults)]
        pairs += [(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None]
        for parameter, default in pairs:
            if parameter.arg != name:
                continue
            try:
                value = ast.literal_eval(default)
            except Exception:
                return None
            if value is None or isinstance(value, (bool, int, float, str)):
                found.append(value)
    return tuple(found)


def _decorator(text: str, start: int) -> ast.Call | None:
    """The ``parametrize(...)`` call that starts at ``start``, parsed on its own (None where it cannot be)."""
    close = scan.matching(text, start + len("parametrize"))
    if close is None:
        return None
    try:
        parsed = ast.parse(text[start : close + 1].strip(), mode="eval").body
    except (SyntaxError, ValueError):
        return None
    return parsed if isinstance(parsed, ast.Call) else None


def _quiet(reading: Reading, target: Version, source: Version | None, since: Version) -> bool:
    """Does the codemod leave a call it reads so unchanged and unreported? Known values only: the planner
    leaves it unchanged; some known only at run time: it shows no sign of old usage (``Run.old_api``)."""
    key = (repr(reading.flags), repr(reading.unknown), repr(reading.defaults), target, source, since)
    verdict = _VERDICTS.get(key)
    if verdict is None:
        if len(_VERDICTS) >= 4096:
            _VERDICTS.clear()
        run = Run(target, source)
        site = CallSite(0, 0, reading.flags, since, reading.unknown, defaults=reading.defaults)
        try:
            if reading.unknown:
                verdict = run.old_api(site) is None
            else:  # (values a test lists are judged as the codemod judges them: `Run.judge`)
                verdict = not reading.flags or isinstance(run.judge(site), Unchanged)
        except Exception:  # the real run must show it
            verdict = False
        _VERDICTS[key] = verdict
    return verdict

"""Generate ``lightning_migrate/semantics/keywords.py``: every keyword of ``Trainer.__init__`` in every
release the model knows, read from the released wheels.

    python benchmarks/trainer_keywords.py WHEELS_DIR          # WHEELS_DIR/<release>/*.whl, fetched if absent
    python benchmarks/trainer_keywords.py WHEELS_DIR --check  # exit 1 if the committed table differs

Each release's wheel (``pip download --no-deps pytorch-lightning==X``, and ``lightning==2.6.6`` for the
unified package) is opened as a zip, its ``trainer/trainer.py`` parsed with ``ast`` (nothing is imported),
and the parameters of ``Trainer.__init__`` taken with their defaults (the literal ones: ``ast.literal_eval``).
The table says, for each keyword, the first release line that has it and the first that no longer does,
and every literal default it had. ``tests/real/test_registry.py`` checks it against the installed release.
"""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from lightning_migrate.semantics.model import RELEASES, Version  # noqa: E402

OUTPUT = ROOT / "lightning_migrate" / "semantics" / "keywords.py"
TRAINER = ("pytorch_lightning/trainer/trainer.py", "lightning/pytorch/trainer/trainer.py")
_NO_DEFAULT = object()

HEADER = '''"""Every keyword of ``Trainer.__init__`` in every release the model knows (generated from the
wheels by ``benchmarks/trainer_keywords.py``; do not edit by hand, regenerate). ``signature.TRAINER_FLAGS``
stays the source of truth for the hardware keywords the model reads; ``tests/test_keywords.py`` checks the
two agree, and ``tests/real/test_registry.py`` checks this table against the installed release."""

from __future__ import annotations

from lightning_migrate.semantics.model import Version, v

# keyword -> (first release line with it, first release line without it, every literal default it had)
KEYWORDS: dict[str, tuple[Version, Version | None, tuple[object, ...]]] = {
'''


def wheel(folder: Path, package: str, release: str) -> Path:
    """The wheel of ``package==release`` under ``folder/<release>``, downloaded if it is not there."""
    where = folder / (release if package == "pytorch-lightning" else f"{package}-{release}")
    found = sorted(where.glob("*.whl"))
    if not found:
        command = [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "-d", str(where)]
        subprocess.run([*command, f"{package}=={release}"], check=True)
        found = sorted(where.glob("*.whl"))
    return found[0]


def parameters(path: Path) -> dict[str, object]:
    """The keywords of ``Trainer.__init__`` in the wheel at ``path``, each with its literal default."""
    with zipfile.ZipFile(path) as archive:
        name = next(n for n in archive.namelist() if n in TRAINER)
        tree = ast.parse(archive.read(name))
    init = next(
        node
        for cls in tree.body
        if isinstance(cls, ast.ClassDef) and cls.name == "Trainer"
        for node in cls.body
        if isinstance(node, ast.FunctionDef) and node.name == "__init__"
    )
    args = init.args
    positional = [*args.posonlyargs, *args.args][1:]
    defaults: list[object] = [_NO_DEFAULT] * (len(positional) - len(args.defaults)) + [
        _literal(d) for d in args.defaults
    ]
    found = dict(zip((a.arg for a in positional), defaults))
    found.update(
        (a.arg, _NO_DEFAULT if d is None else _literal(d)) for a, d in zip(args.kwonlyargs, args.kw_defaults)
    )
    return found


def _literal(node: ast.expr) -> object:
    try:
        return ast.literal_eval(node)
    except ValueError:
        return _NO_DEFAULT  # (not a literal: `_LITERAL_WARN`, a call)


def table(releases: dict[Version, dict[str, object]]) -> dict[str, tuple[Version, Version | None, tuple]]:
    ordered = sorted(releases)
    out = {}
    for keyword in sorted({k for found in releases.values() for k in found}):
        having = [r for r in ordered if keyword in releases[r]]
        first, last = having[0], having[-1]
        assert having == [r for r in ordered if first <= r <= last], f"{keyword} comes and goes"
        after = ordered.index(last) + 1
        until = ordered[after] if after < len(ordered) else None
        defaults: list[object] = []
        for release in having:
            default = releases[release][keyword]
            if default is not _NO_DEFAULT and not any(_same(default, d) for d in defaults):
                defaults.append(default)
        out[keyword] = (first, until, tuple(defaults))
    return out


def _same(a: object, b: object) -> bool:
    return type(a) is type(b) and a == b


def render(rows: dict[str, tuple[Version, Version | None, tuple]]) -> str:
    def line(v: Version | None) -> str:
        return "None" if v is None else f'v("{v.major}.{v.minor}")'

    body = "".join(
        f'    "{k}": ({line(first)}, {line(until)}, {defaults!r}),\n'
        for k, (first, until, defaults) in rows.items()
    )
    return HEADER + body + "}\n"


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("wheels", type=Path, help="a folder for the wheels (<release>/*.whl)")
    parser.add_argument("--check", action="store_true", help="compare with the table, write nothing")
    options = parser.parse_args()
    releases = {r: parameters(wheel(options.wheels, "pytorch-lightning", str(r))) for r in RELEASES}
    unified = parameters(wheel(options.wheels, "lightning", str(RELEASES[-1])))
    assert unified == releases[RELEASES[-1]], "lightning's Trainer differs from pytorch_lightning's"
    # a release line is named by its minor version: the model knows its last patch release only
    rows = table({Version(r.major, r.minor): found for r, found in releases.items()})
    if options.check:
        from lightning_migrate.semantics.keywords import KEYWORDS

        same = rows == KEYWORDS
        print("up to date" if same else f"{OUTPUT} differs from the wheels: regenerate it")
        return 0 if same else 1
    text = render(rows)
    OUTPUT.write_text(text)
    subprocess.run([sys.executable, "-m", "ruff", "format", "-q", str(OUTPUT)], check=False)  # (the style)
    print(f"wrote {OUTPUT} ({text.count(chr(10))} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

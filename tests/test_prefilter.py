"""The prefilter never skips a file the codemod would change or report on, and skips most code that has
nothing to migrate. Every skip is checked against ``migrate`` itself."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from lightning_migrate.files.sourcefile import SourceError
from lightning_migrate.frontends.python.frontend import migrate
from lightning_migrate.plan.prefilter import may_need_migration
from lightning_migrate.semantics.model import RELEASES, Version, release

ROOT = Path(__file__).parent.parent
TARGETS = tuple(r for r in RELEASES if r >= release("1.5"))
# f-strings that nest their own quotes (PEP 701): the codemod reads them where Python does, from 3.12
PEP701 = pytest.mark.skipif(sys.version_info < (3, 12), reason="PEP 701 f-strings need Python 3.12")
FILES = sorted(ROOT.glob("fixtures/**/*.py")) + sorted(ROOT.glob("examples/**/*.py"))


def source_of(text: str) -> Version | None:
    match = re.match(r"# source: (\S+)", text)
    return release(match.group(1)) if match else None


def assert_untouched(text: str, target: Version, source: Version | None) -> None:
    result = migrate(text, target, source)
    assert result.findings == [], (target, source)
    assert result.code == text, (target, source)


def test_skipped_fixtures_and_examples_are_left_alone_for_every_target() -> None:
    skipped = []
    for path in FILES:
        text = path.read_text(encoding="utf-8")
        source = source_of(text)
        if not may_need_migration(text, TARGETS, (source,)):
            skipped.append(path.name)
            for target in TARGETS:
                assert_untouched(text, target, source)
    assert "already_migrated.py" in skipped
    assert len(skipped) >= 30


def test_migrated_fixtures_are_skipped_for_their_own_target() -> None:
    """``case.2.0.expected.py`` is what the codemod writes for 2.0: a second run over it has nothing to do."""
    skipped = 0
    for path in sorted(ROOT.glob("fixtures/**/*.expected.py")):
        target = release(path.name.split(".", 1)[1].rsplit(".expected.py", 1)[0])
        text = path.read_text(encoding="utf-8")
        source = source_of(text)
        if not may_need_migration(text, (target,), (source,)):
            skipped += 1
            assert_untouched(text, target, source)
    assert skipped >= 250


IMPORT = "import pytorch_lightning as pl\nfrom pytorch_lightning.strategies import DDPStrategy\n"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("import os\n\nprint(os.sep)\n", id="no-lightning"),
        pytest.param(
            "import lightning.pytorch as pl\n\n\nclass Net(pl.LightningModule):\n    strategy = 'ddp'\n",
            id="module-without-trainer",
        ),
        pytest.param(IMPORT + "trainer = pl.Trainer(max_epochs=3, logger=False)\n", id="unmodelled-flags"),
        pytest.param(IMPORT + "trainer = pl.Trainer(max_epochs=2 * 3)\n", id="unmodelled-expression"),
        pytest.param(IMPORT + "net = Net(**cfg)\npl.Trainer(max_epochs=3)\n", id="kwargs-elsewhere"),
        pytest.param(
            IMPORT + 'pl.Trainer(accelerator="gpu", devices=2, strategy="ddp", max_epochs=3)\n',
            id="migrated-1x",
        ),
        pytest.param(
            IMPORT + "pl.Trainer(\n    accelerator='gpu',  # one node\n    devices=4,\n    num_nodes=2,\n)\n",
            id="migrated-multiline",
        ),
        pytest.param(IMPORT + "pl.Trainer(accelerator='cpu', precision=16, sync_batchnorm=True)\n", id="cpu"),
        pytest.param(
            IMPORT + "def build(accelerator='gpu', gpus=2):\n    return pl.Trainer(max_epochs=1)\n",
            id="parameters-named-like-flags",
        ),
        pytest.param(IMPORT + "# pl.Trainer(gpus=2)\ndoc = 'Trainer(gpus=2)'\n", id="comment-and-string"),
        pytest.param(
            IMPORT + "def build(strategy, accelerator, n):\n"
            "    return pl.Trainer(strategy=strategy, accelerator=accelerator, devices=n)\n",
            id="runtime-values-in-the-strategy-form",
        ),
        pytest.param(
            IMPORT + "for precision in (16, 32):\n    pl.Trainer(precision=precision, num_nodes=nodes)\n",
            id="runtime-values-of-modern-keywords",
        ),
        pytest.param(
            IMPORT + "pl.Trainer(accelerator=args.accelerator, devices=args.devices, strategy='ddp')\n",
            id="attributes-in-the-strategy-form",
        ),
        pytest.param(
            IMPORT
            + "from functools import partial\nmake = partial(build, **kwargs)\npl.Trainer(max_epochs=1)\n",
            id="partial-of-another-callable",
        ),
        pytest.param(IMPORT + "net = getattr(models, name)(**kwargs)\npl.Trainer()\n", id="call-of-a-call"),
        pytest.param(
            IMPORT + "print(f'strategy={strategy} devices={devices}')\npl.Trainer(max_epochs=1)\n",
            id="fstring-with-flag-words",
        ),
        pytest.param(
            IMPORT + "x = f(a)  # " + "#" * 60 + "\nprint(x)  # a\npl.Trainer(max_epochs=1)\n",
            id="comment-of-hashes",  # (a regex that tried every way to split it would never end)
        ),
        pytest.param(
            "import lightning.pytorch as pl\nimport pytest\n\n\n"
            "@pytest.mark.parametrize('accelerator', ['cpu', pytest.param('gpu', marks=pytest.mark.skip)])\n"
            "def test_fit(accelerator):\n    pl.Trainer(accelerator=accelerator, devices=1)\n",
            id="parametrized-modern-values",
        ),
        pytest.param(
            "import lightning.pytorch as pl\n\n\nclass Logged(pl.Trainer):\n    pass\n\n\n"
            "class Quiet(Logged):\n    pass\n\n\nQuiet(accelerator='gpu', devices=2, strategy='ddp')\n",
            id="subclass-modern-call",
        ),
        pytest.param(
            IMPORT + "pl.Trainer(accelerator='gpu' if cuda else 'cpu', devices=1, strategy='ddp')\n",
            id="conditional-modern-values",
        ),
        pytest.param(
            "import lightning.pytorch as pl\n\n\ndef build(strategy: str = 'auto', n: int = 1):\n"
            "    return pl.Trainer(strategy=strategy, accelerator='gpu', devices=n)\n",
            id="parameter-defaults-in-the-target-form",
        ),
    ],
)
def test_code_with_nothing_to_migrate_is_skipped(text: str) -> None:
    assert not may_need_migration(text, TARGETS, (None,))
    for target in TARGETS:
        assert_untouched(text, target, None)


UNIFIED = "import lightning.pytorch as pl\nfrom lightning.pytorch.strategies import DDPStrategy\n"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(UNIFIED + "def f(kwargs):\n    return pl.Trainer(**kwargs)\n", id="lightning-kwargs"),
        pytest.param(
            UNIFIED + "cfg = {'max_epochs': 1, 'logger': False}\npl.Trainer(**cfg)\n", id="dict-without-flags"
        ),
        pytest.param(
            UNIFIED + "pl.Trainer(strategy=DDPStrategy(static_graph=True), accelerator='gpu', devices=2)\n",
            id="object",
        ),
        pytest.param(
            IMPORT + "pl.Trainer(strategy=DDPStrategy(static_graph=True), accelerator='gpu', devices=2)\n",
            id="object-pytorch-lightning",
        ),
        pytest.param(UNIFIED + "pl.Trainer(strategy=DDPStrategy(acc), devices=2)\n", id="object-positional"),
        pytest.param(
            UNIFIED + "pl.Trainer(strategy=DDPStrategy(None, None), devices=2)\n",
            id="object-positional-literal",
        ),
        pytest.param(
            IMPORT + "pl.Trainer(accelerator='cuda' if gpu else 'cpu', devices=1, strategy='auto')\n",
            id="conditional-expression",
        ),
        pytest.param(
            UNIFIED
            + "pl.Trainer(plugins=[SLURMEnvironment()], accelerator='cpu', devices=2, strategy='ddp')\n",
            id="list-of-objects",
        ),
        pytest.param(
            UNIFIED + "def f():\n    strategy = DDPStrategy(static_graph=True)\n"
            "    return pl.Trainer(strategy=strategy, accelerator='gpu', devices=2)\n"
            "def g(strategy):\n    return pl.Trainer(strategy=strategy)\n",
            id="bound-object",
        ),
        pytest.param(
            UNIFIED + "cfg = {'accelerator': 'gpu', 'devices': 2}\n"
            "pl.Trainer(**cfg)\npl.Trainer(**cfg, num_nodes=2)\n",
            id="dict-with-modern-flags",
        ),
        pytest.param(
            IMPORT + "doc = 'strategy = 3'  # strategy = 4\n"
            "def f(strategy):\n    return pl.Trainer(strategy=strategy, devices=2)\n",
            id="assignment-in-a-string",
        ),
    ],
)
def test_modern_code_with_values_the_prefilter_reads_is_skipped(text: str) -> None:
    """Objects, conditional expressions, names bound by assignments and ``**`` dicts are read as the codemod
    reads them (code for 2.6 here; older targets lack some of these classes)."""
    target = release("2.6")
    assert not may_need_migration(text, (target,), (None,))
    assert_untouched(text, target, None)


def test_syntax_this_python_cannot_read_is_an_error_that_says_so() -> None:
    """The codemod locates calls with this Python's own parser: code written for a newer Python is reported
    (with the way out), never silently passed."""
    text = IMPORT + 'x = f"{d["k"]}{pl.Trainer(gpus=2)}"\n'
    if sys.version_info >= (3, 12):
        assert migrate(text, TARGETS[-1]).findings
        return
    with pytest.raises(SourceError, match=r"cannot parse with Python 3\.\d+: .*run lightning-migrate with"):
        migrate(text, TARGETS[-1])


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(IMPORT + "pl.Trainer(gpus=2)\n", id="deprecated"),
        pytest.param(IMPORT + "pl.Trainer(gpus  # two\n    = 2)\n", id="comment-before-equals"),
        pytest.param(IMPORT + "pl.Trainer(gpus \\\n= 2)\n", id="continuation-before-equals"),
        pytest.param(IMPORT + 'x = f"{d["k"]}{pl.Trainer(gpus=2)}"\n', id="pep701-fstring", marks=PEP701),
        pytest.param(
            IMPORT + 'x = f"{\'}\'}{d["k"]}{pl.Trainer(gpus=2)}"\n', id="pep701-balanced-prefix", marks=PEP701
        ),
        pytest.param(IMPORT + "x = f'{pl.Trainer(gpus=2)}'\n", id="fstring"),
        pytest.param(IMPORT + 'pl.Trainer(**cfg, accelerator="ddp", devices=2)\n', id="kwargs-with-flags"),
        pytest.param(IMPORT + "pl.Trainer(accelerator=args.accelerator)\n", id="runtime-value"),
        pytest.param(IMPORT + "GPUS = 2\npl.Trainer(gpus=GPUS)\n", id="constant"),
        pytest.param(IMPORT + "S = 'ddp'\npl.Trainer(accelerator=S, devices=2)\n", id="bound-name"),
        pytest.param(IMPORT + "S: str = 'ddp'\npl.Trainer(accelerator=S, devices=2)\n", id="annotated"),
        pytest.param(IMPORT + "(S) = 'ddp'\npl.Trainer(accelerator=S, devices=2)\n", id="parenthesized"),
        pytest.param(IMPORT + "A = S = 'ddp'\npl.Trainer(accelerator=S, devices=2)\n", id="chained"),
        pytest.param(
            IMPORT + "def f(accelerator):\n    pl.Trainer(accelerator=accelerator)\n", id="no-strategy"
        ),
        pytest.param(
            IMPORT + "pl.Trainer(strategy=DDPStrategy(), devices=2, accelerator='gpu')\n", id="object"
        ),
        pytest.param(IMPORT + "pl.Trainer(devices=2)\n", id="devices-alone-1.5"),
        pytest.param(IMPORT + "pl.Trainer(accelerator='cuda', devices=2)\n", id="cuda-in-1.5"),
        pytest.param(IMPORT + "t = pl.Trainer.from_argparse_args(args, gpus=2)\n", id="from-argparse-args"),
        pytest.param(
            "from functools import partial\nfrom pytorch_lightning import Trainer as T\n"
            "make = partial(T, accelerator='ddp', gpus=2)\n",
            id="partial-alias",
        ),
        pytest.param(
            "from pytorch_lightning import Trainer\nclass MyTrainer(Trainer):\n    pass\nMyTrainer(gpus=2)\n",
            id="subclass",
        ),
        pytest.param("import flash\nflash.Trainer(gpus=2)\n", id="ecosystem-subclass"),
        pytest.param(
            "from pytorch_lightning import Trainer as T\nclass A(T):\n    pass\nclass B(A):\n    pass\n"
            "B(accelerator='ddp', gpus=2)\n",
            id="subclass-of-a-subclass-of-an-alias",
        ),
        pytest.param(
            "import lightning.pytorch as pl\nimport pytest\n\n\n"
            "@pytest.mark.parametrize('strategy, n', [('ddp', 1), pytest.param('dp', 2, marks=skip)])\n"
            "def test_fit(strategy, n):\n    pl.Trainer(strategy=strategy, devices=n)\n",
            id="parametrized-old-value",
        ),
        pytest.param(
            IMPORT + "pl.Trainer(accelerator='ddp' if n > 1 else None, devices=n)\n",
            id="conditional-old-branch",
        ),
        pytest.param(IMPORT + "pl.Trainer[int](accelerator='ddp', gpus=2)\n", id="subscripted-callee"),
        pytest.param(IMPORT + "pl.Trainer()(accelerator='ddp', gpus=2)\n", id="call-of-a-call"),
        pytest.param(IMPORT + "def f():\n    return (pl.Trainer)(gpus=2)\n", id="return-parenthesized"),
        pytest.param(IMPORT + "cfg = {'accelerator': 'ddp', 'gpus': 2}\npl.Trainer(**cfg)\n", id="dict"),
        pytest.param(IMPORT + "cfg = dict(accelerator='ddp', gpus=2)\npl.Trainer(**cfg)\n", id="dict-call"),
        pytest.param(
            UNIFIED + "cfg = {'accelerator': 'gpu', 'gpus': 2}\npl.Trainer(**cfg)\n", id="lightning-dict"
        ),
        pytest.param(IMPORT + "pl.Trainer(gpus=2 if x else 1)\n", id="conditional-old-keyword"),
        pytest.param(
            "import pytorch_lightning as pl\nfrom pytorch_lightning.plugins import DDPPlugin as D\n"
            "pl.Trainer(strategy=D(), accelerator='gpu', devices=2)\n",
            id="object-of-an-alias",
        ),
        pytest.param(
            "import pytorch_lightning as pl\nfrom pytorch_lightning import plugins\n"
            "pl.Trainer(strategy=plugins.DDPPlugin(), accelerator='gpu', devices=2)\n",
            id="object-renamed",
        ),
        pytest.param(
            UNIFIED + "pl.Trainer(strategy=DDPStrategy(find_unused_parameters=fup), gpus=2)\n",
            id="object-with-a-runtime-value",
        ),
        pytest.param(
            UNIFIED + "def build(strategy: str | None = None, n: int = 1):\n"
            "    return pl.Trainer(strategy=strategy, accelerator='gpu', devices=n)\n",
            id="parameter-default-the-target-rejects",
        ),
        pytest.param(
            UNIFIED + "def build(*, strategy=None):\n    return pl.Trainer(**dict(strategy=strategy))\n",
            id="keyword-only-default-in-a-dict",
        ),
        pytest.param(
            IMPORT + "import argparse\n\nparser = argparse.ArgumentParser()\n"
            'parser.add_argument("--accelerator", choices=["ddp", "dp"], default="ddp")\n'
            "args = parser.parse_args()\npl.Trainer(accelerator=args.accelerator, devices=2)\n",
            id="option-choices-told",  # (the codemod reads the choices as written values: LM101)
        ),
        pytest.param(
            IMPORT + "import argparse\n\ndef get_args():\n    parser = argparse.ArgumentParser()\n"
            '    parser.add_argument("--accelerator", choices=["ddp", "dp"])\n'
            "    return parser.parse_args()\n\n"
            "args = get_args()\npl.Trainer(accelerator=args.accelerator, devices=2)\n",
            id="option-choices-told-in-a-parser-function",
        ),
        pytest.param("import \uff50ytorch_lightning as pl\npl.Trainer(gpus=2)\n", id="nfkc-import"),
        pytest.param(IMPORT + "pl.Trainer(\uff47pus=2)\n", id="nfkc-keyword"),
    ],
)
def test_candidates_are_never_skipped(text: str) -> None:
    assert may_need_migration(text, TARGETS, (None,))
    assert any(migrate(text, t).findings for t in TARGETS), (
        "not a real candidate: the test would prove nothing"
    )


def test_a_dict_key_the_codemod_reads_in_two_parts_is_a_candidate() -> None:
    """``'accel' 'erator'`` is the key ``accelerator`` (the codemod's own run must show what it does)."""
    assert may_need_migration(IMPORT + "cfg = {'accel' 'erator': 'ddp', 'gpus': 2}\npl.Trainer(**cfg)\n")


@pytest.mark.parametrize("call", ["pl.Trainer(**cfg)", "pl.Trainer(*args)", "partial(pl.Trainer, **cfg)"])
def test_a_trainer_call_with_unpacking_is_a_candidate(call: str) -> None:
    """The dict may hold flags: the codemod reads it (a literal dict) or reports it (LM101)."""
    assert may_need_migration(f"{IMPORT}from functools import partial\nt = {call}\n", TARGETS, (None,))


def test_a_source_version_makes_modern_calls_candidates() -> None:
    """``strategy="ddp"`` searched for unused parameters in 1.x and does not in 2.x."""
    text = IMPORT + 'pl.Trainer(accelerator="gpu", devices=2, strategy="ddp")\n'
    target, source = release("2.6"), release("1.9")
    assert not may_need_migration(text, (target,), (None,))
    assert may_need_migration(text, (target,), (source,))
    assert may_need_migration(text)  # by default: every target, with or without a source
    assert migrate(text, target, source).code != text


@pytest.mark.parametrize(
    "call",
    [
        'pl.Trainer(accelerator="gpu", devices=n or None)',
        'pl.Trainer(accelerator="gpu", devices=args.gpus or None, strategy="ddp")',
        'pl.Trainer(accelerator="cpu", devices=n and None)',
        'pl.Trainer(accelerator="gpu", devices=0 or n or None)',
        'pl.Trainer(accelerator="gpu", devices=None)',
    ],
)
@pytest.mark.parametrize("target", ["2.0", "2.6"])
def test_devices_none_of_a_17_era_migration_is_seen_from_20(call: str, target: str) -> None:
    """`devices=None` (1.x's default) raises from 2.0: a value written in a boolean operation is one the
    value may take, as it is to the codemod (``plan.ranges``)."""
    text = IMPORT + f"\n\ndef build(n, args):\n    return {call}\n"
    assert may_need_migration(text, (release(target),), (None,))
    assert migrate(text, release(target)).findings


def test_a_constant_that_never_decides_a_boolean_operation_is_no_reading() -> None:
    """The `0` of `0 or n` is never the value: it makes no world of its own (the file stays skipped)."""
    text = UNIFIED + 'pl.Trainer(accelerator="gpu", devices=0 or n, strategy="ddp")\n'
    assert not may_need_migration(text, (release("2.6"),), (None,))
    assert_untouched(text, release("2.6"), None)


# --- generated Trainer calls --------------------------------------------------------------------------------

IMPORTS = {  # import line -> how the file spells the Trainer
    "import pytorch_lightning as pl": "pl.Trainer",
    "import pytorch_lightning": "pytorch_lightning.Trainer",
    "from pytorch_lightning import Trainer": "Trainer",
    "from pytorch_lightning import Trainer as T": "T",
    "from pytorch_lightning.trainer.trainer import Trainer": "Trainer",
    "import lightning as L": "L.Trainer",
    "import lightning.pytorch as pl": "pl.Trainer",
    "from lightning.pytorch import Trainer": "Trainer",
    "from transformers import Trainer": "Trainer",  # not Lightning's
    "from lightning.fabric import Fabric as Trainer": "Trainer",  # not a Trainer at all
}
MODERN = {  # the strategy= form, with literals, objects and run-time values: what the prefilter must skip
    "accelerator": [
        "'gpu'",
        '"cpu"',
        "'cuda'",
        "'auto'",
        "'tpu'",
        "'mps'",
        "acc",
        "'gpu' if g else 'cpu'",
        "GPU",
    ],
    "strategy": [
        "'ddp'",
        '"ddp_spawn"',
        "'auto'",
        "'ddp_find_unused_parameters_false'",
        "'deepspeed'",
        "strat",
        "DDPStrategy(static_graph=True)",
        "args.strategy",
        "STRAT",
    ],
    "plugins": ["[SLURMEnvironment()]"],
    "devices": ["1", "2", "4", "-1", "'auto'", "'2'", "0", "devs", "devs or 1"],
    "num_nodes": ["1", "2", "nodes"],
    "precision": ["16", "32", "'16-mixed'", "'bf16'"],
    "sync_batchnorm": ["True", "False"],
    "max_epochs": ["3"],
    "logger": ["False"],
}
LEGACY = {  # old spellings, and values only known at run time or bound by an assignment
    "accelerator": ["'ddp'", "'ddp_spawn'", "'dp'", "None", "ACC", "A2"],
    "strategy": [
        "S",
        "DDPStrategy()",
        "P2",
        "'ddp_sharded'",
        "DDPStrategy(static_graph=True)",
        "DDPStrategy(find_unused_parameters=g)",
        "DDPStrategy('x')",
        "D()",
        "'ddp' if g else 'auto'",
        "args.strategy",
    ],
    "devices": ["[0, 1]", "n", "n or None", "None"],
    "gpus": ["0", "1", "2", "-1", "'1'", "[0]", "None", "g", "Y", "2 if g else 0"],
    "num_processes": ["1", "2"],
    "tpu_cores": ["8", "[1]"],
    "distributed_backend": ["'ddp'", "'dp'"],
    "plugins": ["'ddp_sharded'", "[]", "DDPStrategy()", "plg", "[D()]", "[*plg]"],
}
EVERY = {key: MODERN.get(key, []) + LEGACY.get(key, []) for key in {*MODERN, *LEGACY}}
STRATEGY = "from {}.strategies import DDPStrategy"
ALIASED = "from {}.plugins import DDPPlugin as D"
CONFIGS = [  # what a `**cfg` may be bound to
    "",
    "cfg = {'max_epochs': 1}\n",
    "cfg = {'accelerator': 'ddp', 'gpus': 2}\n",
    "cfg = {'accelerator': 'gpu', 'devices': 2, 'strategy': 'ddp'}\n",
    "cfg = dict(devices=2)\n",
    "cfg: dict = {'gpus': 1}\n",
    "cfg = {'max_epochs': 1}\ncfg.update(gpus=2)\n",
]
CONSTANTS = (
    "ACC = 'gpu'\nS = 'ddp'\nn = int('2')\nA2: str = 'ddp'\n(P2) = 'ddp_sharded'\nGPU = 'gpu'\n"
    "STRAT = DDPStrategy(static_graph=True)\nX = Y = 2\n"
)
SEPARATORS = [", ", ",\n    ", ",  # note\n    ", ", \\\n    "]
EQUALS = ["=", " = ", "  # why\n    =", "=\\\n"]


UNIFIED_IMPORTS = sorted(i for i in IMPORTS if "pytorch_lightning" not in i)


@st.composite
def trainer_files(draw: st.DrawFn, unified: bool = False) -> str:
    """A file with one Trainer call; ``unified``: written for the ``lightning`` package in its own form."""
    imports = draw(
        st.lists(
            st.sampled_from(UNIFIED_IMPORTS if unified else sorted(IMPORTS)),
            min_size=1 if unified else 0,
            max_size=2,
            unique=True,
        )
    )
    callee = IMPORTS[imports[-1]] if imports else "Trainer"
    values = MODERN if unified else draw(st.sampled_from([MODERN, EVERY]))
    keys = draw(st.lists(st.sampled_from(sorted(values)), max_size=4, unique=True))
    arguments = [f"{key}{draw(st.sampled_from(EQUALS))}{draw(st.sampled_from(values[key]))}" for key in keys]
    if draw(st.booleans()) and draw(st.booleans()):
        arguments.insert(draw(st.integers(0, len(arguments))), "**cfg")
    form = draw(
        st.sampled_from(["{}({})", "({})({})", "partial({}, {})", "P({}, {})", "{}[int]({})", "{}()({})"])
    )
    call = form.format(callee, draw(st.sampled_from(SEPARATORS)).join(arguments))
    wrap = draw(
        st.sampled_from(
            [
                "t = {}",
                "def f(n=2, strat='dp'):\n    return {}",
                "x = f'{{{}}}'",
                "x = [{}]",
                "for acc in A:\n    {}",
            ]
        )
    )
    config = draw(st.sampled_from(CONFIGS))
    package = (
        "lightning.pytorch" if unified else draw(st.sampled_from(["pytorch_lightning", "lightning.pytorch"]))
    )
    lines = [
        *imports,
        "from functools import partial, partial as P",
        STRATEGY.format(package),
        *([] if unified else [ALIASED.format(package)]),  # (an import of a renamed class is always work)
        CONSTANTS + config,
        wrap.format(call),
    ]
    text = "\n".join(lines) + "\n"
    assume(_readable(text))  # an f-string holding a comment or its own quote: PEP 701, Python 3.12
    return text


def _readable(text: str) -> bool:
    try:
        ast.parse(text)
    except SyntaxError:
        return False
    return True


@settings(max_examples=1000, deadline=None, derandomize=True)  # the same examples in every CI run
@given(
    text=trainer_files(),
    target=st.sampled_from(TARGETS),
    source=st.sampled_from([None, None, *RELEASES]),
)
def test_generated_calls_that_are_skipped_are_left_alone(
    text: str, target: Version, source: Version | None
) -> None:
    if not may_need_migration(text, (target,), (source,)):
        assert_untouched(text, target, source)
    else:  # the default answer (every target and source) is never less careful than one run's
        assert may_need_migration(text)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(text=trainer_files(unified=True), target=st.sampled_from([t for t in TARGETS if t >= release("2.0")]))
def test_generated_modern_calls_that_are_skipped_are_left_alone(text: str, target: Version) -> None:
    """Code for the ``lightning`` package, with objects, run-time values and ``**`` dicts: what most of a
    modern project is, and what the prefilter skips most of."""
    if not may_need_migration(text, (target,), (None,)):
        assert_untouched(text, target, None)
    else:
        assert may_need_migration(text)


def test_a_renamed_class_is_found_by_the_ending_all_their_names_share() -> None:
    from lightning_migrate.plan.prefilter import _RENAMED_ENDING
    from lightning_migrate.semantics.classes import RENAMED_STRATEGIES

    assert _RENAMED_ENDING == "Plugin"
    assert all(name.endswith(_RENAMED_ENDING) for name in RENAMED_STRATEGIES)
    for name in sorted(RENAMED_STRATEGIES):
        assert may_need_migration(f"from pytorch_lightning.plugins import {name}\n", TARGETS, (None,))

from __future__ import annotations

import builtins
import importlib
import json
from collections.abc import Callable

import pytest

from sphinxfuzz.datafiles import data_dir
from sphinxfuzz.generators.static_check import (
    ALLOW_LIST,
    ALLOWED_BUILTINS,
    ALLOWED_MODULES,
    ALLOWED_NAMES,
    FORBIDDEN_NAMES,
    Problem,
    UnsafeGenerator,
    check_source,
    read_header,
    require_safe,
)

FIXTURE_THEORIES = ("FixedSizeBitVectors", "Ints", "Strings")
HEADER = 'import random\n\nTHEORY = "Toy"\nSOLVERS = ("z3", "cvc5")\n\n\n'
GOOD = HEADER + "def generate(rng):\n    return '(declare-const x Int)', '(> x 0)'\n"


def messages(source: str) -> list[str]:
    return [p.message for p in check_source(source)]


@pytest.mark.parametrize("theory", FIXTURE_THEORIES)
def test_fixture_generators_are_accepted(theory: str, fixture_source: Callable[[str], str]) -> None:
    assert check_source(fixture_source(theory)) == []


def test_minimal_generator_is_accepted() -> None:
    assert check_source(GOOD) == []
    require_safe(GOOD)  # does not raise


@pytest.mark.parametrize(
    ("snippet", "expected"),
    [
        ("import os\n", "import of 'os' is not allowed"),
        ("import subprocess as sp\n", "import of 'subprocess' is not allowed"),
        ("from os import path\n", "import from 'os' is not allowed"),
        ("from . import sibling\n", "import from '.' is not allowed"),
        ("from math import *\n", "import *"),
        ("x = open('/etc/passwd').read()\n", "use of 'open'"),
        ("m = __import__('os')\n", "use of '__import__'"),
        ("eval('1+1')\n", "use of 'eval'"),
        ("exec('x = 1')\n", "use of 'exec'"),
        ("c = compile('1', 'f', 'eval')\n", "use of 'compile'"),
        ("g = globals()\n", "use of 'globals'"),
        ("b = __builtins__\n", "use of '__builtins__'"),
        ("s = ().__class__.__base__.__subclasses__()\n", "attribute '__class__'"),
        ("f = (lambda: 0).__globals__\n", "attribute '__globals__'"),
        ("k = getattr(1, 'real' + '')\n", "literal attribute name"),
        ("k = getattr((), '__class__')\n", "attribute '__class__'"),
        ("g = getattr\n", "may only be called directly"),
        ("import dataclasses\nm = dataclasses.sys\n", "'dataclasses.sys' is not on the allow-list"),
        ("import random as r\nm = r._os\n", "'random._os' is not on the allow-list"),
        ("fr = (x for x in ()).gi_frame.f_back\n", "attribute 'gi_frame'"),
        ("import string\nf = string.Formatter()\n", "'string.Formatter' is not on the allow-list"),
        ("s = '{0.__class__}'.format(1)\n", "interpreter internal '__class__'"),
        ("import random\nx = random.random()\n", "shared global generator"),
        ("from random import choice\n", "shared global generator"),
        ("import random\nr = random.Random()\n", "without a seed"),
    ],
)
def test_dangerous_constructs_are_refused(snippet: str, expected: str) -> None:
    found = messages(GOOD + snippet)
    assert any(expected in message for message in found), found


def test_problem_positions_and_text() -> None:
    source = GOOD + "import os\n"
    (problem,) = check_source(source, "gen/Ints/generator.py")
    assert (problem.line, problem.col) == (source.count("\n"), 1)
    assert str(problem) == f"gen/Ints/generator.py:{problem.line}:1: " + problem.message


def test_syntax_error_has_position() -> None:
    broken = 'THEORY = "T"\nSOLVERS = ("z3",)\ndef generate(rng:\n    return 1\n'
    (problem,) = check_source(broken)
    assert problem.line == 3 and "syntax error" in problem.message


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ('SOLVERS = ("z3",)\ndef generate(rng):\n    pass\n', "missing module-level THEORY"),
        ('THEORY = "T"\ndef generate(rng):\n    pass\n', "missing module-level SOLVERS"),
        ('THEORY = "T"\nSOLVERS = ("z3",)\n', "missing module-level function"),
        ('THEORY = 3\nSOLVERS = ("z3",)\ndef generate(rng):\n    pass\n', "THEORY must be"),
        ('THEORY = "T"\nSOLVERS = "z3"\ndef generate(rng):\n    pass\n', "SOLVERS must be"),
        ('THEORY = "T"\nSOLVERS = ["z3"]\ndef generate(rng):\n    pass\n', "SOLVERS must be"),
        ('THEORY = "T"\nSOLVERS = ("z3",)\ndef generate(rng, depth):\n    pass\n', "exactly one"),
        ('THEORY = "T"\nSOLVERS = ("z3",)\ndef generate():\n    pass\n', "exactly one"),
    ],
)
def test_contract_is_enforced(source: str, expected: str) -> None:
    assert any(expected in message for message in messages(source)), messages(source)


def test_require_safe_lists_every_problem() -> None:
    with pytest.raises(UnsafeGenerator) as info:
        require_safe(GOOD + "import os\nopen('x')\n", "g.py")
    assert len(info.value.problems) == 2
    assert all(isinstance(p, Problem) for p in info.value.problems)
    assert "g.py:" in str(info.value) and "'os'" in str(info.value) and "'open'" in str(info.value)
    assert isinstance(info.value, ValueError)


def test_read_header(fixture_source: Callable[[str], str]) -> None:
    header = read_header(fixture_source("Ints"))
    assert header.theory == "Ints" and header.solvers == ("z3", "cvc5")
    with pytest.raises(UnsafeGenerator):
        read_header("THEORY = name\n")


def test_harmless_code_is_not_refused(toy_source: Callable[[str], str]) -> None:
    body = (
        "    from collections import Counter\n"
        "    import math, itertools, functools\n"
        "    class Box:\n"
        "        def __init__(self):\n"
        "            self.items = [getattr(self, 'missing', 1)]\n"
        "    box = Box()\n"
        "    return '', f'(= {math.floor(rng.random())} 0)'\n"
    )
    assert check_source(toy_source(body)) == []


# --- the allow-list (issue 29) ---------------------------------------------------------


@pytest.mark.parametrize("name", sorted(FORBIDDEN_NAMES))
def test_every_forbidden_builtin_is_refused(name: str) -> None:
    assert f"use of '{name}' is not allowed" in " ".join(messages(GOOD + f"x = {name}\n"))


@pytest.mark.parametrize(
    "snippet",
    [
        "import random\nr = random.Random()\n",
        "import random as rnd\nr = rnd.Random()\n",
        "from random import Random\nr = Random()\n",
        "from random import Random as R\nr = R()\n",
    ],
)
def test_unseeded_random_is_refused_in_every_spelling(snippet: str) -> None:
    assert "Random() without a seed is not deterministic; use the rng argument" in messages(
        GOOD + snippet
    )


@pytest.mark.parametrize(
    "snippet",
    [
        "import random\nr = random.Random(7)\n",
        "from random import Random\nr = Random(rng.random())\n",
        "import random as rnd\nr = rnd.Random(x=1)\n",
    ],
)
def test_seeded_random_is_accepted(snippet: str) -> None:
    assert messages(GOOD + snippet) == []


@pytest.mark.parametrize(
    ("snippet", "expected"),
    [
        # public attributes of allowed modules that reach builtins, inspect or lookups by name
        ("import enum\nb = enum.bltns\n", "'enum.bltns' is not on the allow-list"),
        ("import dataclasses\ni = dataclasses.inspect\n", "'dataclasses.inspect' is not on"),
        ("import operator\ng = operator.attrgetter\n", "'operator.attrgetter' is not on"),
        ("import string\nt = string.Template\n", "'string.Template' is not on"),
        ("from string import Template\n", "'string.Template' is not on"),
        ("from enum import bltns\n", "'enum.bltns' is not on"),
        ("import re\ne = re.enum\n", "'re.enum' is not on"),
        ("import collections.abc\nx = collections.abc.Sequence\n", "'collections.abc' is not"),
        ("import math as m\nf = m.sys\n", "'math.sys' is not on"),
        ("import math\nf = math.__spec__\n", "'math.__spec__' is not on"),
        # a module object handed on would let anything read its attributes
        ("import random\nm = random\n", "module 'random' may only be used as"),
        ("import math\nf = len(math)\n", "module 'math' may only be used as"),
        ("import enum\nx = getattr(enum, 'Enum')\n", "module 'enum' may only be used as"),
        ("import enum as e\nx = [e]\n", "module 'e' may only be used as"),
        # builtins outside the list
        ("x = type.mro(int)\ny = isinstance\nz = object\nw = id(1)\n", "builtin 'id'"),
        ("x = memoryview(b'')\n", "use of 'memoryview' is not allowed"),
        ("x = bytearray(3)\n", "builtin 'bytearray' is not on the allow-list"),
        ("x = aiter\n", "builtin 'aiter' is not on the allow-list"),
        ("import collections\nx = collections.namedtuple\n", "'collections.namedtuple' is not"),
    ],
)
def test_allow_list_refuses_unlisted_names(snippet: str, expected: str) -> None:
    found = messages(GOOD + snippet)
    assert any(expected in message for message in found), found


def test_allow_list_accepts_listed_names_and_own_names() -> None:
    snippet = (
        "import math\nimport string\nfrom itertools import product\nimport collections.abc\n"
        "from collections.abc import Sequence\nimport collections.abc as cabc\n"
        "from enum import Enum\n"
        "def id(value):\n    return value\n"  # the module's own name shadows the builtin
        "x = (math.gcd(4, 6), string.digits, list(product('ab', repeat=2)), id(3))\n"
        "s = cabc.Sequence\n"
        "class Kind(Enum):\n    A = 1\n"
    )
    assert messages(GOOD + snippet) == []


def test_allow_list_data_gives_a_reason_for_every_entry() -> None:
    data = json.loads(ALLOW_LIST.read_text(encoding="utf-8"))
    for module, entry in data["modules"].items():
        assert entry["why"].strip(), module
        assert entry["names"], module
        for name, why in entry["names"].items():
            assert why.strip(), f"{module}.{name}"
            assert not name.startswith("_") or module == "__future__", name
    assert all(why.strip() for why in data["builtins"].values())
    assert not set(data["builtins"]) & FORBIDDEN_NAMES
    assert ALLOWED_MODULES == set(ALLOWED_NAMES) == set(data["modules"])


def test_listed_names_exist_in_their_modules() -> None:
    # a listed name that does not exist would hide a typo in the list
    for module, names in ALLOWED_NAMES.items():
        if module == "__future__":
            continue
        loaded = importlib.import_module(module)
        for name in names:
            assert hasattr(loaded, name), f"{module}.{name}"
    assert all(hasattr(builtins, name) for name in ALLOWED_BUILTINS)


def test_shipped_generators_pass_the_allow_list() -> None:
    paths = sorted(data_dir("generated_generators").glob("*/generator.py"))
    assert len(paths) == 22
    for path in paths:
        assert check_source(path.read_text(encoding="utf-8"), str(path)) == [], path

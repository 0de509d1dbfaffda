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
SOLVERS_SHAPE = 'SOLVERS must be a non-empty tuple of solver family names like ("z3", "cvc5")'
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
    assert len(paths) == 24  # the 22 first built, Quantifiers and RecFuns
    for path in paths:
        assert check_source(path.read_text(encoding="utf-8"), str(path)) == [], path


def test_positions_are_exact_at_odd_columns() -> None:
    # a problem's column is the AST offset + 1, also where the offset is odd
    source = GOOD + "xy = eval('1')\nimport os; zz = open\n"
    lines = source.count("\n")
    found = {(p.line, p.col, p.message.split(" (")[0]) for p in check_source(source)}
    assert (lines - 1, 6, "use of 'eval' is not allowed") in found
    assert (lines, 1, "import of 'os' is not allowed") in found
    assert (lines, 17, "use of 'open' is not allowed") in found


@pytest.mark.parametrize(
    ("source", "where", "expected"),
    [
        ('THEORY = "T"\nSOLVERS = ("z3",)\nasync def generate(rng):\n    pass\n', (3, 1),
         "generate must be a plain function, not async"),
        ('THEORY = "T"\nSOLVERS = ("z3",)\ndef generate(a, b):\n    pass\n', (3, 1),
         "generate must take exactly one parameter (rng)"),
        ('THEORY = "T"\nTHEORY = "U"\nSOLVERS = ("z3",)\ndef generate(rng):\n    pass\n', (1, 1),
         "THEORY must be assigned exactly once"),
        ('THEORY = "T"\nSOLVERS = ("z3",)\nSOLVERS = ("cvc5",)\ndef generate(rng):\n    pass\n',
         (2, 1), "SOLVERS must be assigned exactly once"),
        ('THEORY = "T"\nSOLVERS = ("z3",)\ndef generate(rng):\n    pass\ndef generate(rng):\n'
         "    pass\n", (5, 1), "generate is defined more than once"),
        ('THEORY: str = "T"\nSOLVERS = ("z3",)\ndef generate(rng, *more):\n    pass\n', (3, 1),
         "generate must take exactly one parameter (rng)"),
        ('THEORY = "T"\nSOLVERS = ("z3",)\ndef generate(rng=None):\n    pass\n', (3, 1),
         "generate must take exactly one parameter (rng)"),
        ('THEORY = "T"\nSOLVERS = ("z3",)\ndef generate(rng, **extra):\n    pass\n', (3, 1),
         "generate must take exactly one parameter (rng)"),
        ('THEORY = "T"\nSOLVERS = ("z3",)\ndef generate(rng, *, k):\n    pass\n', (3, 1),
         "generate must take exactly one parameter (rng)"),
        ('THEORY = ""\nSOLVERS = ("z3",)\ndef generate(rng):\n    pass\n', (1, 1),
         "THEORY must be a non-empty string literal"),
        ('THEORY = "T"\nSOLVERS = ()\ndef generate(rng):\n    pass\n', (2, 1), SOLVERS_SHAPE),
        ('THEORY = "T"\nSOLVERS = ("Z3",)\ndef generate(rng):\n    pass\n', (2, 1), SOLVERS_SHAPE),
        ('THEORY = "T"\nSOLVERS = (f(),)\ndef generate(rng):\n    pass\n', (2, 1), SOLVERS_SHAPE),
    ],
)  # fmt: skip
def test_contract_problems_have_their_line(
    source: str, where: tuple[int, int], expected: str
) -> None:
    found = [(p.line, p.col, p.message) for p in check_source(source)]
    assert (*where, expected) in found, found


def test_a_three_times_assigned_theory_is_reported_once() -> None:
    source = 'THEORY = "A"\nTHEORY = "B"\nTHEORY = "C"\nSOLVERS = ("z3",)\ndef generate(rng):\n    pass\n'
    assert messages(source).count("THEORY must be assigned exactly once") == 1
    assert read_header(GOOD).theory == "Toy"
    with pytest.raises(UnsafeGenerator, match="assigned exactly once"):
        read_header(source)


@pytest.mark.parametrize(
    ("snippet", "shown"),
    [
        (
            "from . import sibling\n",
            "import from '.' is not allowed (allowed: abc, array, bisect, ",
        ),
        ("from .. import parent\n", "import from '..' is not allowed"),
        ("from .pkg import name\n", "import from '.pkg' is not allowed"),
        ("from os.path import join\n", "import from 'os.path' is not allowed"),
        ("import os.path\n", "import of 'os.path' is not allowed (allowed: abc, array, bisect, "),
        ("import collections.os\n", "import of 'collections.os' is not allowed"),
    ],
)
def test_import_refusals_name_the_module_and_the_allowed_ones(snippet: str, shown: str) -> None:
    found = messages(GOOD + snippet)
    assert any(shown in message for message in found), found
    refusal = next(m for m in found if "is not allowed (allowed:" in m)
    assert "__future__" not in refusal and "unicodedata" in refusal and "random" in refusal


def test_private_and_star_imports_are_refused_but_future_annotations_pass() -> None:
    assert "import of private name '_inst' is not allowed" in messages(
        GOOD + "from random import _inst\n"
    )
    assert any("import *" in m for m in messages(GOOD + "from string import *\n"))
    assert messages("from __future__ import annotations\n" + GOOD) == []
    assert "import of 'eval' is not allowed" in messages(GOOD + "from math import eval\n")
    assert "import of 'sys' is not allowed" in messages(GOOD + "from enum import sys\n")


def test_unreadable_sources_are_problems_not_exceptions() -> None:
    (nul,) = check_source("x = 1\0\n")
    assert (nul.line, nul.col) == (1, 1) and "null bytes" in nul.message
    deep = "x = " + "(" * 2000 + "1" + ")" * 2000 + "\n"
    problems = check_source(GOOD + deep)
    assert problems and all(isinstance(p, Problem) for p in problems)
    (syntax,) = check_source("def f(:\n")
    assert syntax.line == 1 and syntax.col >= 1


def test_problems_come_sorted_by_position() -> None:
    source = GOOD + "y = open\nimport os\nx = eval\n"
    found = check_source(source)
    assert [(p.line, p.col) for p in found] == sorted((p.line, p.col) for p in found)
    assert [p.message.split("'")[1] for p in found] == ["open", "os", "eval"]


def test_format_templates_are_checked_in_nested_specs() -> None:
    assert messages(GOOD + "s = '{:>{w}}'.format(1, w=3)\n") == []
    assert any("'.format'" in m for m in messages(GOOD + "s = '{:{0.real}}'.format(1)\n"))
    assert any("'.format'" in m for m in messages(GOOD + "s = '{'.format(1)\n"))
    assert any("'.format_map'" in m for m in messages(GOOD + "s = '{a.b}'.format_map({})\n"))
    assert messages(GOOD + "s = '{a}'.format_map({'a': 1})\n") == []


def test_reflection_builtins_need_a_literal_harmless_name() -> None:
    assert messages(GOOD + "x = getattr(rng, 'random')\n") == []
    assert messages(GOOD + "x = hasattr(rng, 'seed')\n") == []
    assert any("literal attribute name" in m for m in messages(GOOD + "x = getattr(rng)\n"))
    assert any("'_inst'" in m for m in messages(GOOD + "x = getattr(rng, '_inst')\n"))
    assert any("'gi_frame'" in m for m in messages(GOOD + "x = getattr(rng, 'gi_frame')\n"))
    assert any("use of 'eval'" in m for m in messages(GOOD + "x = getattr(eval, 'x')\n"))
    assert messages(GOOD + "class A:\n    def __init__(self):\n        self.__name__ = 'a'\n") == []


def test_dunder_strings_and_names() -> None:
    assert messages(GOOD + "s = '__main__'\nt = __name__\nu = b'__init__'\n") == []
    assert any("'__class__'" in m for m in messages(GOOD + "s = b'__class__'\n"))
    one = messages(GOOD + "s = '__class__ __dict__'\n")
    assert sum("interpreter internal" in m for m in one) == 1
    assert any("use of '__spec__'" in m for m in messages(GOOD + "x = __spec__\n"))
    assert any("access to attribute '__dict__'" in m for m in messages(GOOD + "x = rng.__dict__\n"))


def test_match_class_keywords_are_attribute_reads() -> None:
    body = "match rng:\n    case object(__class__=c):\n        pass\n"
    assert any("'__class__'" in m for m in messages(GOOD + body))
    fine = "match rng:\n    case object(real=c):\n        pass\n"
    assert messages(GOOD + fine) == []


def test_require_safe_caches_but_never_mixes_sources() -> None:
    require_safe(GOOD, "a.py")
    with pytest.raises(UnsafeGenerator):
        require_safe(GOOD + "import os\n", "a.py")
    require_safe(GOOD, "a.py")


def test_deep_nesting_is_a_problem_at_the_start() -> None:
    for deep in ("x = " + "-" * 3000 + "1\n", "x = " + "+".join(["1"] * 20000) + "\n"):
        (problem,) = check_source(deep)
        assert (problem.line, problem.col) == (1, 1)
        assert problem.message == "source is nested too deeply to check"
        with pytest.raises(UnsafeGenerator):
            read_header(deep)
    with pytest.raises(UnsafeGenerator) as info:
        read_header("x = 1\0")
    assert [(p.line, p.col) for p in info.value.problems] == [(1, 1)]


def test_missing_contract_names_are_reported_at_the_top() -> None:
    found = {(p.line, p.col, p.message) for p in check_source("x = 1\n\n\ny = 2\n")}
    assert (1, 1, 'missing module-level SOLVERS = ("z3", "cvc5", ...)') in found
    assert (1, 1, 'missing module-level THEORY = "<theory name>"') in found
    assert (1, 1, "missing module-level function 'def generate(rng):'") in found


def test_every_name_of_an_import_line_is_checked() -> None:
    found = messages(GOOD + "import os, random\nr = random.random()\n")
    assert any("import of 'os'" in m for m in found)
    assert any("shared global generator" in m for m in found)
    found = messages(GOOD + "from math import sys, floor, pi\nx = floor(pi)\n")
    assert found == ["import of 'sys' is not allowed"]


def test_only_the_random_module_gives_random() -> None:
    assert "'typing.Random' is not on the allow-list" in " ".join(
        messages(GOOD + "from typing import Random\n")
    )
    found = messages(GOOD + "import random\nx = random.BPF()\n")
    assert not any("without a seed" in m for m in found)
    assert any("'random.BPF' uses the shared global generator" in m for m in found)


def test_reflection_checks_the_object_not_the_name() -> None:
    assert any("'.format'" in m for m in messages(GOOD + "f = getattr('{0.x}', 'format')\n"))
    assert messages(GOOD + "f = getattr('{0}', 'format')\n") == []


def test_dunder_means_two_underscores_around_a_name() -> None:
    assert messages(GOOD + "____ = 1\nx = ____\n") == []
    assert any("'__a__'" in m for m in messages(GOOD + "x = rng.__a__\n"))
    assert any("'_a_'" in m for m in messages(GOOD + "x = rng._a_\n"))


def test_a_tree_too_deep_for_the_visitor_is_a_problem_at_the_start() -> None:
    # parses, but walking it would recurse past the interpreter's limit
    source = GOOD + "x = " + "+".join(["1"] * 600) + "\n"
    assert [(p.line, p.col, p.message) for p in check_source(source)] == [
        (1, 1, "source is nested too deeply to check")
    ]
    deep = "x = " + "-" * 3000 + "1\n"
    with pytest.raises(UnsafeGenerator) as info:
        read_header(deep)
    assert [(p.line, p.col) for p in info.value.problems] == [(1, 1)]


@pytest.mark.parametrize(
    ("source", "where", "expected"),
    [
        ('SOLVERS = ("z3",)\n\nTHEORY = 3\ndef generate(rng):\n    pass\n', (3, 1),
         "THEORY must be a non-empty string literal"),
        ('THEORY = "T"\n\nSOLVERS = ("z3",)\nSOLVERS = ("z3",)\ndef generate(rng):\n    pass\n',
         (3, 1), "SOLVERS must be assigned exactly once"),
        ('THEORY: str\nSOLVERS = ("z3",)\ndef generate(rng):\n    pass\n', (1, 1),
         'missing module-level THEORY = "<theory name>"'),
    ],
)  # fmt: skip
def test_contract_problems_point_at_the_assignment(
    source: str, where: tuple[int, int], expected: str
) -> None:
    assert (*where, expected) in [(p.line, p.col, p.message) for p in check_source(source)]


def test_other_module_level_assignments_are_no_contract_matter() -> None:
    assert messages(GOOD + "a, b = 1, 2\nc = d = 3\nTHEORY_NAME = 'x'\n") == []
    found = messages(GOOD.replace("import random\n", "import random\nx = random.random()\n"))
    assert not any("without a seed" in m for m in found)

from __future__ import annotations

from collections.abc import Callable

import pytest

from sphinxfuzz.generators.static_check import (
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
        ("import dataclasses\nm = dataclasses.sys\n", "attribute 'sys'"),
        ("import random as r\nm = r._os\n", "private attribute '_os'"),
        ("fr = (x for x in ()).gi_frame.f_back\n", "attribute 'gi_frame'"),
        ("import string\nf = string.Formatter()\n", "attribute 'Formatter'"),
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

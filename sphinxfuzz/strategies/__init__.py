"""Strategies: ways of turning seeds into test cases, each with the oracle it needs.

Importing this package registers every strategy; `get(name)` and `names()` list them.
"""

# importing a strategy module registers it
from sphinxfuzz.strategies import (  # noqa: F401
    approximation,
    fusion,
    grammar,
    opfuzz,
    storm,
    strings,
    typefuzz,
)
from sphinxfuzz.strategies.base import (
    OracleKind,
    Strategy,
    StrategyError,
    TestCase,
    fresh,
    get,
    names,
    register,
)

__all__ = [
    "OracleKind",
    "Strategy",
    "StrategyError",
    "TestCase",
    "fresh",
    "get",
    "names",
    "register",
]

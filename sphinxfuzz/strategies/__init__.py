"""Strategies: ways of turning seeds into test cases, each with the oracle it needs.

Importing this package registers every strategy; `get(name)` and `names()` list them.
`DEFAULT` is the strategy of a campaign that names none.
"""

# importing a strategy module registers it
from sphinxfuzz.strategies import (  # noqa: F401
    canary,
    fusion,
    grammar,
    histfuzz,
    janus,
    octopus,
    opfuzz,
    sae,
    sphinx,
    storm,
    strings,
    typefuzz,
)
from sphinxfuzz.strategies.base import (
    CaseFailed,
    DrawsAhead,
    HearsAnswers,
    Needs,
    NoWorkingSource,
    OracleKind,
    SeedUnusable,
    SourceFailed,
    Strategy,
    StrategyContext,
    StrategyError,
    TakesLabels,
    TestCase,
    TrustedRun,
    fresh,
    get,
    names,
    register,
)

DEFAULT = sphinx.NAME

__all__ = [
    "DEFAULT",
    "CaseFailed",
    "DrawsAhead",
    "HearsAnswers",
    "Needs",
    "NoWorkingSource",
    "OracleKind",
    "SeedUnusable",
    "SourceFailed",
    "Strategy",
    "StrategyContext",
    "StrategyError",
    "TakesLabels",
    "TestCase",
    "TrustedRun",
    "fresh",
    "get",
    "names",
    "register",
]

"""sphinxfuzz: find bugs in SMT solvers with skeletons filled by LLM-built term generators.

The Python API (docs/api.md): `CampaignConfig`, `run_campaign` (returns a `CampaignSummary`),
`load_bugs`, `replay`, `reduce` and `bisect`, from `sphinxfuzz.api`. They are imported on
first use, so `import sphinxfuzz` stays cheap for the processes that only need a submodule
(solver shims, generator sandboxes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from sphinxfuzz.api import (
        CampaignConfig,
        CampaignSummary,
        bisect,
        load_bugs,
        reduce,
        replay,
        run_campaign,
    )

__all__ = [
    "CampaignConfig",
    "CampaignSummary",
    "bisect",
    "load_bugs",
    "reduce",
    "replay",
    "run_campaign",
]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from sphinxfuzz import api

        return getattr(api, name)
    raise AttributeError(f"module 'sphinxfuzz' has no attribute {name!r}")

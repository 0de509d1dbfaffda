"""The one base of every error sphinxfuzz raises on purpose.

A `SphinxfuzzError` is a refusal with a message meant for the user: malformed input, a
configuration that cannot be used, an external tool that failed. The CLI prints it and exits
with status 2; anything else that escapes is a defect and keeps its traceback.

Messages speak in library terms (a seed file, a solver spec, a campaign folder), never in
command-line flags or command names: the CLI is one caller among several. What a front end
needs to add its own words travels as data: `setting` names the setting to change, and
`step` the operation that gets the user further (`Step`, with the values it needs).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum


class StepKind(StrEnum):
    """An operation an error suggests as the way on; the message says it in words."""

    REINDEX = "reindex"  # rebuild a campaign's index from its bug folders (`folder`)
    RESUME = "resume"  # continue the campaign in `folder`
    START_CAMPAIGN = "start-campaign"  # start a campaign in a folder of the user's choice
    INSTALL_RELEASE = "install-release"  # install release `version` of solver `family`
    BUILD_RELEASE = "build-release"  # build release `version` of `family` with assertions
    BUILD_GENERATORS = "build-generators"  # build generators from the theory documents
    RECORD_HAND_EDIT = "record-hand-edit"  # record a hand edit of `theory`'s generator
    VALIDATE_GENERATORS = "validate-generators"  # sample the generators in `folder`


@dataclass(frozen=True)
class Step:
    kind: StepKind
    values: Mapping[str, str] = field(default_factory=dict)


class SphinxfuzzError(Exception):
    """Base of sphinxfuzz's deliberate errors. `setting` names the setting or option to
    change when one is to blame (`solvers`, `model`, ...): the CLI turns it into the flag.
    `step` is the operation to run next, when there is one: the CLI names its command."""

    def __init__(self, *args: object, setting: str | None = None, step: Step | None = None) -> None:
        super().__init__(*args)
        self.setting = setting
        self.step = step


class InputError(SphinxfuzzError, ValueError):
    """Input that cannot be used as given: a file, a spec, a table or a folder."""


class ExternalError(SphinxfuzzError, RuntimeError):
    """An outside party failed: a solver, an installer, an LLM endpoint, the kernel."""

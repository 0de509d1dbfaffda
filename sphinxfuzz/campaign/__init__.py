"""Fuzz campaigns: the loop, its workers and their configuration (bug folders: `bugs/`)."""

from sphinxfuzz.bugs.stats import Stats
from sphinxfuzz.campaign.config import Budget, CampaignConfig, parse_duration
from sphinxfuzz.campaign.coordinator import run_campaign
from sphinxfuzz.campaign.exit_reason import ExitReason
from sphinxfuzz.campaign.targets import CampaignError

__all__ = [
    "Budget",
    "CampaignConfig",
    "CampaignError",
    "ExitReason",
    "Stats",
    "parse_duration",
    "run_campaign",
]

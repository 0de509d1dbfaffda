"""Fuzz campaigns: the loop, its workers, statistics and the bug store."""

from sphinxfuzz.campaign.config import Budget, CampaignConfig, parse_duration
from sphinxfuzz.campaign.runner import run_campaign
from sphinxfuzz.campaign.stats import Stats
from sphinxfuzz.campaign.store import BugRow, Store, StoreError
from sphinxfuzz.campaign.targets import CampaignError

__all__ = [
    "Budget",
    "BugRow",
    "CampaignConfig",
    "CampaignError",
    "Stats",
    "Store",
    "StoreError",
    "parse_duration",
    "run_campaign",
]

"""What a campaign found: the campaign folder's index (`store`), bug folders (`record`), and
what is done with a bug afterwards: replay, reduce, bisect, triage, the report and issue text."""

from sphinxfuzz.bugs.record import BugFileError, BugRecord, Origin, SeedFindingRecord, load_record
from sphinxfuzz.bugs.store import BugRow, Store, StoreError

__all__ = [
    "BugFileError",
    "BugRecord",
    "BugRow",
    "Origin",
    "SeedFindingRecord",
    "Store",
    "StoreError",
    "load_record",
]

"""Which seed the campaign works on at each position.

Position p (0, 1, 2, ...) is seed number p % n of round p // n, where each round is its own
shuffle of the sorted seed list, derived from the campaign seed alone. So the sequence never
depends on solver answers or timing, workers can split positions by residue, and a resumed
campaign finds the same seed at the same position.
"""

from __future__ import annotations

import os
from pathlib import Path

from sphinxfuzz.campaign.rngs import rng_for
from sphinxfuzz.errors import InputError


class SeedsError(InputError):
    """Seed paths that give no seed files."""


def seed_paths(value: object) -> tuple[str, ...]:
    """The seed setting's paths, absolute: a campaign resumed from another folder reads the
    same seeds. One path (a string) is one path, never its characters."""
    if isinstance(value, str | os.PathLike):
        value = (value,)
    if not isinstance(value, list | tuple) or not all(
        isinstance(v, str | os.PathLike) for v in value
    ):
        raise SeedsError(f"seeds {value!r}: name a path, or a list of paths")
    return tuple(os.path.abspath(v) for v in value)


def collect_seeds(paths: list[str]) -> list[str]:
    """Every `.smt2` file named or below a named folder, sorted, without duplicates. A
    folder that cannot be read is passed over (`/proc` holds many); a named path that is no
    file or folder (a FIFO, a device) is an error naming what it is."""
    found: set[str] = set()
    for given in paths:
        path = Path(given)
        if path.is_dir():
            for folder, _dirs, files in os.walk(path, onerror=lambda _error: None):
                found.update(
                    os.path.join(folder, name)
                    for name in files
                    if name.endswith(".smt2") and os.path.isfile(os.path.join(folder, name))
                )
        elif path.is_file():
            found.add(str(path))
        elif path.exists():
            raise SeedsError(
                f"{given}: not a regular file or folder (a pipe, device or socket cannot be "
                "read twice); copy it into a file"
            )
        else:
            raise SeedsError(f"{given}: no such seed file or folder")
    if not found:
        raise SeedsError(f"no .smt2 seed files in {', '.join(paths)}")
    return sorted(found)


class SeedOrder:
    def __init__(self, seeds: list[str], campaign_seed: int) -> None:
        self.seeds = seeds
        self.campaign_seed = campaign_seed
        self._rounds: dict[int, list[str]] = {}

    def round_of(self, position: int) -> int:
        return position // len(self.seeds)

    def seed_at(self, position: int) -> str:
        round_, index = divmod(position, len(self.seeds))
        order = self._rounds.get(round_)
        if order is None:
            order = list(self.seeds)
            rng_for(self.campaign_seed, "order", round_).shuffle(order)
            self._rounds = {round_: order}  # workers move forward: keep one round
        return order[index]

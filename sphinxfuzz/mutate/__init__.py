"""Mutation: skeletons of seed scripts, filled with generated terms adapted to the seed."""

from sphinxfuzz.mutate.fill import FillReport, Insertion, TermSource
from sphinxfuzz.mutate.mutant import Formula, Mutant, MutationError, mutate
from sphinxfuzz.mutate.seed import Seed, SeedError, load_seed
from sphinxfuzz.mutate.skeleton import find_atoms, is_atom

__all__ = [
    "FillReport",
    "Formula",
    "Insertion",
    "Mutant",
    "MutationError",
    "Seed",
    "SeedError",
    "TermSource",
    "find_atoms",
    "is_atom",
    "load_seed",
    "mutate",
]

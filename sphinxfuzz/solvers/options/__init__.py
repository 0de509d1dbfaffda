"""Solver options: those a formula needs on a release (`needed`), and the tables of options a
campaign may set on a release, read from the release, chosen by rules and probed
(`declared`, `choose`, `probe`, `table`)."""

from sphinxfuzz.solvers.options.needed import load_rules, needed_options

__all__ = ["load_rules", "needed_options"]

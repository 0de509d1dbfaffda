"""`python -m sphinxfuzz`: the same as the `sphinxfuzz` command."""

from sphinxfuzz.cli import main

main()

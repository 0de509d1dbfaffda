"""Where the data folders are: the generators, seeds, theory documents and prompts.

In a source checkout they sit at the repository's top level (`generated_generators/`,
`skeletons/`, `docs_corpus/`, `prompts/`), where they are reviewed and edited. A built wheel
carries the same folders inside the package as `sphinxfuzz/_data/<name>/` (setup.py maps
them there), found through `importlib.resources`. The packaged copy wins when it exists.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

# the folders a wheel carries; setup.py reads this tuple
DATA_FOLDERS = ("generated_generators", "skeletons", "docs_corpus", "prompts")
# the files of docs/ the library reads (known bugs: `bugs.known`), carried as
# `sphinxfuzz/_data/docs/<name>`; setup.py reads this tuple
DOC_FILES = ("bugs-found.json",)


def data_dir(name: str) -> Path:
    """The folder `name` (one of DATA_FOLDERS): the installed copy, else the checkout's."""
    if name not in DATA_FOLDERS:
        raise ValueError(f"{name!r} is not a data folder ({', '.join(DATA_FOLDERS)})")
    packaged = resources.files("sphinxfuzz") / "_data" / name
    if packaged.is_dir():
        # wheels install unpacked, so the traversable is a real folder
        return Path(str(packaged))
    return Path(__file__).resolve().parents[1] / name


def doc_file(name: str) -> Path:
    """The file `name` of docs/ (one of DOC_FILES): the installed copy, else the checkout's."""
    if name not in DOC_FILES:
        raise ValueError(f"{name!r} is not a shipped document ({', '.join(DOC_FILES)})")
    packaged = resources.files("sphinxfuzz") / "_data" / "docs" / name
    if packaged.is_file():
        return Path(str(packaged))
    return Path(__file__).resolve().parents[1] / "docs" / name

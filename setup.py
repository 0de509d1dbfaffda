"""Packaging beyond what pyproject.toml can say: the data folders at the repository's top
level (generators, seeds, theory documents, prompts) go into the wheel as
`sphinxfuzz/_data/<folder>/`, so an installed sphinxfuzz finds them through
`importlib.resources` while the source tree keeps its layout."""

import os

from setuptools import find_packages, setup

DATA_FOLDERS = (
    "generated_generators",
    "skeletons",
    "docs_corpus",
    "prompts",
)  # as sphinxfuzz.datafiles
DOC_FILES = ("bugs-found.json",)  # the files of docs/ the library reads, as sphinxfuzz.datafiles


def _files(folder: str) -> list[str]:
    """Every file under `folder`, relative to it, without byte-code caches."""
    found = []
    for here, dirs, names in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d != "__pycache__")
        found += [os.path.relpath(os.path.join(here, n), folder) for n in sorted(names)
                  if not n.endswith(".pyc")]  # fmt: skip
    return found


setup(
    packages=[
        *find_packages(include=["sphinxfuzz*"]),
        *(f"sphinxfuzz._data.{d}" for d in DATA_FOLDERS),
        "sphinxfuzz._data.docs",
    ],
    package_dir={
        **{f"sphinxfuzz._data.{d}": d for d in DATA_FOLDERS},
        "sphinxfuzz._data.docs": "docs",
    },
    package_data={
        "sphinxfuzz": [
            "schemas/*.json",
            "solvers/*.json",
            "solvers/options/*.json",
            "generators/*.json",
            "mutate/*.json",
            "strategies/*.json",
            "py.typed",
        ],
        **{f"sphinxfuzz._data.{d}": _files(d) for d in DATA_FOLDERS},
        "sphinxfuzz._data.docs": list(DOC_FILES),
    },
)

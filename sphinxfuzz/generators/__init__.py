"""The generator runtime: checking, sandboxing, hosting and validating generator modules.

Importing this package does not import the solver layer; `sphinxfuzz.generators.theory_validation`
(which runs solvers) is imported on its own.
"""

from sphinxfuzz.generators.catalogue import (
    Catalogue,
    CatalogueEntry,
    CatalogueError,
    default_generators_dir,
    load_catalogue,
)
from sphinxfuzz.generators.pool import GeneratorFailure, GeneratorPool
from sphinxfuzz.generators.sandbox import SampleReport, sample_terms
from sphinxfuzz.generators.static_check import Problem, UnsafeGenerator, check_source, require_safe
from sphinxfuzz.generators.theory_docs import (
    TheoryDoc,
    TheoryDocError,
    default_docs_dir,
    load_corpus,
    load_theory_doc,
)

__all__ = [
    "Catalogue",
    "CatalogueEntry",
    "CatalogueError",
    "GeneratorFailure",
    "GeneratorPool",
    "Problem",
    "SampleReport",
    "TheoryDoc",
    "TheoryDocError",
    "UnsafeGenerator",
    "check_source",
    "default_docs_dir",
    "default_generators_dir",
    "load_catalogue",
    "load_corpus",
    "load_theory_doc",
    "require_safe",
    "sample_terms",
]

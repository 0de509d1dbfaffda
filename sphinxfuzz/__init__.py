"""sphinxfuzz: find bugs in SMT solvers with skeletons filled by LLM-built term generators."""

__version__ = "0.1.0"

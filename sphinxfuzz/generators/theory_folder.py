"""A theory's generator folder, `<generators>/<Theory>/`: the one place that names its files.

    generator.py      the generator module (`THEORY`, `SOLVERS`, `generate(rng)`)
    grammar.lark      the grammar the build distilled from the theory document
    transcript.jsonl  every exchange with the model during the build
    manifest.json     what the build recorded (schemas/manifest.schema.json), hand edits,
                      validations
    REVIEW.md         written after a rebuild: the old and the new version side by side

Reading, writing and checking these files stays with the modules that own the contents
(`catalogue`, `synthesis.output`, `synthesis.hand_edits`, ...); they find them here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar


@dataclass(frozen=True)
class GeneratorFolder:
    path: Path

    GENERATOR: ClassVar[str] = "generator.py"
    GRAMMAR: ClassVar[str] = "grammar.lark"
    TRANSCRIPT: ClassVar[str] = "transcript.jsonl"
    MANIFEST: ClassVar[str] = "manifest.json"
    REVIEW: ClassVar[str] = "REVIEW.md"
    # the files a hand edit may be recorded for (`synthesis.hand_edits`)
    EDITABLE: ClassVar[tuple[str, ...]] = (GENERATOR, GRAMMAR)

    @classmethod
    def of(cls, generators: Path, theory: str) -> GeneratorFolder:
        """The folder of `theory` in the generators folder `generators`."""
        return cls(Path(generators) / theory)

    @property
    def theory(self) -> str:
        """The theory the folder is named after (the generator's THEORY must match it)."""
        return self.path.name

    @property
    def generator(self) -> Path:
        return self.path / self.GENERATOR

    @property
    def grammar(self) -> Path:
        return self.path / self.GRAMMAR

    @property
    def transcript(self) -> Path:
        return self.path / self.TRANSCRIPT

    @property
    def manifest(self) -> Path:
        return self.path / self.MANIFEST

    @property
    def review(self) -> Path:
        return self.path / self.REVIEW

    def file(self, name: str) -> Path:
        """One of the folder's files by its name (`EDITABLE` names a hand edit's file)."""
        return self.path / name

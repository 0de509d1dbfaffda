"""Prompt templates: Markdown files under `prompts/`, filled with `string.Template`."""

from __future__ import annotations

import hashlib
from pathlib import Path
from string import Template

from sphinxfuzz.datafiles import data_dir
from sphinxfuzz.errors import InputError

STEPS = ("system", "grammar", "implement", "refine_errors", "refine_traceback", "distil_errors")


def default_prompts_dir() -> Path:
    return data_dir("prompts")


class PromptError(InputError):
    """A missing template or a placeholder the caller did not fill."""


class Prompts:
    def __init__(self, directory: Path | None = None) -> None:
        self.directory = Path(directory or default_prompts_dir())
        self.texts: dict[str, str] = {}
        for step in STEPS:
            path = self.directory / f"{step}.md"
            if not path.is_file():
                raise PromptError(f"{path}: prompt template missing")
            self.texts[step] = path.read_text(encoding="utf-8")

    def hashes(self) -> dict[str, str]:
        return {
            step: hashlib.sha256(text.encode()).hexdigest() for step, text in self.texts.items()
        }

    def render(self, step: str, **values: str) -> str:
        try:
            return Template(self.texts[step]).substitute(values)
        except KeyError as exc:
            raise PromptError(
                f"{self.directory / (step + '.md')}: no value for ${exc.args[0]}"
            ) from None

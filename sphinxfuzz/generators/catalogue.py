"""The catalogue of generators: one `GeneratorFolder` per theory in a generators folder.

Everything here is read statically: THEORY and SOLVERS come from the module's AST, so the
parent process never executes untrusted generator code.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sphinxfuzz.datafiles import data_dir
from sphinxfuzz.errors import InputError
from sphinxfuzz.generators.static_check import UnsafeGenerator, read_header, require_safe
from sphinxfuzz.generators.theory_folder import GeneratorFolder


class CatalogueError(InputError):
    """A catalogue directory that cannot be used; the message names the file and the cause."""


@dataclass(frozen=True)
class CatalogueEntry:
    theory: str
    solvers: tuple[str, ...]
    path: Path  # the generator.py file
    source: str
    manifest: dict[str, Any] | None = None

    @property
    def folder(self) -> GeneratorFolder:
        return GeneratorFolder(self.path.parent)

    @property
    def families(self) -> tuple[str, ...]:
        """The families it serves (`served_families`)."""
        return served_families(self.solvers, self.manifest)

    @property
    def grammar_path(self) -> Path | None:
        """The grammar beside the generator, when the build left one."""
        candidate = self.folder.grammar
        return candidate if candidate.is_file() else None


@dataclass
class Catalogue:
    directory: Path
    entries: dict[str, CatalogueEntry] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)  # dir name -> why skipped (strict=False)

    def theories_for(self, families: set[str]) -> list[str]:
        """Theories that serve every family in `families` (`CatalogueEntry.families`), sorted."""
        return sorted(t for t, e in self.entries.items() if families <= set(e.families))


def family_validations(manifest: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
    """Family -> the last validation entry of a manifest that names it (`releases`): each
    family keeps its own record, so a validation on one family leaves the others' as
    they were."""
    found: dict[str, dict[str, Any]] = {}
    for entry in (manifest or {}).get("validations") or []:
        for name in entry.get("releases", {}):
            found[name.split("@")[0]] = entry
    return found


def served_families(
    solvers: tuple[str, ...], manifest: Mapping[str, Any] | None
) -> tuple[str, ...]:
    """The families a generator serves: its SOLVERS (what its build checked), then each
    family its build did not name whose last validation found the generator fit for it
    (the entry's `serves`, `synthesis.catalogue_validation`)."""
    more = [
        family
        for family, entry in family_validations(manifest).items()
        if family not in solvers and family in entry.get("serves", ())
    ]
    return (*solvers, *sorted(more))


def default_generators_dir() -> Path:
    """The shipped `generated_generators/` (packaged, or the checkout's)."""
    return data_dir("generated_generators")


def load_catalogue(directory: Path | str, *, strict: bool = True) -> Catalogue:
    """Read the generator of every theory folder in `directory`.

    With `strict` (the default) the first unusable directory raises `CatalogueError`; without
    it, unusable directories are skipped and described in `Catalogue.errors`.
    """
    root = Path(directory)
    if not root.is_dir():
        raise CatalogueError(f"{root}: generators directory does not exist")
    catalogue = Catalogue(root)
    for child in sorted(root.iterdir()):
        if not child.is_dir() or child.name.startswith((".", "_")):
            continue
        try:
            entry = load_entry(child)
        except CatalogueError as exc:
            if strict:
                raise
            catalogue.errors[child.name] = str(exc)
            continue
        catalogue.entries[entry.theory] = entry
    return catalogue


def load_entry(theory_dir: Path) -> CatalogueEntry:
    """One catalogue directory; raises `CatalogueError` naming the offending file."""
    folder = GeneratorFolder(theory_dir)
    path = folder.generator
    if not path.is_file():
        raise CatalogueError(f"{path}: missing generator (the directory has no {path.name})")
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogueError(f"{path}: cannot read generator: {exc}") from exc
    try:
        require_safe(source, str(path))
        header = read_header(source, str(path))
    except UnsafeGenerator as exc:
        raise CatalogueError(str(exc)) from exc
    if header.theory != theory_dir.name:
        raise CatalogueError(
            f"{path}: THEORY is {header.theory!r} but the directory is named {theory_dir.name!r}"
        )
    return CatalogueEntry(header.theory, header.solvers, path, source, _manifest(folder))


def _manifest(folder: GeneratorFolder) -> dict[str, Any] | None:
    path = folder.manifest
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CatalogueError(f"{path}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise CatalogueError(f"{path}: cannot read manifest: {exc}") from exc
    if not isinstance(data, dict):
        raise CatalogueError(f"{path}: manifest must be a JSON object, not {type(data).__name__}")
    return data

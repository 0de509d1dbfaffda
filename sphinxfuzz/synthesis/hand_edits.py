"""Hand edits of a built generator: detected by hash, recorded in its manifest.

The build stores the sha256 of the generator.py it wrote (`generator_sha256`; older
manifests are checked against the code in their transcript); each recorded hand edit stores
the hash of the file after it. A file whose hash matches neither the last
recorded edit nor the build was edited without a record, and a rebuild would silently throw
that edit away, so `build-generators` refuses to overwrite it unless forced.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sphinxfuzz.errors import InputError
from sphinxfuzz.fileio import write_atomic
from sphinxfuzz.generators.theory_folder import GeneratorFolder
from sphinxfuzz.synthesis.output import validate_manifest
from sphinxfuzz.synthesis.pipeline import extract_block
from sphinxfuzz.synthesis.transcript import read_transcript

GENERATOR, GRAMMAR = GeneratorFolder.GENERATOR, GeneratorFolder.GRAMMAR


class HandEditError(InputError):
    """A theory folder whose manifest cannot be read or updated."""


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_manifest(folder: Path) -> dict[str, Any]:
    path = GeneratorFolder(folder).manifest
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise HandEditError(
            f"{path}: no manifest (was this folder written by a generator build?)"
        ) from None
    except json.JSONDecodeError as exc:
        raise HandEditError(f"{path}:{exc.lineno}:{exc.colno}: not JSON ({exc.msg})") from None
    if not isinstance(manifest, dict):
        raise HandEditError(f"{path}: a manifest is a JSON object")
    return manifest


def _built_code(folder: Path, manifest: dict[str, Any]) -> str | None:
    """The best round's code as the model wrote it, from the transcript: round 1 is the
    `implement` answer, each later round one `refine_*` answer. For manifests written before
    `generator_sha256` existed."""
    best = manifest.get("best_round")
    try:
        records = read_transcript(GeneratorFolder(folder).transcript)
    except (OSError, ValueError):
        return None
    codes = [
        extract_block(str(r["answer"]), "python")
        for r in records
        if r.get("step") in ("implement", "refine_errors", "refine_traceback")
    ]
    if not isinstance(best, int) or not 1 <= best <= len(codes):
        return None
    return codes[best - 1]


def _matches_record(folder: Path, manifest: dict[str, Any]) -> bool | None:
    """Whether generator.py is the file the manifest knows of (after the last recorded edit,
    else as built); None when the manifest gives nothing to compare with."""
    path = GeneratorFolder(folder).generator
    # edits of the grammar (entries with "file": "grammar.lark") say nothing about the code
    edits = [e for e in manifest.get("hand_edits") or []
             if not isinstance(e, dict) or e.get("file", GENERATOR) == GENERATOR]  # fmt: skip
    if edits:
        last = edits[-1]
        recorded = last.get("sha256") if isinstance(last, dict) else None
        # an entry written without a hash is trusted: it says an edit was made
        return None if not recorded else _sha256(path) == recorded
    if manifest.get("generator_sha256"):
        return _sha256(path) == manifest["generator_sha256"]
    code = _built_code(folder, manifest)
    if code is None:
        return None
    text = path.read_text(encoding="utf-8")
    # the build's header comment ends with the line that mentions hand edits
    marker = text.find("record hand edits")
    body = text[text.index("\n", marker) + 1 :] if marker >= 0 and "\n" in text[marker:] else text
    return body == code


def unrecorded_edit(folder: Path, manifest: dict[str, Any] | None = None) -> str | None:
    """Why generator.py differs from what the manifest knows, or None when it does not."""
    manifest = read_manifest(folder) if manifest is None else manifest
    files = GeneratorFolder(folder)
    if not files.generator.is_file() or _matches_record(folder, manifest) is not False:
        return None
    return (
        f"{files.generator}: edited by hand after the build, but {files.manifest} has no entry "
        "for the edit: record who made it and what it changed"
    )


def hand_edited(folder: Path) -> str | None:
    """Why rebuilding `folder` would lose human work (recorded or not), or None."""
    files = GeneratorFolder(folder)
    if not files.manifest.is_file():
        return None
    manifest = read_manifest(folder)
    unrecorded = unrecorded_edit(folder, manifest)
    if unrecorded:
        return unrecorded
    edits = manifest.get("hand_edits") or []
    if edits:
        return f"{files.generator}: has {len(edits)} recorded hand edit(s) in {files.manifest}"
    return None


def _grammar_recorded(folder: Path, manifest: dict[str, Any]) -> str | None:
    """sha256 of grammar.lark as the last recorded grammar edit left it, if any."""
    edits = [e for e in manifest.get("hand_edits") or []
             if isinstance(e, dict) and e.get("file") == GRAMMAR]  # fmt: skip
    return str(edits[-1].get("sha256")) if edits else None


def record_hand_edit(
    folder: Path, by: str, what: str, *, date: str | None = None, file: str = GENERATOR
) -> dict[str, Any]:
    """Append an entry for the current generator.py (or grammar.lark) to the manifest
    (atomically) and return it."""
    if not by.strip() or not what.strip():
        raise HandEditError("a hand edit needs who made it and what it changed", setting="by")
    if file not in GeneratorFolder.EDITABLE:
        raise HandEditError(
            f"edited file {file!r}: record edits of {GENERATOR} or {GRAMMAR}", setting="file"
        )
    manifest = read_manifest(folder)
    files = GeneratorFolder(folder)
    path = files.file(file)
    if not path.is_file():
        raise HandEditError(f"{path}: no such file to record an edit of")
    current = _sha256(path)
    unchanged = (_matches_record(folder, manifest) if file == GENERATOR
                 else _grammar_recorded(folder, manifest) == current)  # fmt: skip
    if unchanged:
        raise HandEditError(
            f"{path}: unchanged since the build or the last recorded edit; nothing to record"
        )
    entry = {
        "date": date or datetime.now(UTC).isoformat(timespec="seconds"),
        "by": by.strip(),
        "what": what.strip(),
        "sha256": current,
        **({"file": file} if file != GENERATOR else {}),
    }
    manifest.setdefault("hand_edits", []).append(entry)
    validate_manifest(manifest, str(files.manifest))
    write_atomic(files.manifest, json.dumps(manifest, indent=2) + "\n")
    return entry

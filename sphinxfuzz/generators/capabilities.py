"""Which operators, indexed operators and sorts each target solver release accepts.

Theory weights (campaign.theory_probe) keep whole theories a solver lacks out of mutants,
but one operator newer than a release (`bvnego`, `ubv_to_int`, `int_to_bv`) still sinks a
share of an otherwise fine theory. So every generated term is read for its *features*:
operator heads (the name of an indexed operator: `int_to_bv` for `(_ int_to_bv 8)`), theory
constants (`re.allchar`, `RNE`) and sort heads (`FiniteField`; `Array/2`, a parametric one
with its arity, probed over Bool). A feature seen for the first time is probed once per
solver: a small script built from the term, the operator applied to fresh constants of its
arguments' sorts, parsed and type-checked (no check-sat) in one batched call. The answers
are cached on disk per release (`<cache>/capabilities/`, keyed by family, version and
command line), so they depend on the solvers alone, never on timing, and later campaigns
probe nothing they probed before. Each section of the file says how its answers were made
(`made_by`: `solvers.versions.probe_digest` of the probe's version and the family record's
fields its runs read): answers an older probe made are probed again, never used. yices's
were all "push is not allowed in non-incremental mode" before its probe ran it incremental.

A solver that crashes on a probe has not refused the feature: the crash is its bug, not a
capability. It is never cached, the feature is used (so mutants with it show the crash, and
the campaign stores it as a bug) and the crash is kept in `Capabilities.crashed`.

`CapableTerms` wraps a term source: a term with a feature some target lacks is drawn again
(from a seed derived from the original one, a bounded number of times) and every leftover
is counted as `feature (solver)`.
"""

from __future__ import annotations

import json
import re
import time
from collections import Counter
from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from sphinxfuzz.fileio import write_atomic
from sphinxfuzz.generators.solver_check import check_terms
from sphinxfuzz.smtlib import Atom, Node, SList, SmtParseError, print_node, walk
from sphinxfuzz.smtlib.generated import read_generated
from sphinxfuzz.smtlib.infer import SortInfo
from sphinxfuzz.smtlib.sorts import Sort
from sphinxfuzz.smtlib.vocabulary import BINDERS, CORE_SYMBOLS, SORT_DECLARING, SYMBOL_DECLARING
from sphinxfuzz.solvers import SolverSpec
from sphinxfuzz.solvers.installs import cache_root
from sphinxfuzz.solvers.versions import cache_name, probe_digest, solver_version

REDRAWS = 8  # tries for a term every target takes, after the first
PROBE_TIMEOUT = 20.0  # per batched probe call (parsing only)
# The version of how a feature is probed and its answer read (the probe scripts
# `term_features` writes, `check_terms`): raise it when either changes, and every release's
# cached answers are probed again once (`features_made_by`).
FEATURE_PROBE = 1
FEATURES = "features"  # the cache file's section of feature answers
MADE_BY = "made_by"  # the cache file's section -> how its answers were made

# Every solver has these: probing them would only cost time.
_CORE = CORE_SYMBOLS | {
    "!", "_", "as", "let", "forall", "exists", "match", "lambda", "par", "Bool",
}  # fmt: skip
_LITERALS = ("numeral", "decimal", "hex", "binary", "string")
# Argument sorts a fresh constant may stand for (a constant of RegLan, say, is itself an
# extension some solvers refuse).
_PLAIN_SORTS = {"Int", "Real", "BitVec", "String", "FloatingPoint", "RoundingMode", "Array"}
_PREFIX = "sphinxfuzz_probe_"


@dataclass(frozen=True)
class Feature:
    """One feature of a term and the script that probes it alone: `decls` and a Bool `term`
    (the shape `generators.solver_check` checks). `needs`: the sort features of the
    arguments the probe keeps (no fresh constant stands for their sorts)."""

    name: str
    decls: str
    term: str
    needs: tuple[str, ...] = ()

    @property
    def qualified(self) -> str:
        """The cache key of a refusal that may be a needed sort's (`select[Bag/1]`)."""
        return f"{self.name}[{','.join(self.needs)}]"


class TermSource(Protocol):
    @property
    def theories(self) -> Sequence[str]: ...

    def generate(self, theory: str, seed: int) -> tuple[str, str]: ...


# -- reading features ----------------------------------------------------------------------


def _declared(commands: list[SList]) -> set[str]:
    """Every symbol the declarations introduce (constructors, selectors, testers too)."""
    names: set[str] = set()
    for command in commands:
        for node in walk(command):
            if isinstance(node, Atom) and node.kind == "symbol":
                names.add(node.name)
                names.add(f"is-{node.name}")
    return names


def _bound(term: Node) -> set[str]:
    """Names binders introduce: quantified and let variables, match pattern variables."""
    bound: set[str] = set()
    for node in walk(term):
        if not isinstance(node, SList) or node.head_name() not in BINDERS or len(node.items) < 2:
            continue
        if node.head_name() == "match":
            cases = node.items[2] if len(node.items) > 2 else None
            binders = [c.items[0] for c in cases.items if isinstance(c, SList) and c.items] if (
                isinstance(cases, SList)) else []  # fmt: skip
        else:
            binders = [node.items[1]]
        for binder in binders:
            for var in walk(binder):
                if isinstance(var, Atom) and var.kind == "symbol":
                    bound.add(var.name)
    return bound


def _term_nodes(node: Node) -> list[Node]:
    """The term positions under `node`: never inside an indexed head `(_ f i)`, the value
    of `(as v S)`, a sort, a binder's variable list or a match pattern."""
    found: list[Node] = []
    stack = [node]
    while stack:
        current = stack.pop()
        found.append(current)
        if isinstance(current, Atom) or current.head_name() in ("_", "as"):
            continue
        items = current.items
        head = current.head_name()
        if head in ("forall", "exists", "lambda", "let") and len(items) >= 3:
            bindings = items[1].items if head == "let" and isinstance(items[1], SList) else []
            stack.extend(b.items[1] for b in bindings if isinstance(b, SList) and len(b.items) == 2)
            stack.extend(items[2:])
        elif head == "match" and len(items) >= 3 and isinstance(items[2], SList):
            stack.append(items[1])
            stack.extend(
                c.items[1] for c in items[2].items if isinstance(c, SList) and len(c.items) == 2
            )
        elif head == "!" and len(items) >= 2:
            stack.append(items[1])
        else:
            stack.extend(items[1:] if isinstance(items[0], SList) or head else items)
    return found


def _sort_parts(sort: Sort) -> list[Sort]:
    """`sort` and every sort nested in its arguments."""
    return [sort, *(part for arg in sort.args for part in _sort_parts(arg))]


def _sort_feature(sort: Sort) -> str:
    """A sort's feature name: its head, with its arity when it has arguments (`Array/2`)."""
    return f"{sort.name}/{len(sort.args)}" if sort.args else sort.name


def _is_literal(node: Node, user: set[str]) -> bool:
    """Literals and theory constants stay as they are in a probe (`re.range` wants string
    literals, `fp.add` a rounding mode); `(_ bv5 8)` and `(as ...)` forms too."""
    if isinstance(node, Atom):
        return node.kind in _LITERALS or (node.kind == "symbol" and node.name not in user)
    return node.head_name() in ("_", "as")


def _plain(sort: Sort | None) -> bool:
    return sort is not None and all(part.name in _PLAIN_SORTS for part in _sort_parts(sort))


def term_features(decls_text: str, term_text: str) -> list[Feature]:
    """The features of one generated term with a probe for each (first occurrence wins).
    A term that does not parse has none: the solvers' own errors then speak for it."""
    try:
        pair = read_generated(decls_text, term_text)  # the mutator reads it next
    except SmtParseError:
        return []
    commands, term, info = list(pair.commands), pair.term, pair.info
    sort_decls = [print_node(c) for c in commands if c.head_name() in SORT_DECLARING]
    user_sorts = {
        n.name
        for c in commands
        if c.head_name() in SORT_DECLARING
        for n in walk(c)
        if isinstance(n, Atom) and n.kind == "symbol"
    }
    user = _declared(commands) | _bound(term)
    features: dict[str, Feature] = {}

    def add_sort(sort: Sort) -> None:
        for arg in sort.args:  # each argument sort is a feature of its own
            add_sort(arg)
        if sort.name in _CORE or sort.name in user_sorts:
            return
        # A parametric sort is probed with Bool for each argument (every solver has it;
        # bitwuzla has no Int), and its arity is in the
        # name: the answer is cached for every term with that head, so it must not blame
        # the head for an argument (a solver without Seq refusing (Array Int (Seq Int)))
        # nor for an arity only some solvers take (z3's (Array Int Bool Int) is no cvc5
        # sort; once that refusal was cached as "Array", cvc5 campaigns drew no arrays).
        name = _sort_feature(sort)
        if name not in features:
            probe = Sort(sort.name, tuple(Sort("Bool") for _ in sort.args), sort.indices)
            decl = f"(declare-const {_PREFIX}s {probe})"
            features[name] = Feature(name, "\n".join([*sort_decls, decl]), "true")

    for sort in _declared_sorts(commands, info):
        add_sort(sort)
    for node in _term_nodes(term):
        node_sort = info.sort_of(node)
        if node_sort is not None:
            add_sort(node_sort)
        found = _node_feature(node, features, user, commands, sort_decls, info)
        if found is not None:
            features[found.name] = found
    return list(features.values())


def _declared_sorts(commands: list[SList], info: SortInfo) -> list[Sort]:
    """The sorts of the declared constants and function results the reader knows."""
    sorts = []
    for command in commands:
        if command.head_name() in ("declare-const", "declare-fun") and len(command.items) >= 3:
            try:
                sorts.append(info.symbols.parse_sort(command.items[-1]))
            except ValueError:
                pass  # a sort the reader does not know: the application probes cover it
    return sorts


def _node_feature(
    node: Node,
    known: Container[str],
    user: set[str],
    commands: list[SList],
    sort_decls: list[str],
    info: SortInfo,
) -> Feature | None:
    """The feature `node` shows (its symbol, theory value or operator) unless `known`
    already has it or the term's own declarations or binders define it."""
    if isinstance(node, Atom):
        if node.kind == "symbol" and node.name not in user and node.name not in _CORE:
            if node.name not in known:
                return Feature(node.name, "", f"(= {node.text} {node.text})")
        return None
    if node.head_name() == "as" and len(node.items) == 3 and isinstance(node.items[1], Atom):
        value = node.items[1].name  # (as set.empty (Set Int)); literals such as ff5 too
        key = "as-value" if re.fullmatch(r"ff-?\d+", value) else value
        if key not in known and value not in user:
            text = print_node(node)
            return Feature(key, "\n".join(sort_decls), f"(= {text} {text})")
        return None
    if node.head_name() == "_" and len(node.items) >= 3 and isinstance(node.items[1], Atom):
        value = node.items[1].name  # an indexed constant: (_ char #x41), (_ +oo 8 24)
        if re.fullmatch(r"bv\d+", value) or value in known or value in user:
            return None  # (_ bv5 8) is a literal
        text = print_node(node)
        return Feature(value, "\n".join(sort_decls), f"(= {text} {text})")
    name = node.operator_name()
    if name is None or name in _CORE or name in user or name in known:
        return None
    if name.startswith("bv") and name[2:].isdigit():
        return None  # (_ bv5 8) is a literal
    return _application_probe(name, node, commands, sort_decls, user, info)


def _application_probe(
    name: str,
    node: SList,
    commands: list[SList],
    sort_decls: list[str],
    user: set[str],
    info: SortInfo,
) -> Feature:
    """`node` with each argument that is not a literal replaced by a fresh constant of its
    sort (so another feature inside it cannot take the blame); arguments of other sorts stay,
    with the declarations of the symbols they use."""
    items: list[str] = [print_node(node.items[0])]
    decls: list[str] = []
    kept: set[str] = set()
    needs: set[str] = set()
    for index, arg in enumerate(node.items[1:]):
        arg_sort = info.sort_of(arg)
        if _is_literal(arg, user) or not _plain(arg_sort):
            items.append(print_node(arg))
            kept |= {n.name for n in walk(arg) if isinstance(n, Atom) and n.kind == "symbol"}
            if arg_sort is not None:
                needs.update(
                    _sort_feature(part)
                    for part in _sort_parts(arg_sort)
                    if part.name not in _CORE and (part.args or part.name not in _PLAIN_SORTS)
                )
            continue
        fresh = f"{_PREFIX}{index}"
        decls.append(f"(declare-const {fresh} {arg_sort})")
        items.append(fresh)
    needed = [
        print_node(c)
        for c in commands
        if c.head_name() in SYMBOL_DECLARING
        and len(c.items) >= 2
        and isinstance(c.items[1], Atom)
        and c.items[1].name in kept
    ]
    application = f"({' '.join(items)})"
    sort = info.sort_of(node)
    term = (
        application
        if sort is not None and sort.name == "Bool" and not sort.args
        else (f"(= {application} {application})")
    )
    return Feature(name, "\n".join([*sort_decls, *needed, *decls]), term, tuple(sorted(needs)))


# -- the cache -----------------------------------------------------------------------------


def cache_dir() -> Path:
    return cache_root().parent / "capabilities"


def cache_file(spec: SolverSpec, folder: Path | None = None) -> Path:
    """One file per release and command line (the program by content: `cache_key`): options
    can switch features on or off."""
    return (folder or cache_dir()) / cache_name(spec)


def _read(path: Path) -> dict[str, object]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def load_section(path: Path, section: str, made_by: str) -> dict[str, object]:
    """One section of a release's cache file: key -> JSON value; {} when absent, or when its
    answers were made otherwise than `made_by` says (`solvers.versions.probe_digest`): a
    stale answer is probed again, never used."""
    data = _read(path)
    known = data.get(section)
    if not isinstance(known, dict) or _made_by(data, section) != made_by:
        return {}
    return dict(known)


def stale_section(path: Path, section: str, made_by: str) -> bool:
    """Whether the file holds answers of `section` made otherwise than `made_by` says (by an
    older probe, or before answers carried how they were made)."""
    data = _read(path)
    return bool(data.get(section)) and _made_by(data, section) != made_by


def _made_by(data: dict[str, object], section: str) -> object:
    stamps = data.get(MADE_BY)
    return stamps.get(section) if isinstance(stamps, dict) else None


def save_section(
    path: Path, spec: SolverSpec, section: str, entries: dict[str, object], made_by: str
) -> None:
    """Merged with what another worker made the same way meanwhile (answers made otherwise
    are dropped), then renamed into place."""
    data = _read(path)
    merged = {**load_section(path, section, made_by), **entries}
    stamps = data.get(MADE_BY)
    stamps = {**(stamps if isinstance(stamps, dict) else {}), section: made_by}
    data.update({"family": spec.family, "version": solver_version(spec),
                 "argv": list(spec.argv), MADE_BY: dict(sorted(stamps.items())),
                 section: dict(sorted(merged.items()))})  # fmt: skip
    try:
        write_atomic(path, json.dumps(data, indent=1))  # removes its temporary file on failure
    except OSError:
        pass  # a read-only cache costs a probe per run, nothing else


def features_made_by(spec: SolverSpec) -> str:
    """How `spec`'s feature answers are made: `FEATURE_PROBE`, the batch's limit, and the
    record's fields a run reads (its incremental mode: yices refused every feature outside
    it)."""
    return probe_digest(spec, [FEATURE_PROBE, PROBE_TIMEOUT])


def _load(path: Path, made_by: str) -> dict[str, str | None]:
    known = load_section(path, FEATURES, made_by)
    return {str(k): (None if v is None else str(v)) for k, v in known.items()}


# -- capabilities of a set of targets ------------------------------------------------------


class Capabilities:
    """What each target accepts: feature -> None (accepted) or the solver's first error."""

    def __init__(
        self,
        specs: Sequence[SolverSpec],
        *,
        folder: Path | None = None,
        spent: Callable[[float, float], None] = lambda start, end: None,
    ) -> None:
        """`spent` hears when each batched probe ran (`time.perf_counter`): solver time of
        the campaign (`StrategyContext.spent`)."""
        self.specs = list(specs)
        self.paths = {spec.name: cache_file(spec, folder) for spec in self.specs}
        self.made_by = {spec.name: features_made_by(spec) for spec in self.specs}
        self.known = {s.name: _load(self.paths[s.name], self.made_by[s.name]) for s in self.specs}
        self.probes = 0  # features probed by this object (not found in the cache)
        self.spent = spent
        # solver -> feature -> how it crashed on the probe: asked no more, never cached
        self.crashed: dict[str, dict[str, str]] = {spec.name: {} for spec in self.specs}

    def learn(self, features: Sequence[Feature]) -> None:
        """Probe every feature some target has no answer for yet (one batch per solver).

        A probe keeps the arguments no fresh constant may stand for, with their sorts
        (`Feature.needs`). When the solver lacks one of those sorts, its refusal may be the
        sort's, so it is cached under `Feature.qualified`, never under the feature alone:
        z3 refused `(select a 1)` for an array of bags, and a refusal cached as `select`
        would have cost it every array term."""
        for spec in self.specs:
            known, crashed = self.known[spec.name], self.crashed[spec.name]
            todo = list(
                {
                    f.name: f
                    for f in features
                    if _answer(known, f) is _NONE and f.name not in crashed
                }.values()
            )
            if not todo:
                continue
            started = time.perf_counter()
            verdicts = check_terms([(f.decls, f.term) for f in todo], [spec], timeout=PROBE_TIMEOUT)
            self.spent(started, time.perf_counter())
            self.probes += len(todo)
            for feature, verdict in zip(todo, verdicts, strict=True):
                if spec.name in verdict.crashed:
                    crashed[feature.name] = verdict.errors[spec.name]
            errors = [
                (f, v.errors.get(spec.name))
                for f, v in zip(todo, verdicts, strict=True)
                if spec.name not in v.crashed
            ]
            for feature, error in sorted(errors, key=lambda pair: bool(pair[0].needs)):
                # the sorts (which need nothing) are answered before what needs them
                blamed = error is not None and any(known.get(n) for n in feature.needs)
                known[feature.qualified if blamed else feature.name] = error
            save_section(
                self.paths[spec.name], spec, FEATURES, dict(known), self.made_by[spec.name]
            )

    def lacking(self, features: Sequence[Feature]) -> list[tuple[str, str]]:
        """(feature, solver) pairs of the features some target rejects."""
        self.learn(features)
        return [
            (f.name, spec.name)
            for f in features
            for spec in self.specs
            if _answer(self.known[spec.name], f) not in (None, _NONE)
        ]

    def lacked(self) -> dict[str, list[str]]:
        """solver -> features it rejects (known so far), for reports."""
        return {n: sorted(f for f, e in k.items() if e is not None) for n, k in self.known.items()}


_NONE = object()  # no answer cached for a feature


def _answer(known: dict[str, str | None], feature: Feature) -> object:
    """The cached answer for `feature`: None (accepted), the solver's error, or _NONE."""
    if feature.name in known:
        return known[feature.name]
    if feature.needs and feature.qualified in known:
        return known[feature.qualified]
    return _NONE


class CapableTerms:
    """A term source whose terms every target accepts feature by feature. A term with a
    lacked feature is drawn again from `seed` + k x 2^32 (k = 1 .. REDRAWS): the same
    seed gives the same term whatever happened before. `left_out` counts what was redrawn."""

    def __init__(self, source: TermSource, capabilities: Capabilities) -> None:
        self.source = source
        self.capabilities = capabilities
        self.left_out: Counter[str] = Counter()

    @property
    def theories(self) -> Sequence[str]:
        return self.source.theories

    def generate(self, theory: str, seed: int) -> tuple[str, str]:
        missing: list[tuple[str, str]] = []
        for attempt in range(REDRAWS + 1):
            decls, term = self.source.generate(theory, seed + attempt * 2**32)
            missing = self.capabilities.lacking(term_features(decls, term))
            if not missing:
                return decls, term
            self.left_out.update(f"{feature} ({solver})" for feature, solver in missing)
        feature, solver = missing[0]
        raise ValueError(f"{REDRAWS + 1} terms in a row use {feature}, which {solver} lacks")

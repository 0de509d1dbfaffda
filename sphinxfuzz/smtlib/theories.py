"""Built-in theory signatures: the sort of an application of a built-in operator.

A rule receives the operator's numeral indices (from `(_ op i ...)`) and the argument sorts
(`None` where a sort is unknown) and returns the result sort, or `None` when it cannot tell.
The table covers SMT-LIB 2.6 theories plus the z3 and cvc5 extensions seen in bug reports.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sphinxfuzz.smtlib.sorts import (
    BOOL,
    INT,
    REAL,
    REGLAN,
    ROUNDING_MODE,
    STRING,
    Sort,
    bitvec,
    floating_point,
)

Args = Sequence[Sort | None]
Rule = Callable[[tuple[int, ...], Args], Sort | None]

TUPLE = "Tuple"
UNICODE = Sort("Unicode")


def _first(args: Args) -> Sort | None:
    for sort in args:
        if sort is not None:
            return sort
    return None


def _last(args: Args) -> Sort | None:
    return args[-1] if args else None


def _arg(index: int) -> Rule:
    return lambda _i, args: args[index] if len(args) > index else None


def _const(sort: Sort) -> Rule:
    return lambda _i, _a: sort


def _arith(_i: tuple[int, ...], args: Args) -> Sort | None:
    known = [sort for sort in args if sort is not None]
    if any(sort == REAL for sort in known):
        return REAL
    return known[0] if known else INT


def _width(sort: Sort | None) -> int | None:
    if sort is not None and sort.name == "BitVec" and sort.indices:
        return sort.indices[0]
    return None


def _concat(_i: tuple[int, ...], args: Args) -> Sort | None:
    widths = [_width(sort) for sort in args]
    if any(width is None for width in widths):
        return None
    return bitvec(sum(widths))  # type: ignore[arg-type]


def _extract(indices: tuple[int, ...], _a: Args) -> Sort | None:
    return bitvec(indices[0] - indices[1] + 1) if len(indices) == 2 else None


def _extend(indices: tuple[int, ...], args: Args) -> Sort | None:
    width = _width(args[0]) if args else None
    return bitvec(width + indices[0]) if width is not None and indices else None


def _repeat(indices: tuple[int, ...], args: Args) -> Sort | None:
    width = _width(args[0]) if args else None
    return bitvec(width * indices[0]) if width is not None and indices else None


def _to_bv(indices: tuple[int, ...], _a: Args) -> Sort | None:
    return bitvec(indices[0]) if indices else None


def _fp_of(args: Args) -> Sort | None:
    for sort in args:
        if sort is not None and sort.name == "FloatingPoint":
            return sort
    return None


def _fp_rule(_i: tuple[int, ...], args: Args) -> Sort | None:
    return _fp_of(args)


def _fp_triple(_i: tuple[int, ...], args: Args) -> Sort | None:
    widths = [_width(sort) for sort in args]
    if len(widths) != 3 or widths[1] is None or widths[2] is None:
        return None
    return floating_point(widths[1], widths[2] + 1)


def _to_fp(indices: tuple[int, ...], _a: Args) -> Sort | None:
    return floating_point(*indices) if len(indices) == 2 else None


def _fp_to_ieee(_i: tuple[int, ...], args: Args) -> Sort | None:
    sort = _fp_of(args)
    return bitvec(sum(sort.indices)) if sort is not None else None


def _elem(index: int = 0) -> Rule:
    """The element sort of a container argument (last sort argument: Array's range)."""

    def rule(_i: tuple[int, ...], args: Args) -> Sort | None:
        sort = args[index] if len(args) > index else None
        if sort is not None and sort.args:
            return sort.args[-1]
        if sort is not None and sort == STRING:
            return STRING
        return None

    return rule


def _wrap(name: str, index: int = 0) -> Rule:
    def rule(_i: tuple[int, ...], args: Args) -> Sort | None:
        sort = args[index] if len(args) > index else None
        return Sort(name, (sort,)) if sort is not None else None

    return rule


def _select(_i: tuple[int, ...], args: Args) -> Sort | None:
    sort = args[0] if args else None
    if sort is None:
        return None
    if sort.name == "Array" and sort.args:
        return sort.args[-1]
    if sort.name == "->" and sort.args:  # z3 allows select on lambdas
        return sort.args[-1]
    return None


def _tuple(_i: tuple[int, ...], args: Args) -> Sort | None:
    if any(sort is None for sort in args):
        return None
    return Sort(TUPLE, tuple(args))  # type: ignore[arg-type]


def _tuple_select(indices: tuple[int, ...], args: Args) -> Sort | None:
    sort = args[0] if args else None
    if sort is None or not indices or indices[0] >= len(sort.args):
        return None
    return sort.args[indices[0]]


def _tuple_project(indices: tuple[int, ...], args: Args) -> Sort | None:
    sort = args[0] if args else None
    if sort is None or any(i >= len(sort.args) for i in indices):
        return None
    return Sort(TUPLE, tuple(sort.args[i] for i in indices))


def _relation_parts(sort: Sort | None) -> tuple[Sort, ...] | None:
    if sort is None or not sort.args or sort.args[0].name != TUPLE:
        return None
    return sort.args[0].args


def _relation(name: str, parts: Sequence[Sort]) -> Sort:
    return Sort(name, (Sort(TUPLE, tuple(parts)),))


def _rel_join(_i: tuple[int, ...], args: Args) -> Sort | None:
    left, right = (
        (_relation_parts(args[0]), _relation_parts(args[1])) if len(args) == 2 else (None, None)
    )
    if left is None or right is None or args[0] is None:
        return None
    return _relation(args[0].name, left[:-1] + right[1:])


def _rel_product(_i: tuple[int, ...], args: Args) -> Sort | None:
    left, right = (
        (_relation_parts(args[0]), _relation_parts(args[1])) if len(args) == 2 else (None, None)
    )
    if left is None or right is None or args[0] is None:
        return None
    return _relation(args[0].name, left + right)


def _rel_transpose(_i: tuple[int, ...], args: Args) -> Sort | None:
    parts = _relation_parts(args[0]) if args else None
    if parts is None or args[0] is None:
        return None
    return _relation(args[0].name, tuple(reversed(parts)))


def _rel_iden(_i: tuple[int, ...], args: Args) -> Sort | None:
    parts = _relation_parts(args[0]) if args else None
    if parts is None or args[0] is None:
        return None
    return _relation(args[0].name, parts + parts)


def _rel_project(indices: tuple[int, ...], args: Args) -> Sort | None:
    parts = _relation_parts(args[0]) if args else None
    if parts is None or args[0] is None or any(i >= len(parts) for i in indices):
        return None
    return _relation(args[0].name, [parts[i] for i in indices])


def _rel_join_image(_i: tuple[int, ...], args: Args) -> Sort | None:
    parts = _relation_parts(args[0]) if args else None
    if parts is None or args[0] is None:
        return None
    return _relation(args[0].name, parts[:1])


def _range_of_function(sort: Sort | None) -> Sort | None:
    if sort is not None and sort.name in ("->", "Array") and sort.args:
        return sort.args[-1]
    return None


def _map_container(_i: tuple[int, ...], args: Args) -> Sort | None:
    # (set.map f s), (bag.map f b), (seq.map f s): container of f's range
    if len(args) < 2 or args[-1] is None:
        return None
    element = _range_of_function(args[0])
    return Sort(args[-1].name, (element,)) if element is not None else None


def _fold(_i: tuple[int, ...], args: Args) -> Sort | None:
    # (set.fold f init s) / (seq.foldl f init s) / (seq.foldli f i init s): the accumulator
    if len(args) >= 3:
        return args[-2]
    return None


def _bag(_i: tuple[int, ...], args: Args) -> Sort | None:
    return Sort("Bag", (args[0],)) if args and args[0] is not None else None


def _container_as(name: str) -> Rule:
    def rule(_i: tuple[int, ...], args: Args) -> Sort | None:
        sort = args[0] if args else None
        return Sort(name, sort.args) if sort is not None and sort.args else None

    return rule


_BOOL_OPS = """
not and or xor => = distinct implies iff
< <= > >= is_int divisible
bvult bvule bvugt bvuge bvslt bvsle bvsgt bvsge
bvumul_noovfl bvsmul_noovfl bvsmul_noudfl bvumul_noudfl bvuaddo bvsaddo bvumulo bvsmulo
bvusubo bvssubo bvsdivo bvnego bvsdiv_noovfl bvuadd_noovfl bvsadd_noovfl bvsadd_noudfl
bvusub_noudfl bvssub_noovfl bvssub_noudfl bvneg_noovfl bvsdivo bit2bool
fp.leq fp.lt fp.geq fp.gt fp.eq fp.isNormal fp.isSubnormal fp.isZero fp.isInfinite
fp.isNaN fp.isNegative fp.isPositive
str.prefixof str.suffixof str.contains str.is_digit str.< str.<= str.in_re str.in.re
str.lt str.le str.isdigit
seq.prefixof seq.suffixof seq.contains seq.in_re seq.in.re seq.< seq.<=
char.<= char.< char.is_digit
set.member set.subset set.is_empty set.is_singleton set.all set.some member subset
set-subset is_singleton
bag.member bag.subbag bag.is_singleton
sep pto wand sep.emp
pbeq pble pbge at-most at-least
partial-order linear-order tree-order piecewise-linear-order transitive-closure
is
"""

_SAME_AS_FIRST = """
bvnot bvand bvor bvxor bvnand bvnor bvxnor bvneg bvadd bvsub bvmul bvudiv bvurem bvsdiv
bvsrem bvsmod bvshl bvlshr bvashr rotate_left rotate_right ext_rotate_left ext_rotate_right
bvudiv_i bvsdiv_i bvurem_i bvsrem_i bvsmod_i bvudiv0 bvsdiv0 bvurem0 bvsrem0 bvsmod0
str.++ str.at str.substr str.replace str.replace_all str.replace_re str.replace_re_all
str.rev str.update str.to_lower str.to_upper
seq.++ seq.extract seq.at seq.replace seq.replace_all seq.rev seq.update seq.replace_re
seq.replace_re_all
set.union set.inter set.minus set.complement union intersection setminus complement
set-union set-intersect set-difference set-complement set.filter tclosure rel.tclosure
bag.union_max bag.union_disjoint bag.inter_min bag.difference_subtract
bag.difference_remove bag.setof bag.duplicate_removal bag.filter
ff.add ff.mul ff.neg ff.bitsum ff.sub
"""

RULES: dict[str, Rule] = {}
for _name in _BOOL_OPS.split():
    RULES[_name] = _const(BOOL)
for _name in _SAME_AS_FIRST.split():
    RULES[_name] = lambda _i, args: _first(args)

RULES.update(
    {
        "ite": lambda _i, args: _first(args[1:]),
        "if": lambda _i, args: _first(args[1:]),
        # arithmetic
        "+": _arith,
        "-": _arith,
        "*": _arith,
        "^": _arith,
        "/": _const(REAL),
        "div": _const(INT),
        "mod": _const(INT),
        "rem": _const(INT),
        "abs": _arith,
        "to_real": _const(REAL),
        "to_int": _const(INT),
        "int.pow2": _const(INT),
        "int.log2": _const(INT),
        "iand": _const(INT),
        "sqrt": _const(REAL),
        "~": _arith,  # z3's unary minus
        **{
            name: _const(REAL)
            for name in (
                "exp sin cos tan csc sec cot arcsin arccos arctan arccsc arcsec arccot "
                "sinh cosh tanh asinh acosh atanh"
            ).split()
        },
        # bit-vectors
        "concat": _concat,
        "extract": _extract,
        "zero_extend": _extend,
        "sign_extend": _extend,
        "repeat": _repeat,
        "bvcomp": _const(bitvec(1)),
        "bvredor": _const(bitvec(1)),
        "bvredand": _const(bitvec(1)),
        "bv2nat": _const(INT),
        "bv2int": _const(INT),
        "ubv_to_int": _const(INT),
        "sbv_to_int": _const(INT),
        "int2bv": _to_bv,
        "int_to_bv": _to_bv,
        "nat2bv": _to_bv,
        # floating point
        "fp": _fp_triple,
        "to_fp": _to_fp,
        "to_fp_unsigned": _to_fp,
        "to_fp_bv": _to_fp,
        "fp.to_ubv": _to_bv,
        "fp.to_sbv": _to_bv,
        "fp.to_ubv_I": _to_bv,
        "fp.to_sbv_I": _to_bv,
        "fp.to_real": _const(REAL),
        "fp.to_ieee_bv": _fp_to_ieee,
        **{
            name: _fp_rule
            for name in (
                "fp.abs fp.neg fp.add fp.sub fp.mul fp.div fp.fma fp.sqrt fp.rem "
                "fp.roundToIntegral fp.min fp.max fp.min_i fp.max_i"
            ).split()
        },
        # arrays
        "select": _select,
        "store": _arg(0),
        "default": _elem(0),
        "array-ext": lambda _i, args: (
            args[0].args[0] if args and args[0] and args[0].args else None
        ),
        # strings and regular expressions
        "str.len": _const(INT),
        "str.indexof": _const(INT),
        "str.indexof_re": _const(INT),
        "str.to_code": _const(INT),
        "str.to_int": _const(INT),
        "str.to.int": _const(INT),
        "str.from_code": _const(STRING),
        "str.from_int": _const(STRING),
        "int.to.str": _const(STRING),
        "str.from_ubv": _const(STRING),
        "str.from_sbv": _const(STRING),
        "str.to_re": _const(REGLAN),
        "str.to.re": _const(REGLAN),
        "seq.to_re": _const(REGLAN),
        **{
            name: _const(REGLAN)
            for name in (
                "re.* re.+ re.opt re.union re.inter re.comp re.diff re.++ re.range re.loop "
                "re.^ re.power re.complement re.intersection"
            ).split()
        },
        # sequences
        "seq.unit": _wrap("Seq"),
        "seq.len": _const(INT),
        "seq.indexof": _const(INT),
        "seq.last_indexof": _const(INT),
        "seq.nth": _elem(0),
        "seq.map": _map_container,
        "seq.mapi": _map_container,
        "seq.foldl": _fold,
        "seq.foldli": _fold,
        # characters (z3)
        "char.to_int": _const(INT),
        "char.to_bv": _const(bitvec(18)),
        "char.from_bv": _const(UNICODE),
        "char.from_int": _const(UNICODE),
        # sets and relations (cvc5, cvc4, z3)
        "set.singleton": _wrap("Set"),
        "singleton": _wrap("Set"),
        "set.insert": lambda _i, args: _last(args),
        "insert": lambda _i, args: _last(args),
        "set.card": _const(INT),
        "card": _const(INT),
        "set-card": _const(INT),
        "set.choose": _elem(0),
        "choose": _elem(0),
        "set.map": _map_container,
        "set.fold": _fold,
        "rel.join": _rel_join,
        "join": _rel_join,
        "rel.product": _rel_product,
        "product": _rel_product,
        "rel.transpose": _rel_transpose,
        "transpose": _rel_transpose,
        "rel.iden": _rel_iden,
        "rel.join_image": _rel_join_image,
        "rel.project": _rel_project,
        "tuple": _tuple,
        "mkTuple": _tuple,
        "tuple.select": _tuple_select,
        "tuple.project": _tuple_project,
        # bags
        "bag": _bag,
        "bag.count": _const(INT),
        "bag.card": _const(INT),
        "bag.choose": _elem(0),
        "bag.from_set": _container_as("Bag"),
        "bag.to_set": _container_as("Set"),
        "bag.map": _map_container,
        "bag.fold": _fold,
        # finite fields
        "ff.bitsum": lambda _i, args: _first(args),
    }
)

# Nullary built-ins written as plain symbols.
CONSTANTS: dict[str, Sort] = {
    "true": BOOL,
    "false": BOOL,
    # z3 reads a connective without arguments as its neutral element
    "and": BOOL,
    "or": BOOL,
    "xor": BOOL,
    "distinct": BOOL,
    "re.none": REGLAN,
    "re.all": REGLAN,
    "re.allchar": REGLAN,
    "re.nostr": REGLAN,
    "re.empty": REGLAN,
    "real.pi": REAL,
    "pi": REAL,
    "euler": REAL,
    "sep.emp": BOOL,
    "tuple.unit": Sort(TUPLE),
    **{
        name: ROUNDING_MODE
        for name in (
            "RNE RNA RTP RTN RTZ roundNearestTiesToEven roundNearestTiesToAway "
            "roundTowardPositive roundTowardNegative roundTowardZero"
        ).split()
    },
}

# Indexed constants `(_ name i j)` that are terms on their own.
_FP_SPECIALS = {"+zero", "-zero", "+oo", "-oo", "NaN"}


def indexed_constant(name: str, indices: tuple[int, ...]) -> Sort | None:
    if name.startswith("bv") and name[2:].isdigit() and len(indices) == 1:
        return bitvec(indices[0])
    if name in _FP_SPECIALS and len(indices) == 2:
        return floating_point(*indices)
    if name == "char":
        return STRING
    if name == "emp":  # cvc5 separation logic: (_ emp Loc Data)
        return BOOL
    if name == "Char":
        return UNICODE
    if name in ("re.loop", "re.^"):
        return None
    return None


def literal_sort(kind: str, text: str) -> Sort | None:
    """Sort of a literal token: numeral, decimal, #x/#b bit-vector, string, #f..m.. field."""
    if kind == "numeral":
        return INT
    if kind == "decimal":
        return REAL
    if kind == "hex":
        return bitvec(4 * (len(text) - 2))
    if kind == "binary":
        return bitvec(len(text) - 2)
    if kind == "string":
        return STRING
    if kind == "literal" and text.startswith("#f") and "m" in text:
        modulus = text[text.index("m") + 1 :]
        if modulus.isdigit():
            return Sort("FiniteField", (), (int(modulus),))
    return None

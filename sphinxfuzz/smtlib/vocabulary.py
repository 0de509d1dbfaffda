"""SMT-LIB words several layers need to agree on: which commands declare a symbol or a sort,
and which term heads bind variables."""

# commands that declare or define the function or constant symbol named by their first argument
SYMBOL_DECLARING = frozenset(
    {"declare-const", "declare-fun", "define-fun", "define-fun-rec", "define-const"}
)
# commands that declare or define sorts (datatypes included)
SORT_DECLARING = frozenset({"declare-sort", "define-sort", "declare-datatype", "declare-datatypes"})
# term heads whose first argument binds variables
BINDERS = frozenset({"let", "forall", "exists", "lambda", "match"})

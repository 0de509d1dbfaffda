"""SMT-LIB words several layers need to agree on: commands, what each kind of declaration
declares, which term heads bind variables, and which symbols make a formula higher-order.

The one home of these sets: the parser, the mutator, the oracle, validation and triage all
read them from here.
"""

# commands that declare or define the function or constant symbol named by their first argument
SYMBOL_DECLARING = frozenset(
    {"declare-const", "declare-fun", "define-fun", "define-fun-rec", "define-const"}
)
# the Core theory's symbols: every logic has them, so no script may declare them again
CORE_SYMBOLS = frozenset({"true", "false", "not", "=>", "and", "or", "xor", "=", "distinct", "ite"})
# commands that declare or define several function symbols at once ((f ...) ...) (bodies)
SYMBOLS_DECLARING = frozenset({"define-funs-rec"})
# commands that declare or define sorts (datatypes included)
SORT_DECLARING = frozenset({"declare-sort", "define-sort", "declare-datatype", "declare-datatypes"})
# every command that declares or defines a symbol or a sort
DECLARING = SYMBOL_DECLARING | SYMBOLS_DECLARING | SORT_DECLARING
# what a generator may put before its term: the declarations, and cvc5's separation-logic
# `declare-heap` (it names no symbol; the mutator keeps one)
GENERATOR_DECLARING = DECLARING | {"declare-heap"}

# commands that ask for satisfiability (each is answered sat, unsat or unknown)
CHECK_SAT_COMMANDS = frozenset({"check-sat", "check-sat-assuming"})
# commands that change the assertion stack
STACK_COMMANDS = frozenset({"push", "pop"})
# commands that set solver state without declaring anything
OPTION_COMMANDS = frozenset({"set-option", "set-info"})

# term heads whose first argument binds variables
BINDERS = frozenset({"let", "forall", "exists", "lambda", "match"})

# Logic features. A symbol (as a whole token, not inside a string or |quoted symbol|) that
# makes a formula higher-order: function sorts `->`, `lambda`, explicit application `@`, and
# cvc5's `rel.project` / `table.project` (it maps tuple.project over them: higher-order
# inside). cvc5 parses them only under an HO_ logic.
HIGHER_ORDER_SYMBOLS = frozenset({"->", "@", "lambda", "rel.project", "table.project"})

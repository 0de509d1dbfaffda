"""Reading, printing and typing SMT-LIB 2.6 scripts (with the z3 and cvc5 dialects)."""

from sphinxfuzz.smtlib.errors import SmtParseError
from sphinxfuzz.smtlib.infer import SortInfo, TermSite, infer_sorts
from sphinxfuzz.smtlib.nodes import Atom, Node, SList, copy_node, sym, walk
from sphinxfuzz.smtlib.printer import print_node, print_script
from sphinxfuzz.smtlib.reader import Script, parse_file, parse_nodes, parse_script, parse_term
from sphinxfuzz.smtlib.sorts import Sort, SortError
from sphinxfuzz.smtlib.symbols import SymbolTable

__all__ = [
    "Atom",
    "Node",
    "SList",
    "Script",
    "SmtParseError",
    "Sort",
    "SortError",
    "SortInfo",
    "SymbolTable",
    "TermSite",
    "copy_node",
    "infer_sorts",
    "parse_file",
    "parse_nodes",
    "parse_script",
    "parse_term",
    "print_node",
    "print_script",
    "sym",
    "walk",
]

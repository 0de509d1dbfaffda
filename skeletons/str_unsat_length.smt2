; unsat: a concatenation is at least as long as its parts
(set-logic QF_SLIA)
(declare-const a String)
(declare-const b String)
(assert (< (str.len (str.++ a b)) (str.len a)))
(assert (or (= a "x") (str.contains b "yy")))
(check-sat)

; unsat: reading what was just written
(set-logic QF_ALIA)
(declare-const m (Array Int Int))
(declare-const k Int)
(declare-const v Int)
(assert (distinct (select (store m k v) k) v))
(assert (or (> k 0) (< v 5)))
(check-sat)

; unsat: three distinct values in a range of two
(set-logic QF_LIA)
(declare-const a Int)
(declare-const b Int)
(declare-const c Int)
(assert (and (<= 1 a 2) (<= 1 b 2) (<= 1 c 2)))
(assert (distinct a b c))
(check-sat)

; unsat: to_int is the floor
(set-logic QF_LIRA)
(declare-const x Real)
(declare-const k Int)
(assert (= k (to_int x)))
(assert (> (to_real k) x))
(assert (or (> x 0.0) (< x 1.0)))
(check-sat)

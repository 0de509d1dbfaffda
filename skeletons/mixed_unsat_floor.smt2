; unsat: to_int is a floor, so to_int(x) > x is impossible
(set-logic QF_LIRA)
(declare-const x Real)
(declare-const i Int)
(declare-const j Int)
(assert (and (= i (to_int x)) (> (to_real i) x)))
(assert (or (> j i) (< (to_real j) (* 2.0 x))))
(assert (and (>= x (- 100.0)) (<= x 100.0) (not (= j 0))))
(check-sat)

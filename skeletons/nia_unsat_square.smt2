; unsat: a square is never negative
(set-logic QF_NIA)
(declare-const x Int)
(declare-const y Int)
(assert (< (+ (* x x) (* y y)) 0))
(assert (or (> x y) (= x 3) (distinct y 0)))
(check-sat)

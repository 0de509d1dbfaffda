; non-linear reals: a circle meets a line
(set-logic QF_NRA)
(declare-const x Real)
(declare-const y Real)
(assert (= (+ (* x x) (* y y)) 25.0))
(assert (= y (+ x 1.0)))
(assert (or (> x 0.0) (< y (- 2.0))))
(assert (not (= x y)))
(check-sat)

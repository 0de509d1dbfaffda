; unsat: two times an integer cannot be odd
(set-logic QF_LIA)
(declare-const x Int)
(declare-const y Int)
(declare-const z Int)
(assert (= (+ x x) (+ (* 2 y) 1)))
(assert (or (> z x) (< z y) (= z 0)))
(assert (<= (- 100) x 100))
(check-sat)

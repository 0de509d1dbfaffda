; let: nested bindings, shadowing, parallel semantics
(set-logic QF_LIA)
(declare-const x Int)
(declare-const y Int)
(assert (let ((a (+ x 1)) (b (- y 1))) (let ((a (* 2 a)) (c a)) (and (> a b) (= c (+ x 1)) (distinct a c)))))
(assert (let ((x y) (y x)) (or (> x y) (= x 3))))
(assert (and (< 0 x 10) (< 0 y 10)))
(check-sat)

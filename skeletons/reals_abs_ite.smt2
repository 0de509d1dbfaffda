; reals: an absolute value written with ite, and distinct
(set-logic QF_LRA)
(declare-const x Real)
(declare-const y Real)
(define-fun absr ((v Real)) Real (ite (< v 0.0) (- v) v))
(assert (= (absr (- x y)) 2.5))
(assert (and (> x 0.0) (> y 0.0) (< (+ x y) 10.0)))
(assert (or (> x y) (= y 4.0)))
(check-sat)

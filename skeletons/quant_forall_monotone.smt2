; unsat: a monotone function (with a pattern) cannot decrease
(set-logic UFLIA)
(declare-fun f (Int) Int)
(declare-const a Int)
(declare-const b Int)
(assert (forall ((x Int) (y Int)) (! (=> (<= x y) (<= (f x) (f y))) :pattern ((f x) (f y)))))
(assert (and (< a b) (> (f a) 10)))
(assert (or (< (f b) 10) (= (f b) (- (f a) 1))))
(check-sat)

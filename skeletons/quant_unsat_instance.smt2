; unsat: an instance contradicts a universal fact
(set-logic UFLIA)
(declare-fun g (Int) Int)
(assert (! (forall ((x Int)) (> (g x) x)) :named gt))
(assert (or (< (g 5) 3) (= (g 5) 5)))
(check-sat)

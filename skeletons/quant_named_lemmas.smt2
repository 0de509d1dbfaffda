; quantifiers with :named, :pattern and nested let
(set-logic UFLIA)
(declare-fun w (Int) Int)
(declare-const c Int)
(assert (! (forall ((i Int)) (! (let ((j (+ i 1))) (>= (w j) (w i))) :pattern ((w i)))) :named mono))
(assert (! (> (w c) (w (+ c 2))) :named drop))
(assert (or (> c 0) (< c (- 5))))
(check-sat)

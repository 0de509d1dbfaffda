; unsat: define-fun-rec, a recursive function evaluated at a small argument
(set-logic ALL)
(define-fun-rec fact ((n Int)) Int (ite (<= n 1) 1 (* n (fact (- n 1)))))
(declare-const k Int)
(assert (= k (fact 3)))
(assert (or (> k 6) (< k 6)))
(check-sat)

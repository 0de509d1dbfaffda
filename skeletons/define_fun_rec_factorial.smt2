; unsat: define-fun-rec factorial evaluated at small arguments contradicts the asserted value
(set-logic ALL)
(define-fun-rec fact ((n Int)) Int (ite (<= n 0) 1 (* n (fact (- n 1)))))
(declare-const k Int)
(declare-const r Int)
(assert (and (= k 4) (= r (fact k))))
(assert (or (= r 25) (and (> r 30) (< (fact 3) 6))))
(assert (and (> (fact 2) 1) (not (= r 0)) (distinct k r 5)))
(check-sat)

; quantifiers: an existential witness under a universal
(set-logic LIA)
(declare-const n Int)
(assert (> n 3))
(assert (forall ((k Int)) (=> (and (> k 0) (< k n)) (exists ((m Int)) (and (> m k) (< m (+ n 1)))))))
(assert (or (< n 10) (= n 42)))
(check-sat)

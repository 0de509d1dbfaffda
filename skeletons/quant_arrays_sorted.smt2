; unsat: a sorted array cannot decrease
(set-logic AUFLIA)
(declare-const a (Array Int Int))
(declare-const n Int)
(assert (forall ((i Int) (j Int)) (=> (and (<= 0 i) (<= i j) (< j n)) (<= (select a i) (select a j)))))
(assert (and (= n 4) (= (select a 0) 2) (= (select a 3) 9)))
(assert (or (> (select a 1) (select a 2)) (< (select a 2) 2)))
(check-sat)

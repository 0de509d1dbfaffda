; arrays from integers to strings
(set-logic ALL)
(declare-const names (Array Int String))
(declare-const i Int)
(assert (= (select names i) "alice"))
(assert (= (str.len (select names (+ i 1))) 3))
(assert (or (str.prefixof "b" (select names (+ i 1))) (< i 0)))
(assert (distinct (select names i) (select names (+ i 1))))
(check-sat)

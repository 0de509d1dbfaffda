; unsat: acyclicity (x = cons(1, x)) and distinct constructors, behind a disjunction
(set-logic ALL)
(declare-datatype Stack ((empty) (push (top Int) (rest Stack))))
(declare-const x Stack)
(declare-const y Stack)
(declare-const n Int)
(assert (or (= x (push n x)) (and (= x empty) ((_ is push) x))))
(assert (and (= y (push n empty)) (> n 0) (not (= x y))))
(check-sat)

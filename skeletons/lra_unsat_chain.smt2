; unsat: a strict cycle of inequalities
(set-logic QF_LRA)
(declare-const a Real)
(declare-const b Real)
(declare-const c Real)
(assert (< a b))
(assert (< b c))
(assert (or (< c a) (and (= c a) (> b 0.0))))
(check-sat)

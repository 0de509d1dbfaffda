; unsat: NaN is not equal to itself under fp.eq
(set-logic QF_FP)
(declare-const n Float32)
(assert (fp.isNaN n))
(assert (or (fp.eq n n) (fp.leq n (_ +oo 8 24))))
(check-sat)

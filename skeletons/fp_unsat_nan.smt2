; unsat: a NaN is never fp.eq to anything, itself included
(set-logic QF_FP)
(declare-const x Float32)
(declare-const y Float32)
(declare-const q Float32)
(assert (= q (fp.div RNE x y)))
(assert (and (fp.isZero x) (fp.isZero y)))
(assert (or (fp.eq q q) (fp.leq q x) (fp.geq q y)))
(check-sat)

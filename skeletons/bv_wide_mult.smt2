; bit-vectors: 64-bit multiplication with a fixed result
(set-logic QF_BV)
(declare-const a (_ BitVec 64))
(declare-const b (_ BitVec 64))
(assert (= (bvmul a b) #x0000000000010000))
(assert (and (bvugt a #x0000000000000001) (bvugt b #x0000000000000001)))
(assert (or (= a b) (bvult a b)))
(assert (not (= (bvnot a) #x0000000000000000)))
(check-sat)

; quantified bit-vectors: a multiplicative inverse exists
(set-logic BV)
(declare-const a (_ BitVec 8))
(assert (= ((_ extract 0 0) a) #b1))
(assert (exists ((b (_ BitVec 8))) (= (bvmul a b) #x01)))
(assert (or (bvugt a #x10) (= a #x03)))
(check-sat)

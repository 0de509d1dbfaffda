; exists over bit-vectors: some byte whose double is the target, with extract on the result
(set-logic BV)
(declare-const t (_ BitVec 8))
(declare-const u (_ BitVec 8))
(assert (exists ((x (_ BitVec 8))) (and (= (bvadd x x) t) (bvugt x #x10))))
(assert (and (not (= t #x00)) (= ((_ extract 1 0) t) #b10) (bvult t u)))
(assert (or (bvugt u #xf0) (= (bvand t u) t)))
(check-sat)

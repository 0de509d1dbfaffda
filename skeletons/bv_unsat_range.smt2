; unsat: a byte with the sign bit set is signed-negative yet asked to be signed-positive
(set-logic QF_BV)
(declare-const b (_ BitVec 8))
(declare-const c (_ BitVec 8))
(assert (= ((_ extract 7 7) b) #b1))
(assert (or (bvsgt b #x05) (and (bvsge b #x00) (bvult c b))))
(assert (and (bvuge b #x81) (not (= c b)) (bvule c #xf0)))
(check-sat)

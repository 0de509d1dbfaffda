; unsat: x xor x is zero
(set-logic QF_BV)
(declare-const x (_ BitVec 32))
(declare-const y (_ BitVec 32))
(assert (distinct (bvxor x x) #x00000000))
(assert (or (bvult x y) (= (bvand x y) #x0000ffff)))
(check-sat)

; unsat: x xor y xor x must equal y, but the asserts require otherwise
(set-logic QF_BV)
(declare-const x (_ BitVec 12))
(declare-const y (_ BitVec 12))
(declare-const t (_ BitVec 12))
(assert (= t (bvxor (bvxor x y) x)))
(assert (or (bvult t y) (bvugt t y)))
(assert (and (bvuge x #x010) (not (= y #x000)) (bvsle t #x7ff)))
(check-sat)

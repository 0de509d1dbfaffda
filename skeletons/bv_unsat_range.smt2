; unsat: signed and unsigned views of the same byte
(set-logic QF_BV)
(declare-const b (_ BitVec 8))
(assert (bvslt b #x00))
(assert (bvult b #x80))
(assert (or (= b #x01) (bvugt b #x10)))
(check-sat)

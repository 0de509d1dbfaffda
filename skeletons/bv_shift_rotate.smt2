; bit-vectors: shifts and rotations
(set-logic QF_BV)
(declare-const v (_ BitVec 12))
(declare-const k (_ BitVec 12))
(assert (= (bvshl v #x001) ((_ rotate_left 1) v)))
(assert (and (bvult k #x00c) (distinct v #x000)))
(assert (or (= (bvlshr v k) #x001) (= (bvashr v k) #xfff)))
(assert (= ((_ rotate_right 3) v) ((_ rotate_left 9) v)))
(check-sat)

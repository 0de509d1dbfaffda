; strings: replace, quotes inside literals, lexicographic order
(set-logic QF_SLIA)
(declare-const s String)
(declare-const r String)
(assert (= r (str.replace s "a" "bb")))
(assert (= (str.len s) 3))
(assert (= (str.len r) 4))
(assert (or (str.<= s "b""c") (str.contains s "c")))
(check-sat)

; strings: bounded loops, complement, intersection and escapes
(set-logic QF_SLIA)
(declare-const w String)
(assert (str.in_re w ((_ re.loop 2 4) (re.union (str.to_re "a") (str.to_re "\u{62}")))))
(assert (str.in_re w (re.comp (str.to_re "aa"))))
(assert (str.in_re w (re.inter re.all (re.++ re.allchar (re.* re.allchar)))))
(assert (or (= (str.len w) 3) (str.contains w "ba")))
(assert (not (= w "")))
(check-sat)

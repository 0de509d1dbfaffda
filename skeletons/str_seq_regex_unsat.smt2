; unsat: a digit string cannot contain a letter
(set-logic QF_SLIA)
(declare-const d String)
(assert (str.in_re d (re.* (re.range "0" "9"))))
(assert (str.contains d "z"))
(assert (or (> (str.len d) 2) (= d "")))
(check-sat)

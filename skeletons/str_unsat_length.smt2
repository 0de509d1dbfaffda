; unsat: a concatenation is shorter than its own part
(set-logic QF_SLIA)
(declare-const s String)
(declare-const t String)
(declare-const r String)
(assert (= r (str.++ s "-" t)))
(assert (or (< (str.len r) (str.len t)) (and (str.contains s "--") (< (str.len r) 3))))
(assert (and (str.prefixof "x" s) (not (= t "")) (str.in_re t (re.+ (re.range "0" "9")))))
(check-sat)

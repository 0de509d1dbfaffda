; datatypes: a binary tree inspected with match
(set-logic ALL)
(declare-datatype Tree ((leaf (lval Int)) (node (left Tree) (right Tree))))
(declare-const t Tree)
(assert (match t (((leaf v) (> v 100)) ((node l r) (and ((_ is leaf) l) (distinct l r))))))
(assert (not ((_ is leaf) t)))
(assert (or (= (right t) (leaf 3)) ((_ is node) (right t))))
(check-sat)

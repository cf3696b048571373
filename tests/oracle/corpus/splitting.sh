# IFS field splitting and pathname expansion.
### default-ifs-collapses-blanks
v="  a   b  c "; set -- $v; echo $# "[$1]" "[$3]"
### custom-ifs-colon
p=/bin:/usr/bin::/opt; IFS=:; set -- $p; echo $#; for d in "$@"; do echo "[$d]"; done
### ifs-comma-and-space
IFS=', '; v="a, b,,c"; set -- $v; echo $#; printf '<%s>' "$@"; echo
### ifs-empty-no-split
IFS=; v="a b c"; set -- $v; echo $#
### ifs-restored-in-subshell
v="a:b"; (IFS=:; set -- $v; echo $#); set -- $v; echo $#
### split-result-of-command-substitution
set -- $(printf 'x y\nz\n'); echo $# "$3"
### no-split-in-double-quotes
v="a b"; set -- "$v"; echo $#
### no-split-in-assignment
v="a b"; w=$v; set -- $w; echo $#
### glob-star
touch b.txt a.txt c.log; echo *.txt; echo *
### glob-question-and-bracket
touch f1 f2 f10 g1; echo f?; echo [fg]1; echo f[!1]
### glob-no-match-stays
echo *.none; echo "n: nothing*"
### glob-hidden-files
touch .hidden seen; echo *; echo .h*
### glob-in-directory
mkdir -p d/sub; touch d/a d/b; echo d/*; echo */a
### glob-sorted
touch B a C b; echo *
### glob-from-variable
touch one.conf two.conf; p='*.conf'; echo $p; echo "$p"
### set-f-disables-glob
touch x; set -f; echo *; set +f; echo *
### glob-char-class
touch a1 b2 c3; echo [[:alpha:]]2 [a-b]*

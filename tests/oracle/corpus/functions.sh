# Functions: positional parameters, return, local.
### define-and-call
greet() { echo "hello $1"; }; greet world
### positional-params-in-function
f() { echo "$# [$1] [$2] [$*]"; }; f a "b c" d
### function-does-not-touch-outer-params
set -- outer; f() { echo "in $1"; }; f inner; echo "out $1"
### return-status
f() { return 3; }; f; echo $?
### return-without-value-keeps-last
f() { false; return; }; f; echo $?
### function-status-of-last-command
f() { true; false; }; f; echo $?
### local-variable
x=global; f() { local x=local; echo "$x"; }; f; echo "$x"
### local-without-value
x=1; f() { local x; echo "[${x-unset}]"; x=2; }; f; echo $x
### globals-change
c=0; inc() { c=$((c+1)); }; inc; inc; echo $c
### function-keyword-style-name
do_work() { echo working; }; do_work
### function-multiline
check() {
  if [ "$1" -gt 10 ]; then
    echo big
  else
    echo small
  fi
}
check 5; check 50
### function-recursion-bounded
fact() { if [ $1 -le 1 ]; then echo 1; else echo $(( $1 * $(fact $(( $1 - 1 ))) )); fi; }; fact 5
### function-in-pipeline
up() { tr a-z A-Z; }; echo shout | up
### function-redirect
f() { echo to-file; }; f > out; cat out
### function-body-redirected
f() { echo inner; } > out2; f; cat out2
### function-shift
f() { shift; echo "$@"; }; f a b c
### function-redefine
f() { echo one; }; f() { echo two; }; f
### unset-function !stderr
f() { echo hi; }; unset -f f; f; echo $?
### function-exit-ends-shell
f() { exit 5; }; f; echo never
### function-dollar-zero
f() { echo "$0"; }; f
### return-in-loop-in-function
f() { for i in 1 2 3; do [ $i = 2 ] && return 9; echo $i; done; }; f; echo $?
### function-subshell-body
f() ( x=inside; echo $x ); x=out; f; echo $x
### function-recursion-and-return-values
fact() { [ $1 -le 1 ] && { echo 1; return; }; echo $(( $1 * $(fact $(( $1 - 1 ))) )); }; fact 5; fib() { local n=$1; [ $n -lt 2 ] && return $n; fib $((n-1)); local a=$?; fib $((n-2)); return $((a + $?)); }; fib 7; echo $?
### function-redirected-body
f() { echo out; echo err >&2; } > fo 2> fe; f; cat fo fe; g() { cat; } < fo; g
### function-in-pipeline-and-background
f() { while read x; do echo "f:$x"; done; }; printf '1\n2\n' | f; f <<EOF2 &
bg
EOF2
wait
### command-builtin-bypasses-function
echo() { printf 'wrapped:%s\n' "$*"; }; echo hi; command echo direct; unset -f echo; echo normal
### positional-beyond-nine
set -- a b c d e f g h i j k; echo "$10 ${10} ${11} $#"
### special-vars-in-function
f() { echo "$# $1 $@"; shift; echo "$*"; }; f x y z; echo "$#"
### ifs-empty-and-custom
IFS=; v="a b"; for w in $v; do echo "[$w]"; done; IFS=:; v="x:y::z"; for w in $v; do echo "<$w>"; done
### quoting-edge-cases
echo 'a'"b"c\ d "$(echo "in'side")" '$HOME' "\$HOME" "a\\b" 'it'\''s' "tab	here"
### glob-no-match-and-dotfiles
touch .hidden vis; echo *; echo .*; echo nomatch*; set -f; echo *; set +f; echo [v]is
### tilde-expansion
HOME=/home/u; echo ~ ~/x "~" x~y; a=~; echo $a

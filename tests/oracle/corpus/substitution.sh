# Command substitution: $(...) and backticks, nested.
### dollar-paren
d=$(echo hello); echo "got $d"
### backticks
d=`echo world`; echo "got $d"
### trailing-newlines-removed
v=$(printf 'a\n\n\n'); echo "[$v]"
### inner-newlines-kept-quoted
v=$(printf 'a\nb'); echo "$v"; echo $v
### nested-dollar-paren
echo $(echo $(echo $(echo deep)))
### nested-backticks-escaped
echo `echo \`echo inner\``
### backtick-in-dollar-paren
echo $(echo `echo mix`)
### substitution-status
v=$(false); echo $?; v=$(exit 3); echo $?
### substitution-in-string
echo "user=$(id -u) dir=$(basename "$PWD")"
### quoted-inside-substitution
v="$(echo "a   b")"; echo "[$v]"
### substitution-sees-variables
x=5; echo $(echo $x; x=6; echo $x); echo $x
### substitution-of-file
printf 'line1\nline2\n' > f; c=$(cat f); echo "$c" | wc -l
### substitution-with-pipe
n=$(printf 'a\nb\nc\n' | wc -l); echo $((n+0))
### substitution-with-case-parens
v=$(case x in x) echo matched;; esac); echo $v
### substitution-assign-in-subshell-not-kept
v=1; w=$(v=2; echo $v); echo $v $w
### substitution-in-for
for f in $(echo a b c); do echo "<$f>"; done
### substitution-stderr-passes
v=$(echo out; echo err >&2); echo "v=$v"
### backslash-dollar-in-backticks
v=`echo \$HOME`; echo "$v"

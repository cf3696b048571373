# Redirections on simple and compound commands, here-docs.
### write-and-append
echo one > f; echo two >> f; cat f
### truncate
echo long-line > f; echo s > f; cat f
### input-redirect
printf 'x\ny\n' > f; wc -l < f
### stderr-to-file
ls /nope 2> err; echo "rc=$?"; cat err
### stderr-to-stdout
ls /nope 2>&1 | sed 's/^/got: /'
### stdout-to-stderr
echo warn >&2 2>/dev/null; echo visible 1>&2
### devnull
echo gone > /dev/null; cat /dev/null; echo ok
### order-matters
ls /nope > out 2>&1; echo "a: $(cat out)"; ls /nope 2>&1 > out2; echo "b: $(cat out2)"
### empty-redirect-creates
> empty; [ -f empty ] && [ ! -s empty ] && echo created-empty
### redirect-before-command
> f echo first; cat f
### redirect-on-if
if true; then echo from-if; fi > f; cat f
### redirect-on-while
i=0; while [ $i -lt 2 ]; do echo $i; i=$((i+1)); done > f; cat f
### redirect-on-subshell
(echo a; echo b >&2) > o 2> e; echo "o=$(cat o) e=$(cat e)"
### fd-3
exec 3> f3; echo via3 >&3; exec 3>&-; cat f3
### read-from-fd
echo data > in; exec 4< in; read -r line <&4; echo "$line"; exec 4<&-
### noclobber !stderr
echo a > f; set -C; echo b > f; echo "rc=$?"; echo c >| f; cat f
### read-write
echo hi > rw; cat <> rw
### redirect-missing-dir !stderr
echo x > nodir/f; echo "rc=$?"
### redirect-missing-input
cat < missing; echo "rc=$?"
### heredoc-unquoted-expands
name=world; cat <<EOF
hello $name
sum $((1+2)) cmd $(echo sub)
EOF
### heredoc-quoted-literal
name=world; cat <<'EOF'
hello $name $(echo no)
EOF
### heredoc-double-quoted-delimiter
cat <<"END"
$HOME `x`
END
### heredoc-dash-strips-tabs
cat <<-EOF
	indented
		twice
	EOF
### heredoc-backslashes
cat <<EOF
a\$b \\ c\
d
EOF
### heredoc-to-file
cat > conf <<EOF
key=value
EOF
cat conf
### heredoc-into-while
while read -r a b; do echo "$b-$a"; done <<EOF
1 one
2 two
EOF
### heredoc-two-in-a-row
cat <<A; cat <<B
first
A
second
B
### heredoc-in-function
f() { cat <<EOF
in function $1
EOF
}; f arg
### heredoc-empty
cat <<EOF
EOF
echo after
### heredoc-into-tr
tr a-z A-Z <<EOF
lower
EOF
### dup-of-a-closed-descriptor
echo x >&3; echo rc=$?; cat <&4; echo rc=$?; exec 3>/dev/null; exec 3>&-; echo y >&3; echo rc=$?; echo z 5>&3; echo rc=$?; echo w >&9; echo rc=$?
### dup-of-a-word-is-a-redir-error
(cat <&foo); echo "sub=$?"; echo x >&foo; cat foo
### dup-of-closed-stdout
exec 5>&1; { echo a >&2; } 2>&1 >&-; echo rc=$?
### exit-trap-of-a-piped-subshell-in-a-redirected-group
{ (trap "echo t" EXIT; echo a) | cat; echo b; } > f; echo ---; cat f
### exit-trap-of-a-piped-subshell-passes-the-pipe
{ (trap "echo t" EXIT; echo a) | cat > g; } > f; echo ---; cat f; echo --g; cat g
### exit-trap-of-a-piped-subshell-without-a-group
(trap "echo t" EXIT; echo a) | cat > g; echo ---; cat g
### exit-trap-of-a-piped-subshell-group-redirects-stderr-only
{ (trap "echo t >&2" EXIT; echo a) | cat; } 2> f; echo ---; cat f
### exit-trap-of-a-piped-subshell-in-a-function
f() { (trap "echo t" EXIT; echo a) | tr a-z A-Z; }; f > out; echo ---; cat out
### exit-trap-of-a-last-stage
{ echo x | (trap "echo t" EXIT; cat); } > f; echo ---; cat f
### exit-trap-in-nested-groups-and-pipes
{ { (trap "echo t" EXIT; echo a) | cat; } > f; } | tr a-z A-Z; echo ---; cat f
### exit-trap-before-a-while-read-stage
{ (trap "echo t" EXIT; echo a) | while read l; do echo "got $l"; done; } > f; cat f
### saved-stdout-reaches-past-a-pipe
exec 3>&1; { echo x >&3; echo y; } | cat > /dev/null; echo done

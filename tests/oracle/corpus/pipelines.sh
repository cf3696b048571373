# Pipelines and their statuses, ! && ||, background and wait, subshells and brace groups.
### simple-pipe
echo hello | tr a-z A-Z
### three-stage
printf 'b\na\nc\n' | sort | head -n 2
### status-of-last
false | true; echo $?; true | false; echo $?
### bang-inverts
! false; echo $?; ! true; echo $?; ! false | false; echo $?
### and-or-chain
true && echo a || echo b; false && echo c || echo d
### or-chain-stops
false || false || echo third; true || echo never
### and-chain-status
true && false; echo $?; false && true; echo $?
### pipe-into-while-read
printf '1\n2\n3\n' | while read -r n; do echo "n=$n"; done
### pipe-subshell-vars-lost
x=0; echo 5 | read x; echo "x=$x"
### background-and-wait
(echo bg) & wait; echo "done $?"
### wait-for-pid-status
(exit 7) & p=$!; wait $p; echo "status $?"
### background-pid-is-set
sleep 0.05 & [ -n "$!" ] && echo has-pid; wait
### two-background-jobs-wait-all
(sleep 0.1; echo one) & (echo two) & wait; echo all
### subshell-isolates
x=1; (x=2; echo in $x); echo out $x
### subshell-exit-status
(exit 4); echo $?
### subshell-cd-isolated
mkdir sub; (cd sub && pwd | sed 's,.*/,,'); basename "$PWD" | cut -c1-6
### brace-group-shares
x=1; { x=2; echo in $x; }; echo out $x
### brace-group-redirect
{ echo a; echo b; } > out; cat out
### brace-group-pipe
{ echo 3; echo 1; echo 2; } | sort
### subshell-pipe
(echo x; echo y) | wc -l
### pipe-stderr-not-piped
{ echo out; echo err >&2; } 2>/dev/null | cat
### pipe-both-streams
{ echo out; echo err >&2; } 2>&1 | sort
### exit-in-pipeline-stage
echo a | exit 3; echo "still here $?"
### negated-pipeline-in-if
if ! echo x | grep -q y; then echo no-y; fi
### long-and-or-list
[ -d /tmp ] && [ -w /tmp ] && echo writable || echo nope
### semicolons-and-newlines
echo a; echo b
echo c

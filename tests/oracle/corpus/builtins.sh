# Special parameters and builtins: set, shift, eval, exec, export, readonly, unset, read, trap,
# exit, ., command -v, type, cd, getopts, test.
### special-question
true; echo $?; false; echo $?
### special-hash-and-at
set -- a b c; echo $# "$@"
### special-dollar-is-number
case $$ in ''|*[!0-9]*) echo bad;; *) echo number;; esac
### special-zero
echo "$0"
### special-dash-flags
set -f; case $- in *f*) echo has-f;; esac; set +f; case $- in *f*) echo still;; *) echo cleared;; esac
### set-e-stops
set -e; echo before; false; echo after
### set-e-not-in-condition
set -e; if false; then :; fi; false || echo rescued; echo survived
### set-e-in-and-list
set -e; false && echo no; echo reached
### set-u-unset-fails !stderr
set -u; echo "${unset_var}"; echo never
### set-u-default-ok
set -u; echo "${unset_var:-fine}"
### set-x-traces
set -x; a=1; echo "v $a"; set +x; echo quiet
### set-dash-dash
set -- -x -y; echo "$1 $2 $#"
### set-o-errexit
set -o errexit; case $- in *e*) echo errexit-on;; esac
### shift-one
set -- a b c; shift; echo "$@"
### shift-n
set -- a b c d; shift 2; echo "$1 $#"
### shift-too-many !stderr
set -- a; shift 3; echo "rc=$?"
### eval-simple
cmd='echo evaluated'; eval "$cmd"
### eval-builds-variable-name
n=2; eval "v$n=two"; eval echo "\$v$n"
### eval-status
eval false; echo $?; eval; echo $?
### exec-replaces
exec echo from-exec; echo never
### exec-redirect-only
exec > out; echo into-file; exec >&2; cat out >&2
### export-to-child
export MYVAR=exported; sh -c 'echo "$MYVAR"'
### export-not-without
NOTEXP=hidden; sh -c 'echo "[$NOTEXP]"'
### export-p-shows
export ZED=1; export -p | grep ZED
### readonly-assign-fails !stderr
readonly R=1; R=2; echo "never $R"
### readonly-in-subshell-status !stderr
readonly R=1; (R=2); echo "rc=$?"
### unset-variable
v=1; unset v; echo "[${v:-none}]"
### unset-readonly !stderr
readonly R=1; unset R; echo "rc=$? R=$R"
### read-basic
echo "a b c" | { read x y; echo "[$x] [$y]"; }
### read-r-keeps-backslash
printf 'a\\b c\n' | { read -r x; echo "$x"; }; printf 'a\\b c\n' | { read x; echo "$x"; }
### read-ifs
echo "k=v=w" | { IFS== read -r key val; echo "$key|$val"; }
### read-eof-status
printf 'last' | { read -r x; echo "rc=$? x=$x"; }
### read-from-heredoc
read -r first rest <<EOF
one two three
EOF
echo "$first/$rest"
### read-empty-line
printf '\nx\n' | { read -r a; echo "[$a]"; read -r b; echo "[$b]"; }
### read-lines-keep-blanks
printf '  a \nb\n' | while IFS= read -r l; do printf '[%s]' "$l"; done; echo
### trap-exit
trap 'echo cleanup' EXIT; echo working
### trap-exit-on-exit-code
trap 'echo "bye $?"' EXIT; exit 3
### trap-reset
trap 'echo x' EXIT; trap - EXIT; echo none
### trap-in-subshell
(trap 'echo sub-exit' EXIT; echo in-sub); echo out
### exit-code
exit 42
### exit-big-wraps
exit 300
### exit-no-arg-last-status
false; exit
### dot-source
echo 'SOURCED=yes; f() { echo from-file; }' > lib.sh; . ./lib.sh; echo $SOURCED; f
### dot-missing !stderr
. ./nope.sh; echo "rc=$?"
### command-v-builtin-and-applet
command -v echo; command -v ls; command -v cd
### command-v-missing
command -v nosuchthing; echo "rc=$?"
### command-v-function
f() { :; }; command -v f
### type-various
type cd; type ls; f() { :; }; type f
### type-missing !stderr
type nosuchthing; echo "rc=$?"
### colon-true-false
:; echo $?; true; echo $?; false; echo $?
### cd-and-oldpwd
mkdir -p a/b; cd a/b; basename "$PWD"; cd - >/dev/null; basename "$PWD" | cut -c1-6
### cd-missing !stderr
cd /nonexistent; echo "rc=$?"
### pwd-after-cd-dotdot
mkdir -p x/y; cd x/y; cd ..; basename "$(pwd)"
### getopts-loop
set -- -a -b val rest; while getopts ab: o; do echo "$o ${OPTARG:-}"; done; shift $((OPTIND-1)); echo "$@"
### test-builtin-forms
[ 1 -lt 2 ] && echo lt; test abc = abc && echo eq; [ ! -e nothing ] && echo absent; [ -z "" ] && echo empty
### test-string-ops
[ "a" \< "b" ] && echo less; [ -n x -a -z "" ] && echo and; [ x = y -o 1 = 1 ] && echo or
### test-files
touch f; mkdir d; [ -f f ] && echo file; [ -d d ] && echo dir; [ -r f -a -w f ] && echo rw; [ -x d ] && echo xdir
### test-bad-number !stderr
[ abc -eq 1 ]; echo "rc=$?"
### wait-no-jobs
wait; echo "rc=$?"
### kill-zero-self
kill -0 $$ && echo alive
### umask-value
umask; umask 077; umask
### wait-for-background-true
true & wait $!; echo "rc=$?"
### alias-in-script
alias ll='echo aliased'
ll
### trap-exit-of-subshell-in-redirected-group
{ (trap 'echo trapped' EXIT; true); echo after; } > g; echo "g=[$(cat g)]"; { (trap 'echo last' EXIT; true); } > h; echo "h=[$(cat h)]"
### trap-exit-of-subshell-after-redirected-group-ends
f() { (trap 'echo t' EXIT; true); echo in; }; f > g; echo "g=[$(cat g)]"
### trap-exit-in-cmdsub-of-redirected-group
x=$( { (trap 'echo t' EXIT; true); echo a; } > f ); echo "x=[$x]"; cat f
### trap-exit-subshell-in-redirected-loop
i=0; while [ $i -lt 1 ]; do (trap 'echo t' EXIT; true); i=1; done > f; echo "f=[$(cat f)]"
### trap-exit-group-of-one-subshell-takes-its-redirections
{ (trap 'echo t' EXIT; true); } 2>&1 > f; echo "f=[$(cat f)]"; { { (echo inner) > x; } > y; }; ls; cat y
### trap-exit-stderr-of-redirected-group
{ (trap 'echo t >&2' EXIT; true); echo a; } 2> f; echo "f=[$(cat f)]"
### test-a-is-no-unary !stderr
test -a /etc; echo "a=$?"; test \( a; echo "p=$?"; [ \( a ; echo "pb=$?"
### test-closing-paren-expected
test \( a; echo "p=$?"; busybox test \( a; echo "app=$?"; [[ abc =~ b ]]; echo "re=$?"
### test-applet-names-its-errors
busybox [ 1 -eq x ]; echo $?; busybox test 1 -eq x; echo $?; test 1 -eq x; echo $?; busybox [ a; echo $?; env [ a ]; echo $?; env test 1 -lt 2 -a 3; echo $?
### test-builtin-and-applet-agree
for e in '-n' '! -n' '-z ""' 'a = a -o b' '! a = b' '( a = a )' '-f /etc/passwd -a -d /etc' '1 -gt 2 -o 3 -lt 4' 'a -a' '-x' '= =' '! = a' '-e'; do eval "test $e"; a=$?; eval "busybox test $e"; b=$?; echo "$e: $a $b"; done
### test-odd-argument-counts
test 1 2 3; echo $?; busybox test 1 2 3; echo $?; test -q x; echo $?; busybox test -q x; echo $?; [ ]; echo $?; busybox [ ]; echo $?; test ' 12 ' -eq 12; echo $?; busybox test ' 12 ' -eq 12; echo $?
### test-out-of-range-and-signs
test abc \< abd; echo $?; busybox test abc \> abd; echo $?; test 99999999999999999999 -gt 1; echo $?; busybox test -1 -lt 0; echo $?; test +1 -eq 1; echo $?
### test-from-find-and-xargs
find /etc -maxdepth 1 -name passwd -exec test -f {} \; -print; echo x | xargs test -n && echo xargs-ok
### alias-applies-from-the-next-line !stderr
alias ll='echo hi'; ll; echo rc=$?
ll
f() { ll; }
alias ll='echo changed'
f; ll
eval 'alias r="echo r"
r'
(alias s='echo s'; s); s; echo rc=$?
### alias-in-sourced-file
printf "alias g='echo g'\ng\n" > a.sh; . ./a.sh; g
### ulimit-set-and-read
ulimit -n 512; ulimit -n; ulimit -Hn; ulimit -S -n 100; ulimit -n; ulimit -Hn; ulimit -S -n 600; echo rc=$?; ulimit -n foo; echo rc=$?; ulimit -z; echo rc=$?; ulimit -n 010; ulimit -n; (ulimit -n 5; ulimit -n); ulimit -n
### ulimit-labels
ulimit -n 64; ulimit -c 0; ulimit -n -c; ulimit -a | grep -c .; ulimit -a | cut -c1-38 | head -3; ulimit -f; ulimit
### ulimit-core
ulimit -S -c 10; ulimit -c; ulimit -c 0; ulimit -c; ulimit -Hc
### hash-lookups
hash; echo rc=$?; hash -r; echo rc=$?; hash cat; echo rc=$?; hash nosuch; echo rc=$?; hash cd; echo rc=$?; f() { :; }; hash f; echo rc=$?; hash -v; echo rc=$?; hash nosuch 2>/dev/null || echo missing
### jobs-listing !stderr
sleep 1 & jobs; echo rc=$?; jobs -p | grep -c .; fg; echo rc=$?; bg; echo rc=$?; fg %1; fg %2; fg %-; echo rc=$?; kill %1; wait %1; echo "w=$?"; jobs; jobs; echo rc=$?
### jobs-done-and-failed
true & false & sleep 0.2; jobs; jobs; (exit 3) & wait; jobs; sleep 5 & kill $!; sleep 0.1; jobs; jobs %1; echo rc=$?
### jobs-two-running
sleep 1 & sleep 2 & jobs; jobs -l | sed 's/[0-9][0-9]* Running */PID Running/'; kill %2 %1; wait; jobs; kill %3; echo rc=$?; wait %3; echo rc=$?
### history-in-a-script
history; echo rc=$?
### jobs-seen-from-pipes-and-substitutions
sleep 1 & x=$(jobs); echo "[$x]"; (jobs); echo ---; jobs | cat; { jobs; } | cat; x=$(jobs -p; echo); echo "[$x]"
### kill-shell-from-subshell-trap-wait
trap 'echo stopping; exit 0' TERM; sleep 3 & pid=$!; (sleep 0.2; kill -TERM $$) & wait $pid; echo "after wait $?"
### kill-shell-from-subshell-no-trap
(kill $$); echo "not reached"
### kill-shell-from-subshell-trap-continues
trap 'echo got-usr1' USR1; (kill -USR1 $$); echo "after $?"; sleep 0.1 & (sleep 0.05; kill -USR1 $$) & wait; echo "wait rc=$?"
### watchdog-timeout
trap 'echo "timed out"; exit 7' ALRM; (sleep 0.2; kill -ALRM $$) & watchdog=$!; sleep 1; echo "work done"; kill $watchdog 2>/dev/null
### set-e-assignment-from-failed-substitution
set -e; x=$(false); echo "not reached $x"
### set-e-local-masks-status
set -e; f() { local x=$(false); echo "local masks: $?"; }; f
### set-e-in-function-called-in-condition
set -e; f() { false; echo "in f after false"; }; if f; then echo ok; fi; f || echo rescued; echo end
### set-e-subshell-exit
set -e; (false; echo no); echo "after subshell"
### set-e-pipeline-last-fails
set -e; true | false; echo never
### set-e-while-condition
set -e; i=0; while [ $i -lt 2 ]; do i=$((i+1)); done; echo "i=$i"; until true; do :; done; echo done
### set-e-negated-and-arith
set -e; ! true; echo "negation ok"; x=0; : $((x++)); echo "x=$x"; ((x)) 2>/dev/null; echo "after"
### set-e-trap-exit-status
set -e; trap 'echo "exit trap rc=$?"' EXIT; false
### set-u-in-arith-and-length
set -u; a=1; echo $((a+1)); (echo ${#undefined_v}) 2>/dev/null || echo "len fails"; echo "${undefined_v-ok}"
### set-x-with-subst-and-assign
set -x; a=$(echo hi) b=2; echo "$a" >/dev/null; set +x
### read-t-waits-for-input-that-comes-in-time
(sleep 1; echo hi) | { read -t 2 x; echo "[$x] $?"; }
### read-t-gives-up-then-the-line-comes
(sleep 1; echo hi) | { read -t 0.3 x; echo "[$x] $?"; read y; echo "[$y] $?"; }
### read-t-loses-a-partial-line-and-keeps-the-name
x=old; (printf ab; sleep 1; echo cd) | { read -t 0.3 x; echo "[$x] $?"; read y; echo "[$y] $?"; }
### read-t-at-the-end-and-bad-timeouts
read -t 1 x < /dev/null; echo $?; read -t abc x; echo $?; read -t -1 x; echo $?
### read-t-on-a-silent-writer
sleep 2 | { read -t 1 x; echo "rc=$?"; }; echo end
### read-t-loop-ends-on-a-slow-line
(echo a; sleep 1; echo b; sleep 3; echo c) | while read -t 2 l; do echo "got $l"; done; echo "out $?"
### read-t-fraction-splits-fields
(sleep 1; echo "one two three") | { read -t 1.5 a b; echo "$a|$b|$?"; }
### read-t-with-n
(sleep 1; printf 'abc') | { read -t 3 -n 2 a; echo "$a|$?"; read -t 3 b; echo "$b|$?"; }
### getopts-ash-state
echo "start=$OPTIND"
set -- -ab -c; getopts abc o; echo "$o $OPTIND"; getopts abc o; echo "$o $OPTIND"; OPTIND=1; getopts abc o; echo "after reset: $o $OPTIND"
set -- -x; getopts ab o 2>&1; echo "o=$o OPTARG=${OPTARG-unset} OPTIND=$OPTIND"
set -- -a; getopts a: o 2>&1; echo "o=$o OPTARG=${OPTARG-unset} OPTIND=$OPTIND"; getopts a: o; echo "rc=$? o=$o OPTIND=$OPTIND OPTARG=${OPTARG-unset}"
f() { getopts q o; echo "in f: $o $OPTIND"; }; set -- -a -b; OPTIND=1; getopts ab o; f -q; getopts ab o; echo "after f: $o $OPTIND"
set -- a b; OPTIND=1; getopts ab o; echo "rc=$? o=$o OPTIND=$OPTIND"
set -- -a -- -b; OPTIND=1; while getopts ab o; do echo "got $o"; done; echo "OPTIND=$OPTIND o=$o"
set -- -; OPTIND=1; getopts a o; echo "rc=$? o=$o OPTIND=$OPTIND"
OPTIND=1; getopts a: o -a; echo "rc=$? o=$o OPTARG=${OPTARG-unset}"
OPTIND=1; getopts ":a:" o -a; echo "rc=$? o=$o OPTARG=${OPTARG-unset}"
OPTIND=1; getopts "a" o -:; echo "rc=$? o=$o OPTARG=${OPTARG-unset}"
### getopts-function-local-optind
f() { local OPTIND opt; while getopts v opt; do echo "f:$opt"; done; shift $((OPTIND-1)); echo "args:$* OPTIND=$OPTIND"; }; f -v x; f y; f -v -v z; echo "outside: $OPTIND"
### getopts-optarg-values
set -- -a -b val -c file; while getopts ab:c opt; do echo "$opt [${OPTARG-unset}]"; done; echo "OPTIND=$OPTIND [${OPTARG-unset}]"; OPTERR=0; OPTIND=1; getopts a o -z; echo "$o [${OPTARG-unset}]"
### getopts-script-options
printf 'while getopts "hn:v" o; do case $o in h) echo help;; n) echo "name=$OPTARG";; v) echo verbose;; *) echo "usage" >&2; exit 2;; esac; done; shift $((OPTIND - 1)); echo "rest: $*"\n' > opts.sh; sh opts.sh -v -n web -- a b; sh opts.sh -x; echo "rc=$?"
### g2-a
set -- -x; getopts ab o 2>&1; echo "o=$o"
### g2-b
set -- -x; getopts ab o 2>/dev/null; echo "o=$o"
### g2-c
getopts ab o -x 2>&1; echo "o=$o"
### g2-d
set -- -x; { getopts ab o; } 2>&1; echo "o=$o"
### printf-int-ranges
printf '%d\n' 9223372036854775807 9223372036854775808 18446744073709551615; echo "rc=$?"; printf '%u %x %o\n' 18446744073709551615 18446744073709551615 -1; printf '%u\n' 18446744073709551616; printf '%i\n' -9223372036854775808 -9223372036854775809; echo "rc=$?"
### printf-size-modifiers
printf '%ld %lld %hd %zd %Lf|\n' 1 2 3 4 1.5; printf '%lx %llu\n' 255 7; printf '%jd\n' 5; echo "rc=$?"; printf '%z\n' 1; echo "rc=$?"; printf '%qd\n' 1; echo "rc=$?"
### printf-applet-errors
busybox printf '%d\n' x; echo "rc=$?"; env printf '%jd\n' 1; echo "rc=$?"; busybox printf; echo "rc=$?"
### test-error-messages
[ 1 -eq a ]; echo "rc=$?"; [ 1 -lt ]; echo "rc=$?"; [ -z ]; echo "rc=$?"; [ a = ]; echo "rc=$?"; test 1 -eq 2 -o; echo "rc=$?"; [ ]; echo "rc=$?"; [ 1 2 ]; echo "rc=$?"
### test-applet-vs-builtin-messages
/bin/test 1 -eq x; echo "rc=$?"; /bin/[ 1 -eq 1; echo "rc=$?"; busybox test -n; echo "rc=$?"; env [ a = a ]; echo "rc=$?"
### test-precedence
[ ! "" ]; echo $?; [ ! ! x ]; echo $?; [ x -a "" -o y ]; echo $?; [ "" -o x -a "" ]; echo $?; [ \( x -o "" \) -a "" ]; echo $?; [ ! \( -n x \) ]; echo $?
### test-unary-as-string
[ -f ]; echo $?; [ -n -n ]; echo $?; [ -z -z ]; echo $?; [ = = = ]; echo $?; [ ! = ! ]; echo $?; [ -a ]; echo $?
### test-integers
[ -5 -lt 3 ]; echo $?; [ " 3 " -eq 3 ]; echo $?; [ +3 -eq 3 ]; echo $?; [ 08 -eq 8 ]; echo $?; [ 9223372036854775807 -gt 0 ]; echo $?; [ 9223372036854775808 -gt 0 ]; echo "rc=$?"
### test-files-more
touch f; chmod 600 f; [ -r f ] && echo r; [ -x f ] || echo notx; ln -s nowhere dangling; [ -e dangling ] || echo "no target"; [ -L dangling ] && echo link; [ -h dangling ] && echo h; [ -d / -a -f /etc/passwd ] && echo both; [ -S /dev/null ] || echo notsock; [ -c /dev/null ] && echo chr; [ -p f ] || echo notfifo; [ -t 0 ] || echo notty
### test-ef-and-s
echo x > a; ln a b; ln -s a c; [ a -ef b ] && echo hard; [ a -ef c ] && echo sym; [ -s a ] && echo nonempty; : > e; [ -s e ] || echo empty
### echo-edge-2
echo -e '\x41\101\0101\n' | od -c | head -2; echo -e 'a\cb'; echo 'x'; echo -n; echo -ne '\t|'; echo; echo -e '\\'; echo '\\'; echo -e 'tab\tend' | cut -f2
### echo-options-combos
echo -nE 'a\n'; echo; echo -en; echo -n -n x; echo; echo -enn y; echo; echo -ex 'z'; echo -
### printf-b-and-q-2
printf '%b|%b|%b\n' 'a\0b' '\x41' '\0101'; printf '%b\n' 'stop\chere'; echo after; printf '[%s]\n' "$(printf 'a\nb\n\n')"
### printf-width-star-neg
printf '[%*s][%-*s][%.*s]\n' -4 a 3 b -1 cde; printf '[%*d]\n' 3; printf '%s %s %s\n' 1 2
### dot-args-and-return
printf 'echo "in: $# $1"\nreturn 3\necho no\n' > r.sh; set -- outer x; . ./r.sh a; echo "rc=$? after: $# $1"; . ./r.sh; echo "rc=$? $1"
### dot-missing-and-path
. ./nosuch.sh; echo "rc=$?"
### sh-script-args-and-dollar0
printf 'echo "$0|$#|$*"\n' > s.sh; sh s.sh; sh ./s.sh a "b c"; sh -c '. ./s.sh' x y; chmod +x s.sh; ./s.sh z
### sh-c-dollar-dollar
sh -c 'exec sh -c "echo \$\$"' | grep -c '^[0-9][0-9]*$'; sh -c 'echo $$' | grep -c '^[0-9]'
### sh-c-exit-status-propagation
sh -c 'exit 42'; echo $?; sh -c 'false'; echo $?; sh -c 'kill -9 $$'; echo $?; (exit 300); echo $?
### script-with-functions-and-trap
cat > job.sh <<'EOF2'
cleanup() { echo "cleanup $1"; }
trap 'cleanup done' EXIT
main() { echo "main $*"; return 5; }
main "$@"
echo "main returned $?"
EOF2
sh job.sh one two; echo "rc=$?"
### script-reading-stdin
printf 'while read l; do echo "got:$l"; done\n' > rd.sh; printf 'x\ny\n' | sh rd.sh; echo 'echo from-file' > ff.sh; sh < ff.sh
### script-set-e-and-or
printf 'set -e\nfalse || echo recovered\nif false; then :; fi\nfalse && echo no\necho reached\nfalse\necho never\n' > se.sh; sh se.sh; echo "rc=$?"
### script-u-unset
sh -u -c 'echo ${X-default}; echo $X'; echo "rc=$?"
### test-paren-special-cases
for t in '( -n x )' '! ( -n x )' '( ! x )' '( a = a )' '! ( a = b )' '( x )' '! ( x )' '( -z "" )' '! ! ( a = a )' '! x = y' '! -n ""' '! ! x' '( ! "" )' '! ( ! x )' '-n x -a ( y )'; do eval "test $(echo "$t" | sed 's/[()!]/\\&/g')"; echo "$t => $?"; done 2>&1
### param-error-messages
sh -c 'echo ${X:?is required}'; echo "rc=$?"; sh -c 'echo ${X?}'; echo "rc=$?"; sh -c 'set -u; echo $NOPE'; echo "rc=$?"; sh -c 'X=; echo ${X:?}'; echo "rc=$?"
### readonly-and-unset-errors
sh -c 'readonly R=1; R=2; echo no'; echo "rc=$?"; sh -c 'readonly R=1; unset R'; echo "rc=$?"; sh -c 'readonly R=1; export R=3'; echo "rc=$?"
### arith-errors
sh -c 'echo $((1/0))'; echo "rc=$?"; sh -c 'echo $((1 +))'; echo "rc=$?"; sh -c 'x=abc; echo $((x + 1))'; echo "rc=$?"; sh -c 'x=1+2; echo $((x * 3))'
### export-p-and-env
sh -c 'export FOO=bar; export -p | grep FOO'; sh -c 'FOO=1; export FOO; env | grep ^FOO='
### command-v-type
command -v echo; command -v nosuch; echo "rc=$?"; type cd; f() { :; }; type f | head -1; command -V true; alias ll='ls -l'; command -v ll
### cd-and-pwd
mkdir -p x/y; cd x/y; pwd; cd ..; pwd; cd -; cd /; cd nosuch; echo "rc=$?"; cd "$OLDPWD"; pwd
### umask-forms
umask; umask 077; umask; umask -S; (umask 022; touch um; stat -c %a um); umask 0022
### local-scoping
x=global; f() { local x=inner; g; echo "f sees $x"; }; g() { echo "g sees $x"; x=changed; }; f; echo "after $x"
### unset-f-and-functions
f() { echo f; }; unset -f f; f 2>&1; echo "rc=$?"; g() { return 7; }; g; echo "g=$?"
### read-ifs-edge
echo 'a:b:c' | { IFS=: read x y; echo "[$x][$y]"; }; echo '  lead trail  ' | { read v; echo "[$v]"; }; echo 'a\ b' | { read v; echo "[$v]"; }; printf 'x' | { read v; echo "rc=$? [$v]"; }
### case-fallthrough-and-patterns
for w in '' '*' 'a]' '-x' 'A'; do case "$w" in '') echo empty;; \*) echo star;; *]) echo bracket;; -*) echo dash;; [[:upper:]]) echo upper;; esac; done
### arith-assign-forms
x=5; : $((x+=2)) $((y=x*2)); echo $x $y; echo $((x>y?x:y)) $((0x10 + 010 + 2#11)); i=0; while [ $((i+=1)) -le 3 ]; do :; done; echo $i
### string-length-and-patterns
s='/a/b/c.tar.gz'; echo ${#s} ${s#*/} ${s##*/} ${s%.*} ${s%%.*}; v=abcabc; echo ${v/b/X} ${v//b/X} ${v/#a/S} ${v/%c/E}
### positional-beyond-nine
set -- 1 2 3 4 5 6 7 8 9 ten eleven; echo $10 ${10} ${11} $#; shift 10; echo $1
### subshell-and-vars
x=1; (x=2; echo in $x); echo out $x; y=$(x=3; echo $x); echo $x $y; { x=4; }; echo $x
### nested-quotes
echo "a 'b' \"c\" \$d `echo e`"; echo 'a "b" $c'; echo "$(echo "inner \"q\"")"
### heredoc-variants
cat <<-EOF
	tab stripped $HOME
	EOF
cat <<'E'
no $expansion `here`
E
### exit-trap-and-status
sh -c 'trap "echo bye \$?" EXIT; exit 3'; echo "rc=$?"
### alias-described
alias ll='ls -l'; type ll; command -V ll; alias q="it's"; command -v q; type if; command -v if; unalias ll; type ll; echo "rc=$?"
### umask-symbolic
umask u=rwx,g=rx,o=; umask; umask g-x; umask; umask a+w; umask; umask -S; umask -S 027; umask; umask 8; echo "rc=$?"; umask 0777 x; echo "rc=$?"; umask; umask 022
### readonly-redeclare
sh -c 'readonly R=1; readonly R=2; echo after'; echo "rc=$?"; sh -c 'readonly R=1; export R; echo ok-export'; echo "rc=$?"

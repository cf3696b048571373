# date +FORMAT on fixed dates, env, id, hostname, the container's /etc.
### date-fixed-epoch
date -u -d @1700000000 +%Y-%m-%dT%H:%M:%SZ
### date-formats
date -u -d @86399 '+%Y %m %d %H %M %S %j %a %b %A %B %y %e %u %w'
### date-parse-string
date -u -d '2024-02-29 13:45:00' +%s; date -u -d '2024-02-29 13:45:00' '+%D %T %R'
### date-percent-and-literals
date -u -d @0 '+at %H:%M, 100%% sure'
### date-default-format-fixed
date -u -d @1700000000
### date-r-file-shape
touch f; date -r f +%Y | grep -qE '^[0-9]{4}$' && echo year
### date-now-is-now
now=$(date +%s); [ "$now" -gt 1600000000 ] && echo plausible
### date-bad-format !stderr
date -d 'not a date'; echo "rc=$?"
### env-sorted
env | sort
### env-with-var
env FOO=bar sh -c 'echo $FOO'; env -i X=1 /bin/sh -c 'echo "$X:$HOME"'
### env-u-unsets
env -u HOME sh -c 'echo "[${HOME-none}]"'
### printenv-like
echo "$PATH" | tr : '\n' | head -n 3
### id-forms
id; id -u; id -g; id -un; id -gn; id -G
### id-other-user
id nobody; id -u daemon; id nosuchuser; echo "rc=$?"
### whoami
whoami
### hostname-forms
hostname; cat /etc/hostname; [ "$(hostname)" = "$HOSTNAME" ] && echo same
### etc-passwd-root
grep '^root:' /etc/passwd; awk -F: '{print $1}' /etc/group | head -n 3
### etc-hosts-localhost
grep -w localhost /etc/hosts | head -n 1
### getent-like-lookup
grep "^www-data:" /etc/passwd | cut -d: -f6
### uname-s
uname -s; uname -m | grep -qE '^(x86_64|aarch64)$' && echo machine
### home-and-cd-tilde
cd; pwd; cd ~; pwd
### sleep-short
sleep 0.1; echo slept
### timeout-command
timeout 1 true; echo "rc=$?"
### true-false-exit-codes
true; echo $?; false; echo $?; busybox true; echo $?
### busybox-dispatch
busybox echo via-busybox; busybox basename /a/b
### which-applet
which ls; which nosuch; echo "rc=$?"
### nproc-number
n=$(nproc); [ "$n" -ge 1 ] && echo cpus
### proc-self-exists
[ -d /proc ] && echo proc-dir
### tmp-is-sticky
stat -c %a /tmp
### root-home
ls -d /root; stat -c %U /root
### timeout-reports-the-signal
timeout 1 sleep 5 2>/dev/null; echo "rc=$?"; x=$(timeout 1 sleep 5); echo "x rc=$?"; timeout 1 sleep 5 | cat; echo "pipe rc=$?"; (timeout 1 sleep 5); echo "sub rc=$?"; timeout -s KILL 1 sleep 5; echo "kill rc=$?"; timeout -s INT 1 sleep 5; echo "int rc=$?"; env timeout 1 sleep 3; echo "env rc=$?"
### date-d-busybox-forms
for d in 2024/01/02 20240102 yesterday 01/02/2024 '2024-13-01' '2024-02-30' '2024-1-2' '2024-01-02 3' '2024.01.02-03:04:05' 'Jan 2 03:04:05 2024' '0102030405' '2024-01-02T03:04:05' ' 2024-01-02' '2024-01-02 03:04:05 +0100' '@-1' '@abc' '123' '@+5' '@5x' '99' '3012' '1231235959' '12:30 ' '2024-01-02 03:04 +01:00' '2024-01-02 03:04 Z' 'jan 2 03:04:05 2024' 'January 2 03:04:05 2024' '2024-01-02  03:04' '2023-02-29 12:00' '1999-12-31 23:59:60'; do date -u -d "$d" '+%F %T'; done 2>&1
### date-d-today-forms !stderr
now=$(date -u +%F); for d in '01.02-03:04' '1230' '12:30:61' '25:00' '1230.45' '12' '311230' ' 12:30' '1:2' '12:3:4'; do date -u -d "$d" '+%F %T' | sed "s/^$now/TODAY/"; done
### date-epoch-arith
start=$(date -u -d '2024-03-10 12:00:00' +%s); end=$(date -u -d '2024-03-11 13:30:00' +%s); echo $(( (end - start) / 60 )) minutes
### printf-b
printf '%b\n' 'a\tb' 'c\\nd' '\0101' '\101' 'x\cy'; printf '[%b]\n' '\e' | od -c | head -1
### printf-s-width
printf '[%5s][%-5s][%.2s][%5.1s][%s]\n' ab cd efg hij; printf '%s-%s\n' a b c
### printf-reuse
printf '%s=%d\n' a 1 b 2 c; printf '%d %d\n' 1 2 3
### printf-bad-numbers
printf '%d\n' abc; echo "rc=$?"; printf '%d\n' 12abc; echo "rc=$?"; printf '%d\n' ''; echo "rc=$?"; printf '%i\n' 0x1f 010 -5; printf '%d\n' "'A"
### printf-floats
printf '%.2f %5.1f %e %g %G\n' 3.14159 2.5 1234.5 0.0001 1e20; printf '%f\n' abc; echo "rc=$?"
### printf-escapes
printf 'a\101\0102b\n' | od -c | head -2; printf '\x41\x4g\n'; printf '%%\n'; printf 'x\\y\n'
### printf-no-args
printf; echo "rc=$?"; printf ''; echo "rc=$?"; printf '%s\n'; printf '%d|%s|\n'
### printf-c-and-x
printf '%c%c\n' hello 65; printf '%x %X %o %#x %#o\n' 255 255 8 255 8; printf '%05d|%-5d|%+d\n' 42 42 42
### printf-big-ints
printf '%d\n' 9223372036854775807; printf '%d\n' 9223372036854775808; echo "rc=$?"; printf '%u\n' -1; printf '%x\n' -1
### printf-invalid-format
printf '%z\n' 1; echo "rc=$?"; printf '%'; echo "rc=$?"
### printf-q
printf '%q\n' "a b"; echo "rc=$?"
### echo-e-edge
echo -e 'a\tb\c' ; echo; echo -e '\0101\x41\e' | od -c | head -1; echo -n -e 'x\n'; echo -en 'y\n'; echo -ne 'z\n'; echo -e -n 'w\n'; echo '-e' 'a\nb'; echo -E 'a\nb'; echo -- -n
### echo-dash-forms
echo -n; echo -; echo -x foo; echo -nx foo; echo -e; echo "a\nb"
### expr-basics
expr 1 + 2; expr 7 / 2; expr 7 % 3; expr 2 \* 3; expr 5 - 8; expr 3 \< 10; expr abc \< abd; expr 10 \> 9
### expr-match
expr 'hello world' : 'hello'; expr 'abc123' : '[a-z]*'; expr 'abc123' : '\([a-z]*\)'; expr abc : 'x'; echo "rc=$?"; expr 'abc' : '\(x\)*'; echo "rc=$?"
### expr-functions
expr length "hello"; expr substr "hello" 2 3; expr index "hello" "lo"; expr match "abc" "a.c"; expr substr abc 5 1; echo "rc=$?"
### expr-status
expr 0; echo "rc=$?"; expr ""; echo "rc=$?"; expr 1 = 1; echo "rc=$?"; expr a = b; echo "rc=$?"; expr 0 \| 0; echo "rc=$?"; expr 3 \& 0; echo "rc=$?"
### expr-errors
expr 1 +; echo "rc=$?"; expr a + 1; echo "rc=$?"; expr 1 / 0; echo "rc=$?"; expr; echo "rc=$?"; expr 1 2; echo "rc=$?"
### expr-precedence
expr 1 + 2 \* 3; expr \( 1 + 2 \) \* 3; expr 1 \| 2 \& 0; expr 5 = 5 + 0; expr -1 + 1; echo "rc=$?"
### expr-counter-loop
i=0; while [ $i -lt 5 ]; do i=$(expr $i + 1); done; echo $i
### test-strings-ints
[ abc = abc ]; echo $?; [ 1 -eq 01 ]; echo $?; [ a -eq 1 ]; echo "rc=$?"; [ 1 -lt ]; echo "rc=$?"; [ -n "" ]; echo $?; [ -z "" ]; echo $?; [ "" ]; echo $?; [ x ]; echo $?
### test-logic
[ 1 -eq 1 -a 2 -eq 3 ]; echo $?; [ 1 -eq 1 -o 2 -eq 3 ]; echo $?; [ ! 1 -eq 2 ]; echo $?; [ ! -z x -a -n x ]; echo $?; [ \( 1 -eq 1 \) ]; echo $?; [ 1 = 1 -o 1 = 2 -a 1 = 2 ]; echo $?
### test-errors
[ 1 -eq 1; echo "rc=$?"; [ a b c ]; echo "rc=$?"; test -x; echo "rc=$?"; test 1 -gt 99999999999999999999; echo "rc=$?"; [ -q x ]; echo "rc=$?"
### test-files
touch f; mkdir d; ln -s f l; [ -f f ] && echo f; [ -d d ] && echo d; [ -L l ] && echo l; [ -e nope ] || echo none; [ -s f ] || echo empty; [ -r f -a -w f ] && echo rw; [ -x d ] && echo xd
### test-nt-ot
touch -d '2020-01-01' old 2>/dev/null || echo notouchd; touch new; [ new -nt old ]; echo $?; [ old -ot new ]; echo $?; [ new -nt missing ]; echo $?; [ missing -ot new ]; echo $?
### test-string-compare
[ a \< b ]; echo $?; [ b \> a ]; echo $?; [ abc != abd ]; echo $?; [ = ]; echo $?; [ -n ]; echo $?; [ ! ]; echo $?
### getopts-basic
set -- -a -b val -c file; while getopts ab:c opt; do echo "$opt ${OPTARG-unset}"; done; echo "OPTIND=$OPTIND"; shift $((OPTIND-1)); echo "rest=$*"
### getopts-errors
set -- -x -b; while getopts ab: opt; do echo "opt=$opt OPTARG=${OPTARG-unset}"; done 2>&1; echo "OPTIND=$OPTIND"
### getopts-silent
set -- -x -b; while getopts :ab: opt; do echo "opt=$opt OPTARG=${OPTARG-unset}"; done; echo "OPTIND=$OPTIND"
### getopts-combined
set -- -abval -- -c; while getopts ab:c opt; do echo "$opt ${OPTARG-}"; done; echo "OPTIND=$OPTIND"
### getopts-in-function
f() { local OPTIND opt; while getopts v opt; do echo "f:$opt"; done; shift $((OPTIND-1)); echo "args:$*"; }; f -v x; f y
### getopts-explicit-args
while getopts n: o -n 5 rest; do echo "$o=$OPTARG"; done; echo $OPTIND
### date-formats-2
date -u -d @1700000000 '+%F %G %V %U %W %h %k %M %N %c %x %X %P'
### date-d-forms
date -u -d '2024-01-02 03:04:05' +%s; date -u -d '2024-01-02' +%s; date -u -d '2024-01-02 03:04' +%s; date -u -d '@86400'; date -u -d '12:30' +%H:%M
### date-d-forms-2
date -u -d '2024/01/02' +%F; echo "rc=$?"; date -u -d '20240102' +%F; echo "rc=$?"; date -u -d 'yesterday' +%F; echo "rc=$?"; date -u -d '01/02/2024' +%F; echo "rc=$?"
### date-R-I
date -u -d @0 -R; date -u -d @0 -I; date -u -d @0 -Iseconds; date -u -d @0 -Ihours; date -u -d @0 -Iminutes; date -u -d @0 -Ins 2>&1; echo "rc=$?"
### date-D
date -u -D '%Y%m%d' -d 20240305 +%F; echo "rc=$?"
### date-bad
date -d 'garbage' 2>&1; echo "rc=$?"; date +%Q; echo "rc=$?"
### seq-forms
seq 3; seq 2 4; seq 1 2 7; seq 5 -2 1; seq -s, 1 3; seq -w 8 10; seq 0.5 0.5 2; seq 1 0.1 1.3
### seq-edge
seq 5 1; echo "rc=$?"; seq 1 1 1; seq -1 -3; echo "rc=$?"; seq -w -1 1; seq abc; echo "rc=$?"; seq -f '%03g' 1 3; echo "rc=$?"
### sort-keys
printf 'b 2\na 10\nc 1\n' | sort -k2n; printf 'b 2\na 10\nc 1\n' | sort -k2; printf 'x:3\ny:1\nz:2\n' | sort -t: -k2 -n; printf 'ab\nAa\nba\n' | sort -f
### sort-char-pos
printf 'a1x\nb3y\nc2z\n' | sort -k1.2,1.2; printf 'foo bar\nfoo abc\n' | sort -k1,1 -s; printf ' b\na\n  c\n' | sort -b; printf '3\n1\n2\n' | sort -c; echo "rc=$?"
### sort-misc
printf '10\n9\n100\n' | sort -n -r; printf 'a\nb\na\n' | sort -u; printf '1K\n2M\n3\n' | sort -h 2>&1; echo "rc=$?"; printf 'b\na\n' | sort -o out; cat out
### cut-forms
echo 'abcdef' | cut -c2-4; echo 'abcdef' | cut -c-2,5-; echo 'a:b:c' | cut -d: -f2; echo 'a:b:c' | cut -d: -f1,3; echo 'nodelim' | cut -d: -f2; echo 'nodelim' | cut -s -d: -f2; echo 'a:b' | cut -d: -f2- --output-delimiter=X 2>&1; echo "rc=$?"
### cut-errors
cut -f1 -c1 </dev/null; echo "rc=$?"; cut -c0 </dev/null; echo "rc=$?"; cut -d:: -f1 </dev/null; echo "rc=$?"
### wc-forms
printf 'a b\nc\n' | wc; printf 'a b\nc\n' | wc -l; printf 'a b\nc' | wc -w; printf 'abc' | wc -c; printf 'a\n' > f1; printf 'b c\n' > f2; wc f1 f2; wc -l < f1
### id-whoami
id; id -u; id -g; id -un; id -gn; id -G; whoami; id root; id nosuchuser; echo "rc=$?"
### sh-script-file
echo 'echo hi from script; echo "args: $# $1 $2"' > /tmp/s.sh; sh /tmp/s.sh a b; echo "rc=$?"; chmod +x /tmp/s.sh; /tmp/s.sh x; echo "rc=$?"
### sh-script-exit
printf 'echo one\nexit 7\necho two\n' > s2.sh; sh s2.sh; echo "rc=$?"; sh nosuch.sh; echo "rc=$?"
### dot-with-args
printf 'echo "dot: $1 $#"\nX=set\n' > lib.sh; set -- outer; . ./lib.sh inner extra; echo "after: $1 $X"
### exec-sh-c
sh -c 'exec sh -c "echo nested \$0"'; sh -c 'echo $0' myname; sh -c 'echo "$0 $1"' zero one
### sh-script-shebang
printf '#!/bin/sh\necho shebang $0\n' > t.sh; chmod 755 t.sh; ./t.sh; printf 'echo noshebang\n' > u.sh; chmod 755 u.sh; ./u.sh
### sh-e-in-script
printf 'set -e\necho a\nfalse\necho b\n' > e.sh; sh e.sh; echo "rc=$?"; sh -e -c 'false; echo no'; echo "rc=$?"
### sh-x-trace
sh -x -c 'a=1; echo $a' 2>&1
### basename-dirname
basename /a/b/c; basename /a/b/c/; basename c.txt .txt; basename /; basename ''; basename .txt .txt; dirname /a/b/c; dirname a; dirname /; dirname /a/; dirname a/b/; dirname //a
### env-forms
env -i FOO=1 sh -c 'echo $FOO $HOME'; env -u HOME sh -c 'echo ${HOME-unset}'; env -i env; env FOO=bar | grep ^FOO; env -- true; echo "rc=$?"; env nosuchcmd; echo "rc=$?"
### exec-replaces
sh -c 'exec echo replaced; echo not reached'; (exec true); echo "rc=$?"; sh -c 'exec nosuch'; echo "rc=$?"
### sh-script-syntax-error
printf 'echo before\nif then\n' > bad.sh; sh bad.sh; echo "rc=$?"
### sh-s-stdin
echo 'echo from stdin $1' | sh -s arg1; echo 'echo piped' | sh
### sh-n-syntax-check
sh -n -c 'echo should not run'; echo "rc=$?"
### hostname-uname
hostname; hostname -s; uname -s; uname -n; uname -m | grep -c .; cat /etc/hostname
### id-forms-2
id -u root; id -g root; id -un 0 2>&1; echo "rc=$?"; id -Gn; id -nu; whoami; groups; groups root 2>&1
### passwd-group-parsing
awk -F: '$3 == 0 {print $1, $6, $7}' /etc/passwd; grep -c . /etc/group | grep -c .; cut -d: -f1 /etc/passwd | head -3
### env-u-and-i-forms
env -u PATH sh -c 'echo "${PATH-unset}"' 2>&1; env -i A=1 B=2 env | sort; env -i sh -c 'echo "[$HOME][$PATH]"'; env - X=1 env
### nproc-and-free-shapes
nproc | grep -c '^[0-9]'; free | head -1 | tr -s ' ' | cut -d' ' -f2-4
### sh-login-vars
echo "$HOME $PWD" ; echo "${SHLVL}"; sh -c 'echo $SHLVL'; echo "$0"

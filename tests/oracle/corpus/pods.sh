# Everyday pod scripts: readiness and liveness checks, init-container until-loops, postStart hooks,
# while-read loops, TERM traps, [[ ]], getopts, ash's expansions, arithmetic edges, pipefail, read
# options, local, wait, and redirections (>&-, <>, the order of 2>&1 >file).
### readiness-http-port-file
echo 8080 > port; p=$(cat port); if [ "$p" -gt 1024 ] && [ "$p" -lt 65536 ]; then echo "ready on $p"; else echo bad; exit 1; fi
### init-until-file-appears
n=0; until [ -f ready ] || [ $n -ge 5 ]; do n=$((n+1)); [ $n -eq 3 ] && touch ready; sleep 0; done; echo "tries=$n"; [ -f ready ] && echo ok
### init-until-with-timeout-exit
deadline=3; i=0; until false; do i=$((i+1)); if [ $i -ge $deadline ]; then echo "timed out after $i" >&2; exit 1; fi; done
### poststart-writes-marker
date -u +%Y > /dev/null && echo started > marker && echo "$(cat marker) at boot"
### while-read-line-file
printf 'a=1\nb=2\n# comment\n\nc=3\n' > cfg; while read line; do case "$line" in \#*|'') continue;; esac; echo "key=${line%%=*} val=${line#*=}"; done < cfg
### while-read-ifs-colon
printf 'root:x:0:0\nnobody:x:65534:65534\n' > pw; while IFS=: read -r name _ uid gid; do echo "$name has $uid/$gid"; done < pw
### while-read-last-line-without-newline
printf 'one\ntwo' > f; while read -r l || [ -n "$l" ]; do echo "[$l]"; done < f
### while-read-from-pipe-subshell-var
n=0; printf '1\n2\n3\n' | while read x; do n=$((n+x)); done; echo "n=$n"; n=0; while read x; do n=$((n+x)); done <<EOF2
1
2
3
EOF2
echo "n=$n"
### trap-term-handler-sets-flag
stop=0; trap 'stop=1; echo got TERM' TERM; kill -TERM $$; echo "stop=$stop"
### trap-int-and-exit-order
trap 'echo exit-trap' EXIT; trap 'echo int-trap; exit 5' INT; kill -INT $$; echo never
### trap-listing-and-reset
trap 'echo x' TERM; trap 'echo y' USR1; trap; trap - TERM; trap
### trap-ignore-then-kill-self
trap '' TERM; kill $$; echo survived
### double-bracket-patterns
f=app.log; [[ $f == *.log ]] && echo log; [[ $f == app* ]] && echo app; [[ $f != *.txt ]] && echo not-txt; [[ "$f" == "*.log" ]] || echo quoted-literal
### double-bracket-and-or
a=1; b=; [[ -n $a && -z $b ]] && echo both; [[ -z $a || -n $a ]] && echo either; [[ ! -e /nonexistent ]] && echo absent
### double-bracket-string-compare
[[ abc < abd ]] && echo less; [[ 10 -gt 9 ]] && echo numeric; [[ "a b" == "a b" ]] && echo spaces
### replace-all-and-first
s=a-b-c; echo "${s//-/_}" "${s/-/_}" "${s//[ab]/X}" "${s/#a/A}" "${s/%c/C}"
### substring-and-length
s=abcdef; echo "${s:2}" "${s:1:3}" "${s: -2}" "${#s}" "${s:0:0}|"
### default-assign-and-error
unset v; echo "${v:-d1}" "${v-d2}"; : "${v:=set}"; echo "$v"; (echo "${undefined:?is required}"); echo rc=$?
### getopts-flags-and-args
set -- -v -o out.txt -x arg1 arg2; while getopts "vo:x" opt; do case $opt in v) echo verbose;; o) echo "out=$OPTARG";; x) echo x;; esac; done; shift $((OPTIND-1)); echo "rest=$*"
### getopts-bad-option !stderr
set -- -q; while getopts "ab" o; do echo "o=$o"; done; echo "OPTIND=$OPTIND"
### getopts-silent-mode
set -- -z -a; while getopts ":a" o; do case $o in \?) echo "bad -$OPTARG";; a) echo a;; esac; done
### getopts-missing-argument
set -- -f; while getopts ":f:" o; do case $o in :) echo "missing for -$OPTARG";; f) echo "f=$OPTARG";; esac; done
### case-fallthrough-patterns
for x in start stop restart status bogus; do case $x in start|restart) echo "starting";; stop) echo stopping;; st*) echo "st-other $x";; *) echo "unknown $x";; esac; done
### case-with-classes
for c in a Z 5 - ''; do case "$c" in [a-z]) echo lower;; [A-Z]) echo upper;; [0-9]) echo digit;; '') echo empty;; *) echo other;; esac; done
### arithmetic-edge-cases
echo $(( 7 / 2 )) $(( -7 / 2 )) $(( 7 % -3 )) $(( 2 ** 10 )) $(( 1 << 62 )) $(( 0x1F )) $(( 010 )) $(( 3 > 2 ? 10 : 20 ))
### arithmetic-overflow-wraps
echo $(( 9223372036854775807 + 1 )) $(( -9223372036854775807 - 1 )) $(( 2 ** 63 ))
### arithmetic-division-by-zero !stderr
echo $(( 1 / 0 )); echo after
### arithmetic-with-unset-and-strings
unset u; x=5; echo $(( u + 1 )) $(( x * 2 )) $(( x += 3 )) $x $(( x++ )) $x $(( --x ))
### pipefail-on-and-off
false | true; echo "off=$?"; set -o pipefail; false | true; echo "on=$?"; true | false | true; echo "mid=$?"; set +o pipefail; false | true; echo "again=$?"
### read-t-from-empty
read -t 1 x < /dev/null; echo "rc=$? x=[$x]"
### read-t-with-data
echo hello | { read -t 5 x; echo "rc=$? x=$x"; }
### local-scoping
x=global; f() { local x=inner; g; echo "f sees $x"; }; g() { echo "g sees $x"; x=changed-by-g; }; f; echo "top sees $x"
### local-without-value-and-nested
f() { local a; echo "[${a-unset}]"; a=1; h; echo "f a=$a"; }; h() { local a=2; echo "h a=$a"; }; a=top; f; echo "top a=$a"
### wait-pid-status
(exit 7) & p1=$!; (sleep 0; exit 3) & p2=$!; wait $p1; echo "p1=$?"; wait $p2; echo "p2=$?"; wait; echo "all=$?"
### wait-unknown-pid !stderr
wait 99999; echo "rc=$?"
### redirection-close-stdout !stderr
echo hidden >&-; echo "rc=$?"; echo shown
### redirection-read-write
echo data > f; exec 3<> f; read -r line <&3; echo "read=$line"; exec 3>&-; cat f
### redirection-order-matters
{ echo out; echo err >&2; } 2>&1 > f | sed 's/^/piped:/'; echo "file=$(cat f)"; { echo out2; echo err2 >&2; } > g 2>&1; cat g
### here-string-is-not-ash !stderr
cat <<< "hello"; echo "rc=$?"
### printf-formats-without-q
printf '%-6s|%5s|%05d|%x|%o|%e\n' ab cd 42 255 8 1500; printf '%s\n' "a b" c; printf '%c' hello; echo
### export-and-env-in-child
export FOO=bar; sh -c 'echo "child sees $FOO"'; BAR=once sh -c 'echo "bar=$BAR"'; echo "after=[${BAR-}]"
### liveness-check-age-of-file
touch hb; now=$(date +%s); mt=$(stat -c %Y hb); age=$((now - mt)); [ $age -lt 60 ] && echo fresh
### retry-function-with-backoff
retry() { n=0; until "$@"; do n=$((n+1)); [ $n -ge 3 ] && return 1; echo "retry $n"; sleep 0; done; }; c=0; flaky() { c=$((c+1)); [ $c -ge 3 ]; }; retry flaky && echo succeeded; retry false || echo gave-up
### env-file-sourcing
printf 'export A=1\nB="two words"\n' > env.sh; . ./env.sh; echo "$A|$B"
### command-exists-check
if command -v wget >/dev/null 2>&1; then echo has-wget; fi; command -v nosuchtool >/dev/null || echo no-tool; type echo | head -1
### set-e-with-or-true
set -e; false || true; grep -q x /dev/null || echo no-match; echo still-running
### set-u-with-defaults
set -u; echo "${HOME:+home-set}" "${MISSING:-fallback}"; echo "${#}"
### ifs-splitting-csv
line='a,b,,d'; IFS=,; set -- $line; echo "$# [$1][$2][$3][$4]"; unset IFS
### exit-status-of-negation-and-if
! false; echo $?; if ! grep -q zzz /dev/null; then echo not-found; fi
### read-options
printf "abcdef\n" | { read -n 3 x; read y; echo "[$x][$y]"; }; printf "a,b,c" | { read -d , x; read -d , y; echo "[$x][$y]"; }; printf "l1\nl2\n" > u; exec 3< u; read -u 3 a; read -u 3 b; echo "[$a][$b]"; read -rt 1 z < /dev/null; echo rt=$?; read -u 7 q; echo u7=$?; printf "x y z" | { read -n 10 a b; echo "[$a][$b]"; }; printf "ab\\\ncd\n" | { read -n 20 v; echo "[$v]"; }; read -t -1 x </dev/null; echo neg=$?; read -t 1.5.5 x </dev/null; echo dots=$?
### read-t
read -t 1 x < /dev/null; echo "rc=$? x=[$x]"; echo hello | { read -t 5 x; echo "rc=$? x=$x"; }; read -t 0 x < /dev/null; echo "rc00=$? [$x]"; read -t abc x; echo "rcbad=$?"; read -q; echo "q=$?"; read -p; echo "p=$?"
### closed-stdout
echo hidden >&-; echo "rc=$?"
printf x >&-; echo "rc=$?"; printf "" >&-; echo "rc=$?"; echo -n "" >&-; echo "rc=$?"; pwd >&-; echo "pwd=$?"; busybox echo x >&-; echo "app=$?"; cat /etc/hostname >&- ; echo "cat=$?"; echo x 2>&- >&-; echo "both=$?"; true >&-; echo "true=$?"
### double-bracket-ash-1
[[ b > a ]] ; echo "gt=$?"; ls a 2>/dev/null | wc -l; rm -f a; [[ x ]] > out; echo "redir=$? $(cat out | wc -c)"; [[ a == a ]] 2>/dev/null && echo ok; [[ a && b || c ]] && echo andor; [[ ! a ]] || echo bang
### double-bracket-ash-2
[[ a && ( b || c ) ]] && echo grouped
### double-bracket-ash-3
[[ ( a ) ]] && echo g2
### double-bracket-ash-4
[[ abc < abd ]] && echo less; [[ 10 -gt 9 ]] && echo numeric
### double-bracket-ash-5
[[ a == a
### double-bracket-ash-6
[[ a = a ]]] ; echo $?; [[ ]]; echo $?
### assignment-after-redirection
x=$(cat /nonexistent) 2>/dev/null; echo "[$x] rc=$?"; y=$(echo out; echo err >&2) 2>/dev/null; echo "[$y]"; z=$(echo e2 >&2) > o 2>&1; cat o; echo --; w=$(echo e3 >&2) cmdx 2>/dev/null; echo "rc=$?"
### readonly-assignment-quiet
readonly R=1; R=2 2>/dev/null; echo "R=$R"
### readonly-and-unset-f
readonly R=1; (R=2) 2>/dev/null; echo "R=$R"; f() { echo f; }; unset -f f; f 2>/dev/null || echo f-gone
### xtrace-with-redirect
set -x; a=$(echo v) > o; echo hi > o; set +x; cat o
### dev-null-and-zero
test -c /dev/null && echo char; cat /dev/null > f; wc -c < f; head -c 4 /dev/zero | od -An -tx1; ls /dev/null; echo x > /dev/null; echo rc=$?
### dev-urandom-random-string
s=$(head -c 64 /dev/urandom | tr -dc 'a-z0-9' | head -c 8); [ ${#s} -le 8 ] && echo got-random; tr -dc 'a-f' < /dev/urandom | head -c 5 | wc -c
### dev-stat-and-ls
stat -c '%F %a %t,%T %u' /dev/null /dev/zero /dev/urandom; ls -l /dev/null | awk '{print $1, $5, $6}'; [ -c /dev/zero ] && echo c; [ -f /dev/null ] || echo not-regular
### dev-full-refuses
echo x > /dev/full; echo rc=$?; head -c 3 /dev/full | od -An -tx1
### dev-write-zero
echo x > /dev/zero; echo rc=$?; dd if=/dev/zero of=z bs=1k count=4 2>/dev/null; wc -c < z
### e2e-host-ip-equals-pod-ip
HOST_IP=10.0.0.1 POD_IP=10.0.0.1; [[ "${HOST_IP:?}" == "${POD_IP:?}" ]] && echo OK || (echo "HOST_IP: '${HOST_IP}' != POD_IP: '${POD_IP}'" && false)
### e2e-host-ip-differs
HOST_IP=10.0.0.1 POD_IP=10.0.0.2; [[ "${HOST_IP:?}" == "${POD_IP:?}" ]] && echo OK || (echo "HOST_IP: '${HOST_IP}' != POD_IP: '${POD_IP}'" && false); echo rc=$?
### e2e-host-ip-unset !stderr
[[ "${HOST_IP:?}" == "${POD_IP:?}" ]] && echo OK || echo no; echo rc=$?
### e2e-restart-count
f=counter; count=$(echo 'hello' >> $f ; wc -l $f | awk {'print $1'}); echo "count=$count"; count=$(echo 'hello' >> $f ; wc -l $f | awk {'print $1'}); if [ $count -lt 3 ]; then echo "restart $count"; exit 1; fi
### exec-args-forward
set -- echo "hello world"; exec "$@"; echo never
### until-nc-port !stderr
n=0; until nc -z 127.0.0.1 1 2>/dev/null || [ $n -ge 2 ]; do n=$((n+1)); sleep 0; done; echo "tries=$n"
### init-wait-for-dns !stderr
i=0; until nslookup nosuch.invalid >/dev/null 2>&1 || [ $i -ge 1 ]; do i=$((i+1)); done; echo "i=$i"
### script-file-with-shebang
printf '#!/bin/sh\necho "args: $# $1"\nexit 3\n' > s.sh; chmod +x s.sh; ./s.sh one two; echo "rc=$?"; sh s.sh x; echo "rc=$?"
### script-file-not-executable
printf 'echo hi\n' > n.sh; ./n.sh; echo "rc=$?"; sh ./n.sh
### config-template-substitution
printf 'host=${HOST}\nport=${PORT}\n' > tpl; HOST=db PORT=5432; eval "cat <<EOF2
$(cat tpl)
EOF2" > out; cat out
### sed-config-edit
printf 'listen 80;\nserver_name _;\n' > c; sed -i -e 's/listen 80/listen 8080/' -e '/server_name/d' c; cat c; sed -n '1p' c
### awk-env-report
printf 'cpu 10\nmem 20\n' | awk -v pre=metric_ '{printf "%s%s %d\n", pre, $1, $2*2}'
### json-ish-grep-cut
echo '{"status":"ok","code":200}' > r; grep -o '"status":"[^"]*"' r | cut -d'"' -f4; sed 's/.*"code":\([0-9]*\).*/\1/' r
### counter-in-file-loop
for i in 1 2 3; do c=$(cat cnt 2>/dev/null || echo 0); echo $((c+1)) > cnt; done; cat cnt
### pid-file-handling
echo $$ > app.pid; [ -f app.pid ] && kill -0 "$(cat app.pid)" && echo running; rm -f app.pid; [ ! -e app.pid ] && echo removed
### date-based-names
d=$(date -u +%Y%m%d); case $d in [0-9][0-9][0-9][0-9][0-9][0-9][0-9][0-9]) echo "dated";; esac; f="backup-$d.tar"; echo "${f%.tar}" | grep -c backup-
### string-ops-ash
s="Hello, World"; echo "${s,,}" 2>/dev/null; echo "${#s}"; echo "${s%%,*}"; echo "${s#*, }"; up=$(echo "$s" | tr a-z A-Z); echo "$up"
### integer-validation
for v in 42 -7 abc 3.5 ''; do case $v in ''|*[!0-9-]*|*?-*) echo "$v: not int";; *) echo "$v: int";; esac; done
### test-numeric-error-handling !stderr
v=abc; if [ "$v" -gt 0 ] 2>/dev/null; then echo pos; else echo "not a number ($?)"; fi
### wait-for-multiple-jobs
for i in 1 2 3; do (sleep 0.$i; exit $i) & done; fails=0; for p in $(jobs -p); do wait $p || fails=$((fails+1)); done; echo "fails=$fails"
### subshell-cd-isolation
mkdir -p sub; (cd sub && pwd | sed 's,.*/,,'); pwd | sed 's,.*/oracle-[0-9]*,,'; cd sub; cd -  >/dev/null; pwd | sed 's,.*/oracle-[0-9]*,,'
### umask-and-new-files
umask 077; touch p; mkdir pd; echo x > r; stat -c '%a' p pd r; umask 022; touch q; stat -c %a q; umask; (umask 027; mkdir sd; stat -c %a sd); umask
### umask-cp-and-mkdir-p
echo x > a; chmod 755 a; umask 077; cp a b; stat -c %a b; mkdir -p x/y; stat -c %a x x/y; cp -p a c; stat -c %a c
### keepalive-sleep-infinity-and-tail-f
timeout 1 sleep infinity; echo "inf=$?"; timeout 1 tail -f /dev/null; echo "tail=$?"; sleep 0.1s 0.1; echo "sum=$?"
### probe-grep-proc-for-process
grep -q sh /proc/1/cmdline && echo pid1-is-shell || echo other; [ -d /proc/self ] && echo has-proc
### probe-memory-from-proc
awk '/MemTotal/ {print ($2 > 0) ? "mem-ok" : "none"}' /proc/meminfo
### hook-write-json-status
printf '{"ready":%s,"ts":%d}\n' true 1700000000 > status.json; grep -c ready status.json; cut -d, -f1 status.json
### init-copy-config-with-defaults
mkdir -p src dst; printf 'a=1\n' > src/app.conf; [ -f dst/app.conf ] || cp src/app.conf dst/; grep -q '^b=' dst/app.conf || echo 'b=2' >> dst/app.conf; cat dst/app.conf
### init-wait-loop-with-counter-and-message
max=3; n=0; while ! [ -e flag ]; do n=$((n+1)); echo "waiting ($n/$max)"; [ $n -ge $max ] && { echo giving up >&2; break; }; [ $n -eq 2 ] && touch flag; done; [ -e flag ] && echo found
### env-var-required-check !stderr
check() { eval "v=\${$1:-}"; [ -n "$v" ] || { echo "missing $1"; return 1; }; echo "$1=$v"; }; A=1; check A; check B; echo "rc=$?"
### indirect-variable-names
for n in X Y; do eval "VAL_$n=\$n-value"; done; eval echo "\$VAL_X \$VAL_Y"; name=VAL_X; eval "echo \${$name}"
### split-path-loop
p=/usr/local/bin:/usr/bin:/bin; IFS=:; for d in $p; do echo "dir $d"; done; unset IFS; echo "${p%%:*}"
### lowercase-uppercase-with-tr-and-awk
s=MiXeD; echo "$s" | tr '[:upper:]' '[:lower:]'; echo "$s" | awk '{print toupper($0), tolower($0)}'
### repeat-string-and-padding
printf '%.0s-' 1 2 3 4 5; echo; printf '%-10s|\n' name; printf '%08.3f\n' 3.14159
### exit-codes-passthrough-and-a-killed-shell
sh -c 'exit 42'; echo $?; (exit 300); echo $?; sh -c 'kill -TERM $$'; echo $?
### here-doc-in-function-and-loop
f() { cat <<EOF2
f got $1
EOF2
}; for i in 1 2; do f $i; done
### trap-multiple-signals-one-handler
trap 'echo "caught"' USR1 USR2; kill -USR1 $$; kill -USR2 $$; trap - USR1 USR2; echo end
### read-whole-file-into-var
printf 'l1\nl2\n' > f; content=$(cat f); echo "${#content}"; while IFS= read -r line; do printf '[%s]' "$line"; done < f; echo
### arithmetic-bases-and-ops
echo $((2#1010)) $((16#ff)) $((8#17)) $((36#z)) $(( (1<<4) | 3 )) $(( 7 ^ 2 )) $(( ~0 )) $(( !5 )) $(( -(-3) ))
### arithmetic-comma-and-ternary-nesting
x=1; echo $(( x+=2, x*=3 )) $(( x > 5 ? x < 10 ? 1 : 2 : 3 )) $x
### arithmetic-errors !stderr
echo $(( 1 + )); echo rc=$?
### arithmetic-assign-in-condition
n=3; while (( n-- > 0 )) 2>/dev/null; do echo tick; done; echo "n=$n"
### printf-escapes-and-reuse
printf '%s=%s\n' a 1 b 2 c; printf 'tab\there\\n\n'; printf '%b\n' 'x\ty'; printf '%5.1f%%\n' 99.44
### printf-numeric-conversions
printf '%d %i %o %x %X %u\n' 255 255 255 255 255 255; printf '%e %g %G\n' 12345.678 0.0001 1e20; printf '%+d % d\n' 5 5
### echo-variants
echo -n no-newline; echo; echo -e 'a\nb'; echo -E 'a\nb'; echo 'a\tb'; echo -- -n
### unset-and-defaults-chain
a=; b=set; echo "${a:-${b:-none}}" "${c:-${a:-${b}}}" "${b:+alt}" "${a:+alt}|"
### pattern-removal-variants
p=/var/log/app/server.log.1; echo "${p##*/}" "${p%/*}" "${p#*/}" "${p%%.*}" "${p%.*}" "${p##*.}"
### string-length-and-substr-unicode-free
s=abcdefgh; echo ${#s} ${s:3} ${s:2:3} ${s:(-3)} ${s: -3:2}
### for-loop-over-glob-and-seq
touch a.txt b.txt c.log; for f in *.txt; do echo "txt:$f"; done; for i in $(seq 1 3); do printf '%s ' $i; done; echo
### while-true-break-counter
i=0; while true; do i=$((i+1)); [ $i -ge 4 ] && break; done; echo $i
### nested-functions-and-locals
outer() { local v=outer; inner() { echo "inner sees $v"; }; inner; }; outer; inner
### return-without-value-and-status
f() { false; return; }; f; echo $?; g() { true; }; g; echo $?
### init-wait-for-file
i=0; while [ ! -f /tmp/ready ] && [ $i -lt 3 ]; do i=$((i+1)); [ $i -eq 2 ] && touch /tmp/ready; done; echo "waited $i"; rm -f /tmp/ready
### config-render-sed
cat > tmpl.conf <<'EOF2'
server {
  listen ${PORT};
  server_name ${HOST};
}
EOF2
PORT=8080 HOST=web.local; sed -e "s/\${PORT}/$PORT/" -e "s/\${HOST}/$HOST/" tmpl.conf
### env-file-parse
printf 'A=1\n# comment\nB="two words"\n\nC=3\n' > .env; while IFS='=' read -r k v; do case $k in ''|\#*) continue;; esac; v=${v#\"}; v=${v%\"}; echo "$k -> $v"; done < .env
### probe-http-like-check
resp='HTTP/1.1 503 Service Unavailable'; code=$(echo "$resp" | awk '{print $2}'); if [ "$code" -ge 200 ] && [ "$code" -lt 400 ]; then echo healthy; else echo "unhealthy $code"; exit 1; fi
### log-rotate-like
for i in 1 2 3; do echo "line $i" >> app.log; done; [ $(wc -l < app.log) -gt 2 ] && { mv app.log app.log.1; : > app.log; }; ls app.log*; wc -c app.log
### json-ish-extract
echo '{"name":"web","replicas":3,"image":"nginx:1.25"}' | sed 's/[{}"]//g' | tr ',' '\n' | awk -F: '$1=="replicas"{print $2} $1=="image"{print $2":"$3}'
### retry-with-backoff
n=0; until [ $n -ge 3 ]; do n=$((n+1)); if [ $n -eq 3 ]; then echo "ok after $n"; break; fi; echo "attempt $n failed"; done
### preStop-drain
echo "draining"; trap 'echo term' TERM; count=$(ls /proc | grep -c '^[0-9]'); [ "$count" -ge 1 ] && echo procs-ok
### hostname-derived-ordinal
h=web-3; ord=${h##*-}; echo "ordinal=$ord"; [ "$ord" -eq 0 ] && echo primary || echo "replica of web-0"
### mem-limit-calc
limit_kb=524288; echo "heap=$((limit_kb * 3 / 4 / 1024))m"; printf '%s\n' "-Xmx$((limit_kb / 1024 / 2))m"
### csv-summary
printf 'svc,lat\na,10\nb,30\na,20\n' | awk -F, 'NR>1{s[$1]+=$2; c[$1]++} END{for(k in s) printf "%s %.1f\n", k, s[k]/c[k]}' | sort
### uniq-count-top
printf 'GET /a\nGET /b\nGET /a\nPOST /a\nGET /a\n' | awk '{print $2}' | sort | uniq -c | sort -rn | head -1
### path-manipulation
f=/var/log/app/server.log.gz; echo "${f##*/} ${f%/*} ${f%%.*} ${f#*.}"; basename "$f" .gz; dirname "$f"
### here-doc-with-vars
name=world; cat <<EOF2
hello $name
today is $(echo tuesday)
literal \$name
EOF2
### case-patterns
for x in app.tar.gz img.PNG README noext.; do case $x in *.tar.gz) echo "$x tarball";; *.[Pp][Nn][Gg]) echo "$x image";; *.*) echo "$x dotted";; *) echo "$x plain";; esac; done
### arithmetic-loops
sum=0; for i in $(seq 1 10); do [ $((i % 2)) -eq 0 ] && sum=$((sum + i)); done; echo $sum; echo $(( (7 + 3) * 2 ** 3 ))
### read-lines-with-spaces
printf '  lead\ttab \nlast' | while IFS= read -r line || [ -n "$line" ]; do echo "[$line]"; done
### printf-table
printf '%-10s|%5s|%-3s\n' NAME READY AGE web-0 1/1 5m db-0 0/1 1h
### set-positional-ops
set -- a "b c" d; echo $#; for a in "$@"; do echo "<$a>"; done; shift; echo "$*"; IFS=,; echo "$*"
### string-ops
s="Hello, World"; echo ${#s} ${s:7} ${s:0:5} ${s/World/There} $(echo "$s" | tr '[:lower:]' '[:upper:]')
### test-numeric-strings
for v in 0 00 -1 +5 " 7" 1e3 abc ""; do if [ "$v" -eq "$v" ] 2>/dev/null; then echo "int:[$v]"; else echo "not:[$v]"; fi; done
### find-and-xargs
mkdir -p a/b; touch a/x.log a/b/y.log a/z.txt; find a -name '*.log' | sort | xargs -n1 basename; find a -type f | wc -l
### sort-versions
printf '1.10\n1.2\n1.9\n2.0\n' | sort -t. -k1,1n -k2,2n; printf 'v1.10\nv1.2\n' | sort -V
### tee-and-pipes
echo data | tee out1 out2 | tr a-z A-Z; cat out1 out2
### cut-ps-like
printf 'root 1 sleep\nnobody 22 nginx\n' | cut -d' ' -f2,3; printf 'a\tb\tc\n' | cut -f2
### seq-printf-w
seq -w 1 3 | while read n; do printf 'pod-%s\n' "$n"; done; seq -s' ' 5 -1 1
### date-epoch-formats
date -u -d @1700000000 '+%Y-%m-%dT%H:%M:%SZ'; date -u -d '2024-02-29 12:00:00' '+%j %U %a'; date -u -d @0 +%s
### od-and-hexdump
printf 'AB\n' | od -c | head -1; printf 'AB' | od -An -tx1; printf 'hi' | hexdump -C
### wc-multiple
printf 'a\nb\n' > w1; printf 'ccc' > w2; wc -l w1 w2; wc -c < w2; cat w1 w2 | wc -w
### md5-check
echo hello > h.txt; md5sum h.txt > sums; md5sum -c sums; echo tampered >> h.txt; md5sum -c sums; echo "rc=$?"

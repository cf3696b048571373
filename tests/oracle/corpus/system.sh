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

# Whole idioms as liveness/readiness probes, lifecycle hooks and init containers write them.
# (kill-background-job leaves out stderr: whether ash reports "Terminated" races with the kill.)
### liveness-file-present
echo ok > healthy; cat healthy
### liveness-file-missing
cat healthy; echo "rc=$?"
### readiness-test-f
touch ready; test -f ready && echo ready || echo not-ready; rm ready; [ -f ready ] || echo gone
### wait-for-file-loop
( sleep 0.05; touch flag ) & i=0; until [ -f flag ] || [ $i -ge 50 ]; do sleep 0.01; i=$((i+1)); done; [ -f flag ] && echo appeared; wait
### retry-with-counter
n=0; until [ $n -ge 3 ]; do n=$((n+1)); echo "attempt $n"; [ $n -eq 2 ] && break; done; echo "took $n"
### prestop-hook-writes-log
echo "stopping at step $((1+1))" >> hook.log; echo "second" >> hook.log; wc -l < hook.log; tail -n 1 hook.log
### init-container-writes-config
mkdir -p conf; cat > conf/app.conf <<EOF
port=${PORT:-8080}
name=$(hostname)
EOF
cat conf/app.conf
### config-from-env-with-defaults
: "${LOG_LEVEL:=info}"; export LOG_LEVEL; sh -c 'echo "level=$LOG_LEVEL"'
### parse-key-value-file
printf 'a=1\n# comment\nb=two words\n\nc=3\n' > kv; while IFS='=' read -r k v; do case $k in ''|'#'*) continue;; esac; echo "$k -> $v"; done < kv
### grep-config-value
printf 'port: 80\nhost: x\n' > cfg; port=$(grep '^port:' cfg | cut -d' ' -f2); echo "port is $port"
### check-process-exit-code
sh -c 'exit 3'; rc=$?; if [ $rc -ne 0 ]; then echo "failed with $rc"; fi
### kill-background-job !stderr
sleep 5 & p=$!; kill $p; wait $p; echo "rc=$?"
### trap-on-term-in-child
sh -c 'trap "echo got-term; exit 0" TERM; kill -TERM $$; echo not-here'; echo "rc=$?"
### counter-file-increment
echo 0 > count; for i in 1 2 3; do c=$(cat count); echo $((c+1)) > count; done; cat count
### json-like-output
name=app; ver=1.2; printf '{"name":"%s","version":"%s","ok":%s}\n' "$name" "$ver" true
### list-and-count-files
mkdir logs; for i in 1 2 3; do echo "line $i" > logs/$i.log; done; ls logs | wc -l; cat logs/*.log | wc -l
### cleanup-old-files
touch a.tmp b.tmp c.keep; for f in *.tmp; do rm -f "$f"; done; ls
### exit-code-of-pipeline-check
echo "status: ok" | grep -q ok && echo healthy || echo sick
### set-e-init-script
set -e; mkdir -p work; cd work; echo step1; false || echo handled; echo step2
### heartbeat-loop-bounded
i=0; while [ $i -lt 3 ]; do echo "beat $i"; i=$((i+1)); sleep 0.01; done
### string-contains-case
v="image:v1.2.3"; case "$v" in *:v1.*) echo "major 1";; *) echo other;; esac; echo "${v##*:}"
### uppercase-env-names
for n in alpha beta; do echo "$n" | tr a-z A-Z; done
### wait-returns-last-status
(exit 2) & (exit 5) & wait; echo "rc=$?"
### exec-probe-with-timeout
timeout 1 sh -c 'echo quick'; echo "rc=$?"

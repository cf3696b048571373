# Scripts stopped as a runtime stops a container: SIGTERM at 0.5 s (the `TERM@` flag), SIGKILL
# after the grace period if still running. Every one traps or ignores TERM: without a trap, the
# host's shell dies of the signal, but a container's PID 1 never gets it (differences.py).

### wait-ends-and-the-script-goes-on TERM@0.5
trap 'echo got' TERM; sleep 30 & wait; echo "after $?"

### wait-then-a-bare-exit TERM@0.5
trap 'echo got; exit' TERM; sleep 30 & wait; echo never

### wait-then-exit-n TERM@0.5
trap 'echo got; exit 7' TERM; sleep 30 & wait; echo never

### wait-for-a-pid TERM@0.5
trap 'echo got' TERM; sleep 30 & pid=$!; wait $pid; echo "after $?"

### a-foreground-sleep-holds-the-trap TERM@0.5
trap 'echo "got $?"' TERM; sleep 1; echo "after $?"

### a-foreground-sleep-then-exit TERM@0.5
trap 'echo got; exit 3' TERM; sleep 1; echo never

### a-loop-exits-in-its-trap TERM@0.5
trap 'echo bye; exit 4' TERM; while true; do sleep 0.2; done

### a-loop-ends-on-a-flag TERM@0.5
stop=0; trap 'stop=1' TERM; while [ $stop = 0 ]; do sleep 0.2; done; echo "stopped cleanly"

### a-function-as-the-trap TERM@0.5
cleanup() { echo "cleaning $1"; exit 0; }; trap 'cleanup now' TERM; sleep 30 & wait

### the-trap-kills-its-child TERM@0.5 !stderr
trap 'kill $pid; wait $pid; echo "child $?"; exit 0' TERM; sleep 30 & pid=$!; wait $pid

### an-ignored-term TERM@0.5
trap '' TERM; sleep 1; echo "still here $?"

### set-reset-and-ignored TERM@0.5
trap 'echo got' TERM; trap - TERM; trap '' TERM; sleep 1; echo survived

### the-traps-status-is-not-kept TERM@0.5
trap 'false' TERM; sleep 30 & wait; echo "after $?"

### the-exit-trap-runs-after-the-term-trap TERM@0.5
trap 'echo exiting' EXIT; trap 'echo term; exit 5' TERM; sleep 30 & wait

### a-bare-exit-keeps-the-status-before-the-trap TERM@0.5
trap 'echo "in trap $?"; false; exit' TERM; (exit 3); sleep 30 & wait

### a-trap-that-takes-time TERM@0.5
trap 'echo start; sleep 0.5; echo end; exit 2' TERM; sleep 30 & wait

### the-trap-writes-to-stderr TERM@0.5
trap 'echo oops >&2; exit 1' TERM; sleep 30 & wait

### a-second-wait-waits TERM@0.5
trap 'echo got' TERM; sleep 1 & wait; echo "first $?"; wait; echo "second $?"

### killed-at-the-end-of-the-grace-period TERM@0.5/1
trap 'echo got' TERM; sleep 5; echo never

### a-foreground-subshell-holds-the-trap TERM@0.5
trap 'echo parent' TERM; (sleep 1; echo sub); echo after

### a-foreground-pipeline-holds-the-trap TERM@0.5
trap 'echo got' TERM; sleep 1 | cat; echo "after $?"

### the-last-trap-set-wins TERM@0.5
trap 'echo first' TERM; trap 'echo second; exit 6' TERM; sleep 30 & wait

### a-trap-by-number TERM@0.5
trap 'echo fifteen; exit 15' 15; sleep 30 & wait

### a-trap-by-sig-name TERM@0.5
trap 'echo sig; exit 0' SIGTERM; sleep 30 & wait

### a-wait-inside-a-function TERM@0.5
f() { sleep 30 & wait; echo "in f $?"; }; trap 'echo got' TERM; f; echo done

### a-trap-set-by-eval TERM@0.5
eval "trap 'echo evald; exit 8' TERM"; sleep 30 & wait

### the-trap-lists-itself TERM@0.5
trap 'trap; exit 0' TERM; sleep 30 & wait

### done-before-the-stop TERM@0.5
trap 'echo got' TERM; echo quick

### the-trap-goes-on-into-the-rest TERM@0.5
trap 'echo got' TERM; sleep 30 & wait; echo "after $?"; sleep 0.3; echo later; exit 9

### a-timeout-job-and-a-bare-wait
timeout 1 sleep 5 & wait; echo "rc=$?"

### a-timeout-job-and-wait-for-it
timeout 1 sleep 5 & wait $!; echo "rc=$?"

### a-timeout-in-the-foreground
timeout 1 sleep 5; echo "rc=$?"

### a-timeout-in-a-subshell-job
(timeout 1 sleep 3; echo "in $?") & wait; echo "rc=$?"

### a-timeout-in-a-function-job
f() { timeout 1 sleep 3; }; f & wait $!; echo "rc=$?"

### a-timeout-in-a-pipeline
timeout 1 sleep 3 | cat; echo "rc=$?"

### timeout-signals-a-shell-that-traps-it
timeout 1 sh -c 'trap "echo got; exit 3" TERM; sleep 5 & wait'; echo "rc=$?"

### timeout-waits-for-the-trapping-shells-foreground-command
timeout 1 sh -c 'trap "echo got" TERM; sleep 2; echo after'; echo "rc=$?"

### timeout-ends-a-shell-without-a-trap
timeout 1 sh -c 'sleep 5 & wait'; echo "rc=$?"

### timeout-with-another-signal
timeout -s INT 1 sh -c 'trap "echo int; exit 4" INT; sleep 5 & wait'; echo "rc=$?"

### timeout-kills-what-ignores-its-signal
timeout -k 1 1 sh -c 'trap "" TERM; sleep 5'; echo "rc=$?"

### timeout-with-kill
timeout -s KILL 1 sleep 5; echo "rc=$?"

### the-one-command-of-sh-c-takes-the-signal TERM@0.5
sh -c 'trap "echo inner; exit 5" TERM; sleep 3 & wait'

### exec-hands-the-signal-on TERM@0.5
trap 'echo outer' TERM; exec sh -c 'trap "echo inner; exit 5" TERM; sleep 3 & wait'

### a-shell-run-as-a-child-does-not-get-it TERM@0.5
trap 'echo outer' TERM; sh -c 'trap "echo inner; exit 5" TERM; sleep 1 & wait'; echo "after $?"

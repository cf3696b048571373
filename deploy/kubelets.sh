#!/bin/sh
# kubelets.sh: one kubelet per node of the pod's fakecri farm, all in one container.
#
#   sh kubelets.sh KUBELET [FLAG...]
#
# The farm (`fakecri serve --nodes K --socket-dir DIR`, the pod's fakecri sidecar) serves each
# node's CRI on DIR/NAME.sock. For every NAME.sock (farm.sock aside) this script runs
#
#   KUBELET FLAG... --hostname-override=NAME --root-dir=ROOT/NAME --cert-dir=ROOT/NAME/pki \
#                   --config-dir=ROOT/NAME.conf.d
#
# (--cert-dir because its default, /var/lib/kubelet/pki, does not follow --root-dir)
# and writes ROOT/NAME.conf.d/50-node.conf, a KubeletConfiguration drop-in with what must differ
# between kubelets that share a pod (its network, its files):
#
#   containerRuntimeEndpoint  unix://DIR/NAME.sock
#   port                      KUBELET_PORT_BASE + 2k       (k: the node's place in the sorted
#   healthzPort               KUBELET_PORT_BASE + 2k + 1    socket names, from 0)
#   podLogsDir                POD_LOGS_DIR/NAME             (a kubelet removes pod log dirs it
#                                                          does not know, so no two may share one)
#
# so FLAG... must not set those, nor the four flags above. Node names are the farm's: the script
# takes them from the sockets, so they cannot disagree with fakecri's.
#
# A kubelet that exits is started again after RESTART_DELAY seconds. One that fails MAX_FAILURES
# times in a row, each time within STABLE_AFTER seconds of its start, makes the script stop every
# kubelet and exit 1: the container then restarts with Kubernetes' back-off and the pod shows it.
# On SIGTERM or SIGINT every kubelet gets SIGTERM, and the script exits 0 once they are gone.
#
# Settings (environment):              default
#   FAKECRI_SOCKET_DIR                  /run/fakecri      the farm's directory, as fakecri reads it
#   FAKECRI_NODES                       (unset)           K: wait for this many node sockets
#   KUBELET_ROOT                        /var/lib/kubelet  where each node's root dir is made
#   POD_LOGS_DIR                        /var/log/pods     where each node's pod log dir is made
#   KUBELET_PORT_BASE                   10250
#   START_TIMEOUT                       60                seconds to wait for the farm's sockets
#   RESTART_DELAY, MAX_FAILURES, STABLE_AFTER  2, 5, 60
set -u

SOCKET_DIR=${FAKECRI_SOCKET_DIR:-/run/fakecri}
NODES=${FAKECRI_NODES:-}
ROOT=${KUBELET_ROOT:-/var/lib/kubelet}
LOGS=${POD_LOGS_DIR:-/var/log/pods}
PORT_BASE=${KUBELET_PORT_BASE:-10250}
START_TIMEOUT=${START_TIMEOUT:-60}
RESTART_DELAY=${RESTART_DELAY:-2}
MAX_FAILURES=${MAX_FAILURES:-5}
STABLE_AFTER=${STABLE_AFTER:-60}

# Until the kubelets run, a stop request just ends the script (as PID 1 of a container, a signal
# without a handler would be ignored).
trap 'exit 0' TERM INT

log() { echo "kubelets.sh $(date -u +%Y-%m-%dT%H:%M:%SZ) $*" >&2; }
die() { log "error: $*"; exit 1; }

[ $# -ge 1 ] || die "usage: kubelets.sh KUBELET [FLAG...]"
for flag in "$@"; do
  case $flag in
    --hostname-override*|--root-dir*|--cert-dir*|--config-dir*|--container-runtime-endpoint*|--port*|--healthz-port*)
      die "$flag is set per node by kubelets.sh; remove it from the container's args" ;;
  esac
done

# The farm's node names, from its sockets, in sorted order.
node_names() {
  for sock in "$SOCKET_DIR"/*.sock; do
    [ -S "$sock" ] || continue
    name=${sock##*/}
    name=${name%.sock}
    [ "$name" = farm ] || echo "$name"
  done
}

waited=0
while :; do
  count=$(($(node_names | wc -l)))
  if [ -S "$SOCKET_DIR/farm.sock" ] && [ "$count" -ge "${NODES:-1}" ] && [ "$count" -ge 1 ]; then
    break
  fi
  [ "$waited" -lt "$START_TIMEOUT" ] ||
    die "after ${START_TIMEOUT}s $SOCKET_DIR holds $count node sockets, not ${NODES:-at least 1} (and farm.sock: $([ -S "$SOCKET_DIR/farm.sock" ] && echo yes || echo no)); is fakecri serving a farm there?"
  sleep 1
  waited=$((waited + 1))
done

STATE=$(mktemp -d "${TMPDIR:-/tmp}/kubelets.XXXXXX") || die "cannot make a state directory"
trap 'rm -rf "$STATE"' EXIT

# shellcheck disable=SC2329  # called by the trap below
stop_all() {
  [ -e "$STATE/stopping" ] && return 0
  : >"$STATE/stopping"
  log "stopping every kubelet"
  for pidfile in "$STATE"/*.pid; do
    [ -e "$pidfile" ] && kill -TERM "$(cat "$pidfile")" 2>/dev/null
  done
  return 0
}
trap 'stop_all' TERM INT

# run_node NAME K KUBELET [FLAG...]: keep this node's kubelet running.
run_node() {
  name=$1 k=$2
  shift 2
  port=$((PORT_BASE + 2 * k))
  healthz=$((port + 1))
  conf=$ROOT/$name.conf.d
  mkdir -p "$ROOT/$name" "$conf" "$LOGS/$name" || { echo "$name" >>"$STATE/failed"; kill -TERM $$; return 1; }
  cat >"$conf/50-node.conf" <<EOF
# Written by kubelets.sh for node $name.
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
containerRuntimeEndpoint: unix://$SOCKET_DIR/$name.sock
port: $port
healthzPort: $healthz
podLogsDir: $LOGS/$name
EOF
  failures=0
  while [ ! -e "$STATE/stopping" ]; do
    started=$(date +%s)
    "$@" --hostname-override="$name" --root-dir="$ROOT/$name" --cert-dir="$ROOT/$name/pki" --config-dir="$conf" &
    pid=$!
    echo "$pid" >"$STATE/$name.pid"
    [ -e "$STATE/stopping" ] && kill -TERM "$pid" 2>/dev/null
    log "node $name: kubelet pid $pid, port $port, healthz $healthz, root $ROOT/$name, CRI $SOCKET_DIR/$name.sock"
    wait "$pid"
    code=$?
    rm -f "$STATE/$name.pid"
    if [ -e "$STATE/stopping" ]; then
      log "node $name: kubelet pid $pid exited ($code)"
      return 0
    fi
    if [ $(($(date +%s) - started)) -ge "$STABLE_AFTER" ]; then failures=1; else failures=$((failures + 1)); fi
    if [ "$failures" -ge "$MAX_FAILURES" ]; then
      log "node $name: kubelet pid $pid exited ($code), $failures times in a row within ${STABLE_AFTER}s of its start: giving up"
      echo "$name" >>"$STATE/failed"
      kill -TERM $$
      return 1
    fi
    log "node $name: kubelet pid $pid exited ($code); starting it again in ${RESTART_DELAY}s (failure $failures of $MAX_FAILURES)"
    sleep "$RESTART_DELAY"
  done
}

k=0
loops=
for name in $(node_names); do
  run_node "$name" "$k" "$@" &
  loops="$loops $!"
  k=$((k + 1))
done
log "started $k kubelets (farm in $SOCKET_DIR)"

# `wait` returns early when a trapped signal arrives; wait again until every node's loop is done.
while :; do
  wait
  alive=
  for loop in $loops; do
    kill -0 "$loop" 2>/dev/null && alive=1
  done
  [ -z "$alive" ] && break
done
if [ -s "$STATE/failed" ]; then
  log "exiting 1: the kubelet of $(tr '\n' ' ' <"$STATE/failed")kept failing"
  exit 1
fi
log "every kubelet stopped"
exit 0

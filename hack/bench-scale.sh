#!/usr/bin/env bash
# bench-scale.sh: winkube with N emulated nodes running M pods, then kwok's
# fake nodes doing the same on the same control plane, side by side.
#
#   hack/bench-scale.sh                           # 1,000 nodes, 10,000 pods
#   NODES=20 PODS=100 IDLE=10s hack/bench-scale.sh  # a quick look
#   NODES=200 PODS=4000 POOL=win2019 KWOK=0 PROFILE=prof hack/bench-scale.sh
#                                                 # a dense pool, winkube only
#
# Environment:
#   NODES         emulated nodes: 1/2 Windows Server 2019, 1/4 2022, 1/4 Linux (1000)
#   PODS          pods of the workload, split the same way (10000)
#   POOL          put all PODS on this pool (win2019, win2022 or linux) in one
#                 Deployment instead of one per pool: a dense pool
#   IMAGE         the workload's image instead of each pool's web server, such
#                 as mcr.microsoft.com/windows/servercore:ltsc2019 with POOL=win2019
#   COMMAND       the container's command: words split at spaces, or a JSON array
#                 (such as 'cmd /c ping -t localhost > NUL'); default the image's
#   KWOK=0        measure winkube only (kwok is not installed); its column stays empty
#   IDLE          length of each idle CPU measurement (30s)
#   SETTLE        pause before each idle measurement, once the add-ons are Ready (15s)
#   TIMEOUT       limit of each wait: cluster up, nodes Ready, pods Running/deleted (30m)
#   KWOK_VERSION  kwok release installed from the Go module proxy (v0.8.0)
#   KWOK_ARGS     extra kwok flags, such as --v=WARN (kwok logs every patch at INFO)
#   JSON          also write the results as JSON to this file
#   PROFILE       write CPU profiles of winkube, kube-apiserver and kube-scheduler
#                 (idle with the nodes, pods starting, pods being deleted) and
#                 winkube's heap with the pods Running into this dir, the
#                 kwok run's into its kwok subdir
#   WINKUBE       a winkube binary to measure instead of building ./cmd/winkube
#   KEEP=1        keep the scratch dir (data dirs, up.log, kwok.log, component logs)
#
# The table goes to stdout, progress to stderr. kwok is installed once into
# ${XDG_CACHE_HOME:-~/.cache}/winkube/bench (never added to go.mod). Every
# process listens on 127.0.0.1 only and is stopped at the end.
set -euo pipefail

NODES=${NODES:-1000} PODS=${PODS:-10000} IDLE=${IDLE:-30s} SETTLE=${SETTLE:-15s} TIMEOUT=${TIMEOUT:-30m}
KWOK_VERSION=${KWOK_VERSION:-v0.8.0}
# Relative paths are the caller's, before the cd below.
if [[ -n ${JSON:-} && $JSON != /* ]]; then
	JSON=$PWD/$JSON
fi
if [[ -n ${PROFILE:-} && $PROFILE != /* ]]; then
	PROFILE=$PWD/$PROFILE
fi
if [[ -n ${WINKUBE:-} && $WINKUBE != /* ]]; then
	WINKUBE=$PWD/$WINKUBE
fi
cd "$(dirname "$0")/.."

work=$(mktemp -d "${TMPDIR:-/tmp}/bench-scale.XXXXXX")
cleanup() {
	# benchscale stops what it started; this catches what it left behind
	# when it was killed. Only PIDs it recorded whose command line names
	# this scratch dir are signalled.
	local pid left=()
	if [[ -f $work/pids ]]; then
		while read -r pid; do
			if [[ -r /proc/$pid/cmdline ]] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$work"; then
				kill -TERM "$pid" 2>/dev/null && left+=("$pid")
			fi
		done <"$work/pids"
	fi
	for pid in "${left[@]}"; do
		for _ in $(seq 300); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	done
	if [[ -n ${KEEP:-} ]]; then
		echo "kept $work" >&2
	else
		rm -rf "$work"
	fi
}
trap cleanup EXIT

if [[ -z ${WINKUBE:-} ]]; then
	echo "== building winkube and benchscale" >&2
	WINKUBE=$work/bin/winkube
	go build -o "$WINKUBE" ./cmd/winkube
else
	echo "== building benchscale (measuring $WINKUBE)" >&2
fi
go build -o "$work/bin/benchscale" ./hack/benchscale

kwok=() skip=false
if [[ ${KWOK:-1} == 0 ]]; then
	skip=true
else
	cache=${XDG_CACHE_HOME:-$HOME/.cache}/winkube/bench/kwok-$KWOK_VERSION
	if [[ ! -x $cache/kwok ]]; then
		echo "== installing kwok $KWOK_VERSION into $cache" >&2
		GOBIN=$cache GOFLAGS= go install "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
	fi
	# kwok's node and pod stages are YAML files in its module; benchscale hands
	# kwok the ones kwokctl uses by default.
	stages=$(cd "$work" && GOFLAGS= go mod download -json "sigs.k8s.io/kwok@$KWOK_VERSION" |
		sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')/kustomize/stage
	"$cache/kwok" --version >&2
	kwok=(-kwok "$cache/kwok" -kwok-stages "$stages" -kwok-args "${KWOK_ARGS:-}")
fi

"$work/bin/benchscale" -winkube "$WINKUBE" "${kwok[@]}" -skip-kwok="$skip" \
	-work "$work" -nodes "$NODES" -pods "$PODS" -idle "$IDLE" -settle "$SETTLE" -timeout "$TIMEOUT" \
	${JSON:+-json "$JSON"} ${PROFILE:+-profile "$PROFILE"} \
	-pool "${POOL:-}" -image "${IMAGE:-}" ${COMMAND:+-command "$COMMAND"}

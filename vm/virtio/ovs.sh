#!/usr/bin/env bash
# Open vSwitch with DPDK for the virtio lab, without systemd: ovsdb-server and
# Debian's ovs-vswitchd-dpdk (called by its full path; the machine's
# ovs-vswitchd alternative is left alone), everything in a private run dir.
# Shared by vm/virtio/virtio-lab.sh (make lab-virtio), bench-virtio.sh and
# the test harness (tests/tcl/harness/ovs.tcl), so the lab is the tested one.
#
#   ovs.sh [-v] start   RUNDIR FILE_PREFIX   ovsdb-server + ovs-vswitchd, DPDK initialised;
#                       ovs-vswitchd runs in network namespace FILE_PREFIX (made
#                       here): the netdev datapath's TAP is always named
#                       ovs-netdev, and two instances in one namespace collide
#   ovs.sh [-v] bridge  RUNDIR BRIDGE [PORT=SOCKET ...]
#                       a netdev bridge (its TAP, in the namespace, is named BRIDGE:
#                       <= 15 bytes) with a dpdkvhostuserclient port
#                       per PORT=SOCKET (vbrd is the vhost-user server there),
#                       and no flow: ports pass nothing until `link`
#   ovs.sh [-v] link    RUNDIR BRIDGE A B    A <-> B by in_port flows (priority 10): a point-to-point line
#   ovs.sh [-v] cut     RUNDIR BRIDGE A B    drop what A and B send (priority 100, over
#                                            the link's 10): a silent cut
#   ovs.sh [-v] restore RUNDIR BRIDGE A B    remove those drop flows
#   ovs.sh stop         RUNDIR               exit --cleanup, its namespace (and TAPs) and
#                                            DPDK runtime dir removed
#   ovs.sh vsctl|ofctl|appctl RUNDIR ARGS... the OVS tools aimed at this instance
#
# Environment of `start` (defaults: the 2-core layout of make test):
#   OVS_LCORE_CPU=0       ovs-vswitchd's main lcore (dpdk-lcore-mask)
#   OVS_PMD_CPU=1         the one PMD thread (pmd-cpu-mask)
#   OVS_PMD_MAXSLEEP=500  µs a PMD with no packets may sleep (OVS >= 3.1); 0: spin
#   OVS_MEM_MB=512        DPDK memory, --no-huge (no hugepage is needed)
#   OVS_VSWITCHD_PREFIX   words run before ovs-vswitchd (tests/perf/bench-ovs.sh:
#                         valgrind --tool=callgrind ...); DPDK's start-up is then
#                         waited for up to 300 s
#   OVS_VSCTL_TIMEOUT=10  seconds ovs-vsctl waits (for every command, not only start)
#   OVS_HUGE_MB=0         > 0: DPDK on 2 MiB hugepages instead, this many MiB
#                         (dpdk-socket-mem and dpdk-socket-limit; OVS runs EAL
#                         --in-memory, no hugetlbfs mount needed, the pages go
#                         back when it exits); the caller reserves the pages.
#                         OVS_MEM_MB is then unused
# -v prints every OVS command before it runs it ("$ ovs-vsctl ...").
set -euo pipefail

VSWITCHD=${OVS_VSWITCHD:-/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk}
SCHEMA=/usr/share/openvswitch/vswitch.ovsschema
verbose=0
if [ "${1:-}" = -v ]; then verbose=1; shift; fi
[ $# -ge 2 ] || { sed -n '2,35p' "$0" >&2; exit 2; }
cmd=$1 R=$2
shift 2

export OVS_RUNDIR=$R OVS_LOGDIR=$R OVS_DBDIR=$R OVS_SYSCONFDIR=$R
DB=unix:$R/db.sock

run() { # print (with -v) and run a command
	if [ "$verbose" = 1 ]; then echo "\$ $*" | sed "s#$R/#\$R/#g"; fi
	"$@"
}
vsctl() { run ovs-vsctl --db="$DB" --timeout="${OVS_VSCTL_TIMEOUT:-10}" "$@"; }
ofctl() { run ovs-ofctl "$@"; }

failed() { # DAEMON: it did not start; say why (its stderr and log) and exit 1
	echo "ovs.sh: $1 did not start (logs in $R):" >&2
	tail -n 5 "$R/$1.stderr" "$R/$1.log" 2>/dev/null | grep -v '^$' >&2 || true
	exit 1
}
wait_gone() { # PID MS: wait for PID to exit, else SIGKILL it
	local pid=$1 n=$(($2 / 50))
	while kill -0 "$pid" 2>/dev/null && [ "$n" -gt 0 ]; do sleep 0.05; n=$((n - 1)); done
	kill -KILL "$pid" 2>/dev/null || true
}

case $cmd in
start)
	[ $# -eq 1 ] || { echo "ovs.sh start RUNDIR FILE_PREFIX" >&2; exit 2; }
	prefix=$1
	[ -x "$VSWITCHD" ] || { echo "ovs.sh: $VSWITCHD missing (apt-get install openvswitch-switch-dpdk)" >&2; exit 1; }
	mkdir -p "$R"
	rm -f "$R/conf.db"
	echo "$prefix" >"$R/file-prefix"
	if ip netns pids "$prefix" 2>/dev/null | grep -q .; then
		echo "ovs.sh: network namespace $prefix is in use (another instance of this prefix?)" >&2
		exit 1
	fi
	ip netns del "$prefix" 2>/dev/null || true
	ip netns add "$prefix"
	echo "$prefix" >"$R/netns"
	run ovsdb-tool create "$R/conf.db" "$SCHEMA"
	run ovsdb-server "$R/conf.db" --remote="punix:$R/db.sock" --pidfile="$R/ovsdb-server.pid" \
		--unixctl="$R/ovsdb-server.ctl" --log-file="$R/ovsdb-server.log" --detach --no-chdir \
		2>"$R/ovsdb-server.stderr" || failed ovsdb-server
	vsctl --no-wait init
	# --legacy-mem: OVS 3.1 adds --in-memory unless the extra args set a
	# memory mode, and --no-huge (legacy memory) refuses --in-memory.
	if [ "${OVS_HUGE_MB:-0}" -gt 0 ]; then
		# no memory mode given: OVS adds --in-memory (hugepages mapped
		# anonymously, never files), socket-limit caps what it may grow to
		mem=("other_config:dpdk-extra=--file-prefix=$prefix --no-pci"
			"other_config:dpdk-socket-mem=$OVS_HUGE_MB" "other_config:dpdk-socket-limit=$OVS_HUGE_MB")
	else
		mem=("other_config:dpdk-extra=--file-prefix=$prefix --no-pci --no-huge -m ${OVS_MEM_MB:-512} --legacy-mem")
	fi
	vsctl --no-wait set Open_vSwitch . other_config:dpdk-init=true "${mem[@]}" \
		other_config:dpdk-lcore-mask="$(printf '0x%x' $((1 << ${OVS_LCORE_CPU:-0})))" \
		other_config:pmd-cpu-mask="$(printf '0x%x' $((1 << ${OVS_PMD_CPU:-1})))" \
		other_config:pmd-maxsleep="${OVS_PMD_MAXSLEEP:-500}" \
		other_config:per-port-memory=true other_config:vhost-sock-dir=.
	# -vconsole:off: --detach alone still copies the log to stderr
	if [ -n "${OVS_VSWITCHD_PREFIX:-}" ]; then
		# under valgrind: no --detach, whose fork valgrind's gdbserver
		# (callgrind_control, vgdb) does not follow; in the background
		# instead (ip netns exec keeps the pid), waited for up to 300 s
		# shellcheck disable=SC2086  # OVS_VSWITCHD_PREFIX is words
		ip netns exec "$prefix" $OVS_VSWITCHD_PREFIX "$VSWITCHD" "$DB" --pidfile="$R/ovs-vswitchd.pid" \
			--unixctl="$R/ovs-vswitchd.ctl" --log-file="$R/ovs-vswitchd.log" -vconsole:off --no-chdir \
			</dev/null >/dev/null 2>"$R/ovs-vswitchd.stderr" &
		for _ in $(seq 300); do
			[ -S "$R/ovs-vswitchd.ctl" ] && break
			kill -0 $! 2>/dev/null || failed ovs-vswitchd
			sleep 1
		done
		[ -S "$R/ovs-vswitchd.ctl" ] || failed ovs-vswitchd
	else
		run ip netns exec "$prefix" "$VSWITCHD" "$DB" --pidfile="$R/ovs-vswitchd.pid" --unixctl="$R/ovs-vswitchd.ctl" \
			--log-file="$R/ovs-vswitchd.log" -vconsole:off --detach --no-chdir \
			2>"$R/ovs-vswitchd.stderr" || failed ovs-vswitchd
	fi
	init=$(ovs-vsctl --db="$DB" --timeout=10 get Open_vSwitch . dpdk_initialized) || init="?"
	if [ -n "${OVS_VSWITCHD_PREFIX:-}" ]; then  # slow under valgrind
		for _ in $(seq 300); do
			[ "$init" != true ] || break
			sleep 1
			init=$(ovs-vsctl --db="$DB" --timeout=10 get Open_vSwitch . dpdk_initialized) || init="?"
		done
	fi
	if [ "$init" != true ]; then
		echo "ovs.sh: DPDK not initialised (dpdk_initialized=$init):" >&2
		tail -5 "$R/ovs-vswitchd.log" >&2
		exit 1
	fi
	;;
bridge)
	[ $# -ge 1 ] || { echo "ovs.sh bridge RUNDIR BRIDGE [PORT=SOCKET ...]" >&2; exit 2; }
	br=$1
	shift
	args=(add-br "$br" -- set bridge "$br" datapath_type=netdev)
	for ps in "$@"; do
		args+=(-- add-port "$br" "${ps%%=*}" -- set Interface "${ps%%=*}"
			type=dpdkvhostuserclient "options:vhost-server-path=${ps#*=}")
	done
	vsctl "${args[@]}"
	# no NORMAL flow: two lines on one bridge must not become one L2 domain
	ofctl del-flows "$br"
	;;
link | cut | restore)
	[ $# -eq 3 ] || { echo "ovs.sh $cmd RUNDIR BRIDGE A B" >&2; exit 2; }
	br=$1 a=$2 b=$3
	case $cmd in
	link)
		ofctl add-flow "$br" "priority=10,in_port=$a,actions=output:$b"
		ofctl add-flow "$br" "priority=10,in_port=$b,actions=output:$a" ;;
	cut)
		ofctl add-flows "$br" - <<-EOF
			priority=100,in_port=$a,actions=drop
			priority=100,in_port=$b,actions=drop
		EOF
		;;
	restore)
		ofctl del-flows --strict "$br" "priority=100,in_port=$a"
		ofctl del-flows --strict "$br" "priority=100,in_port=$b" ;;
	esac
	;;
stop)
	# --cleanup: the netdev datapath's TAP per bridge goes too (a plain
	# exit or SIGTERM leaves it in the root namespace)
	for d in ovs-vswitchd ovsdb-server; do
		[ -f "$R/$d.pid" ] || continue
		pid=$(cat "$R/$d.pid")
		kill -0 "$pid" 2>/dev/null || continue
		how="exit"
		[ $d = ovs-vswitchd ] && how="exit --cleanup"
		# shellcheck disable=SC2086
		timeout 10 ovs-appctl -t "$R/$d.ctl" $how >/dev/null 2>&1 || kill -TERM "$pid" 2>/dev/null || true
		wait_gone "$pid" 5000
	done
	# the bridges' TAPs and ovs-netdev go with the namespace
	if [ -f "$R/netns" ]; then
		ip netns del "$(cat "$R/netns")" 2>/dev/null || true
	fi
	# (not a runtime dir another process still holds: a start that failed
	# on a prefix in use must not break the instance that uses it)
	if [ -f "$R/file-prefix" ]; then
		d=/run/dpdk/$(cat "$R/file-prefix")
		if ! fuser -s "$d/config" 2>/dev/null; then rm -rf "$d"; fi
	fi
	;;
vsctl) vsctl "$@" ;;
ofctl) ofctl "$@" ;;
appctl) run ovs-appctl -t "$R/ovs-vswitchd.ctl" "$@" ;;
*)
	echo "ovs.sh: unknown command '$cmd'" >&2
	exit 2
	;;
esac

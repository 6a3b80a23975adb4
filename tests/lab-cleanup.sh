# shellcheck shell=bash
# lab_cleanup_run PREFIX RUNDIR: delete whatever a test or bench run of
# PREFIX left behind (sourced by tests/run-tests.sh and the benches that
# run the Tcl harness): processes it started (only those whose command
# line names the prefix, from RUNDIR/pids), processes in its namespaces,
# its namespaces and veths, DPDK runtime directories of its vbrd
# instances, the /var/tmp/frr directories of the FRR daemons it killed,
# its nft tables in the root namespace (PREFIX_*, netdev and inet
# families). run.tcl's lab_cleanup does the same at the normal end of
# a test file.
lab_cleanup_run() {
	local prefix=$1 rundir=$2 pid ns link table fam comm
	if [ -f "$rundir/pids" ]; then
		while read -r pid; do
			if [ -r "/proc/$pid/cmdline" ] &&
			   tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$prefix"; then
				kill -KILL "$pid" 2>/dev/null
			fi
		done <"$rundir/pids"
		: >"$rundir/pids"
	fi
	for ns in $(ip netns list | awk '{print $1}' | grep "^$prefix-"); do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			comm=$(cat "/proc/$pid/comm" 2>/dev/null)
			kill -KILL "$pid" 2>/dev/null
			# an FRR daemon's crash-log directory (frr.tcl's frr_stop
			# removes it when the daemon stops normally)
			case "$comm" in
			zebra|bgpd|bfdd|staticd) rm -rf "/var/tmp/frr/$comm.$pid" ;;
			esac
		done
	done
	for ns in $(ip netns list | awk '{print $1}' | grep "^$prefix-"); do
		ip netns del "$ns" 2>/dev/null
	done
	for link in $(ip -o link show | awk -F': ' '{print $2}' | sed 's/@.*//' | grep "^$prefix-"); do
		ip link del "$link" 2>/dev/null
	done
	for fam in netdev inet; do
		for table in $(nft list tables $fam 2>/dev/null | awk '{print $3}' | grep "^${prefix}_"); do
			nft delete table $fam "$table" 2>/dev/null
		done
	done
	rm -rf /var/run/dpdk/"$prefix"-* 2>/dev/null
}

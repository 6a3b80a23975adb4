# The lab: Linux hosts played by network namespaces, each joined to vbrd by
# a veth pair. The root-namespace end of the pair (named PREFIX-HOST) is
# what vbrd opens as a net_af_packet port; the other end is eth0 inside the
# namespace PREFIX-HOST.
#
# PREFIX (VBRD_TEST_PREFIX, default vt<pid mod 10000>) is unique per test
# run, so that every namespace, link, file and DPDK runtime directory a run
# creates can be found and deleted by it: lab_cleanup does so at the end of
# every test file, and tests/run-tests.sh once more at the end of the run.
# Files (configs, logs, pcaps) go to the run directory /tmp/vbrd-tests/PREFIX.

package require json

namespace eval lab {
    variable prefix ""
    variable rundir ""
    variable hosts          ;# array: host name -> namespace
    array set hosts {}
    variable links {}       ;# root-namespace links created
    variable eth0_peer      ;# array: lab_host name -> its eth0's root-namespace veth
    array set eth0_peer {}
    variable procs {}       ;# pids of background processes started
    variable spawn_logs     ;# array: pid -> output file
    array set spawn_logs {}
    variable dpdk_prefixes {} ;# EAL file prefixes used (runtime dirs to delete)
    variable seq 0
    variable cleanups {}    ;# scripts lab_cleanup runs first (lab_on_cleanup)
    variable exec_timeout 120   ;# s, upper bound of any lab_exec command
}

# Pick the prefix and create the run directory. Fails unless root.
proc lab_init {} {
    if {$::lab::prefix ne ""} { return }
    if {[exec id -u] != 0} {
        error "the integration tests need root (network namespaces, veth, DPDK)"
    }
    if {[info exists ::env(VBRD_TEST_PREFIX)] && $::env(VBRD_TEST_PREFIX) ne ""} {
        set p $::env(VBRD_TEST_PREFIX)
    } else {
        set p "vt[expr {[pid] % 10000}]"
    }
    # Interface names have 15 bytes: PREFIX-HOST must fit.
    if {![regexp {^[a-z][a-z0-9]{1,6}$} $p]} {
        error "VBRD_TEST_PREFIX '$p': want 2..7 of \[a-z0-9\], starting with a letter"
    }
    set ::lab::prefix $p
    set ::lab::rundir [file join /tmp vbrd-tests $p]
    file mkdir $::lab::rundir
}

proc lab_prefix {} { lab_init; return $::lab::prefix }
proc lab_rundir {} { lab_init; return $::lab::rundir }

# A new file name in the run directory: lab_file ping.log -> .../3-ping.log
proc lab_file {name} {
    lab_init
    return [file join $::lab::rundir "[incr ::lab::seq]-$name"]
}

# Namespace of HOST.
proc lab_ns {host} {
    if {![info exists ::lab::hosts($host)]} {
        error "no lab host '$host'"
    }
    return $::lab::hosts($host)
}

# Root-namespace end of HOST's veth: the name vbrd's port devargs use.
proc lab_if {host} {
    lab_ns $host
    return "$::lab::prefix-$host"
}

# Create a bare host: a namespace with lo up and IPv6 off (the tests speak
# IPv4; IPv6 router solicitations and MLD reports would only add noise to
# vbrd's counters).
proc lab_netns {host} {
    lab_init
    if {[string length "$::lab::prefix-$host"] > 15} {
        error "host name '$host' too long for an interface name"
    }
    set ns "$::lab::prefix-$host"
    exec ip netns add $ns
    set ::lab::hosts($host) $ns
    exec ip netns exec $ns sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
        net.ipv6.conf.default.disable_ipv6=1
    exec ip -n $ns link set lo up
    return $ns
}

# lab_host NAME ADDR/LEN GW ?-mtu BYTES?
#
# A host NAME: namespace PREFIX-NAME whose eth0 has ADDR/LEN and a default
# route via GW (vbrd's address), veth peer PREFIX-NAME in the root namespace
# (up, no address, IPv6 off). ADDR and GW may be "" (a host that gets its
# addresses from lab_vlan). -mtu sets both ends' MTU (bytes of L3 payload).
proc lab_host {name addr gw args} {
    set mtu 1500
    foreach {k v} $args {
        switch -- $k {
            -mtu { set mtu $v }
            default { error "lab_host: unknown option $k" }
        }
    }
    set ns [lab_netns $name]
    set rootif "$::lab::prefix-$name"
    exec ip link add $rootif type veth peer name eth0 netns $ns
    lappend ::lab::links $rootif
    set ::lab::eth0_peer($name) $rootif
    _lab_write /proc/sys/net/ipv6/conf/$rootif/disable_ipv6 1
    exec ip link set $rootif mtu $mtu up
    exec ip -n $ns link set eth0 mtu $mtu up
    # Without this the kernel leaves TCP/UDP checksums to an offload that
    # never happens: af_packet would hand vbrd packets with bad checksums.
    exec ip netns exec $ns ethtool -K eth0 tx off >/dev/null 2>@1
    if {$addr ne ""} {
        exec ip -n $ns addr add $addr dev eth0
    }
    if {$gw ne ""} {
        exec ip -n $ns route add default via $gw
    }
    return $ns
}

# lab_wire HOST_A IF_A HOST_B IF_B ?-mtu BYTES? ?-ipv6 1?
#
# A veth pair straight between two lab hosts (made with lab_netns or
# lab_host): IF_A in HOST_A, IF_B in HOST_B, both up, TX checksum offload
# off (as lab_host's eth0, so that a raw-socket reader such as vbrd's
# af_packet port or tcpdump sees correct TCP/UDP checksums; between two
# kernels it would not matter). No vbrd in between. Both ends live only in
# the namespaces, so deleting those (lab_cleanup) deletes the pair. -ipv6 1
# turns IPv6 on for the two ends only (lab_netns turns it off), with
# link-local addresses and duplicate address detection off so that
# addresses are usable at once.
proc lab_wire {host_a if_a host_b if_b args} {
    set mtu 1500
    set ipv6 0
    foreach {k v} $args {
        switch -- $k {
            -mtu { set mtu $v }
            -ipv6 { set ipv6 $v }
            default { error "lab_wire: unknown option $k" }
        }
    }
    set ns_a [lab_ns $host_a]
    set ns_b [lab_ns $host_b]
    exec ip link add $if_a netns $ns_a mtu $mtu type veth peer name $if_b netns $ns_b mtu $mtu
    foreach {ns ifname} [list $ns_a $if_a $ns_b $if_b] {
        if {$ipv6} {
            exec ip netns exec $ns sysctl -qw net.ipv6.conf.$ifname.accept_dad=0 \
                net.ipv6.conf.$ifname.disable_ipv6=0
        }
        exec ip -n $ns link set $ifname up
        exec ip netns exec $ns ethtool -K $ifname tx off >/dev/null 2>@1
    }
}

# Run a command in HOST's namespace ("-" = the root namespace) and return
# its stdout. Raises an error holding stdout and stderr when it exits non-zero
# or outlives ::lab::exec_timeout seconds.
proc lab_exec {host args} {
    set errf [lab_file stderr]
    set cmd [_lab_cmd $host $args]
    set code [catch {exec timeout $::lab::exec_timeout {*}$cmd 2> $errf} out]
    set err [_lab_read $errf]
    file delete $errf
    if {$code} {
        error "`[join $args]` in $host failed: [string trim "$out\n$err"]"
    }
    return $out
}

# Run a command in HOST's namespace; return {EXIT_STATUS OUTPUT} with stdout
# and stderr together. Never raises for the command's own failure.
proc lab_run {host args} {
    set cmd [_lab_cmd $host $args]
    set code [catch {exec timeout $::lab::exec_timeout {*}$cmd 2>@1} out opts]
    if {!$code} {
        return [list 0 $out]
    }
    set ec [dict get $opts -errorcode]
    regsub {\n?child process exited abnormally$} $out {} out
    if {[lindex $ec 0] eq "CHILDSTATUS"} {
        return [list [lindex $ec 2] $out]
    }
    return [list -1 "$out ($ec)"]
}

# Start a command in HOST's namespace in the background, stdout and stderr to
# a file; return its pid. It is killed by lab_cleanup at the latest, and by
# itself after -lifetime seconds (default 300).
proc lab_spawn {host args} {
    set lifetime 300
    if {[lindex $args 0] eq "-lifetime"} {
        set lifetime [lindex $args 1]
        set args [lrange $args 2 end]
    }
    set log [lab_file spawn.log]
    set cmd [_lab_cmd $host $args]
    set pid [exec timeout -k 5 $lifetime {*}$cmd >& $log < /dev/null &]
    _lab_track $pid
    set ::lab::spawn_logs($pid) $log
    return $pid
}

# Output so far of a process started by lab_spawn.
proc lab_spawn_output {pid} {
    return [_lab_read $::lab::spawn_logs($pid)]
}

# Whether process PID has exited (a zombie counts as exited).
proc lab_exited {pid} {
    set f /proc/$pid/stat
    if {[catch {set fd [open $f r]}]} { return 1 }
    set stat [read $fd]
    close $fd
    # pid (comm) STATE ...; comm may hold spaces and parentheses.
    set state [lindex [string range $stat [expr {[string last ")" $stat] + 2}] end] 0]
    return [expr {$state in {Z X}}]
}

# Wait up to MS milliseconds for PID to exit; return 1 if it did.
proc lab_wait_exit {pid ms} {
    set deadline [expr {[clock milliseconds] + $ms}]
    while {![lab_exited $pid]} {
        if {[clock milliseconds] > $deadline} { return 0 }
        after 20
    }
    return 1
}

# Send SIGNAL (default TERM) to a process this run started.
proc lab_kill {pid {sig TERM}} {
    catch {exec kill -$sig $pid}
}

# Counters of a host's interface (default eth0) as the kernel counts them:
# dict rx_packets tx_packets rx_bytes tx_bytes rx_dropped tx_dropped.
proc lab_link_stats {host {ifname eth0}} {
    set j [json::json2dict [lab_exec $host ip -s -j link show dev $ifname]]
    set s [dict get [lindex $j 0] stats64]
    return [dict create \
        rx_packets [dict get $s rx packets] rx_bytes [dict get $s rx bytes] \
        rx_dropped [dict get $s rx dropped] \
        tx_packets [dict get $s tx packets] tx_bytes [dict get $s tx bytes] \
        tx_dropped [dict get $s tx dropped]]
}

# lab_host6 NAME ADDR/LEN GW: a lab host that speaks IPv6 only (lab_host
# leaves IPv6 off); lab_host46 NAME ADDR4 GW4 ADDR6 GW6: one with both.
# IPv6 comes without duplicate address detection, router solicitations or
# router advertisements, so its address works at once.
proc lab_host6 {name addr gw} {
    set ns [lab_host $name "" ""]
    _lab_host_ipv6 $name $addr $gw
    return $ns
}

proc lab_host46 {name addr4 gw4 addr6 gw6} {
    set ns [lab_host $name $addr4 $gw4]
    _lab_host_ipv6 $name $addr6 $gw6
    return $ns
}

proc _lab_host_ipv6 {name addr gw} {
    lab_exec $name sysctl -qw net.ipv6.conf.all.disable_ipv6=0 \
        net.ipv6.conf.default.disable_ipv6=0 net.ipv6.conf.eth0.disable_ipv6=0 \
        net.ipv6.conf.lo.disable_ipv6=0 \
        net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.eth0.accept_dad=0 \
        net.ipv6.conf.eth0.accept_ra=0 net.ipv6.conf.eth0.router_solicitations=0
    lab_exec $name ip -6 addr add $addr dev eth0 nodad
    lab_exec $name ip -6 route add default via $gw
}

# Counters of HOST's network namespace from /proc/net/snmp for PROTO (Ip,
# Icmp, Tcp, Udp, ...): a dict NAME -> value, e.g. [dict get [lab_snmp h2
# Icmp] InEchos]. They are the namespace's own, so they count exactly what
# reached one host (echo requests, datagrams), frames of other kinds aside.
proc lab_snmp {host proto} {
    set names {}
    foreach line [split [lab_exec $host cat /proc/net/snmp] "\n"] {
        if {![string match "$proto: *" $line]} continue
        if {$names eq ""} { set names [lrange $line 1 end]; continue }
        set d [dict create]
        foreach n $names v [lrange $line 1 end] { dict set d $n $v }
        return $d
    }
    error "no $proto line in /proc/net/snmp of $host"
}

# Frames HOST's eth0 received, read without starting a process: for a
# lab_host, eth0's veth peer in the root namespace sent them (vbrd's port),
# and its tx_packets in /sys is the count (the two ends agree frame for
# frame); other hosts through lab_link_stats. For loops that poll a
# count while traffic runs: `ip netns exec` is slow on a busy machine (a
# poll of a 3 s stream once saw it end before its midway point).
proc lab_rx_packets {host} {
    if {[info exists ::lab::eth0_peer($host)]} {
        set n [string trim [_lab_read /sys/class/net/$::lab::eth0_peer($host)/statistics/tx_packets]]
        if {[string is integer -strict $n]} { return $n }
    }
    return [dict get [lab_link_stats $host] rx_packets]
}

# MAC address of a host's interface (default eth0).
proc lab_mac {host {ifname eth0}} {
    set j [json::json2dict [lab_exec $host ip -j link show dev $ifname]]
    return [dict get [lindex $j 0] address]
}

# Have lab_cleanup run SCRIPT (at global level, errors ignored) before it
# deletes anything, the last registered first: for what other harness files
# create outside the namespaces (nft tables in the root namespace, ...).
proc lab_on_cleanup {script} {
    set ::lab::cleanups [linsert $::lab::cleanups 0 $script]
}

# Delete everything this test file created: what lab_on_cleanup scripts
# delete, processes it started (TERM, then KILL), processes still inside its
# namespaces, the veths, the namespaces, DPDK runtime directories. Safe to
# call twice; never raises.
proc lab_cleanup {} {
    set scripts $::lab::cleanups
    set ::lab::cleanups {}
    foreach script $scripts {
        catch {uplevel #0 $script}
    }
    foreach pid $::lab::procs {
        if {![lab_exited $pid]} { catch {exec kill -TERM $pid} }
    }
    foreach pid $::lab::procs {
        if {![lab_wait_exit $pid 2000]} { catch {exec kill -KILL $pid} }
    }
    set ::lab::procs {}
    foreach host [array names ::lab::hosts] {
        set ns $::lab::hosts($host)
        catch {
            foreach pid [exec ip netns pids $ns] {
                catch {exec kill -KILL $pid}
            }
        }
    }
    foreach l $::lab::links {
        catch {exec ip link del $l 2>/dev/null}
    }
    set ::lab::links {}
    foreach host [array names ::lab::hosts] {
        catch {exec ip netns del $::lab::hosts($host) 2>/dev/null}
    }
    array unset ::lab::hosts
    foreach p $::lab::dpdk_prefixes {
        catch {file delete -force [file join /var/run/dpdk $p]}
    }
    set ::lab::dpdk_prefixes {}
}

# --- internals ---

proc _lab_cmd {host argv} {
    if {$host eq "-"} { return $argv }
    return [list ip netns exec [lab_ns $host] {*}$argv]
}

# Remember a pid for lab_cleanup, and in the run directory's `pids` file for
# tests/run-tests.sh's final cleanup.
proc _lab_track {pid} {
    lappend ::lab::procs $pid
    set fd [open [file join [lab_rundir] pids] a]
    puts $fd $pid
    close $fd
}

proc _lab_read {file} {
    if {[catch {open $file r} fd]} { return "" }
    set s [read $fd]
    close $fd
    return $s
}

proc _lab_write {file text} {
    set fd [open $file w]
    puts -nonewline $fd $text
    close $fd
}

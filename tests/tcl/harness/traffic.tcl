# Traffic: ping and iperf3 between lab hosts, with their results parsed.

package require json

# ping_stats OUTPUT -> dict transmitted received errors loss_pct
# (from ping's summary line; fails the test if there is none).
proc ping_stats {out} {
    if {![regexp {(\d+) packets transmitted, (\d+) received(?:, \+(\d+) errors)?.*?([\d.]+)% packet loss} \
              $out -> tx rx err loss]} {
        fail "no ping summary in: $out"
    }
    if {$err eq ""} { set err 0 }
    return [dict create transmitted $tx received $rx errors $err loss_pct $loss]
}

# ping_from HOST DEST ?ping options...? -> {EXIT OUTPUT}, with -n and (unless
# given) -c 1 added. No -w: with a deadline ping stops at the first ICMP
# error. Give -W (reply timeout, s) to bound the wait for a lost reply.
proc ping_from {host dest args} {
    if {[lsearch -exact $args -c] < 0} { lappend args -c 1 }
    return [lab_run $host ping -n {*}$args $dest]
}

# Ping DEST from HOST COUNT times (0.1 s apart) and fail unless every echo
# got its reply; return the ping stats dict.
proc assert_ping {host dest {count 3} args} {
    lassign [ping_from $host $dest -c $count -i 0.1 -W 2 {*}$args] rc out
    set st [ping_stats $out]
    if {[dict get $st received] != $count} {
        fail "ping $dest from $host: [dict get $st received]/$count replies:\n$out"
    }
    return $st
}

# The icmp_seq numbers 1..COUNT that got no echo reply in ping's OUTPUT
# (its "bytes from ... icmp_seq=N" lines), for `ping -c COUNT -w
# DEADLINE`. Without -w, iputils' ping waits only max(2 RTTs, interval)
# for the last replies once one reply has come (schedule_exit(); -W counts
# only while none has), so a reply a loaded machine delays by 100 ms counts
# as lost. With -w it waits for COUNT replies until DEADLINE, sending more
# requests while some are missing: a request that was lost for good is a
# missing number here. (-w stops at the first ICMP error too.)
proc ping_missing {out count} {
    set got {}
    foreach {- seq} [regexp -all -inline {bytes from [^\n]*icmp_seq=(\d+) } $out] {
        lappend got $seq
    }
    set missing {}
    for {set i 1} {$i <= $count} {incr i} {
        if {$i ni $got} { lappend missing $i }
    }
    return $missing
}

# Start `iperf3 -s` in HOST and wait until it listens on PORT (default 5201);
# return its pid.
proc iperf_server {host {port 5201}} {
    set pid [lab_spawn $host iperf3 -s -p $port]
    wait_for_condition 50 100 {
        [string match "*:$port *" [lab_exec $host ss -Hltn]] || [lab_exited $pid]
    } else {
        fail "iperf3 server in $host not listening:\n[lab_spawn_output $pid]"
    }
    if {[lab_exited $pid]} {
        fail "iperf3 server in $host exited:\n[lab_spawn_output $pid]"
    }
    return $pid
}

# Run an iperf3 client in HOST against SERVER_ADDR for SECONDS with extra
# iperf3 options; return its parsed JSON report (a dict). Fails the test if
# iperf3 reports an error.
proc iperf_client {host server seconds args} {
    lassign [lab_run $host iperf3 -c $server -t $seconds -J --connect-timeout 3000 {*}$args] rc out
    if {[catch {json::json2dict $out} rep]} {
        fail "iperf3 client in $host: no JSON report (exit $rc):\n$out"
    }
    if {[dict exists $rep error]} {
        fail "iperf3 client in $host: [dict get $rep error]"
    }
    return $rep
}

# Bits per second the receiver counted, from an iperf3 report (TCP or UDP).
proc iperf_rx_bps {rep} {
    set end [dict get $rep end]
    if {[dict exists $end sum_received bits_per_second]} {
        return [dict get $end sum_received bits_per_second]
    }
    return [dict get $end sum bits_per_second]
}

# Send COUNT UDP datagrams from HOST to DEST:PORT, each from its own source
# port (COUNT flows), GAP_US microseconds apart. Uses Debian's python3.
proc udp_flows {host dest port count {gap_us 1000} {payload 64}} {
    set script {
import socket, sys, time
dest, port, count, gap, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
socks = []
for i in range(count):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("0.0.0.0", 20000 + i))
    s.sendto(b"x" * size, (dest, port))
    socks.append(s)
    time.sleep(gap / 1e6)
print("sent", count)
}
    return [lab_exec $host /usr/bin/python3 -c $script $dest $port $count $gap_us $payload]
}

# Send one UDP datagram (PAYLOAD bytes) from HOST to DEST:PORT with a
# kernel socket, broadcast allowed (SO_BROADCAST).
proc udp_send {host dest port payload} {
    lab_exec $host /usr/bin/python3 -c {
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
s.sendto(bytes.fromhex(sys.argv[3]), (sys.argv[1], int(sys.argv[2])))
} $dest $port [binary encode hex $payload]
}

# tools/vlan_host.py: hosts on 802.1Q VLANs played with a raw socket on
# HOST's eth0 (the test kernel has no VLAN sub-interfaces).
# tools/rawio.py IFACE WAIT_MS HEX...: send each frame (hex) on IFACE from
# a raw socket, then print in hex every frame IFACE receives for WAIT_MS ms.
set ::rawio [file join [file dirname [file dirname [file normalize [info script]]]] tools rawio.py]
set ::vlan_host_py [file join [file dirname [file dirname [file normalize [info script]]]] tools vlan_host.py]

# Start `vlan_host.py serve eth0 VID:ADDR ...` in HOST; return its pid once
# it listens.
proc vlan_host_serve {host args} {
    set pid [lab_spawn $host /usr/bin/python3 $::vlan_host_py serve eth0 {*}$args]
    wait_for_condition 50 100 {
        [string match "*ready*" [lab_spawn_output $pid]] || [lab_exited $pid]
    } else {
        fail "vlan_host.py serve did not start"
    }
    if {[lab_exited $pid]} {
        fail "vlan_host.py serve exited:\n[lab_spawn_output $pid]"
    }
    return $pid
}

# As host SRC on VLAN VID of HOST's eth0, ping DST through gateway GW COUNT
# times; return {SENT RECEIVED}.
proc vlan_host_ping {host vid src gw dst count} {
    lassign [lab_run $host /usr/bin/python3 $::vlan_host_py ping eth0 $vid $src $gw $dst $count] rc out
    if {![regexp {sent (\d+) received (\d+)} $out -> sent got]} {
        fail "vlan_host.py ping: $out"
    }
    return [list $sent $got]
}

# udp_probe HOST ADDR PORT ?COUNT?: send COUNT one-byte UDP datagrams from
# HOST to ADDR:PORT on a connected socket, a few ms apart; return how many
# of them drew an ICMP port unreachable (the kernel reports it as
# ECONNREFUSED on the next call, RFC 1122 §4.1.3.3).
proc udp_probe {host addr port {count 1}} {
    set py {
import socket, sys, time
addr, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
fam = socket.AF_INET6 if ':' in addr else socket.AF_INET
refused = 0
for i in range(n):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    s.settimeout(1.0)
    s.connect((addr, port))
    s.send(b'x')
    try:
        s.recv(16)
    except ConnectionRefusedError:
        refused += 1
    except socket.timeout:
        pass
    s.close()
print(refused)
}
    return [string trim [lab_exec $host python3 -c $py $addr $port $count]]
}

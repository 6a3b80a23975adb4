# Stopping is bounded: SIGTERM ends vbrd within its stop bound (2 s,
# app/watchdog.h) whatever the worker is doing.
#
# The worker is saturated by a full-rate replay (net_pcap, infinite_rx=1)
# towards a line that drains at 1 kbit/s: a tbf qdisc on h1's veth, which
# vbrd's af_packet port uses with qdisc_bypass=0. The socket's send buffer
# fills with packets the qdisc holds, the TX ring fills, and the af_packet
# PMD waits for a free frame in poll() without a timeout. That is what a
# loaded machine does to a busy line for a while; here it lasts minutes. A
# worker that only looks at its stop flag between bursts never sees it.
#
# Margin: a clean stop takes ~0.2 s here (ASan build too); the watchdog ends
# vbrd at 2 s (exit status 3, which fails this test as well). 3.5 s leaves
# 1.5 s for signal delivery, the process's teardown and its reaping on a
# loaded 2-core machine.

lab_host h1 10.0.1.2/24 10.0.1.1

set pcap [file join [lab_rundir] flows.pcap]
set gen_err ""
# pcapgen's defaults: to net_pcap0's MAC, 10.0.0.0/16 -> 198.18.1.0/24
if {[catch {exec [build_tool pcapgen] flows $pcap --flows 100 --size 64 --packets 300 2>@1} out]} {
    set gen_err $out
}
set line [lab_if h1]
set shaped [expr {![catch {exec tc qdisc replace dev $line root tbf rate 1kbit burst 1600 \
                                limit 10000000 2>@1} tc_err]}]

# Packets queued on the line, from `tc -s qdisc show dev LINE`.
proc line_backlog {} {
    set out [exec tc -s qdisc show dev $::line]
    if {![regexp {backlog \S+ (\d+)p} $out -> n]} { error "no backlog in: $out" }
    return $n
}

test {the line to h1 drains at 1 kbit/s (tbf qdisc)} {
    assert_equal $gen_err "" "pcapgen failed"
    if {!$shaped} { skip "tc cannot add a tbf qdisc here: $tc_err" }
}

if {$shaped && $gen_err eq ""} {
    start_vbrd {stop_ms 3500 conf {
ports = (
  { name = "in";  devargs = "net_pcap0,rx_pcap=@rundir@/flows.pcap,infinite_rx=1"; },
  { name = "out"; devargs = "net_af_packet0,iface=@h1@,qdisc_bypass=0"; }
);
interfaces = (
  { name = "in";  port = "in";  address = "10.0.0.254/16"; },
  { name = "out"; port = "out"; address = "10.0.1.1/24"; }
);
routes = ( { prefix = "198.18.0.0/16"; via = "10.0.1.2"; } );
# static: no ARP through the shaped line
neighbors = ( { interface = "out"; address = "10.0.1.2"; mac = "02:00:00:00:00:02"; } );
}} {
        test {the replay saturates the worker: it waits on the line's full TX ring} {
            wait_for_condition 100 100 {[line_backlog] > 100} else {
                fail "the line holds [line_backlog] packets, vbrd forwarded [stat forwarded]"
            }
            # Stuck: the worker's RX count stands still (two readings
            # 200 ms apart agree), while the replay would give millions.
            set rx [stat rx_packets]
            set prev -1
            for {set i 0} {$i < 25 && $rx != $prev} {incr i} {
                after 200
                set prev $rx
                set rx [stat rx_packets]
            }
            assert_equal $rx $prev "worker rx_packets still moving: not blocked on TX"
            note "worker blocked after $rx packets; line backlog [line_backlog] packets"
        }
    }
}

# A start-up that fails after the EAL and the ports came up, before the
# workers run (here: more local UDP ports than a state holds, which only
# the state build finds), must end with its message, not wait for workers
# that were never launched.
test {a start-up whose first state cannot be built exits 1 with the reason} {
    set tunnels {}
    for {set i 0} {$i < 40} {incr i} {
        lappend tunnels "{ name = \"t$i\"; type = \"vxlan\"; vni = [expr {$i + 1}]; local = \"10.0.1.1\"; remote = \"192.0.2.[expr {$i + 1}]\"; udp_port = [expr {5000 + $i}]; }"
    }
    set f [lab_file startfail.conf]
    set sock [file join [lab_rundir] startfail.sock]
    vbrd_write_config $f "ports = ( { name = \"p0\"; devargs = \"net_null0,no-rx=1\"; } );
interfaces = ( { name = \"lan0\"; port = \"p0\"; address = \"10.0.1.1/24\"; } );
tunnels = ( [join $tunnels ",\n"] );" [lab_prefix]-startfail $sock
    lassign [vbrd_run --check-config $f] rc out
    assert_equal $rc 0 "--check-config (the limit is the state's): $out"
    set t0 [clock milliseconds]
    lassign [vbrd_run -c $f] rc out
    set ms [expr {[clock milliseconds] - $t0}]
    note "exit $rc after $ms ms"
    assert_equal $rc 1 "exit status; output: [string range $out end-400 end]"
    assert_match "*more than 32 local UDP ports*" $out
}

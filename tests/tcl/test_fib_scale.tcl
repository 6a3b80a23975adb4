# The FIB at scale: 100 000 routes. A reload that changes 10% of them
# changes the FIB in place (pipeline/fib.h): the changed, deleted and added
# routes take effect, traffic through a route both configs keep loses no
# packet, and the control socket answers while the reload runs. A reload
# with an error leaves the running FIB untouched.
#
#   h1 ── lan1 [vbrd] lan2 ── h2 (10.40.0.1 on lo, the route that stays)
#                     out (net_null, 10.1.0.0/16: the 100 000 routes' gateways)

lab_host h1 10.0.1.2/24 10.0.1.1
lab_host h2 10.0.2.2/24 10.0.2.1
lab_exec h2 ip addr add 10.40.0.1/32 dev lo

# Under ASan and UBSan (make test-asan) 20 000 routes: the same code on
# the same kinds of change, under the sanitizers (a reload of 100 000
# routes there took most of the file's 23 s); the scale is make test's.
set nroutes [expr {[catch {exec grep -q -a __asan_init $::vbrd::bin}] ? 100000 : 20000}]
set gen [file join $::vbrd::root tests perf gen_routes.py]
set inc_a [lab_file routes-a.inc]
set inc_b [lab_file routes-b.inc]
set samples_file [lab_file samples.txt]
set gen_err ""
if {[catch {
    exec python3 $gen $inc_a $nroutes --body-only 2>@1
    exec python3 $gen $inc_b $nroutes --body-only --change 10 --samples $samples_file 2>@1
} out]} {
    set gen_err $out
}

proc fib_conf {inc {extra ""}} {
    return [string map [list @INC@ $inc @EXTRA@ $extra] {
ports = (
  { name = "p1"; devargs = "net_af_packet0,iface=@h1@"; },
  { name = "p2"; devargs = "net_af_packet1,iface=@h2@"; },
  { name = "out"; devargs = "net_null0,no-rx=1"; }
);
interfaces = (
  { name = "lan1"; port = "p1"; address = "10.0.1.1/24"; },
  { name = "lan2"; port = "p2"; address = "10.0.2.1/24"; },
  { name = "out"; port = "out"; address = "10.1.0.1/16"; }
);
routes = (
  { prefix = "10.40.0.0/24"; via = "10.0.2.2"; },
  @EXTRA@
@include "@INC@"
);
eal = { memory_mb = 1024; };
neighbor = { reachable_s = 3600; };
}]
}

# The samples of the change: {kind prefix gateway} lists.
proc samples {} {
    set out {}
    foreach line [split [_lab_read $::samples_file] "\n"] {
        if {$line ne ""} { lappend out [split $line " "] }
    }
    return $out
}

# The FIB lookup of PREFIX's network address: {prefix via}.
proc fib_of {prefix} {
    set r [vbrctl show fib [lindex [split $prefix /] 0]]
    set via ""
    if {[llength [dict get $r next_hops]] > 0} {
        set via [dict get [lindex [dict get $r next_hops] 0] via]
    }
    return [list [dict get $r prefix] $via]
}

# Every sample as the new config has it (KIND changed/added: PREFIX via
# GW; deleted: PREFIX gone); "" when all hold, else the first that does not.
proc samples_applied {} {
    foreach s [samples] {
        lassign $s kind prefix gw
        lassign [fib_of $prefix] got via
        if {$kind eq "deleted" ? $got eq $prefix : ($got ne $prefix || $via ne $gw)} {
            return "$kind $prefix $gw: FIB has $got via $via"
        }
    }
    return ""
}

# Echo sequence numbers that got no reply (all but the last one sent).
proc missing_echoes {out} {
    set got [dict create]
    foreach {- seq} [regexp -all -inline {icmp_seq=(\d+)} $out] { dict set got $seq 1 }
    set sent [dict get [ping_stats $out] transmitted]
    set missing {}
    for {set i 1} {$i < $sent} {incr i} {
        if {![dict exists $got $i]} { lappend missing $i }
    }
    return $missing
}

proc now_ms {} { return [clock milliseconds] }

start_vbrd [list conf [fib_conf [file tail $inc_a]]] {
    test "$nroutes routes are in the FIB" {
        assert_equal $gen_err "" "gen_routes.py failed"
        assert_equal [dict get [vbrctl show config] routes] [expr {$nroutes + 1}]
        assert_ping h1 10.40.0.1 2
        # the changed and deleted samples hold their old routes now
        foreach s [samples] {
            lassign $s kind prefix gw
            if {$kind eq "added"} continue
            assert_equal [lindex [fib_of $prefix] 0] $prefix "$kind $prefix before the reload"
        }
    }

    test {a reload changing 10% of the routes: applied in place, no packet lost, vbrctl answers} {
        set gen [dict get [vbrctl show config] generation]
        # ping through the route both configs keep, every 10 ms
        set ping [lab_spawn h1 -lifetime 120 ping -n -i 0.01 10.40.0.1]
        wait_for_condition 100 50 {[regexp {icmp_seq=5 } [lab_spawn_output $ping]]} else {
            lab_kill $ping INT
            fail "no echo replies before the reload: [lab_spawn_output $ping]"
        }
        vbrd_rewrite_config [fib_conf [file tail $::inc_b]]
        set t0 [now_ms]
        set reload_out [lab_file reload.out]
        set rl [exec $::vbrd::ctl_bin -s [vbrd_socket] -j reload >& $reload_out &]
        # `show stats` while it runs: each answer's latency
        set worst 0
        set during 0
        while {![lab_exited $rl] && [now_ms] - $t0 < 60000} {
            set t [now_ms]
            vbrctl show stats
            set dt [expr {[now_ms] - $t}]
            if {$dt > $worst} { set worst $dt }
            if {[dict get [vbrctl show config] reload_running]} { incr during }
            after 10
        }
        set reload_ms [expr {[now_ms] - $t0}]
        wait_for_condition 100 100 {[lab_exited $rl]} else { fail "vbrctl reload still running" }
        set reply [_lab_read $reload_out]
        after 300
        lab_kill $ping INT
        wait_for_condition 50 100 {[lab_exited $ping]} else { fail "ping did not stop" }
        set out [lab_spawn_output $ping]
        note "reload answered in $reload_ms ms; show stats: worst $worst ms, $during answers while it ran"

        assert_match "*\"generation\": [expr {$gen + 1}]*" $reply "vbrctl reload's reply"
        assert_equal [samples_applied] "" "changed, deleted and added routes"
        assert_morethan $during 0 "show stats answers while the reload ran"
        # the goal is 100 ms (noted); that the control socket answers
        # while the reload runs is asserted above (answers with
        # reload_running), the bound only catches a socket that hangs
        assert_not_stuck $worst 100 5000 "worst show stats latency during the reload"
        set missing [missing_echoes $out]
        assert_morethan [dict get [ping_stats $out] transmitted] 20 "echoes sent"
        assert_equal $missing {} "echo requests without reply through the kept route"
        set log [_lab_read [dict get $::vbrd::cur log]]
        assert_match "*FIB * added, * changed, * deleted*" $log "the reload's log line"
    }

    test {a second `vbrctl reload` while one runs is refused with a clear error} {
        set rl [exec $::vbrd::ctl_bin -s [vbrd_socket] reload >& /dev/null &]
        wait_for_condition 200 10 {[dict get [vbrctl show config] reload_running] || [lab_exited $rl]} else {
            fail "the first reload did not start"
        }
        lassign [vbrctl_raw reload] rc out
        wait_for_condition 600 100 {[lab_exited $rl]} else { fail "the first reload did not end" }
        if {$rc == 0} { skip "the first reload ended before the second was asked" }
        assert_equal $rc 1
        assert_match "*a reload is already running*" $out
    }

    test {a reload with an error leaves the running FIB untouched} {
        set gen [dict get [vbrctl show config] generation]
        set bad {{ prefix = "192.0.2.0/24"; via = "10.99.0.2"; },}
        vbrd_rewrite_config [fib_conf [file tail $::inc_a] $bad]
        lassign [vbrctl_raw reload] rc out
        assert_equal $rc 1 "reload of a bad file: $out"
        assert_match "*10.99.0.2 is not in a connected subnet*" $out
        assert_equal [dict get [vbrctl show config] generation] $gen
        # still the config of the last good reload (b), not a's
        assert_equal [samples_applied] "" "the running FIB after the refused reload"
        assert_ping h1 10.40.0.1 2
    }

    test {show routes in pages: vbrctl joins them into the whole table; a cursor from before a reload is refused} {
        set gen [dict get [vbrctl show config] generation]
        set nconf [dict get [vbrctl show config] routes]
        set out [lab_file routes.json]
        exec $::vbrd::ctl_bin -s [vbrd_socket] -t 60000 -j show routes > $out
        set counts [exec python3 -c {
import json, sys
d = json.load(open(sys.argv[1]))
print(sum(1 for r in d["routes"] if r["type"] == "static"), len(set(r["prefix"] for r in d["routes"])) == len(d["routes"]), "cursor" in d, d["generation"])
} $out]
        # every route of the running config (b's), each once, in one table
        assert_morethan $nconf $::nroutes "routes in the running config"
        assert_equal $counts "$nconf True False $gen" "static routes, all distinct, no cursor left, the generation"
        # a page asked for by hand: from row 5 of this generation, then
        # the same cursor once a reload made another generation
        lassign [vbrctl_raw show routes "$gen:5"] rc page
        assert_equal $rc 0 "show routes $gen:5: $page"
        foreach bad {1:x 1:-0 +1:0 " 1:1" 1:4294967296 99999999999999999999999:0} {
            lassign [vbrctl_raw show routes $bad] rc page
            assert_equal $rc 1 "a malformed cursor '$bad': $page"
            assert_match "*cursor '$bad' is not GENERATION:ROW*" $page
        }
        vbrd_rewrite_config [fib_conf [file tail $::inc_a]]
        vbrctl reload
        lassign [vbrctl_raw show routes "$gen:5"] rc page
        assert_equal $rc 1 "a cursor of the generation before the reload"
        assert_match "*the routes changed (reload to generation [expr {$gen + 1}]) since the first page: read them again*" $page
    }
}

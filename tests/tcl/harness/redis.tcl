# Real Redis servers and a Redis Sentinel lab for the tests, in the root
# namespace on loopback (vbrd runs there too). No systemd: each server is a
# foreground process of the test, tracked so that lab_cleanup kills it.
#
#   redis_start ?-port N? ?-bind ADDRS? ?-name NAME? ?-persist 0|1? ?-conf TEXT?
#                                    -> port, once it answers PING
#   redis_kill ?SIG? ?NAME?          SIGKILL (default), TERM, STOP, CONT; KILL
#                                    and TERM wait until it has exited
#   redis_restart ?NAME?             the same server again: same port, same
#                                    config, same data directory (stops it
#                                    first with SIGTERM if it still runs)
#   redis_cli ?-name NAME | -port N | -addr HOST:PORT? ARGS...
#                                    -> redis-cli's raw output (raises on failure)
#   redis_port ?NAME?  redis_pid ?NAME?  redis_running ?NAME?
#
# NAME (default "redis") tells servers apart. Each server has its own
# directory in the run directory, a config file there, and its log next to
# it. By default it keeps nothing on disk (save "", appendonly no), so a
# restart comes back empty; -persist 1 turns on the append-only file with
# appendfsync always, so that even a SIGKILL loses no acknowledged write
# and the restarted server has the same keys (expiries are absolute times
# in the AOF: a key whose time ran out while the server was down is gone).
# -bind is a list of addresses (default 127.0.0.1): the HA lab binds
# 127.0.0.1 127.0.0.2 127.0.0.3 so that each vbrd reaches the server at an
# address of its own, which an nft rule can cut (harness/ha_lab.tcl). A
# port of 0 or none picks a free one.
#
# Sentinel lab (Redis Sentinel, https://redis.io/docs/management/sentinel/):
#
#   sentinel_lab_start ?-name MASTER? ?-down_after MS? ?-failover_timeout MS?
#       -> dict master_name NAME sentinels {127.0.0.1:P ...} master HOST:PORT
#       a master (server "master"), a replica of it (server "replica") and
#       three redis-sentinel processes (servers "sentinel1".."sentinel3")
#       monitoring it with quorum 2, down-after-milliseconds MS (default
#       300) and failover-timeout MS (default 2000); returns once every
#       sentinel knows the replica and the two other sentinels (what a
#       failover needs).
#   sentinel_master            -> "host:port" the sentinels name as master now
#                                 (the first sentinel that answers)
#   sentinel_masters           -> that of each sentinel, in order
#   sentinel_failover ?MS?     SENTINEL FAILOVER on the first sentinel, then
#                              wait (default 10 s) until every sentinel
#                              names the new master and it says role master
#                              -> dict from HOST:PORT to HOST:PORT ms N
#   sentinel_server_of ADDR    -> the server name (master, replica) at HOST:PORT
#   sentinel_wait_demoted ADDR ?MS?  wait until the old master at HOST:PORT
#                              is a replica (Sentinel does it ~8 s after a
#                              failover) -> ms waited (no test waits for
#                              it: nothing depends on it, and it takes 8 s)
#   redis_role ADDR            -> "master", "slave" or "" (no answer)
#
# A sentinel rewrites its config file, so each has its own, in its own
# directory. Process titles include the config file's path, which holds
# the run prefix: tests/run-tests.sh's final cleanup finds them by it.
#
# Not sourced by helpers.tcl: a test that uses it does
#   source [file join [file dirname [file normalize [info script]]] harness redis.tcl]

namespace eval redis {
    # name -> dict port bind dir conf log pid sentinel(0|1) starts(N)
    variable servers
    array set servers {}
    variable sentinel {}    ;# dict of the sentinel lab (sentinel_lab_start)
    variable server_bin /usr/bin/redis-server
    variable sentinel_bin /usr/bin/redis-sentinel
    variable cli_bin /usr/bin/redis-cli
}

proc redis_start {args} {
    set name redis
    set port 0
    set bind {127.0.0.1}
    set persist 0
    set extra ""
    foreach {k v} $args {
        switch -- $k {
            -name { set name $v }
            -port { set port $v }
            -bind { set bind $v }
            -persist { set persist $v }
            -conf { set extra $v }
            default { error "redis_start: unknown option $k" }
        }
    }
    if {[info exists ::redis::servers($name)] && [redis_running $name]} {
        error "redis_start: server '$name' is already running"
    }
    if {![file executable $::redis::server_bin]} {
        skip "no $::redis::server_bin (apt-get install redis-server)"
    }
    if {$port == 0} { set port [_redis_free_port] }
    set dir [file join [lab_rundir] redis-$name]
    file delete -force $dir
    file mkdir $dir
    set conf [file join $dir redis.conf]
    set text "port $port
bind [join $bind]
protected-mode no
daemonize no
dir $dir
logfile \"\"
save \"\"
"
    if {$persist} {
        append text "appendonly yes\nappendfsync always\n"
    } else {
        append text "appendonly no\n"
    }
    append text "proc-title-template \"{title} {listen-addr} {server-mode} {config-file}\"\n"
    append text $extra
    _lab_write $conf $text
    set ::redis::servers($name) [dict create port $port bind $bind dir $dir conf $conf \
                                     log "" pid 0 sentinel 0 starts 0]
    _redis_launch $name
    return $port
}

proc redis_kill {{sig KILL} {name redis}} {
    set pid [redis_pid $name]
    if {$pid == 0 || [lab_exited $pid]} {
        error "redis_kill: server '$name' is not running"
    }
    lab_kill $pid $sig
    if {$sig in {KILL 9 TERM 15}} {
        if {![lab_wait_exit $pid 5000]} {
            fail "redis server '$name' (pid $pid) still running 5 s after SIG$sig"
        }
    }
}

proc redis_restart {{name redis}} {
    if {![info exists ::redis::servers($name)]} {
        error "redis_restart: no server '$name'"
    }
    if {[redis_running $name]} {
        redis_kill TERM $name
    }
    _redis_launch $name
}

proc redis_cli {args} {
    set host 127.0.0.1
    set port ""
    while {[string index [lindex $args 0] 0] eq "-" && [llength $args] > 1} {
        switch -- [lindex $args 0] {
            -name { set port [redis_port [lindex $args 1]] }
            -port { set port [lindex $args 1] }
            -addr { lassign [_redis_split [lindex $args 1]] host port }
            default { break }
        }
        set args [lrange $args 2 end]
    }
    if {$port eq ""} { set port [redis_port redis] }
    return [exec timeout 10 $::redis::cli_bin -h $host -p $port {*}$args 2>@1]
}

proc redis_port {{name redis}} {
    if {![info exists ::redis::servers($name)]} {
        error "no redis server '$name'"
    }
    return [dict get $::redis::servers($name) port]
}

proc redis_pid {{name redis}} {
    if {![info exists ::redis::servers($name)]} { return 0 }
    return [dict get $::redis::servers($name) pid]
}

proc redis_running {{name redis}} {
    set pid [redis_pid $name]
    return [expr {$pid != 0 && ![lab_exited $pid]}]
}

# The server's log (all its starts: each start appends).
proc redis_log {{name redis}} {
    return [_lab_read [dict get $::redis::servers($name) log]]
}

# --- Sentinel ---

proc sentinel_lab_start {args} {
    set o [dict create -name vbrd -down_after 300 -failover_timeout 2000]
    foreach {k v} $args {
        if {![dict exists $o $k]} { error "sentinel_lab_start: unknown option $k" }
        dict set o $k $v
    }
    if {![file executable $::redis::sentinel_bin]} {
        skip "no $::redis::sentinel_bin (apt-get install redis-sentinel)"
    }
    set mname [dict get $o -name]
    # A replica's first sync waits repl-diskless-sync-delay (5 s) for more
    # replicas to join it: there is only one.
    set mport [redis_start -name master -conf "repl-diskless-sync-delay 0\n"]
    redis_start -name replica -conf "replicaof 127.0.0.1 $mport\nrepl-diskless-sync-delay 0\n"
    wait_for_condition 500 10 {
        [string match "*master_link_status:up*" [redis_cli -name replica info replication]]
    } else {
        fail "the replica did not sync with the master:\n[redis_log replica]"
    }
    set addrs {}
    foreach n {1 2 3} {
        set name sentinel$n
        set port [_redis_free_port]
        set dir [file join [lab_rundir] redis-$name]
        file delete -force $dir
        file mkdir $dir
        set conf [file join $dir sentinel.conf]
        _lab_write $conf "port $port
bind 127.0.0.1
protected-mode no
daemonize no
dir $dir
logfile \"\"
proc-title-template \"{title} {listen-addr} {server-mode} {config-file}\"
sentinel resolve-hostnames no
sentinel monitor $mname 127.0.0.1 $mport 2
sentinel down-after-milliseconds $mname [dict get $o -down_after]
sentinel failover-timeout $mname [dict get $o -failover_timeout]
sentinel parallel-syncs $mname 1
"
        set ::redis::servers($name) [dict create port $port bind 127.0.0.1 dir $dir conf $conf \
                                         log "" pid 0 sentinel 1 starts 0]
        _redis_launch $name
        lappend addrs 127.0.0.1:$port
    }
    set ::redis::sentinel [dict create master_name $mname sentinels $addrs]
    # Sentinels find the replica from the master's INFO (every 10 s, the
    # first at once) and each other from hello messages on the master
    # (every 2 s): wait for both, for each of them.
    foreach n {1 2 3} {
        wait_for_condition 1000 10 {
            [_sentinel_knows sentinel$n $mname]
        } else {
            fail "sentinel$n does not know the replica and 2 other sentinels: [_sentinel_master_info sentinel$n $mname]"
        }
    }
    dict set ::redis::sentinel master [sentinel_master]
    return $::redis::sentinel
}

proc sentinel_masters {} {
    set out {}
    set mname [dict get $::redis::sentinel master_name]
    foreach n {1 2 3} {
        set r ""
        if {[redis_running sentinel$n]} {
            catch {
                set r [join [split [redis_cli -name sentinel$n sentinel get-master-addr-by-name $mname] "\n"] :]
            }
        }
        lappend out $r
    }
    return $out
}

proc sentinel_master {} {
    foreach m [sentinel_masters] {
        if {$m ne ""} { return $m }
    }
    fail "no sentinel names a master"
}

proc sentinel_failover {{ms 10000}} {
    set old [sentinel_master]
    set mname [dict get $::redis::sentinel master_name]
    set t0 [clock milliseconds]
    set r [redis_cli -name sentinel1 sentinel failover $mname]
    if {$r ne "OK"} {
        fail "SENTINEL FAILOVER $mname: $r"
    }
    set tries [expr {$ms / 10}]
    wait_for_condition $tries 10 {
        [_sentinel_all_moved $old]
    } else {
        fail "after SENTINEL FAILOVER the sentinels name [sentinel_masters] (was $old)"
    }
    set new [lindex [sentinel_masters] 0]
    wait_for_condition $tries 10 {
        [redis_role $new] eq "master"
    } else {
        fail "the new master $new says role [redis_cli -addr $new role]"
    }
    return [dict create from $old to $new ms [expr {[clock milliseconds] - $t0}]]
}

# The role (master, slave) the server at HOST:PORT reports (ROLE), "" when
# it does not answer.
proc redis_role {addr} {
    if {[catch {redis_cli -addr $addr role} out]} { return "" }
    return [lindex [split $out "\n"] 0]
}

# Wait up to MS for the server at HOST:PORT (an old master) to be a
# replica: Sentinel turns a reachable old master into one only some 8 s
# after the failover (4 x its 2 s publish period: sentinel.c,
# "+convert-to-slave"); until then it stays a master that nobody should
# write to. Returns the ms waited.
proc sentinel_wait_demoted {addr {ms 15000}} {
    set t0 [clock milliseconds]
    wait_for_condition [expr {$ms / 20}] 20 {
        [redis_role $addr] eq "slave"
    } else {
        fail "$addr still says role '[redis_role $addr]' $ms ms after the failover"
    }
    return [expr {[clock milliseconds] - $t0}]
}

proc sentinel_server_of {addr} {
    lassign [_redis_split $addr] host port
    foreach name [array names ::redis::servers] {
        if {[dict get $::redis::servers($name) port] == $port} { return $name }
    }
    return ""
}

# --- internals ---

proc _redis_launch {name} {
    set s $::redis::servers($name)
    set n [expr {[dict get $s starts] + 1}]
    set log [file join [dict get $s dir] "$name.log"]
    set bin [expr {[dict get $s sentinel] ? $::redis::sentinel_bin : $::redis::server_bin}]
    # Appended: a restart's log follows the first start's.
    set pid [exec $bin [dict get $s conf] >>& $log < /dev/null &]
    _lab_track $pid
    dict set s pid $pid
    dict set s log $log
    dict set s starts $n
    set ::redis::servers($name) $s
    set port [dict get $s port]
    set deadline [expr {[clock milliseconds] + 10000}]
    while {1} {
        if {[lab_exited $pid]} {
            fail "redis '$name' (port $port) exited at start-up:\n[_redis_tail $log]"
        }
        if {![catch {exec timeout 5 $::redis::cli_bin -h 127.0.0.1 -p $port ping 2>@1} out]
            && $out eq "PONG"} {
            break
        }
        if {[clock milliseconds] > $deadline} {
            fail "redis '$name' (port $port) did not answer PING within 10 s:\n[_redis_tail $log]"
        }
        after 10
    }
    # Loading an AOF: PING answers -LOADING until done; wait for that too.
    if {![dict get $s sentinel]} {
        wait_for_condition 1000 10 {
            [string match "*loading:0*" [exec timeout 5 $::redis::cli_bin -h 127.0.0.1 -p $port info persistence]]
        } else {
            fail "redis '$name' still loading after 10 s"
        }
    }
}

proc _sentinel_master_info {sname mname} {
    if {[catch {redis_cli -name $sname sentinel master $mname} out]} { return "" }
    set d [dict create]
    foreach {k v} [split $out "\n"] { dict set d $k $v }
    return $d
}

proc _sentinel_knows {sname mname} {
    set d [_sentinel_master_info $sname $mname]
    return [expr {[dict exists $d num-slaves] && [dict get $d num-slaves] >= 1
                  && [dict get $d num-other-sentinels] >= 2}]
}

proc _sentinel_all_moved {old} {
    set ms [sentinel_masters]
    foreach m $ms {
        if {$m eq "" || $m eq $old} { return 0 }
    }
    return [expr {[llength [lsort -unique $ms]] == 1}]
}

# A TCP port nobody listens on now (the kernel's pick for port 0).
proc _redis_free_port {} {
    set s [socket -server {apply {{c a p} {close $c}}} -myaddr 127.0.0.1 0]
    set port [lindex [fconfigure $s -sockname] 2]
    close $s
    return $port
}

proc _redis_split {addr} {
    set i [string last : $addr]
    return [list [string trim [string range $addr 0 [expr {$i - 1}]] {[]}] \
                [string range $addr [expr {$i + 1}] end]]
}

proc _redis_tail {log {n 20}} {
    set lines [split [string trimright [_lab_read $log]] "\n"]
    return [join [lrange $lines end-[expr {$n - 1}] end] "\n"]
}

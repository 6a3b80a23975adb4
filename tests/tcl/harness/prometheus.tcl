# Debian's Prometheus server (the `prometheus` package) for the tests of
# vbrd's /metrics, run by the test itself: its own config, its TSDB in the
# run directory, its web API on a free loopback port; never the system
# service (/etc/prometheus is not read). Sourced by test_metrics.tcl.
#
#   free_tcp_port                 a loopback TCP port nobody listens on now
#   http_get URL ?-method M? ?-body B?  -> {STATUS CONTENT-TYPE BODY}
#   prom_start TARGET ?INTERVAL?  start Prometheus scraping http://TARGET/metrics
#                                 every INTERVAL (default 1s); waits until it is ready
#   prom_query EXPR               the instant vector of EXPR: a list of {LABELS VALUE}
#   prom_value EXPR               the value of a one-sample vector, "" when none
#   prom_target_health            the target's health ("up", "down", "unknown") and
#                                 last error, from /api/v1/targets
#   promtool_check_metrics TEXT   {EXIT_STATUS OUTPUT} of `promtool check metrics`

package require http
package require json

namespace eval prom {
    variable bin /usr/bin/prometheus
    variable promtool /usr/bin/promtool
    variable url ""
}

proc free_tcp_port {} {
    set s [socket -server {apply {{c a p} {close $c}}} -myaddr 127.0.0.1 0]
    set port [lindex [fconfigure $s -sockname] 2]
    close $s
    return $port
}

proc http_get {url args} {
    set opts [dict merge {-method GET -body ""} $args]
    set req [list -timeout 5000 -method [dict get $opts -method]]
    if {[dict get $opts -body] ne ""} {
        lappend req -query [dict get $opts -body] -type application/x-www-form-urlencoded
    }
    if {[catch {http::geturl $url {*}$req} tok]} {
        return [list 0 "" $tok]
    }
    set r [list [http::ncode $tok] [dict get [http::meta $tok] Content-Type] [http::data $tok]]
    if {[http::status $tok] ne "ok"} {
        set r [list 0 "" [http::status $tok]]
    }
    http::cleanup $tok
    return $r
}

proc prom_start {target {interval 1s}} {
    if {![file executable $::prom::bin]} {
        skip "no $::prom::bin (apt-get install prometheus)"
    }
    set port [free_tcp_port]
    set dir [lab_file prometheus]
    file mkdir $dir
    set conf [file join $dir prometheus.yml]
    set fd [open $conf w]
    puts $fd "global:
  scrape_interval: $interval
  scrape_timeout: $interval
scrape_configs:
  - job_name: vbrd
    static_configs:
      - targets: \['$target'\]"
    close $fd
    lab_spawn - -lifetime 300 $::prom::bin --config.file=$conf \
        --storage.tsdb.path=[file join $dir data] --web.listen-address=127.0.0.1:$port \
        --log.level=warn
    set ::prom::url http://127.0.0.1:$port
    wait_for_condition 150 100 {[lindex [http_get $::prom::url/-/ready] 0] == 200} else {
        fail "Prometheus did not become ready on 127.0.0.1:$port"
    }
    return $::prom::url
}

proc prom_query {expr} {
    lassign [http_get $::prom::url/api/v1/query?[http::formatQuery query $expr]] code type body
    if {$code != 200} {
        error "Prometheus query '$expr': HTTP $code: $body"
    }
    set r [json::json2dict $body]
    return [lmap s [dict get $r data result] {
        list [dict get $s metric] [lindex [dict get $s value] 1]
    }]
}

proc prom_value {expr} {
    set v [prom_query $expr]
    if {[llength $v] != 1} { return "" }
    return [lindex $v 0 1]
}

proc prom_target_health {} {
    lassign [http_get $::prom::url/api/v1/targets] code type body
    if {$code != 200} { return [list unknown "HTTP $code"] }
    set t [lindex [dict get [json::json2dict $body] data activeTargets] 0]
    if {$t eq ""} { return [list unknown "no target yet"] }
    return [list [dict get $t health] [dict get $t lastError]]
}

proc promtool_check_metrics {text} {
    set f [lab_file metrics.txt]
    set fd [open $f w]
    fconfigure $fd -translation binary
    puts -nonewline $fd $text
    close $fd
    set code [catch {exec $::prom::promtool check metrics < $f 2>@1} out opts]
    if {!$code} { return [list 0 $out] }
    regsub {\n?child process exited abnormally$} $out {} out
    set ec [dict get $opts -errorcode]
    return [list [expr {[lindex $ec 0] eq "CHILDSTATUS" ? [lindex $ec 2] : -1}] $out]
}

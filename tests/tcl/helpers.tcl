# vbrd integration-test helpers: source this from a test file (run.tcl does).
#
#   assertions, wait_for_condition, fail, skip   harness/assert.tcl
#   test NAME BODY, note                        harness/runner.tcl
#   lab_host, lab_vlan, lab_exec, lab_spawn ...  harness/lab.tcl
#   start_vbrd, vbrctl, stat, drops ...          harness/vbrd.tcl
#   ping/iperf3/UDP-flow helpers                 harness/traffic.tcl
#
# See tests/README.md.

package require Tcl 8.6
set dir [file join [file dirname [file normalize [info script]]] harness]
foreach f {assert.tcl runner.tcl lab.tcl vbrd.tcl traffic.tcl} {
    source [file join $dir $f]
}
unset dir f

#!/usr/bin/env tclsh
# Run one integration-test file: tclsh tests/tcl/run.tcl tests/tcl/test_X.tcl
#
# Prints a line per test ([ok]/[FAIL]/[skip]), cleans up every namespace,
# veth and process the file created (also on an error outside a test, and
# on SIGINT/SIGTERM when TclX is installed), and exits 1 if any test failed.

source [file join [file dirname [file normalize [info script]]] helpers.tcl]

if {[llength $argv] != 1} {
    puts stderr "usage: tclsh run.tcl TEST_FILE"
    exit 2
}
set file [file normalize [lindex $argv 0]]
set ::runner::area [regsub {^test_} [file rootname [file tail $file]] {}]

proc finish {} {
    lab_cleanup
    exit [expr {$::runner::failed > 0 ? 1 : 0}]
}

if {![catch {package require Tclx}]} {
    signal trap {SIGINT SIGTERM} {
        runner_report FAIL "$::runner::area: interrupted by %S"
        finish
    }
}

if {[catch {uplevel #0 [list source $file]} err opts]} {
    runner_report FAIL "$::runner::area: error outside a test" \
        "$err\n[runner_stack [dict get $opts -errorinfo]]"
}
finish

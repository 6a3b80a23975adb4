# The test runner: `test NAME BODY` runs BODY, reports one line
#   [ok] AREA: NAME            the body ran to its end
#   [FAIL] AREA: NAME: REASON  an assertion failed or the body raised an error
#   [skip] AREA: NAME: REASON  the body called `skip`
# and counts them. AREA is the test file's name without test_ and .tcl.
# Extra lines of a reason (log tails, stacks) follow, indented by 4 spaces;
# tests/run-tests.sh counts only the lines that start with a tag.
#
# Environment: VBRD_TEST_ONLY=GLOB runs only the tests whose name matches.

namespace eval runner {
    variable area "tcl"
    variable passed 0
    variable failed 0
    variable skipped 0
    # Checks run after every passing test body; each is a script that
    # returns "" or the reason why the test must fail after all (used by
    # start_vbrd: "vbrd died during the test").
    variable after_checks {}
    # When set, every `test` fails at once with this reason (vbrd did not
    # start, so nothing inside its block can be tested).
    variable broken ""
}

proc test {name body} {
    set full "$::runner::area: $name"
    if {[info exists ::env(VBRD_TEST_ONLY)] && $::env(VBRD_TEST_ONLY) ne ""
        && ![string match $::env(VBRD_TEST_ONLY) $name]} {
        return
    }
    if {$::runner::broken ne ""} {
        runner_report FAIL $full $::runner::broken
        # The details (a log tail) once is enough.
        set first [lindex [split $::runner::broken "\n"] 0]
        if {![string match "*(details above)" $first]} {
            set ::runner::broken "$first (details above)"
        }
        return
    }
    set t0 [clock milliseconds]
    set code [catch {uplevel 1 $body} result opts]
    set ms [expr {[clock milliseconds] - $t0}]
    if {$code == 0 || $code == 2} {
        foreach check $::runner::after_checks {
            set why [uplevel #0 $check]
            if {$why ne ""} {
                runner_report FAIL $full $why
                return
            }
        }
        runner_report ok $full "" $ms
    } elseif {$code == 1 && [dict get $opts -errorcode] eq "VBRD_SKIP"} {
        runner_report skip $full $result
    } elseif {$code == 1 && [dict get $opts -errorcode] eq "VBRD_ASSERT"} {
        runner_report FAIL $full $result
    } else {
        set stack [dict get $opts -errorinfo]
        runner_report FAIL $full "error: $result\n[runner_stack $stack]"
    }
}

# Report a result. TAG is ok, FAIL or skip.
proc runner_report {tag name {reason ""} {ms ""}} {
    switch -- $tag {
        ok   { incr ::runner::passed }
        FAIL { incr ::runner::failed }
        skip { incr ::runner::skipped }
    }
    set lines [split [string trimright $reason] "\n"]
    set line "\[$tag\] $name"
    if {[llength $lines] > 0} {
        append line ": [lindex $lines 0]"
    }
    if {$ms ne ""} {
        append line [format " (%.1f s)" [expr {$ms / 1000.0}]]
    }
    puts $line
    foreach l [lrange $lines 1 end] {
        puts "    $l"
    }
    flush stdout
}

# Print an informational line (indented, not counted).
proc note {msg} {
    foreach l [split $msg "\n"] {
        puts "    $l"
    }
    flush stdout
}

# The first lines of a Tcl stack, enough to find the failing command.
proc runner_stack {stack} {
    set out {}
    foreach l [split $stack "\n"] {
        # Below this line is only the harness calling the test body.
        if {[regexp {^"(uplevel|source)} $l]} { break }
        lappend out $l
    }
    if {[lindex $out end] eq "    invoked from within"} {
        set out [lrange $out 0 end-1]
    }
    return [join [lrange $out 0 11] "\n"]
}

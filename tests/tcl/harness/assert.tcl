# Assertions and waiting, in the style of Redis's test suite.
#
# An assertion that does not hold raises an error whose -errorcode is
# VBRD_ASSERT; the test runner (runner.tcl) reports its message as the
# reason of the failure. Every other error is reported with its stack.

# Fail the current test with MSG.
proc fail {msg} {
    return -code error -errorcode VBRD_ASSERT $msg
}

# Skip the current test (it counts as skipped, not passed): use when the
# machine lacks something the test needs, never to hide a failure.
proc skip {reason} {
    return -code error -errorcode VBRD_SKIP $reason
}

proc assert_equal {value expected {detail ""}} {
    if {$value ne $expected} {
        fail "expected '$expected', got '$value'[_assert_detail $detail]"
    }
}

proc assert_match {pattern value {detail ""}} {
    if {![string match $pattern $value]} {
        fail "expected '[_assert_short $value]' to match '$pattern'[_assert_detail $detail]"
    }
}

# Like assert_match, with a regular expression.
proc assert_regexp {re value {detail ""}} {
    if {![regexp -- $re $value]} {
        fail "expected '[_assert_short $value]' to match /$re/[_assert_detail $detail]"
    }
}

proc assert_lessthan {value expected {detail ""}} {
    _assert_number $value
    if {!($value < $expected)} {
        fail "expected $value < $expected[_assert_detail $detail]"
    }
}

proc assert_morethan {value expected {detail ""}} {
    _assert_number $value
    if {!($value > $expected)} {
        fail "expected $value > $expected[_assert_detail $detail]"
    }
}

# MIN <= VALUE <= MAX
proc assert_range {value min max {detail ""}} {
    _assert_number $value
    if {!($value >= $min && $value <= $max)} {
        fail "expected $value in \[$min, $max\][_assert_detail $detail]"
    }
}

# A duration that a product goal is about (a failover's outage, an HA
# takeover, a path switch): the goal belongs to the benchmarks (`make
# bench-failover`, tests/perf/), which measure it on a quiet machine; a
# test checks the behaviour around it (it switched, for the right reason,
# in the right order, the stream resumed) and notes the figure next to
# its goal. It fails only when VALUE reaches STUCK, a bound far above the
# goal that catches "never" or "stuck" and holds on a slow or busy machine
# and under the sanitizers.
#   assert_not_stuck VALUE GOAL STUCK DETAIL ?UNIT?   (VALUE < GOAL is the goal)
proc assert_not_stuck {value goal stuck detail {unit ms}} {
    _assert_number $value
    set over [expr {$value < $goal ? "" : ", over it: the benchmark measures it on a quiet machine"}]
    note "$detail: $value $unit (the benchmark's goal < $goal $unit$over; this test fails at $stuck $unit, stuck)"
    if {!($value < $stuck)} {
        fail "expected $value < $stuck $unit, the bound for stuck (the goal is < $goal $unit)[_assert_detail $detail]"
    }
}

proc assert_true {cond {detail ""}} {
    if {![uplevel 1 [list expr $cond]]} {
        fail "expected \[$cond\] to be true[_assert_detail $detail]"
    }
}

# wait_for_condition MAXTRIES DELAY_MS {cond} else {script}
#
# Evaluate the expression COND in the caller up to MAXTRIES times, DELAY_MS
# milliseconds apart, until it is true; if it never is, run SCRIPT in the
# caller (usually a `fail`). An error raised by COND propagates at once.
proc wait_for_condition {maxtries delay cond else elsescript} {
    if {$else ne "else"} {
        error "usage: wait_for_condition MAXTRIES DELAY_MS COND else SCRIPT"
    }
    for {set i 0} {$i < $maxtries} {incr i} {
        if {[uplevel 1 [list expr $cond]]} {
            return
        }
        after $delay
    }
    uplevel 1 $elsescript
}

proc _assert_number {v} {
    if {![string is double -strict $v]} {
        fail "expected a number, got '[_assert_short $v]'"
    }
}

proc _assert_detail {detail} {
    if {$detail eq ""} { return "" }
    return " ($detail)"
}

proc _assert_short {s} {
    if {[string length $s] > 400} {
        return "[string range $s 0 399]..."
    }
    return $s
}

# containerlab (vm/clab): the image's files agree, and the two-site
# topology users deploy with containerlab runs as it is written.
#
# No container engine runs here, so vm/clab/clab-ns.py reads the same
# vm/clab/twosite.clab.yml and builds it as network namespaces: a namespace
# per node, a veth per link named as its endpoints (eth1 ... inside the
# node), the image's entrypoint (vm/clab/entrypoint.sh, the file the
# Containerfile copies) run in each vbrd node with the node's binds
# mounted at /etc/vbrd/vbrd.conf, CLAB_INTFS and env set, and the hosts'
# exec commands. The tool refuses any key it does not implement, so the
# topology tested is the topology shipped. The Containerfile itself is not
# built (no engine): its COPY sources and ENTRYPOINT are checked.
#
# vbrd is build/app/vbrd (VBRD_BIN), not the package's /usr/sbin/vbrd.

package require json

set clab_dir  [file join $::vbrd::root vm clab]
set clab_tool [file join $clab_dir clab-ns.py]
set clab_topo [file join $clab_dir twosite.clab.yml]
set clab_nodes {h1 edge region h2}

proc relative_bin {} {
    set here [pwd]/
    if {[string first $here $::vbrd::bin] == 0} {
        return [string range $::vbrd::bin [string length $here] end]
    }
    return $::vbrd::bin
}

# clab-ns.py CMD ARGS on the lab's prefix and run directory; returns
# {EXIT OUTPUT} (stdout and stderr together).
proc clab_tool {cmd args} {
    set topo $::clab_topo
    if {[lindex $args 0] eq "-t"} {
        set topo [lindex $args 1]
        set args [lrange $args 2 end]
    }
    # relative to the current directory when it lies below it, as the
    # README's `VBRD_BIN=build/app/vbrd` (the nodes run from /)
    set ::env(VBRD_BIN) [relative_bin]
    return [lab_run - $::clab_tool $cmd -t $topo --prefix [lab_prefix] \
                --state [file join [lab_rundir] clab] {*}$args]
}

# A command inside NODE (clab-ns.py exec: the node's network, mount and
# UTS namespaces, as `docker exec`): its output, or an error.
proc on_node {node args} {
    lassign [clab_tool exec $node -- {*}$args] rc out
    if {$rc != 0} {
        error "`[join $args]` in $node exited $rc: $out"
    }
    return $out
}

# `vbrctl -j ARGS` against the vbrd of NODE (its default socket, in its /run).
proc node_ctl {node args} {
    return [json::json2dict [on_node $node $::vbrd::ctl_bin -j {*}$args]]
}

# NODE's ports: a dict port name -> its row of `show ports`.
proc node_ports {node} {
    set out [dict create]
    foreach p [dict get [node_ctl $node show ports] ports] {
        dict set out [dict get $p name] $p
    }
    return $out
}

proc node_port {node port} {
    return [dict get [node_ports $node] $port]
}

proc node_group {node name} {
    return [lindex [dict get [node_ctl $node show fgroup $name] groups] 0]
}

proc node_session {node name} {
    return [lindex [dict get [node_ctl $node show bfd $name] sessions] 0]
}

# States of all of NODE's BFD sessions: a dict name -> state.
proc node_bfd_states {node} {
    set out [dict create]
    foreach s [dict get [node_ctl $node show bfd] sessions] {
        dict set out [dict get $s name] [dict get $s state]
    }
    return $out
}

# COUNT pings h1 -> h2 at 50 ms; returns how many replies came back.
proc ping_h2 {count} {
    lassign [clab_tool exec h1 -- ping -c $count -i 0.05 -W 2 10.2.2.2] rc out
    if {![regexp {(\d+) received} $out -> got]} {
        fail "ping h1 -> h2: $out"
    }
    return $got
}

# The Containerfile's instructions: a list of {INSTRUCTION REST} with
# continuation lines joined and comments dropped.
proc containerfile_lines {file} {
    set text [string map [list "\\\n" " "] [_lab_read $file]]
    set out {}
    foreach line [split $text "\n"] {
        set line [string trim $line]
        if {$line eq "" || [string index $line 0] eq "#"} continue
        regexp {^(\S+)\s*(.*)$} $line -> instr rest
        lappend out [list $instr $rest]
    }
    return $out
}

test {the Containerfile copies what exists, and ENTRYPOINT is where it copies entrypoint.sh} {
    set cf [file join $clab_dir Containerfile]
    set args [dict create]
    set copies [dict create]
    set entry ""
    foreach l [containerfile_lines $cf] {
        lassign $l instr rest
        switch -- $instr {
            ARG {
                if {[regexp {^(\w+)=(\S+)$} $rest -> k v]} { dict set args $k $v }
            }
            COPY {
                assert_equal [llength $rest] 2 "COPY SRC DST: $rest"
                lassign $rest src dst
                dict for {k v} $args { set src [string map [list "\${$k}" $v] $src] }
                dict set copies $dst $src
            }
            ENTRYPOINT {
                assert_true [regexp {^\[\s*"([^"]+)"\s*\]$} $rest -> entry] "ENTRYPOINT \[\"PATH\"\]: $rest"
            }
            FROM { assert_equal $rest debian:12 "base image" }
        }
    }
    assert_true {$entry ne ""} "no ENTRYPOINT in $cf"
    assert_true {[dict exists $copies $entry]} "no COPY to the ENTRYPOINT $entry: $copies"
    assert_equal [dict get $copies $entry] vm/clab/entrypoint.sh "what ENTRYPOINT runs"
    set ep [file join $clab_dir entrypoint.sh]
    assert_match "*(in the image: $entry)*" [_lab_read $ep] "entrypoint.sh names its place in the image"
    assert_true {[file executable $ep]} "entrypoint.sh is executable"
    assert_equal [lindex [split [_lab_read $ep] "\n"] 0] "#!/bin/bash" "entrypoint.sh's interpreter"
    lassign [lab_run - bash -n $ep] rc out
    assert_equal $rc 0 "bash -n entrypoint.sh: $out"
    dict for {dst src} $copies {
        if {[string match build-deb/* $src]} {
            # make deb's output: there only after `make deb`; its name and
            # folder are make-deb.sh's.
            set mk [_lab_read [file join $::vbrd::root debian make-deb.sh]]
            assert_match {*out=${DEB_OUT:-$top/build-deb}*} $mk "make-deb.sh writes to build-deb/"
            assert_match {*build-deb/vbrd_VERSION_amd64.deb*} $mk "make-deb.sh's package name"
            assert_true {[string match $src build-deb/vbrd_0.1.0+git1_amd64.deb]} "$src matches make deb's package name"
            set debs [glob -nocomplain [file join $::vbrd::root $src]]
            note "COPY $src: [llength $debs] such package(s) here[expr {[llength $debs] ? "" : " (make deb not run): make-deb.sh's output name checked instead"}]"
        } else {
            assert_true {[file isfile [file join $::vbrd::root $src]]} "COPY $src: no such file"
        }
    }
    lassign [clab_tool check] rc out
    assert_equal $rc 0 "clab-ns.py check: $out"
}

test {clab-ns.py refuses what it does not implement, creating nothing} {
    set dir [file join [lab_rundir] topo-variants]
    file mkdir $dir
    foreach f {edge.conf region.conf} { file copy -force [file join $clab_dir $f] $dir }
    set orig [_lab_read $clab_topo]
    foreach {what from to want} {
        "a node key" {      entrypoint: sleep infinity} "      entrypoint: sleep infinity\n      mgmt-ipv4: 172.20.20.2" {*node h1: key 'mgmt-ipv4' is not implemented*}
        "another kind" {    edge:
      kind: linux} "    edge:\n      kind: nokia_srlinux" {*node edge: kind 'nokia_srlinux': only linux*}
        "a vbrd node without eth2" {"edge:eth2", "region:eth2"} {"edge:eth4", "region:eth2"} {*node edge: interfaces*eth1..eth3*}
        "a variable" {        VBRD_HUGEPAGES: auto} {        VBRD_HUGEPAGES: ${HUGE:=auto}} {*variant.clab.yml:35: environment variable expansion (${HUGE:=auto}) is not implemented*}
        "a link key" {    - endpoints: ["h1:eth1", "edge:eth1"]} "    - endpoints: \[\"h1:eth1\", \"edge:eth1\"\]\n      vars: {a: 1}" {*links\[0\]: key 'vars' is not implemented*}
    } {
        assert_true {[string first $from $orig] >= 0} "the topology no longer has: $from"
        set f [file join $dir variant.clab.yml]
        _lab_write $f [string map [list $from $to] $orig]
        lassign [clab_tool check -t $f] rc out
        assert_equal $rc 1 "$what: check's exit status ($out)"
        assert_match $want $out "$what: the message"
        lassign [clab_tool up -t $f] rc out
        assert_equal $rc 1 "$what: up's exit status ($out)"
    }
    set left [lsearch -all -inline [exec ip netns list] "[lab_prefix]-*"]
    assert_equal $left {} "namespaces left by the refused topologies"
}

test {clab-ns.py refuses a bind target that a symlink of the host's /etc leads out of /etc} {
    # Debian's /etc/os-release is a symlink to ../usr/lib/os-release: the
    # mount point would be made (or mounted over) outside the node's /etc
    if {[file type /etc/os-release] ne "link"} { skip "/etc/os-release is not a symlink here" }
    set dir [file join [lab_rundir] topo-variants]
    file mkdir $dir
    foreach f {edge.conf region.conf} { file copy -force [file join $clab_dir $f] $dir }
    set f [file join $dir symlink.clab.yml]
    _lab_write $f [string map {edge.conf:/etc/vbrd/vbrd.conf:ro edge.conf:/etc/os-release:ro} [_lab_read $clab_topo]]
    lassign [clab_tool check -t $f] rc out
    assert_equal $rc 1 "check's exit status ($out)"
    assert_match {*node edge: bind 'edge.conf:/etc/os-release:ro': /etc/os-release leads to /usr/lib/os-release through a symlink*} $out "the message"
}

test {clab-ns.py gives env values to the node as written, as containerlab's string map} {
    set dir [file join [lab_rundir] topo-variants]
    file mkdir $dir
    foreach f {edge.conf region.conf} { file copy -force [file join $clab_dir $f] $dir }
    set f [file join $dir env.clab.yml]
    _lab_write $f [string map {"VBRD_HUGEPAGES: auto" "VBRD_HUGEPAGES: no\n        X_HEX: 0x10\n        X_DEC: 1.10\n        X_EMPTY:"} [_lab_read $clab_topo]]
    set code "import importlib.util, json, sys
spec = importlib.util.spec_from_file_location('clab_ns', sys.argv\[1\])
m = importlib.util.module_from_spec(spec)
spec.loader.exec_module(m)
print(json.dumps(m.Lab(sys.argv\[2\], 'x', '/nonexistent').env('edge')))"
    lassign [lab_run - env PYTHONDONTWRITEBYTECODE=1 python3 -c $code $clab_tool $f] rc out
    assert_equal $rc 0 "the node's environment: $out"
    set e [json::json2dict $out]
    foreach {k v} {VBRD_HUGEPAGES no X_HEX 0x10 X_DEC 1.10 X_EMPTY "" CLAB_INTFS 3} {
        assert_equal [dict get $e $k] $v "edge's $k"
    }
}

test {the entrypoint says in one line what is missing} {
    lab_netns ep
    set conf [file join [lab_rundir] ep.conf]
    set ep [file join $clab_dir entrypoint.sh]
    set epenv [list env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin VBRD_BIN=$::vbrd::bin VBRD_CONF=$conf]
    _lab_write $conf "interfaces = ();\n"
    foreach {vars want} [list \
        {} {vbrd-clab: CLAB_INTFS is not set: *} \
        {CLAB_INTFS=17} {vbrd-clab: CLAB_INTFS='17': want 1..16 *} \
        {CLAB_INTFS=1} "vbrd-clab: $conf does not @include \"clab.conf\" *" \
    ] {
        lassign [lab_run ep {*}$epenv {*}$vars $ep] rc out
        assert_equal $rc 1 "exit status with '$vars': $out"
        assert_match $want $out "message with '$vars'"
    }
    _lab_write $conf "ports = ( { name = \"x\"; devargs = \"net_null0\"; } );\n@include \"clab.conf\"\n"
    lassign [lab_run ep {*}$epenv CLAB_INTFS=1 $ep] rc out
    assert_equal $rc 1 "exit status with the config's own ports: $out"
    assert_equal $out "vbrd-clab: $conf has its own ports: remove them (clab.conf, which it @includes, has eth1..eth1)" "message with the config's own ports"
    _lab_write $conf "@include \"clab.conf\"\n"
    lassign [lab_run ep {*}$epenv CLAB_INTFS=2 VBRD_WAIT_S=1 $ep] rc out
    assert_equal $rc 1 "exit status without eth1: $out"
    assert_match "vbrd-clab: after 1 s, eth1 is missing (CLAB_INTFS=2: eth1..eth2 wanted; present: lo)" $out "message without eth1"
    assert_true {![file exists [file join [lab_rundir] clab.conf]]} "clab.conf written though the interfaces never came"
    exec ip netns del [lab_ns ep]
    unset ::lab::hosts(ep)
}

test {clab-ns.py up killed (SIGTERM) half-way stops what it started} {
    # without --state, as the README runs it: the default state directory
    # (/tmp/clab-ns/PREFIX; a node's fresh /run would hide one under /run)
    set state /tmp/clab-ns/[lab_prefix]
    lab_on_cleanup [list file delete -force $state]
    set pidfile [file join $state h2.pid]
    set ::env(VBRD_BIN) $::vbrd::bin
    set out [file join [lab_rundir] clab-killed.out]
    # the nodes are started before the links: kill it once the last node is
    set up [exec $::clab_tool up -t $::clab_topo --prefix [lab_prefix] >& $out &]
    wait_for_condition 200 10 {[file exists $pidfile]} else {
        catch {exec kill -KILL $up}
        fail "no h2.pid: [_lab_read $out]"
    }
    exec kill -TERM $up
    # gone, or a zombie (Tcl reaps its background children late)
    wait_for_condition 200 50 {[catch {_lab_read /proc/$up/stat} st] || [lindex [split [lindex [split $st ")"] end] " "] 1] eq "Z"} else {
        fail "clab-ns.py up still running after SIGTERM: [_lab_read $out]"
    }
    set left [lsearch -all -inline [exec ip netns list] "[lab_prefix]-*"]
    if {$left ne {}} {
        lab_run - $::clab_tool down -t $::clab_topo --prefix [lab_prefix] --state $state
        fail "namespaces left by the killed up: $left ([_lab_read $out])"
    }
    assert_match "*clab-ns: twosite down (h1, edge, region, h2)*" [_lab_read $out] "what up said"
}

# The lab: up, and cleaned up by lab_cleanup whatever happens (clab-ns.py
# down, then the namespaces, registered as lab hosts, once more).
foreach n $clab_nodes { set ::lab::hosts($n) "[lab_prefix]-$n" }
lab_on_cleanup { clab_tool down }

test {clab-ns.py up builds twosite.clab.yml: both vbrds forward on ports eth1..eth3 from the entrypoint} {
    lassign [clab_tool up] rc out
    if {$rc != 0} {
        set ::runner::broken "clab-ns.py up failed: $out"
        fail $::runner::broken
    }
    foreach n {edge region} {
        wait_for_condition 100 100 {
            [lindex [set last [clab_tool exec $n -- $::vbrd::ctl_bin show ports]] 0] == 0
        } else {
            set ::runner::broken "vbrctl in $n: [lindex $last 1]\n$n's log:\n[_lab_read [file join [lab_rundir] clab $n.log]]"
            fail $::runner::broken
        }
        set log [_lab_read [file join [lab_rundir] clab $n.log]]
        assert_match "*vbrd-clab: eth1..eth3 up*" $log "$n: the entrypoint waited for its interfaces"
        # what the entrypoint wrote beside the bound config, and vbrd took
        set inc [on_node $n cat /etc/vbrd/clab.conf]
        set ports [node_ports $n]
        assert_equal [lsort [dict keys $ports]] {eth1 eth2 eth3} "$n: vbrd's ports"
        set offload [on_node $n sh -c {for i in 1 2 3; do ethtool -k eth$i | grep '^tx-checksumming:'; done}]
        assert_equal [regexp -all -line {^tx-checksumming: off$} $offload] 3 "$n: TX checksum offload of eth1..eth3: $offload"
        assert_equal [on_node $n cat /proc/sys/net/ipv6/conf/eth1/disable_ipv6 /proc/sys/net/ipv6/conf/eth2/disable_ipv6 /proc/sys/net/ipv6/conf/eth3/disable_ipv6] "1\n1\n1" "$n: IPv6 off on eth1..eth3"
        foreach i {1 2 3} {
            assert_match "*name = \"eth$i\"; devargs = \"net_af_packet$i,iface=eth$i\";*" $inc "$n: clab.conf's port eth$i"
            set p [dict get $ports eth$i]
            assert_equal [dict get $p devargs] "net_af_packet$i,iface=eth$i" "$n: port eth$i"
            assert_equal [dict get $p link] up "$n: port eth$i's link"
        }
        assert_match "*eal = { hugepages = false; memory_mb = 512; };*" $inc "$n: clab.conf's eal (no hugetlbfs in the node)"
        # the bind: the node's /etc/vbrd/vbrd.conf is the topology's file
        assert_equal [on_node $n cat /etc/vbrd/vbrd.conf] \
            [string trimright [_lab_read [file join $clab_dir $n.conf]] "\n"] "$n: the bound config"
        assert_equal [on_node $n hostname] $n "$n: hostname"
    }
    # nothing of the nodes' /etc and /run on the host
    assert_true {![file exists /etc/vbrd/clab.conf]} "clab.conf written to the host's /etc/vbrd"
}

test {BFD Up on both lines, both groups on line1, h1 pings h2 through edge and region} {
    foreach n {edge region} {
        wait_for_condition 100 100 {[node_bfd_states $n] eq {l1 Up l2 Up}} else {
            fail "$n: bfd sessions not Up: [node_bfd_states $n]"
        }
    }
    assert_equal [dict get [node_group edge to-region] active] member0 "edge's group"
    assert_equal [dict get [node_group region to-edge] active] member0 "region's group"
    # ARP on both lans and line1 first, then the count
    wait_for_condition 20 100 {[ping_h2 1] == 1} else { fail "h1 never reached h2" }
    set before [dict create edge [node_ports edge] region [node_ports region]]
    set echos [dict get [lab_snmp h2 Icmp] InEchos]
    assert_equal [ping_h2 10] 10 "replies of 10 pings h1 -> h2"
    assert_equal [expr {[dict get [lab_snmp h2 Icmp] InEchos] - $echos}] 10 "echo requests h2 received"
    set after [dict create edge [node_ports edge] region [node_ports region]]
    foreach {n port dir} {edge eth1 rx_packets edge eth2 tx_packets
                          region eth2 rx_packets region eth1 tx_packets} {
        set d [expr {[dict get $after $n $port $dir] - [dict get $before $n $port $dir]}]
        assert_morethan [expr {$d + 1}] 10 "$n port $port $dir during the pings"
    }
}

test {line1 taken down in the region: both groups move to line2, h1 still reaches h2; back to line1 once it is up} {
    on_node region ip link set eth2 down
    set healed 0
    try {
        foreach {n g} {edge to-region region to-edge} {
            wait_for_condition 100 50 {[dict get [node_group $n $g] active] eq "member1"} else {
                fail "$n: group $g not on member1 after line1 went down: [node_group $n $g]"
            }
        }
        assert_true {[dict get [node_session edge l1] state] ne "Up"} "edge's l1 after the cut"
        set e3 [node_port edge eth3]
        set echos [dict get [lab_snmp h2 Icmp] InEchos]
        assert_equal [ping_h2 10] 10 "replies of 10 pings h1 -> h2 over line2"
        assert_equal [expr {[dict get [lab_snmp h2 Icmp] InEchos] - $echos}] 10 "echo requests h2 received"
        set d [expr {[dict get [node_port edge eth3] tx_packets] - [dict get $e3 tx_packets]}]
        assert_morethan [expr {$d + 1}] 10 "edge port eth3 (line2) tx during the pings"
        on_node region ip link set eth2 up
        set healed 1
        # revertive: back on member0 once l1 has been Up for hold_down (1 s)
        foreach {n g} {edge to-region region to-edge} {
            wait_for_condition 150 100 {[dict get [node_group $n $g] active] eq "member0"} else {
                fail "$n: group $g not back on member0: [node_group $n $g]"
            }
            assert_morethan [dict get [node_group $n $g] switches] 1 "$n: switches of $g"
        }
        assert_equal [ping_h2 10] 10 "replies of 10 pings h1 -> h2 over line1 again"
    } finally {
        if {!$healed} { catch {on_node region ip link set eth2 up} }
    }
}

test {clab-ns.py down stops both vbrds with SIGTERM and leaves no namespace} {
    lassign [clab_tool down] rc out
    assert_equal $rc 0 "clab-ns.py down: $out"
    assert_true {![string match "*killed*" $out]} "a node had to be killed: $out"
    foreach n {edge region} {
        assert_match "*vbrd.main: stopping*" [_lab_read [file join [lab_rundir] clab $n.log]] "$n: vbrd's log"
    }
    set left [lsearch -all -inline [exec ip netns list] "[lab_prefix]-*"]
    assert_equal $left {} "namespaces left"
    assert_equal [glob -nocomplain [file join [lab_rundir] clab *.pid]] {} "pid files left"
}

-- vbrd_flows.lua: many flows for ECMP and RSS: source address x source port ranges
-- (254 x 64512 5-tuples). Port 1 must be promiscuous to count both next hops' MACs.
-- Pairs with vm/load/conf/vbrd_flows.conf (TRex: vm/load/trex/vbrd_flows.py).
-- Run: pktgen -l 0-2 -n 4 -a PCI0 -a PCI1 -- -P -m "[1].0,[2].1" -f vm/load/pktgen/vbrd_flows.lua
-- Addresses, rate and duration: lib/vbrd_load.lua.
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
package.path = here .. "lib/?.lua;" .. package.path
local L = require("vbrd_load")

L.base("udp")
L.range("src_ip", "16.0.0.1", "0.0.0.1", "16.0.0.1", "16.0.0.254")
L.range("dst_ip", "48.0.0.1", "0.0.0.0", "48.0.0.1", "48.0.0.1")
L.range("src_port", 1024, 1, 1024, 65535)
L.range("dst_port", 4000, 0, 4000, 4000)
L.range("pkt_size", 64, 0, 64, 64)
pktgen.set_range("0", "on")
L.run("flows")

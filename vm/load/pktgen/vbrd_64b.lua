-- vbrd_64b.lua: 64-byte UDP frames from 16.0.0.0/24 to 48.0.0.1 (the packet-rate limit).
-- Pairs with vm/load/conf/vbrd_64b.conf (TRex: vm/load/trex/vbrd_64b.py).
-- Run: pktgen -l 0-2 -n 4 -a PCI0 -a PCI1 -- -P -m "[1].0,[2].1" -f vm/load/pktgen/vbrd_64b.lua
-- Addresses, rate and duration: lib/vbrd_load.lua.
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
package.path = here .. "lib/?.lua;" .. package.path
local L = require("vbrd_load")

L.base("udp")
L.range("src_ip", "16.0.0.1", "0.0.0.1", "16.0.0.1", "16.0.0.254")
L.range("dst_ip", "48.0.0.1", "0.0.0.0", "48.0.0.1", "48.0.0.1")
L.range("pkt_size", 64, 0, 64, 64)
pktgen.set_range("0", "on")
L.run("64B")

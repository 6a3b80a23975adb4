-- vbrd_roce_tcp.lua: RoCEv2-like UDP to 4791 (DSCP 26 + ECT(0): TOS 0x6a) next to TCP to 5201,
-- 4:1 as a 5-packet sequence. pktgen writes no BTH: the UDP payload is its
-- pattern, which vbrd's classes (protocol and port) do not look at.
-- Pairs with vm/load/conf/vbrd_roce_tcp.conf (TRex: vm/load/trex/vbrd_roce_tcp.py).
-- Run: pktgen -l 0-2 -n 4 -a PCI0 -a PCI1 -- -P -m "[1].0,[2].1" -f vm/load/pktgen/vbrd_roce_tcp.lua
-- Addresses, rate and duration: lib/vbrd_load.lua.
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
package.path = here .. "lib/?.lua;" .. package.path
local L = require("vbrd_load")

local n = 0
for i = 0, 3 do L.entry(i, 1082, "udp", 49152 + i, 4791, 0x6a); n = n + 1 end
L.entry(4, 1082, "tcp", 40000, 5201, 0); n = n + 1
pktgen.set("0", "seq_cnt", n)
L.run("RoCEv2+TCP")

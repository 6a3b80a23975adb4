-- vbrd_latency.lua: one packet per QoS class (EF 46, AF41 34, AF21 18, BE 0) in a
-- sequence, with pktgen's latency measurement on: pktgen measures one
-- latency per port, not per class (use the TRex profile for per-class
-- latency); the per-class loss is in vbrd's `vbrctl show qos lan1`.
-- Pairs with vm/load/conf/vbrd_latency.conf (TRex: vm/load/trex/vbrd_latency.py).
-- Run: pktgen -l 0-2 -n 4 -a PCI0 -a PCI1 -- -P -m "[1].0,[2].1" -f vm/load/pktgen/vbrd_latency.lua
-- Addresses, rate and duration: lib/vbrd_load.lua.
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
package.path = here .. "lib/?.lua;" .. package.path
local L = require("vbrd_load")

local classes = { 46, 34, 18, 0 }
local n = 0
for i, dscp in ipairs(classes) do
  L.entry(i - 1, 1024, "udp", 2000 + 256 * (i - 1), 5000 + i - 1, dscp * 4)
  n = n + 1
end
pktgen.latency("0", "enable")
pktgen.set("0", "seq_cnt", n)
L.run("latency classes")

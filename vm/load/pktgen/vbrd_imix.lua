-- vbrd_imix.lua: IMIX 7:4:1 of 64, 570 and 1518-byte frames, as a 12-packet sequence.
-- Pairs with vm/load/conf/vbrd_imix.conf (TRex: vm/load/trex/vbrd_imix.py).
-- Run: pktgen -l 0-2 -n 4 -a PCI0 -a PCI1 -- -P -m "[1].0,[2].1" -f vm/load/pktgen/vbrd_imix.lua
-- Addresses, rate and duration: lib/vbrd_load.lua.
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
package.path = here .. "lib/?.lua;" .. package.path
local L = require("vbrd_load")

local sizes = { 64, 64, 570, 64, 570, 64, 1518, 64, 570, 64, 570, 64 }  -- 7:4:1, spread
local n = 0
for i, size in ipairs(sizes) do
  L.entry(i - 1, size, "udp", 1025, 12, 0)
  n = n + 1
end
pktgen.set("0", "seq_cnt", n)
L.run("IMIX")

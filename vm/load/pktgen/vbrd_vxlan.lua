-- vbrd_vxlan.lua: VXLAN (VNI 1000) from the remote gateway 10.0.1.2 to vbrd's 10.0.1.1.
-- pktgen's VXLAN mode wraps its single packet; check the outer addresses it
-- writes with a capture before trusting the rates (not tried with pktgen here;
-- the TRex profile builds outer and inner headers explicitly).
-- Pairs with vm/load/conf/vbrd_vxlan.conf (TRex: vm/load/trex/vbrd_vxlan.py).
-- Run: pktgen -l 0-2 -n 4 -a PCI0 -a PCI1 -- -P -m "[1].0,[2].1" -f vm/load/pktgen/vbrd_vxlan.lua
-- Addresses, rate and duration: lib/vbrd_load.lua.
local here = debug.getinfo(1, "S").source:match("^@(.*[/\\])") or "./"
package.path = here .. "lib/?.lua;" .. package.path
local L = require("vbrd_load")

L.base("udp")
pktgen.set_ipaddr("0", "src", "10.0.1.2/24")
pktgen.set_ipaddr("0", "dst", "10.0.1.1")
pktgen.set("0", "sport", 49152)
pktgen.set("0", "dport", 4789)
pktgen.set("0", "size", 128)
pktgen.vxlan("0", "enable")
pktgen.vxlan_id("0", 8, 0, 1000)   -- flags (I bit), group id, VNI
L.run("VXLAN")

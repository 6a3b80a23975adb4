-- vbrd_vxlan.lua: VXLAN (VNI 1000) from the remote gateway 10.0.1.2 to vbrd's 10.0.1.1.
-- pktgen's VXLAN mode wraps its single packet; check the outer addresses it
-- writes with a capture before trusting the rates (not tried with pktgen here;
-- the TRex profile builds outer and inner headers explicitly).
-- Pairs with vm/load/conf/vbrd_vxlan.conf (TRex: vm/load/trex/vbrd_vxlan.py).
-- Run: pktgen -l 0-2 -n 4 -a PCI0 -a PCI1 -- -P -m "[1].0,[2].1" -f vm/load/pktgen/vbrd_vxlan.lua
-- Port 0 plays TRex port 0 (02:00:00:00:01:02, 10.0.1.2), port 1 TRex port 1
-- (02:00:00:00:02:02): set those MACs on the NICs or change GEN0, and DUT0
-- to the MAC of vbrd's p0 (`vbrctl show ports`). Static neighbors: no ARP.
local GEN0, DUT0 = "02:00:00:00:01:02", "02:00:00:00:00:10"
local RATE = 100        -- percent of the line
local SECONDS = 10

local function report(what)
  local tx = pktgen.portStats("0", "port")[0]
  local rx = pktgen.portStats("1", "port")[1]
  print(("%s: port 0 sent %d, port 1 received %d, lost %d"):format(
    what, tx.opackets, rx.ipackets, tx.opackets - rx.ipackets))
end

pktgen.set_mac("0", "src", GEN0)
pktgen.set_mac("0", "dst", DUT0)
pktgen.set_type("0", "ipv4")
pktgen.set_proto("0", "udp")
pktgen.set_ipaddr("0", "src", "10.0.1.2/24")
pktgen.set_ipaddr("0", "dst", "10.0.1.1")
pktgen.set("0", "sport", 49152)
pktgen.set("0", "dport", 4789)
pktgen.set("0", "size", 128)
pktgen.vxlan("0", "enable")
pktgen.vxlan_id("0", 8, 0, 1000)   -- flags (I bit), group id, VNI
pktgen.set("0", "rate", RATE)
pktgen.clear("all")
pktgen.start("0")
pktgen.delay(SECONDS * 1000)
pktgen.stop("0")
pktgen.delay(500)
report("VXLAN")

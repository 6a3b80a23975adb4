-- vbrd_64b.lua: 64-byte UDP frames from 16.0.0.0/24 to 48.0.0.1 (the packet-rate limit).
-- Pairs with vm/load/conf/vbrd_64b.conf (TRex: vm/load/trex/vbrd_64b.py).
-- Run: pktgen -l 0-2 -n 4 -a PCI0 -a PCI1 -- -P -m "[1].0,[2].1" -f vm/load/pktgen/vbrd_64b.lua
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
pktgen.range.src_ip("0", "start", "16.0.0.1")
pktgen.range.src_ip("0", "inc", "0.0.0.1")
pktgen.range.src_ip("0", "min", "16.0.0.1")
pktgen.range.src_ip("0", "max", "16.0.0.254")
pktgen.range.dst_ip("0", "start", "48.0.0.1")
pktgen.range.dst_ip("0", "inc", "0.0.0.0")
pktgen.range.dst_ip("0", "min", "48.0.0.1")
pktgen.range.dst_ip("0", "max", "48.0.0.1")
pktgen.range.pkt_size("0", "start", 64)
pktgen.range.pkt_size("0", "inc", 0)
pktgen.range.pkt_size("0", "min", 64)
pktgen.range.pkt_size("0", "max", 64)
pktgen.set_range("0", "on")
pktgen.set("0", "rate", RATE)
pktgen.clear("all")
pktgen.start("0")
pktgen.delay(SECONDS * 1000)
pktgen.stop("0")
pktgen.delay(500)
report("64B")

-- vbrd_latency.lua: one packet per QoS class (EF 46, AF41 34, AF21 18, BE 0) in a
-- sequence, with pktgen's latency measurement on: pktgen measures one
-- latency per port, not per class (use the TRex profile for per-class
-- latency); the per-class loss is in vbrd's `vbrctl show qos lan1`.
-- Pairs with vm/load/conf/vbrd_latency.conf (TRex: vm/load/trex/vbrd_latency.py).
-- Run: pktgen -l 0-2 -n 4 -a PCI0 -a PCI1 -- -P -m "[1].0,[2].1" -f vm/load/pktgen/vbrd_latency.lua
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
local function entry(i, size, proto, sport, dport, tos)
  pktgen.seqTable(i, "0", {
    eth_dst_addr = DUT0, eth_src_addr = GEN0,
    ip_src_addr = "16.0.0.1/16", ip_dst_addr = "48.0.0.1",
    sport = sport, dport = dport, ethType = "ipv4", ipProto = proto,
    vlanid = 1, pktSize = size, cos = 0, tos = tos })
end

local classes = { 46, 34, 18, 0 }
local n = 0
for i, dscp in ipairs(classes) do
  entry(i - 1, 1024, "udp", 2000 + 256 * (i - 1), 5000 + i - 1, dscp * 4)
  n = n + 1
end
pktgen.latency("0", "enable")
pktgen.set("0", "seq_cnt", n)
pktgen.set("0", "rate", RATE)
pktgen.clear("all")
pktgen.start("0")
pktgen.delay(SECONDS * 1000)
pktgen.stop("0")
pktgen.delay(500)

report("latency classes")

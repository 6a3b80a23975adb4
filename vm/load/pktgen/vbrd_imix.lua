-- vbrd_imix.lua: IMIX 7:4:1 of 64, 570 and 1518-byte frames, as a 12-packet sequence.
-- Pairs with vm/load/conf/vbrd_imix.conf (TRex: vm/load/trex/vbrd_imix.py).
-- Run: pktgen -l 0-2 -n 4 -a PCI0 -a PCI1 -- -P -m "[1].0,[2].1" -f vm/load/pktgen/vbrd_imix.lua
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

local sizes = { 64, 64, 570, 64, 570, 64, 1518, 64, 570, 64, 570, 64 }  -- 7:4:1, spread
local n = 0
for i, size in ipairs(sizes) do
  entry(i - 1, size, "udp", 1025, 12, 0)
  n = n + 1
end
pktgen.set("0", "seq_cnt", n)
pktgen.set("0", "rate", RATE)
pktgen.clear("all")
pktgen.start("0")
pktgen.delay(SECONDS * 1000)
pktgen.stop("0")
pktgen.delay(500)

report("IMIX")

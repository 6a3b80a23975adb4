-- vbrd_roce_tcp.lua: RoCEv2-like UDP to 4791 (DSCP 26 + ECT(0): TOS 0x6a) next to TCP to 5201,
-- 4:1 as a 5-packet sequence. pktgen writes no BTH: the UDP payload is its
-- pattern, which vbrd's classes (protocol and port) do not look at.
-- Pairs with vm/load/conf/vbrd_roce_tcp.conf (TRex: vm/load/trex/vbrd_roce_tcp.py).
-- Run: pktgen -l 0-2 -n 4 -a PCI0 -a PCI1 -- -P -m "[1].0,[2].1" -f vm/load/pktgen/vbrd_roce_tcp.lua
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

local n = 0
for i = 0, 3 do entry(i, 1082, "udp", 49152 + i, 4791, 0x6a); n = n + 1 end
entry(4, 1082, "tcp", 40000, 5201, 0); n = n + 1
pktgen.set("0", "seq_cnt", n)
pktgen.set("0", "rate", RATE)
pktgen.clear("all")
pktgen.start("0")
pktgen.delay(SECONDS * 1000)
pktgen.stop("0")
pktgen.delay(500)

report("RoCEv2+TCP")

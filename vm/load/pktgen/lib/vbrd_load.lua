-- lib/vbrd_load.lua: what the pktgen-dpdk scripts of vm/load/pktgen share.
-- Port 0 plays TRex port 0 (02:00:00:00:01:02, 10.0.1.2), port 1 TRex port 1
-- (02:00:00:00:02:02): set those MACs on the NICs or change GEN0, and DUT0 to
-- the MAC of vbrd's p0 (`vbrctl show ports`). Static neighbors: no ARP.
-- A script loads it with require after adding this folder to package.path
-- (pktgen's Lua has the standard libraries).
local M = {
  GEN0 = "02:00:00:00:01:02",
  DUT0 = "02:00:00:00:00:10",
  RATE = 100,    -- percent of the line
  SECONDS = 10,  -- of traffic
}

-- Port 0's single-packet template: MACs, IPv4, PROTO ("udp" or "tcp").
function M.base(proto)
  pktgen.set_mac("0", "src", M.GEN0)
  pktgen.set_mac("0", "dst", M.DUT0)
  pktgen.set_type("0", "ipv4")
  pktgen.set_proto("0", proto)
end

-- Port 0's range of FIELD (src_ip, dst_ip, src_port, dst_port, pkt_size).
function M.range(field, start, inc, min, max)
  local r = pktgen.range[field]
  r("0", "start", start)
  r("0", "inc", inc)
  r("0", "min", min)
  r("0", "max", max)
end

-- Entry I (0..15) of port 0's sequence: SIZE bytes of PROTO, ports, TOS byte.
function M.entry(i, size, proto, sport, dport, tos)
  pktgen.seqTable(i, "0", {
    eth_dst_addr = M.DUT0, eth_src_addr = M.GEN0,
    ip_src_addr = "16.0.0.1/16", ip_dst_addr = "48.0.0.1",
    sport = sport, dport = dport, ethType = "ipv4", ipProto = proto,
    vlanid = 1, pktSize = size, cos = 0, tos = tos })
end

-- Send from port 0 at RATE % for SECONDS, then print what port 1 received.
function M.run(what)
  pktgen.set("0", "rate", M.RATE)
  pktgen.clear("all")
  pktgen.start("0")
  pktgen.delay(M.SECONDS * 1000)
  pktgen.stop("0")
  pktgen.delay(500)
  local tx = pktgen.portStats("0", "port")[0]
  local rx = pktgen.portStats("1", "port")[1]
  print(("%s: port 0 sent %d, port 1 received %d, lost %d"):format(
    what, tx.opackets, rx.ipackets, tx.opackets - rx.ipackets))
end

return M

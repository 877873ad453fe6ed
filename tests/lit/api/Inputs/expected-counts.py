# SPDX-License-Identifier: Apache-2.0
# What samples/xdp_config_count_user.c must print for its burst, computed
# here from the packets it sends (not from the program): 300 frames, every
# tenth ARP, the others IPv4 of TCP, UDP and ICMP in turn, 60 to 63 bytes;
# the packet counter adds 2 a packet (the generation the sample sets).
#   expected-counts.py [DROP-PROTO]
import sys

drop = int(sys.argv[1]) if len(sys.argv) > 1 else None
protos = [6, 17, 1]
burst = 300
ipv4 = [i for i in range(burst) if i % 10 != 9]
dropped = [i for i in ipv4 if protos[i % 3] == drop]
print("backend host")
print(f"verdicts: drop {len(dropped)} pass {burst - len(dropped)}")
print(f"packets {2 * burst} dropped {len(dropped)}")
print(f"traffic: {sum(60 + i % 4 for i in range(burst))} bytes, {len(ipv4)} ipv4, "
      f"{burst - len(ipv4)} other")
for p in sorted(set(protos)):
    print(f"proto {p}: {sum(1 for i in ipv4 if protos[i % 3] == p)}")

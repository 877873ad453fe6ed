# SPDX-License-Identifier: Apache-2.0
#
# Helpers of scripts/realworld.sh (real-world XDP objects built from sources
# the user has at hand; none of their code is in this repository).
#   realworld.py btf-maps SRC.c     the source with each legacy
#       `struct bpf_map_def SEC("maps") NAME = {...};` written as the
#       BTF-defined map of the same type, sizes, entries and flags, on
#       standard output: the kernel back end loads through libbpf 1.x, which
#       refuses legacy definitions, while ebpf-gpu reads the original object.
#       Prints the count to standard error; exits 1 on a field it cannot read.
#   realworld.py map-files PCAP DIR     map entry files (the loader's
#       --map-file format) that make the objects take their interesting
#       paths on that traffic: the first IPv4 TCP packet's destination
#       address and port become a tunnel VIP, a blocked address and so on.
#   realworld.py stubs DIR     the small headers (ours) that stand in for
#       build-tree files the objects' own build systems provide.

import os
import re
import struct
import sys

LEGACY = re.compile(r'struct\s+bpf_map_def\s+SEC\("maps"\)\s+(\w+)\s*=\s*\{(.*?)\};', re.S)


def split_fields(body):
    """`.key = expr` items of an initialiser, split at top-level commas."""
    items, depth, cur = [], 0, ""
    for ch in body:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    items.append(cur)
    out = []
    for item in (i.strip() for i in items):
        if not item:
            continue
        m = re.match(r"\.(\w+)\s*=\s*(.*)$", item, re.S)
        if not m:
            raise ValueError(f"cannot read map field '{item}'")
        out.append((m.group(1), m.group(2).strip()))
    return out


def btf_maps(path):
    src = open(path).read()

    def convert(m):
        body = " ".join(f"__uint({k}, {v});" for k, v in split_fields(m.group(2)))
        return f'struct {{ {body} }} {m.group(1)} SEC(".maps");'

    try:
        out, n = LEGACY.subn(convert, src)
    except ValueError as e:
        print(f"realworld.py: {path}: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(out)
    print(f"{n} legacy map definitions converted", file=sys.stderr)
    return 0


def first_tcp4(pcap):
    """(destination address bytes, destination port bytes) of the first
    untagged IPv4 TCP frame of a pcap."""
    with open(pcap, "rb") as f:
        data = f.read()
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack_from("<I", data, off + 8)[0]
        frame = data[off + 16:off + 16 + incl]
        off += 16 + incl
        if len(frame) < 54 or frame[12:14] != b"\x08\x00" or frame[23] != 6:
            continue
        ihl = (frame[14] & 15) * 4
        if len(frame) < 14 + ihl + 4:
            continue
        return frame[30:34], frame[14 + ihl + 2:14 + ihl + 4]
    raise ValueError(f"{pcap}: no IPv4 TCP frame")


def map_files(pcap, out_dir):
    daddr, dport = first_tcp4(pcap)
    h = lambda b: b.hex()
    files = {
        # xdp-tools xdp-filter: TCP destination port 80, UDP destination
        # port 53 (keys: the port as the header holds it, in a u32), and one
        # destination address; values carry MAP_FLAG_* bits.
        "xdp-filter.maps": [
            "filter_ports:00500000:0600000000000000",
            "filter_ports:00350000:0a00000000000000",
            f"filter_ipv4:{h(daddr)}:0200000000000000",
        ],
        # xdp-tutorial packet03: frames from the generator's source MAC go
        # to devmap slot 0 (the loopback device) with a new destination MAC.
        "xdp-tutorial-redirect.maps": [
            "redirect_params:020000000002:0200000000aa",
            "tx_port:00000000:01000000",
        ],
        # Linux xdp_tx_iptunnel: one IPv4 VIP (struct vip: address union of
        # 16 bytes, port as the header holds it, family AF_INET, protocol
        # TCP, padding) tunnelled 10.0.0.1 -> 10.0.0.2.
        "xdp_tx_iptunnel.maps": [
            "vip2tnl:" + h(daddr + bytes(12) + dport + struct.pack("<H", 2) + b"\x06" + bytes(3))
            + ":" + h(bytes([10, 0, 0, 1]) + bytes(12) + bytes([10, 0, 0, 2]) + bytes(12)
                      + struct.pack("<H", 2) + bytes([2, 0, 0, 0, 0, 3])),
        ],
        # Katran's balancer: a TCP VIP (the address and port; struct
        # vip_definition: address union of 16 bytes, port as the header
        # holds it, protocol, padding) and a UDP VIP on any port of the same
        # address, real 0 at 10.0.0.9 (struct real_definition: address union,
        # flags, padding), the default router's MAC in ctl_array[0].
        "katran.maps": [
            "vip_map:" + h(daddr + bytes(12) + dport + b"\x06\x00") + ":0000000000000000",
            "vip_map:" + h(daddr + bytes(12) + bytes(2) + b"\x11\x00") + ":0000000001000000",
            "reals:00000000:" + h(bytes([10, 0, 0, 9]) + bytes(16)),
            "ctl_array:00000000:0200000000aa0000",
        ],
        # Linux xdp_router_ipv4: 192.168.0.0/16 via gateway 10.0.0.1 on
        # the loopback device (struct trie_value: prefix, source MAC as a
        # __be64, ifindex, metric, gateway), the gateway's MAC in arp_table.
        "xdp_router_ipv4.maps": [
            "lpm_map:10000000c0a80000:c0a80000" + "00000000" + "0200000000bb0000" + "01000000"
            + "00000000" + "0a000001" + "00000000",
            "arp_table:0a000001:0200000000cc0000",
            "tx_port:01000000:01000000",
        ],
        # Linux xdp_redirect_map: slot 0 of both devmaps is the loopback
        # device (tx_port_native's values are struct bpf_devmap_val).
        "xdp_redirect_map_general.maps": ["tx_port_general:00000000:01000000"],
        "xdp_redirect_map_native.maps": ["tx_port_native:00000000:0100000000000000"],
        # xdp-tutorial's router in the forwarding-table namespace: its devmap
        # sends to every link there (ifindex 2-4).
        "xdp-tutorial-router.maps": [f"tx_port:{i:02x}000000:{i:02x}000000" for i in (2, 3, 4)],
        # Linux xdp_fwd: the devmap holds every link of the forwarding
        # table (tests/lit/loader/Inputs/fib.fib).
        "xdp_fwd.maps": [f"xdp_tx_ports:{i:02x}000000:{i:02x}000000" for i in (1, 2, 3, 4)],
    }
    os.makedirs(out_dir, exist_ok=True)
    for name, lines in files.items():
        with open(os.path.join(out_dir, name), "w") as f:
            f.write("\n".join(lines) + "\n")
    print(f"map files in {out_dir}: VIP/address {'.'.join(map(str, daddr))} port "
          f"{struct.unpack('>H', dport)[0]}")
    return 0


STUBS = {
    # The objects' build systems pass the kernel's x86-64 glibc headers
    # through; clang -target bpf then asks for the 32-bit stubs.
    "gnu/stubs-32.h": "/* empty (ours): glibc's stubs for a 32-bit build */\n",
    # libbpf 1.x dropped the legacy map definition that xdp-tutorial and
    # the kernel's samples/bpf still declare at the stored revisions.
    "legacy_map_def.h": """/* Ours: the legacy map definition libbpf 0.x declared. */
#ifndef RW_LEGACY_MAP_DEF
#define RW_LEGACY_MAP_DEF
struct bpf_map_def {
	unsigned int type;
	unsigned int key_size;
	unsigned int value_size;
	unsigned int max_entries;
	unsigned int map_flags;
};
#endif
""",
    # The kernel tree as samples/bpf/*_kern.c saw it: <uapi/linux/bpf.h>,
    # the samples' own bpf_helpers.h (libbpf's plus bpf_map_def), the
    # kernel's short types, byte order and memory macros, struct vlan_hdr.
    "ktree/uapi/linux/bpf.h": "/* Ours: the UAPI header as installed. */\n#include <linux/bpf.h>\n",
    "ktree/bpf_helpers.h": """/* Ours: what the kernel tree gave samples/bpf. */
#ifndef RW_KTREE_BPF_HELPERS
#define RW_KTREE_BPF_HELPERS
#include <linux/types.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_endian.h>
#include "../legacy_map_def.h"
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
#define __force
#define htons(x) bpf_htons(x)
#define ntohs(x) bpf_ntohs(x)
#define cpu_to_be32(x) bpf_htonl(x)
#define memcpy(d, s, n) __builtin_memcpy((d), (s), (n))
#define memset(d, c, n) __builtin_memset((d), (c), (n))
#ifndef AF_INET
#define AF_INET 2
#define AF_INET6 10
#endif
struct vlan_hdr {
	__be16 h_vlan_TCI;
	__be16 h_vlan_encapsulated_proto;
};
#endif
""",
    # Katran's own copies of the UAPI header and of an old libbpf
    # bpf_helpers.h (katran/lib/linux_includes): the installed ones.
    "katran/bpf.h": "/* Ours: Katran's linux_includes/bpf.h. */\n#include <linux/bpf.h>\n",
    "katran/bpf_helpers.h": "/* Ours: Katran's linux_includes/bpf_helpers.h. */\n#include <bpf/bpf_helpers.h>\n",
    "katran/bpf_endian.h": "/* Ours: Katran's linux_includes/bpf_endian.h. */\n#include <bpf/bpf_endian.h>\n",
    "katran/katran/lib/linux_includes/bpf.h": "#include <linux/bpf.h>\n",
    "katran/katran/lib/linux_includes/bpf_helpers.h": "#include <bpf/bpf_helpers.h>\n",
}


def stubs(out_dir):
    for rel, text in STUBS.items():
        path = os.path.join(out_dir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "btf-maps":
        return btf_maps(argv[2])
    if len(argv) == 4 and argv[1] == "map-files":
        try:
            return map_files(argv[2], argv[3])
        except (OSError, ValueError) as e:
            print(f"realworld.py: {e}", file=sys.stderr)
            return 1
    if len(argv) == 3 and argv[1] == "stubs":
        return stubs(argv[2])
    print("usage: realworld.py btf-maps SRC.c | map-files PCAP DIR | stubs DIR", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))

// Patterns from real-world XDP programs (samples/xdp_patterns.c: xdp-tutorial style parsing with a
// header cursor, an IPv6 extension header walk, a TCP options loop with a
// variable stride, bpf_xdp_load_bytes into the stack, TTL decrement with an
// incremental checksum via bpf_csum_diff): our verifier and the kernel's
// both accept them, and the host back end gives the kernel's verdicts,
// bytes and checksums on generated traffic.
// RUN: cp %samples/xdp_patterns.o %t.o
// RUN: ebpf-gpu-cc %t.o --section ipv6_ext --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.o --section tcp_opts --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.o --section load_bytes --emit=verifier-log | FileCheck %s
// RUN: ebpf-gpu-cc %t.o --section ttl_dec --emit=verifier-log | FileCheck %s
// CHECK: verified: {{[0-9]+}} instructions processed
// RUN: %if kernel-bpf %{ bpftool prog loadall %t.o /sys/fs/bpf/ebpf_gpu_lit_rw type xdp %}
// RUN: %if kernel-bpf %{ rm -rf /sys/fs/bpf/ebpf_gpu_lit_rw %}
// RUN: ebpf-gpu-trafgen -o %t.pcap --count 2000 --seed 17
// RUN: %if kernel-bpf %{ %python %S/../loader/Inputs/differential.py --loader ebpf-gpu-loader --pcap %t.pcap --work %t.d %t.o:ipv6_ext %t.o:tcp_opts %t.o:load_bytes %t.o:ttl_dec | FileCheck %s --check-prefix=DIFF %}
// DIFF: ipv6_ext: 2000 packets, host and kernel agree
// DIFF: tcp_opts: 2000 packets, host and kernel agree
// DIFF: load_bytes: 2000 packets, host and kernel agree
// DIFF: ttl_dec: 2000 packets, host and kernel agree

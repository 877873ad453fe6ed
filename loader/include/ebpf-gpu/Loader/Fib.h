// SPDX-License-Identifier: Apache-2.0
//
// The forwarding table bpf_fib_lookup reads on the host and GPU back ends,
// from a text file in the shape of ip(8)'s output: links (ifindex, MAC,
// MTU, forwarding), routes (`ip route show table all` lines with devices
// as ifindexes) and neighbours (`ip neigh` lines). The result is the
// position-independent block of FibAbi.h, copied as is to host or device
// memory. docs/MAPS.md ("Forwarding table") describes the format.

#ifndef EBPF_GPU_LOADER_FIB_H
#define EBPF_GPU_LOADER_FIB_H

#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ebpfgpu::loader {

/// The table block (struct ebpfgpu_fib and its arrays) described by `Text`;
/// errors say "NAME:LINE: why".
Expected<std::vector<uint8_t>> parseFib(const std::string &Text, const std::string &Name);

/// parseFib of the file at `Path`.
Expected<std::vector<uint8_t>> readFibFile(const std::string &Path);

/// The block as text, one line per link, route (in lookup order) and
/// neighbour, in the file's syntax: what the lookups will see.
std::string formatFib(const std::vector<uint8_t> &Block);

} // namespace ebpfgpu::loader

#endif // EBPF_GPU_LOADER_FIB_H

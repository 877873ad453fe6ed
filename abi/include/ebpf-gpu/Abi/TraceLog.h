// SPDX-License-Identifier: Apache-2.0
//
// The log bpf_trace_printk writes (struct ebpfgpu_trace_log, XdpContext.h):
// its size, and taking its lines out between runs, for the host back end
// (a block in host memory) and the GPU (a copy of the device block).

#ifndef EBPF_GPU_ABI_TRACELOG_H
#define EBPF_GPU_ABI_TRACELOG_H

#include "ebpf-gpu/Platform/XdpContext.h"

#include <cstdint>
#include <string>

namespace ebpfgpu::abi {

/// Bytes of lines a trace log holds between two takes.
constexpr uint32_t TraceLogCapacity = 16u << 20;

/// The lines a run wrote and the lines that did not fit.
struct TraceText {
  std::string Lines;
  uint32_t Dropped = 0;
};

/// Reads the lines of a log whose header is `Header` and whose line bytes
/// start at `Bytes` (at least min(head, capacity) of them).
TraceText readTraceLog(const ebpfgpu_trace_log &Header, const char *Bytes);

} // namespace ebpfgpu::abi

#endif // EBPF_GPU_ABI_TRACELOG_H

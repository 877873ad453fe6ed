// SPDX-License-Identifier: Apache-2.0
//
// Reading bpf_trace_printk's log.

#include "ebpf-gpu/Abi/TraceLog.h"

#include <algorithm>

namespace ebpfgpu::abi {

TraceText readTraceLog(const ebpfgpu_trace_log &Header, const char *Bytes) {
  TraceText T;
  // Reservations past the end were not written: the last whole line ends
  // at or before the capacity.
  uint32_t Used = std::min(Header.head, Header.capacity);
  T.Lines.assign(Bytes, Used);
  T.Lines.erase(T.Lines.rfind('\n') == std::string::npos ? 0 : T.Lines.rfind('\n') + 1);
  T.Dropped = Header.dropped;
  return T;
}

} // namespace ebpfgpu::abi

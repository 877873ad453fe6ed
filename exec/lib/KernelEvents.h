// SPDX-License-Identifier: Apache-2.0
//
// The kernel back end's event maps: the records a loaded object's ring
// buffers and perf event arrays receive during BPF_PROG_TEST_RUN, read
// with libbpf's ring buffer and perf buffer readers, for the text form the
// host and GPU back ends write (abi::EventLog), so the three compare
// record for record.

#ifndef EBPF_GPU_EXEC_LIB_KERNELEVENTS_H
#define EBPF_GPU_EXEC_LIB_KERNELEVENTS_H

#include "ebpf-gpu/Abi/MapMemory.h"
#include "ebpf-gpu/Exec/KernelBackend.h"
#include "ebpf-gpu/Support/Error.h"

#include <memory>
#include <string>
#include <vector>


namespace ebpfgpu::exec {

/// Readers for every event map of a loaded object. Perf event arrays get
/// EBPFGPU_PERF_STREAM_BYTES of buffer per CPU; the caller keeps its test
/// runs on one CPU (pinCurrentThread), so a run's perf records sit in one
/// CPU's buffer in the order written. Not thread-safe.
class KernelEvents {
public:
  static Expected<std::unique_ptr<KernelEvents>> open(const std::vector<KernelMap> &Maps);
  ~KernelEvents();
  KernelEvents(const KernelEvents &) = delete;
  KernelEvents &operator=(const KernelEvents &) = delete;

  /// Every record received since the last call, appended to `Out` map by
  /// map in the order written (the kernel's test runs are serial: packet
  /// order; the records carry no packet index).
  MaybeError take(abi::EventBatch &Out);
  /// Perf records the kernel lost for want of room, so far.
  uint64_t lost() const { return Lost; }

  struct Impl;

private:
  KernelEvents() = default;
  std::unique_ptr<Impl> P;
  uint64_t Lost = 0;
};

/// Keeps the calling thread on one CPU (CPU 0 when it may run there): the
/// CPU that BPF_F_CURRENT_CPU and bpf_get_smp_processor_id then name, as
/// the host back end's one CPU is CPU 0. Returns that CPU.
Expected<int> pinCurrentThread();

} // namespace ebpfgpu::exec

#endif // EBPF_GPU_EXEC_LIB_KERNELEVENTS_H

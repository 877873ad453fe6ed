// SPDX-License-Identifier: Apache-2.0
//
// ebpf-gpu-host-bench's types shared with its kernel half: a suite entry,
// one packet's outcome, and the Linux kernel's JIT timed through
// BPF_PROG_TEST_RUN (HostBenchKernel.cpp, libbpf).

#ifndef EBPF_GPU_BENCH_HOSTBENCHKERNEL_H
#define EBPF_GPU_BENCH_HOSTBENCHKERNEL_H

#include "ebpf-gpu/Runtime/Packets.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ebpfgpu::hostbench {

/// One program of the suite.
struct Entry {
  std::string Name, Object, Section, MapFile, Check = "exact";
  /// map-size=MAP=ENTRIES: max_entries set before load (a pattern map's
  /// bytes: the IDS benchmark's 10,000 rules need more than the sample's).
  std::vector<std::pair<std::string, uint32_t>> MapSizes;
};

/// Where a program left one packet: verdict, data offset in its buffer,
/// length, redirect target.
struct Outcome {
  uint32_t Verdict = 0, Offset = 0, Length = 0;
  uint64_t Redirect = 0;
  bool operator==(const Outcome &) const = default;
};

struct KernelResult {
  uint64_t Packets = 0;
  int Cpu = -1;
  /// Median over the packets of each packet's mean run; and their mean.
  double NsPerPacket = 0, NsMean = 0;
  std::string CheckNote;
};

/// Loads `E` into the kernel (its map file applied), pins the thread to one
/// CPU and runs `Sample` packets spread evenly over the first `N` of
/// `Batch` (their bytes from `Pristine`, the batch's pristine buffers),
/// each with BPF_PROG_TEST_RUN: once (check=exact: verdict, length and
/// bytes must equal `Ref`/`RefFrames`, the host back end's 1-thread pass)
/// and then timed, `Repeat` runs of it, the kernel's own mean per run. Exits
/// with a message on any failure.
KernelResult runKernel(const Entry &E, const runtime::PacketBatch &Batch,
                       const std::vector<uint8_t> &Pristine, size_t N,
                       const std::vector<Outcome> &Ref, const std::vector<uint8_t> &RefFrames,
                       uint64_t Sample, uint64_t Repeat);

} // namespace ebpfgpu::hostbench

#endif // EBPF_GPU_BENCH_HOSTBENCHKERNEL_H

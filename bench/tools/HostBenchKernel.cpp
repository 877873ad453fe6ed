// SPDX-License-Identifier: Apache-2.0
//
// ebpf-gpu-host-bench's kernel half: a suite program loaded into the
// running Linux kernel with libbpf (its map file applied) and timed
// through BPF_PROG_TEST_RUN with `repeat`, one CPU, on a sample of the
// packets. The time is the kernel's own (the mean of `repeat` runs of the
// program on one packet, no system call in it); the runs of one packet see
// that packet as the previous run left it (the kernel does not restore its
// bytes), which the report states. Reported: the median over the packets
// (robust to a run the hypervisor or a neighbour interrupted) and the mean.
// Not the NIC path: no driver, no DMA.

#include "HostBenchKernel.h"
#include "BenchCommon.h"

#include "ebpf-gpu/Loader/MapEntries.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <sched.h>

namespace ebpfgpu::hostbench {

namespace {

using bench::fail;

int quietLibbpf(enum libbpf_print_level Level, const char *Fmt, va_list Args) {
  if (Level == LIBBPF_WARN)
    return std::vfprintf(stderr, Fmt, Args);
  return 0;
}

bool isPercpu(enum bpf_map_type T) {
  return T == BPF_MAP_TYPE_PERCPU_ARRAY || T == BPF_MAP_TYPE_PERCPU_HASH ||
         T == BPF_MAP_TYPE_LRU_PERCPU_HASH;
}

/// The map file's entries into the kernel's maps (per-CPU: on CPU 0).
void setEntries(struct bpf_object *Obj, const Entry &E) {
  if (E.MapFile.empty())
    return;
  auto Entries = loader::readMapFile(E.MapFile);
  if (!Entries)
    fail(Entries.error().message());
  for (const loader::MapEntry &M : *Entries) {
    std::string Where = E.Name + ": kernel: " + E.MapFile + ": map '" + M.Map + "': ";
    struct bpf_map *Map = bpf_object__find_map_by_name(Obj, M.Map.c_str());
    if (!Map)
      fail(Where + "no such map in " + E.Object);
    if (!M.Inner.empty())
      fail(Where + "maps of maps are not supported by the kernel half of this tool");
    uint32_t KS = bpf_map__key_size(Map), VS = bpf_map__value_size(Map);
    if (M.Key.size() != KS || M.Value.size() != VS)
      fail(Where + "takes " + std::to_string(KS) + "-byte keys and " + std::to_string(VS) +
           "-byte values");
    std::vector<uint8_t> Value = M.Value;
    if (isPercpu(bpf_map__type(Map)))
      Value.resize(size_t((VS + 7u) & ~7u) * libbpf_num_possible_cpus(), 0);
    if (int Err = bpf_map__update_elem(Map, M.Key.data(), KS, Value.data(), Value.size(), 0))
      fail(Where + "the kernel refused the update: " + std::strerror(-Err));
  }
}

int pinToOneCpu() {
  cpu_set_t Allowed;
  CPU_ZERO(&Allowed);
  if (sched_getaffinity(0, sizeof(Allowed), &Allowed) != 0)
    fail(std::string("sched_getaffinity: ") + std::strerror(errno));
  int Cpu = 0;
  while (Cpu < CPU_SETSIZE && !CPU_ISSET(Cpu, &Allowed))
    ++Cpu;
  cpu_set_t One;
  CPU_ZERO(&One);
  CPU_SET(Cpu, &One);
  if (sched_setaffinity(0, sizeof(One), &One) != 0)
    fail("cannot keep the kernel's test runs on CPU " + std::to_string(Cpu) + ": " +
         std::strerror(errno));
  return Cpu;
}

} // namespace

KernelResult runKernel(const Entry &E, const runtime::PacketBatch &Batch,
                       const std::vector<uint8_t> &Pristine, size_t N,
                       const std::vector<Outcome> &Ref, const std::vector<uint8_t> &RefFrames,
                       uint64_t Sample, uint64_t Repeat) {
  libbpf_set_print(quietLibbpf);
  std::string Where = E.Name + ": kernel: ";
  struct bpf_object *Obj = bpf_object__open_file(E.Object.c_str(), nullptr);
  if (!Obj)
    fail(Where + E.Object + ": cannot open: " + std::strerror(errno));
  struct bpf_map *Map;
  bpf_object__for_each_map(Map, Obj) {
    if (bpf_map__type(Map) == BPF_MAP_TYPE_PROG_ARRAY)
      fail(Where + "programs with tail calls are not supported by this tool");
  }
  struct bpf_program *Chosen = nullptr, *P;
  int Count = 0;
  bpf_object__for_each_program(P, Obj) {
    ++Count;
    bool Match = E.Section.empty() ? Count == 1
                                   : (E.Section == bpf_program__name(P) ||
                                      E.Section == bpf_program__section_name(P));
    if (Match && !Chosen)
      Chosen = P;
    else
      bpf_program__set_autoload(P, false);
  }
  if (!Chosen || (E.Section.empty() && Count > 1))
    fail(Where + E.Object + ": " +
         (Chosen ? "several programs; give section=" : "no such program"));
  bpf_program__set_type(Chosen, BPF_PROG_TYPE_XDP);
  if (int Err = bpf_object__load(Obj))
    fail(Where + "the kernel refused the program: " +
         (Err == -EPERM ? "permission denied (needs root or CAP_BPF)" : std::strerror(-Err)));
  setEntries(Obj, E);
  KernelResult R;
  R.Cpu = pinToOneCpu();
  int Fd = bpf_program__fd(Chosen);
  bool Compare = E.Check == "exact";
  size_t Stride = Batch.stride();
  std::vector<uint8_t> Out(Stride);
  uint64_t Mismatch = 0;
  std::vector<double> Ns;
  uint64_t Take = std::min<uint64_t>(Sample, N);
  for (uint64_t K = 0; K < Take; ++K) {
    size_t I = size_t(K * N / Take);
    const uint8_t *Data = Pristine.data() + I * Stride + Batch.offset(I);
    uint32_t Len = Batch.length(I);
    // Once, checked; then `Repeat` timed runs (the kernel's mean).
    for (uint64_t Times : {uint64_t(1), Repeat}) {
      LIBBPF_OPTS(bpf_test_run_opts, Run, .data_in = Data, .data_out = Out.data(),
                  .data_size_in = Len, .data_size_out = uint32_t(Out.size()),
                  .repeat = int(Times));
      if (int Err = bpf_prog_test_run_opts(Fd, &Run))
        fail(Where + "BPF_PROG_TEST_RUN on packet " + std::to_string(I) + ": " +
             std::strerror(-Err));
      if (Times == 1) {
        const Outcome &W = Ref[I];
        if (Compare && (Run.retval != W.Verdict || Run.data_size_out != W.Length ||
                        std::memcmp(Out.data(), RefFrames.data() + I * Stride + W.Offset,
                                    W.Length) != 0)) {
          if (Mismatch++ == 0)
            std::fprintf(stderr, "%spacket %zu: verdict %u length %u, host back end %u/%u\n",
                         Where.c_str(), I, Run.retval, Run.data_size_out, W.Verdict, W.Length);
        }
        continue;
      }
      Ns.push_back(double(Run.duration));
    }
  }
  bpf_object__close(Obj);
  if (Mismatch)
    fail(Where + std::to_string(Mismatch) + " of " + std::to_string(Take) +
         " packets decided differently from the host back end");
  R.Packets = Take;
  R.NsMean = std::accumulate(Ns.begin(), Ns.end(), 0.0) / double(Ns.size());
  std::sort(Ns.begin(), Ns.end());
  R.NsPerPacket = Ns[Ns.size() / 2];
  R.CheckNote = Compare ? "each timed packet's first run: verdict, length and bytes equal to "
                          "the host back end's"
                        : "stateful (" + E.Check + "): the kernel sees only the sampled packets, "
                          "so its verdicts are not compared";
  return R;
}

} // namespace ebpfgpu::hostbench

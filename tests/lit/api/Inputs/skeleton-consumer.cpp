// SPDX-License-Identifier: Apache-2.0
//
// A C++ consumer of xdp_config_count's skeleton: what its global data
// promises, as libbpf's does. .rodata's defaults are there after load and
// read-only (an update is refused, a write through the pointer faults);
// .bss written before a burst is what the program adds to, and a map call
// reads and writes the same bytes as the pointer; before load the map
// calls and bursts are refused, and .rodata set then is what the program
// runs with. One line at the end says whether every check passed.

#include "xdp_config_count.skel.h"

#include <csignal>
#include <cstdio>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

static int Failures;
#define CHECK(C)                                                                                   \
  do {                                                                                             \
    if (!(C)) {                                                                                    \
      std::printf("FAIL line %d: %s (%s)\n", __LINE__, #C, ebpf_gpu_last_error());                 \
      ++Failures;                                                                                  \
    }                                                                                              \
  } while (0)

/// Two IPv4 UDP frames of 60 bytes through `Prog`; their verdicts.
static void runTwo(ebpf_gpu_prog *Prog, uint32_t Verdicts[2]) {
  static uint8_t Frames[2][64];
  ebpf_gpu_packet P[2];
  for (int I = 0; I < 2; ++I) {
    Frames[I][12] = 0x08;
    Frames[I][14] = 0x45;
    Frames[I][23] = 17;
    P[I] = {Frames[I], 60, 64, 0, 0, 0};
  }
  CHECK(ebpf_gpu_prog__run_burst(Prog, P, 2) == 2);
  Verdicts[0] = P[0].verdict;
  Verdicts[1] = P[1].verdict;
}

int main() {
  xdp_config_count_gpu *Skel = xdp_config_count_gpu__open_and_load();
  CHECK(Skel);
  if (!Skel)
    return 1;
  CHECK(Skel->rodata->mode == COUNT_ONLY && Skel->rodata->drop_proto == 17);
  CHECK(Skel->data_ctl->generation == 1);
  uint32_t Zero = 0, V[2];
  uint8_t Ro[5] = {};
  CHECK(ebpf_gpu_map__update_elem(Skel->maps.rodata, &Zero, 4, Ro, sizeof(Ro), 0) == -EPERM);
  pid_t Child = fork();
  if (Child == 0) {
    Skel->rodata->drop_proto = 6;
    _exit(0);
  }
  int Status = 0;
  waitpid(Child, &Status, 0);
  CHECK(WIFSIGNALED(Status) && WTERMSIG(Status) == SIGSEGV);

  // Written before the burst: the program adds to it.
  Skel->bss->packets = 1000;
  runTwo(Skel->prog, V);
  CHECK(V[0] == 2 && V[1] == 2); // XDP_PASS
  CHECK(Skel->bss->packets == 1002 && Skel->bss->traffic.bytes == 120);
  // A map call sees what the pointer sees, and the pointer what it writes.
  uint64_t Bss[4] = {};
  CHECK(ebpf_gpu_map__lookup_elem(Skel->maps.bss, &Zero, 4, Bss, sizeof(Bss), 0) == 0);
  CHECK(Bss[0] == 1002 && Bss[2] == 120);
  Bss[1] = 7;
  CHECK(ebpf_gpu_map__update_elem(Skel->maps.bss, &Zero, 4, Bss, sizeof(Bss), 0) == 0);
  CHECK(Skel->bss->dropped == 7);
  Skel->data_ctl->generation = 5;
  runTwo(Skel->prog, V);
  CHECK(Skel->bss->packets == 1012 && Skel->bss->dropped == 7 && Skel->bss->traffic.bytes == 240 &&
        Skel->bss->traffic.ipv4 == 4);
  uint64_t Udp = 0;
  uint32_t Key = 17;
  CHECK(ebpf_gpu_map__lookup_elem(Skel->maps.proto_count, &Key, 4, &Udp, 8, 0) == 0 && Udp == 4);
  xdp_config_count_gpu__destroy(Skel);

  // Opened, not loaded: no elements, no bursts; .rodata is the program's.
  xdp_config_count_gpu *Open = xdp_config_count_gpu__open();
  CHECK(Open);
  if (!Open)
    return 1;
  CHECK(ebpf_gpu_prog__backend(Open->prog) == nullptr);
  CHECK(ebpf_gpu_map__lookup_elem(Open->maps.proto_count, &Key, 4, &Udp, 8, 0) == -EINVAL);
  CHECK(ebpf_gpu_map__value_size(Open->maps.proto_count) == 8);
  CHECK(ebpf_gpu_prog__run_burst(Open->prog, nullptr, 0) == -EINVAL);
  Open->rodata->mode = COUNT_AND_DROP;
  Open->bss->dropped = 40;
  CHECK(xdp_config_count_gpu__load(Open) == 0);
  CHECK(xdp_config_count_gpu__load(Open) == -EINVAL);
  CHECK(std::string(ebpf_gpu_last_error()).find("already loaded") != std::string::npos);
  runTwo(Open->prog, V);
  CHECK(V[0] == 1 && V[1] == 1); // XDP_DROP
  CHECK(Open->bss->dropped == 42 && Open->rodata->mode == COUNT_AND_DROP);
  xdp_config_count_gpu__destroy(Open);

  std::printf("skeleton consumer (C++): %s\n", Failures ? "FAILED" : "all checks passed");
  return Failures != 0;
}

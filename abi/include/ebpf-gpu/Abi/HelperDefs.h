/* SPDX-License-Identifier: Apache-2.0
 *
 * The kernel's numbers that the helper functions return or take (errno
 * values, map update flags, XDP actions), for the helper sources
 * (XdpHelpers.inc, MapHelpers.inc, EventHelpers.inc) on every build of them. */

#ifndef EBPF_GPU_ABI_HELPERDEFS_H
#define EBPF_GPU_ABI_HELPERDEFS_H

#define EBPFGPU_ENOENT 2
#define EBPFGPU_E2BIG 7
#define EBPFGPU_EAGAIN 11
#define EBPFGPU_EACCES 13
#define EBPFGPU_EFAULT 14
#define EBPFGPU_EEXIST 17
#define EBPFGPU_EINVAL 22
#define EBPFGPU_ENOSPC 28
#define EBPFGPU_ERANGE 34
#define EBPFGPU_ENODATA 61
#define EBPFGPU_EOPNOTSUPP 95
#define EBPFGPU_BPF_NOEXIST 1
#define EBPFGPU_BPF_EXIST 2
/* BPF_F_LOCK: an update of a map whose values hold a bpf_spin_lock, done
 * under that lock (the kernel's copy_map_value_locked). */
#define EBPFGPU_BPF_F_LOCK 4
#define EBPFGPU_XDP_ABORTED 0
#define EBPFGPU_XDP_REDIRECT 4

/* The clocks of the time helpers, as the includer's EBPFGPU_NOW_NS takes
 * them: the host reads the kernel's clock of the same name (CLOCK_MONOTONIC,
 * CLOCK_BOOTTIME, CLOCK_MONOTONIC_COARSE, CLOCK_TAI). The GPU has one clock,
 * its global timer, for all four: the coarse one is that timer at its last
 * tick of EBPFGPU_JIFFIES_HZ (as the kernel's coarse clock is the time of
 * its last tick), boot and TAI are the timer itself (a GPU neither suspends
 * nor knows the host's TAI offset). */
#define EBPFGPU_CLOCK_MONO 0
#define EBPFGPU_CLOCK_BOOT 1
#define EBPFGPU_CLOCK_COARSE 2
#define EBPFGPU_CLOCK_TAI 3

/* bpf_jiffies64: the kernel's jiffies_64, a tick counter at CONFIG_HZ that
 * starts at INITIAL_JIFFIES (2^32 - 300 s of ticks: the kernel's 32-bit
 * jiffies wraps five minutes after boot). ebpf-gpu derives it from the clock
 * of bpf_ktime_get_ns on each back end (CLOCK_MONOTONIC on the host, the
 * global timer on the GPU), with one formula: INITIAL_JIFFIES + ns / (10^9 /
 * HZ). HZ is 250 (Debian's kernels, and the one this was tested on); a
 * build for kernels of another HZ (Cilium's agent reads the kernel's) sets
 * it at configure time (cmake -DEBPF_GPU_JIFFIES_HZ=N), for both builds. */
#ifndef EBPFGPU_JIFFIES_HZ
#define EBPFGPU_JIFFIES_HZ 250
#endif
#define EBPFGPU_INITIAL_JIFFIES (0x100000000ull - 300ull * EBPFGPU_JIFFIES_HZ)

/* The context's CPU (per-CPU slices, bpf_get_smp_processor_id). The
 * GPU's batch kernel for programs with per-CPU maps starts its packets
 * while thread 0 of the block is still claiming the block's CPUs
 * (CpuGroups.inc): cpu_id is then EBPFGPU_CPU_PENDING, and the first use
 * waits for the claim. Everywhere else it is the CPU. */
#define EBPFGPU_CPU_PENDING 0xfffffffeu
#if defined(__NVPTX__)
static uint32_t ebpfgpu_claimed_cpu(void);
static inline uint32_t ebpfgpu_cpu(struct ebpfgpu_xdp_ctx *c) {
  if (c->cpu_id == EBPFGPU_CPU_PENDING)
    c->cpu_id = ebpfgpu_claimed_cpu();
  return c->cpu_id;
}
#else
static inline uint32_t ebpfgpu_cpu(struct ebpfgpu_xdp_ctx *c) { return c->cpu_id; }
#endif

#endif /* EBPF_GPU_ABI_HELPERDEFS_H */

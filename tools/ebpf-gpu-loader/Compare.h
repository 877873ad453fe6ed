// SPDX-License-Identifier: Apache-2.0
//
// `ebpf-gpu-loader compare`: every program of an eBPF object (or those
// named) through ebpf-gpu's verifier and the kernel's, and, where both
// accept, through the host back end and BPF_PROG_TEST_RUN over the same
// packets, in one process. The differential tests check thousands of
// generated programs this way (tests/differential/rich-programs.py)
// instead of starting a compiler, bpftool and two loaders per program.

#ifndef EBPF_GPU_TOOLS_LOADER_COMPARE_H
#define EBPF_GPU_TOOLS_LOADER_COMPARE_H

namespace ebpfgpu::tools {

/// `compare OBJ.o --pcap IN.pcap [--section NAME]...`; prints one line per
/// program and returns the exit code (1 when a program only ebpf-gpu
/// accepts, a back-end difference or an error was found).
int compareCommand(int argc, char **argv);

} // namespace ebpfgpu::tools

#endif // EBPF_GPU_TOOLS_LOADER_COMPARE_H

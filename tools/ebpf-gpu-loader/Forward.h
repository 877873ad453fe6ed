// SPDX-License-Identifier: Apache-2.0
//
// The `forward` subcommand of ebpf-gpu-loader (DPDK builds only): parses
// its command line, loads the program, runs the DPDK forwarder and prints
// the summary. Returns the tool's exit code (0 success, 1 refused or
// failed, 2 bad command line).

#ifndef EBPF_GPU_TOOLS_LOADER_FORWARD_H
#define EBPF_GPU_TOOLS_LOADER_FORWARD_H

namespace ebpfgpu::tools {

/// `argv[1]` is "forward".
int forwardCommand(int argc, char **argv);

} // namespace ebpfgpu::tools

#endif // EBPF_GPU_TOOLS_LOADER_FORWARD_H

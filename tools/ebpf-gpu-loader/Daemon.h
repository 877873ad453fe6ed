// SPDX-License-Identifier: Apache-2.0
//
// `ebpf-gpu-loader daemon` (the server: programs, DPDK ports, maps, stats
// behind a Unix control socket) and the bpftool-shaped client subcommands
// that talk to it (`prog`, `net`, `map`, `stats`). The protocol is one JSON
// object a line, each request answered by one response with its id
// (docs/DAEMON.md). Both return the tool's exit code.

#ifndef EBPF_GPU_TOOLS_LOADER_DAEMON_H
#define EBPF_GPU_TOOLS_LOADER_DAEMON_H

namespace ebpfgpu::tools {

/// The control socket when neither --socket nor EBPF_GPU_LOADER_SOCKET
/// names one.
constexpr const char *DefaultDaemonSocket = "/run/ebpf-gpu/loader.sock";

/// `argv[1]` is "daemon" (builds with DPDK).
int daemonCommand(int argc, char **argv);

/// `argv[1]` is "prog", "net", "map" or "stats" (global options --socket
/// and --json may come anywhere after it).
int clientCommand(int argc, char **argv);

} // namespace ebpfgpu::tools

#endif // EBPF_GPU_TOOLS_LOADER_DAEMON_H

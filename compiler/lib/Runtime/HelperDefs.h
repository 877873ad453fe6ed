/* SPDX-License-Identifier: Apache-2.0
 *
 * The kernel's numbers that the helper functions return or take (errno
 * values, map update flags, XDP actions), for the helper sources
 * (XdpHelpers.inc, MapHelpers.inc, EventHelpers.inc) on every build of them. */

#ifndef EBPF_GPU_RUNTIME_HELPERDEFS_H
#define EBPF_GPU_RUNTIME_HELPERDEFS_H

#define EBPFGPU_ENOENT 2
#define EBPFGPU_E2BIG 7
#define EBPFGPU_EAGAIN 11
#define EBPFGPU_EACCES 13
#define EBPFGPU_EFAULT 14
#define EBPFGPU_EEXIST 17
#define EBPFGPU_EINVAL 22
#define EBPFGPU_ENOSPC 28
#define EBPFGPU_EOPNOTSUPP 95
#define EBPFGPU_BPF_NOEXIST 1
#define EBPFGPU_BPF_EXIST 2
#define EBPFGPU_XDP_ABORTED 0
#define EBPFGPU_XDP_REDIRECT 4

#endif /* EBPF_GPU_RUNTIME_HELPERDEFS_H */

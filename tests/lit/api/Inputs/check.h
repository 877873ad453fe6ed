/* SPDX-License-Identifier: Apache-2.0
 *
 * What the C API's test programs share: CHECK(cond, fmt, ...) prints
 * "FAIL: ..." with the library's last error and returns 1 from the calling
 * function (main, or a step of it) when `cond` does not hold. */
#ifndef EBPF_GPU_TESTS_API_CHECK_H
#define EBPF_GPU_TESTS_API_CHECK_H

#include <ebpf-gpu/ebpf-gpu.h>

#include <stdio.h>

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "FAIL: " __VA_ARGS__);                                                       \
      fprintf(stderr, " (last error: %s)\n", ebpf_gpu_last_error());                               \
      return 1;                                                                                    \
    }                                                                                              \
  } while (0)

#endif

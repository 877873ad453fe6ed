/* SPDX-License-Identifier: Apache-2.0
 *
 * ebpf-gpu's own kfuncs and map types, for XDP programs built the usual way
 * (clang -O2 -g -target bpf -c prog.c) after <linux/bpf.h> and
 * <bpf/bpf_helpers.h>: each kfunc is declared as the kernel declares its
 * own (extern ... __ksym), so the object carries a call to the extern,
 * which ebpf-gpu's object reader resolves by name. The kernel has none of
 * them: it refuses an object that uses them (ebpf-gpu-loader compare says
 * so). docs/KFUNCS.md describes each, its map type and its file format. */

#ifndef EBPF_GPU_KFUNCS_H
#define EBPF_GPU_KFUNCS_H

/* A pattern map: a set of literal byte patterns or regexes, each with a
 * rule id, compiled on the host into an automaton that the map's memory holds (host
 * memory for the host back end, GPU memory for the GPU's). Declare it as
 *
 *   struct {
 *     __uint(type, BPF_MAP_TYPE_EBPF_GPU_PATTERNS);
 *     __uint(max_entries, 1 << 20); // bytes the automaton may take
 *   } rules SEC(".maps");
 *
 * and fill it at load with a pattern file (ebpf-gpu-loader run ...
 * --map-set rules:@rules.txt). No keys, no values: only ebpf_gpu_match and
 * ebpf_gpu_match_all read it; the map helpers refuse it. The number is far past the
 * kernel's map types, so no kernel gives it another meaning. */
#define BPF_MAP_TYPE_EBPF_GPU_PATTERNS 0x45470001

/* A model map: a small classifier (a decision-tree ensemble over integer
 * features, or an MLP with int8 weights) compiled on the host from a
 * model file, held in the map's memory as a pattern set is. Declare it as
 *
 *   struct {
 *     __uint(type, BPF_MAP_TYPE_EBPF_GPU_MODEL);
 *     __uint(max_entries, 1 << 20); // bytes the model may take
 *   } model SEC(".maps");
 *
 * and fill it at load (--map-set model:@model.txt). Only
 * ebpf_gpu_classify reads it; the map helpers refuse it. */
#define BPF_MAP_TYPE_EBPF_GPU_MODEL 0x45470002

struct xdp_md;

#ifndef __ksym /* bpf_helpers.h's, for a program that does not include it */
#define __ksym __attribute__((section(".ksyms")))
#endif

/* Scans the packet's bytes from `offset` (from ctx->data) to its end for
 * the patterns of `patterns` (a pattern map). Returns the rule id of the
 * match that ends first (of several ending at the same byte, the lowest
 * id), -ENOENT (-2) when none matches, -EINVAL (-22) when `offset` is past
 * the packet's end or the map holds no pattern set. The offset is any
 * scalar: no bounds check of the program's is needed. */
extern int ebpf_gpu_match(struct xdp_md *ctx, __u32 offset, void *patterns) __ksym;

/* Scans the same bytes for every rule of `patterns`: zeroes the
 * bitmap__sz / 8 words at `bitmap` (on the program's stack, 8-aligned;
 * bitmap__sz a constant, 8 to 256 bytes), then sets bit (id % 64) of word
 * (id / 64) for each rule id found. Returns the number of distinct ids
 * found (at most bitmap__sz * 8), -E2BIG (-7) when a rule whose id is past
 * the bitmap's bits matched (the others' bits set all the same), -EINVAL
 * (-22) when `offset` is past the packet's end or the map holds no pattern
 * set. */
extern int ebpf_gpu_match_all(struct xdp_md *ctx, __u32 offset, void *patterns, __u64 *bitmap,
                              __u32 bitmap__sz) __ksym;

/* Classifies the features__sz / 4 int32 features at `features` (on the
 * program's stack; features__sz a constant, 4 to 256 bytes) with the model
 * of `model` (a model map). Returns the class, 0 to the model's classes - 1
 * (at most 15), or -EINVAL (-22) when the model takes another number of
 * features or the map holds no model. */
extern int ebpf_gpu_classify(const __s32 *features, __u32 features__sz, void *model) __ksym;

#endif /* EBPF_GPU_KFUNCS_H */

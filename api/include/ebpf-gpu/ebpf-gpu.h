/* SPDX-License-Identifier: Apache-2.0
 *
 * libebpf-gpu: XDP programs verified, compiled and run on the host CPU or an
 * NVIDIA GPU from a C program, with libbpf's habits. A program is loaded
 * from an eBPF object (clang -target bpf; verified and JIT-compiled here) or
 * a .gpu.o (ebpf-gpu-cc); its maps are found by name and read and written
 * as libbpf's bpf_map__lookup_elem() and friends do; a burst of packets
 * runs through it as DPDK's rte_bpf_exec_burst() does, each packet getting
 * its verdict and, where the program changed it, its new bytes.
 *
 * Errors: functions returning int give 0 (or a count) on success and a
 * negative errno on failure; functions returning a pointer give NULL and
 * set errno. Either way ebpf_gpu_last_error() says what went wrong, in one
 * sentence, for the calling thread. A program and its maps are used by one
 * thread at a time.
 */
#ifndef EBPF_GPU_EBPF_GPU_H
#define EBPF_GPU_EBPF_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 3: struct ebpf_gpu_packet has `headroom` (its size changed: rebuild).
 * 4: ebpf_gpu_map__set_max_entries/_key_size/_value_size/_inner_map.
 * 5: ebpf_gpu_map__load_contents/_load_contents_file.
 * 6: ebpf_gpu_map__set_initial_value, __set_map_flags, __map_flags.
 * 7: ebpf_gpu_prog__consume_events, __consume_trace, __warnings, __set_fib,
 *    __set_fib_file, __check_maps.
 * 8: struct ebpf_gpu_load_opts's GPU fields and allow_unverified;
 *    ebpf_gpu_map__set_slot, ebpf_gpu_prog__format_maps, __gpu_kernel_ms.
 * 9: struct ebpf_gpu_load_opts's workers; ebpf_gpu_prog__lane,
 *    ebpf_gpu_lane__run_burst.
 * 10: ebpf_gpu_prog__use_packet_memory, __forget_packet_memory,
 *    __packets_in_place.
 * 11: struct ebpf_gpu_run_opts's prefetch.
 * 12: a burst's program sees each packet's own headroom (at most 256
 *    bytes); struct ebpf_gpu_rx_opts's packet_memory (ebpf-gpu-dpdk.h). */
#define EBPF_GPU_API_VERSION 12

/* What the library exports; everything else in it is hidden. */
#define EBPF_GPU_API __attribute__((visibility("default")))

enum ebpf_gpu_backend {
  EBPF_GPU_BACKEND_DEFAULT = 0, /* the GPU for a .gpu.o, the host otherwise */
  EBPF_GPU_BACKEND_HOST = 1,    /* the host CPU (LLVM ORC JIT) */
  EBPF_GPU_BACKEND_GPU = 2,     /* an NVIDIA GPU through the CUDA driver */
};

/* How the GPU back end runs a burst (ebpf-gpu-loader run's --gpu-mode,
 * --gpu-data, --gpu-stage; docs/RUNTIME.md). */
enum ebpf_gpu_gpu_mode {
  EBPF_GPU_MODE_LAUNCH = 0,     /* a kernel launch per burst */
  EBPF_GPU_MODE_PERSISTENT = 1, /* one resident kernel fed through a doorbell ring */
};
enum ebpf_gpu_gpu_data {
  EBPF_GPU_DATA_COPY = 0,   /* packets copied to GPU memory and back */
  EBPF_GPU_DATA_MAPPED = 1, /* read and written by the GPU in pinned host memory */
};
enum ebpf_gpu_gpu_stage {
  EBPF_GPU_STAGE_AUTO = 0, /* mapped: staged for a program that may write packets */
  EBPF_GPU_STAGE_ON = 1,   /* mapped: small packets copied into GPU memory for the program */
  EBPF_GPU_STAGE_OFF = 2,  /* mapped: run in place */
};

struct ebpf_gpu_load_opts {
  size_t sz;           /* sizeof(struct ebpf_gpu_load_opts): for later fields */
  const char *program; /* section or function name; NULL: the object's only one */
  enum ebpf_gpu_backend backend;
  /* API version 8. The GPU back end's (0: its defaults; the host back end
   * has no use for them): */
  uint32_t gpu_launch_size; /* most packets a launch takes; a larger burst runs
                               as several (0: a burst in one) */
  enum ebpf_gpu_gpu_mode gpu_mode;
  enum ebpf_gpu_gpu_data gpu_data;
  enum ebpf_gpu_gpu_stage gpu_stage;
  uint32_t gpu_blocks;      /* persistent: blocks (0: one per multiprocessor) */
  uint32_t gpu_watchdog_ms; /* a burst not done by then fails (0: 1000) */
  /* Runs a .gpu.o compiled without the verifier (ebpf-gpu-cc --no-verify),
   * which is refused otherwise: for testing back ends only. */
  bool allow_unverified;
  /* API version 9: threads that run bursts at once, each through a lane of
   * its own (ebpf_gpu_prog__lane); on the host each is a CPU of its own for
   * the per-CPU maps, which then hold a value per worker
   * (ebpf_gpu_map__cpus). 0: 1. */
  uint32_t workers;
};

struct ebpf_gpu_prog;
struct ebpf_gpu_map;

/* Reads, verifies (eBPF objects: ebpf-gpu's verifier, every program a tail
 * call may reach; a .gpu.o: it must have been verified when compiled),
 * compiles and loads the program at `path`. NULL with errno set: ENOENT
 * when there is no such file, EINVAL for anything else the load refused
 * (bad options, a malformed object, a program the verifier refuses, one
 * this build or machine cannot run); EOPNOTSUPP for an eBPF object when
 * this library was built without the compiler (EBPF_GPU_WITH_COMPILER=OFF,
 * as a GPU host without LLVM has it: it runs .gpu.o files only);
 * ebpf_gpu_last_error() says which. */
EBPF_GPU_API
struct ebpf_gpu_prog *ebpf_gpu_prog__load(const char *path, const struct ebpf_gpu_load_opts *opts);
/* The two steps of ebpf_gpu_prog__load, as libbpf's bpf_object__open and
 * bpf_object__load: open reads the object and its maps (nothing verified
 * or compiled yet), so that an eBPF object's global data can be set before
 * load through ebpf_gpu_map__data (.rodata's constants among them; a
 * .gpu.o has its global data compiled in: -EOPNOTSUPP before load);
 * load_opened verifies, compiles and loads it (a .gpu.o: loads it on the
 * GPU). open_mem takes the object, an eBPF object or a .gpu.o, from `size`
 * bytes at `data` (copied; a skeleton's embedded object, an application's
 * own copy of a .gpu.o), `name` naming it in messages. Between the two, a map's name,
 * type and sizes are known, its elements are not (the map calls and
 * ebpf_gpu_prog__run_burst refuse with -EINVAL). open: NULL with errno as
 * ebpf_gpu_prog__load; load_opened: 0, or -EINVAL when refused (the
 * program stays opened) or already loaded. */
EBPF_GPU_API
struct ebpf_gpu_prog *ebpf_gpu_prog__open(const char *path, const struct ebpf_gpu_load_opts *opts);
EBPF_GPU_API
struct ebpf_gpu_prog *ebpf_gpu_prog__open_mem(const void *data, size_t size, const char *name,
                                              const struct ebpf_gpu_load_opts *opts);
EBPF_GPU_API
int ebpf_gpu_prog__load_opened(struct ebpf_gpu_prog *prog);

/* Frees the program and its maps (NULL: nothing). */
EBPF_GPU_API
void ebpf_gpu_prog__close(struct ebpf_gpu_prog *prog);

EBPF_GPU_API
const char *ebpf_gpu_prog__name(const struct ebpf_gpu_prog *prog);
/* "host" or "gpu"; NULL before load. */
EBPF_GPU_API
const char *ebpf_gpu_prog__backend(const struct ebpf_gpu_prog *prog);

/* The program's maps (global data sections among them, as libbpf's
 * .data/.rodata/.bss maps). */
EBPF_GPU_API
size_t ebpf_gpu_prog__map_count(const struct ebpf_gpu_prog *prog);
EBPF_GPU_API
struct ebpf_gpu_map *ebpf_gpu_prog__map(struct ebpf_gpu_prog *prog, size_t index);
EBPF_GPU_API
struct ebpf_gpu_map *ebpf_gpu_prog__find_map_by_name(struct ebpf_gpu_prog *prog,
                                                     const char *name);

EBPF_GPU_API
const char *ebpf_gpu_map__name(const struct ebpf_gpu_map *map);
EBPF_GPU_API
uint32_t ebpf_gpu_map__type(const struct ebpf_gpu_map *map); /* BPF_MAP_TYPE_* */
EBPF_GPU_API
uint32_t ebpf_gpu_map__key_size(const struct ebpf_gpu_map *map);
EBPF_GPU_API
uint32_t ebpf_gpu_map__value_size(const struct ebpf_gpu_map *map);
EBPF_GPU_API
uint32_t ebpf_gpu_map__max_entries(const struct ebpf_gpu_map *map);
/* Per-CPU maps: the CPUs whose values a lookup returns (value_sz must be
 * value_size times this, as libbpf's per-CPU lookups); 1 for other maps. */
EBPF_GPU_API
uint32_t ebpf_gpu_map__cpus(const struct ebpf_gpu_map *map);

/* Between ebpf_gpu_prog__open and __load_opened, as libbpf's
 * bpf_map__set_max_entries, set_key_size, set_value_size and
 * set_inner_map_fd: the map's shape the program is verified and compiled
 * against (a bound that depends on the value size is checked against the
 * new one; the getters above give it at once). A size that differs from
 * the map's BTF type drops that type (dumps show the bytes in hex), as
 * libbpf creates such a map without BTF; a value holding a bpf_spin_lock
 * keeps its type's size (the load refuses another). set_inner_map gives a
 * map of maps defined without __array(values, ...) the shape of its maps:
 * that of `inner`, another map of the same program (libbpf takes a map's
 * fd; its slots start empty); without it such a program does not load.
 * Setting one again replaces it. 0, or -EBUSY once the program is loaded,
 * -EOPNOTSUPP for a map of a .gpu.o (ebpf-gpu-cc compiled its shapes into
 * the code: give them there, --map-size, --map-key-size,
 * --map-value-size, --inner-map) and for global data's
 * value size (its section's), -EINVAL for a NULL map, a size of 0, global
 * data's entries and key size, a map that is not a map of maps, an inner
 * map of another program, a map of maps, program array or global data as
 * the inner map, or a map of maps with its own inner definition. Sizes the
 * map type does not take (an array's 8-byte key) are refused by the load
 * (-EINVAL, the program stays opened). */
EBPF_GPU_API
int ebpf_gpu_map__set_max_entries(struct ebpf_gpu_map *map, uint32_t max_entries);
EBPF_GPU_API
int ebpf_gpu_map__set_key_size(struct ebpf_gpu_map *map, uint32_t size);
EBPF_GPU_API
int ebpf_gpu_map__set_value_size(struct ebpf_gpu_map *map, uint32_t size);
EBPF_GPU_API
int ebpf_gpu_map__set_inner_map(struct ebpf_gpu_map *map, const struct ebpf_gpu_map *inner);

/* Between open and load, as libbpf's bpf_map__set_initial_value: the
 * bytes global data (.bss, .data, .data.*, .rodata) starts with, `size`
 * of them at `data` (copied; the section's size, ebpf_gpu_map__value_size,
 * as libbpf asks), the same as writing them through ebpf_gpu_map__data
 * before load. .rodata's constants are what the verifier and the compiler
 * then see. A .gpu.o's .data and .bss sections take them (written into
 * the map at load; ebpf_gpu_map__data gives them from here on), its
 * .rodata does not: -EOPNOTSUPP (ebpf-gpu-cc folded its constants into
 * the code). 0, or -EBUSY once loaded, -EINVAL for a NULL map or data, a
 * map that is not global data, or a size other than the section's. */
EBPF_GPU_API
int ebpf_gpu_map__set_initial_value(struct ebpf_gpu_map *map, const void *data, size_t size);

/* As libbpf's bpf_map__map_flags and bpf_map__set_map_flags (between open
 * and load): the map's BPF_F_* flags, which the verifier and the compiler
 * see in place of the object's (BPF_F_RDONLY_PROG: a program that writes
 * the map's values is refused by the load, -EINVAL, the program still
 * opened; BPF_F_WRONLY_PROG: one that reads them, as the kernel's). 0, or
 * -EBUSY once loaded, -EOPNOTSUPP for a map of a .gpu.o (compiled in, as
 * its shapes) and for BPF_F_RDONLY and BPF_F_WRONLY (the map calls do not
 * enforce them), -EINVAL for a NULL map, global data (its section's flags) and bits no
 * BPF_F_* flag has. The flags a map type does not take are checked at
 * load only as for flags the object declares (docs/API.md). */
EBPF_GPU_API
uint32_t ebpf_gpu_map__map_flags(const struct ebpf_gpu_map *map);
EBPF_GPU_API
int ebpf_gpu_map__set_map_flags(struct ebpf_gpu_map *map, uint32_t flags);

/* As libbpf's bpf_map__lookup_elem/update_elem/delete_elem/get_next_key:
 * sizes must match the map's (per-CPU values: value_size * cpus), flags are
 * BPF_ANY (0), BPF_NOEXIST (1) or BPF_EXIST (2) for updates and 0
 * otherwise, and BPF_F_LOCK (4) may join them in lookups and updates of a
 * map whose values hold a struct bpf_spin_lock (-EINVAL for another). As
 * the kernel's, an update leaves the value's lock word as the map has it
 * and a lookup reads it as 0, with BPF_F_LOCK or without. -ENOENT: no such key (and, for get_next_key, no key after
 * `cur_key`; a NULL `cur_key` asks for the first). get_next_key walks
 * arrays by index and hashed maps in bucket order; it costs a walk of the
 * map. A map of maps' slots are set by name (ebpf_gpu_map__set_slot):
 * update_elem refuses them (-EINVAL). Not while the program runs
 * (ebpf_gpu_prog__run_burst). */
EBPF_GPU_API
int ebpf_gpu_map__lookup_elem(const struct ebpf_gpu_map *map, const void *key, size_t key_sz,
                              void *value, size_t value_sz, uint64_t flags);
EBPF_GPU_API
int ebpf_gpu_map__update_elem(struct ebpf_gpu_map *map, const void *key, size_t key_sz,
                              const void *value, size_t value_sz, uint64_t flags);
EBPF_GPU_API
int ebpf_gpu_map__delete_elem(struct ebpf_gpu_map *map, const void *key, size_t key_sz,
                              uint64_t flags);
/* A map of maps' slot `key` made to hold the program's map named `name`
 * (one shaped as its inner map), or a program array's slot the program
 * named `name` (a program of the same object, by section or function
 * name): what libbpf's bpf_map__update_elem does with that map's or
 * program's fd. After load, between bursts. 0; -EINVAL for another map
 * type, a key of another size or outside the map, or a name the object
 * does not have or that does not fit the slot. */
EBPF_GPU_API
int ebpf_gpu_map__set_slot(struct ebpf_gpu_map *map, const void *key, size_t key_sz,
                           const char *name);

/* Pattern and model maps (BPF_MAP_TYPE_EBPF_GPU_PATTERNS and _MODEL,
 * <ebpf-gpu/kfuncs.h>; docs/KFUNCS.md): the map's whole contents replaced
 * by the rules or model of `text` (`size` bytes: a pattern file's or a
 * model file's text, told apart as --map-set MAP:@FILE does; `name` is its
 * name in messages, NULL: "text") or of the file at `path`, compiled
 * here, then written whole between bursts (not while one runs, as the
 * other map calls): each burst runs the old contents or the new. 0 on
 * success; -EINVAL for another map type, a file that
 * does not parse (ebpf_gpu_last_error(): "NAME:LINE: why"), a model for a
 * pattern map or the reverse; -E2BIG when the compiled contents need more
 * bytes than the map's max_entries; the file's errno when it cannot be
 * read. On error the old contents stay. */
EBPF_GPU_API
int ebpf_gpu_map__load_contents(struct ebpf_gpu_map *map, const void *text, size_t size,
                                const char *name);
EBPF_GPU_API
int ebpf_gpu_map__load_contents_file(struct ebpf_gpu_map *map, const char *path);
EBPF_GPU_API
int ebpf_gpu_map__get_next_key(const struct ebpf_gpu_map *map, const void *cur_key,
                               void *next_key, size_t key_sz);

/* Global data (.bss, .data, .data.*, .rodata; NULL with errno EINVAL for
 * other maps): the section's bytes in host memory, laid out as the
 * program's variables (a skeleton's typed structs point here), `*size`
 * bytes (when `size` is not NULL), at the same address from open (or the
 * first call) until the program is closed, as libbpf's mmapped global
 * data. Before load they are the values the program starts with. After
 * load, once this has been called for a map, the memory is the map for
 * the program: a burst sees what was written here before it, and what
 * the program wrote is here when ebpf_gpu_prog__run_burst returns; the map
 * calls on this map read and write it too. (The host back end copies the
 * section in and out of its map around each burst, the GPU back end to
 * and from device memory: a few bytes each way for usual sections, not
 * per packet.) .rodata is read-only after load (the page is protected; a
 * write faults, as libbpf's), its constants folded into the compiled
 * program. Not while a burst runs. */
EBPF_GPU_API
void *ebpf_gpu_map__data(struct ebpf_gpu_map *map, size_t *size);

/* One packet of a burst: `len` bytes at `data` in a buffer of `cap` bytes
 * from `data`, with `headroom` more bytes of that buffer before `data` that
 * the program may take (bpf_xdp_adjust_head/adjust_meta with a negative
 * delta; 0: none): the program sees that much headroom, at most XDP's 256
 * bytes, the first 40 of them the kernel's struct xdp_frame's, so that
 * an adjustment past it fails with -EINVAL as on a driver with less room. After the run: `verdict` (XDP_ABORTED .. XDP_REDIRECT),
 * `redirect` (the target of XDP_REDIRECT: an ifindex; with bit 31 set a
 * broadcast's ports, bit i for ifindex i + 1; with bit 30 alone a cpumap's
 * CPU; docs/MAPS.md), and the packet as the program
 * left it: `data` moved by bpf_xdp_adjust_head (`headroom` and `cap` moved
 * with it), its bytes and `len`; on the host back end the metadata
 * adjust_meta made lies just before the new `data` (the rest of the
 * headroom's bytes are undefined after a run). Its tail grows to `cap`
 * at most (and to 256 bytes past the burst's longest packet, rounded up
 * to 64): bpf_xdp_adjust_tail past it fails with -EINVAL in the program.
 * With `headroom` 0 (earlier versions' callers) the start can only move
 * on. */
struct ebpf_gpu_packet {
  uint8_t *data;
  uint32_t len;
  uint32_t cap;
  uint32_t verdict;
  uint32_t redirect;
  uint32_t headroom;
};

/* Runs the program over `count` packets (as rte_bpf_exec_burst), one batch
 * on the program's back end; returns `count`, or a negative errno (-EINVAL:
 * a packet longer than 9216 bytes or than its `cap`; -EIO: the back end
 * failed the batch). On the host back end every burst runs in place,
 * nothing copied (the headroom bytes the program does not write then keep
 * their values); on the GPU a burst runs on a copy with the same bounds
 * (or in place: packet memory, below). */
EBPF_GPU_API
int ebpf_gpu_prog__run_burst(struct ebpf_gpu_prog *prog, struct ebpf_gpu_packet *pkts,
                             uint32_t count);

/* What a burst's packets arrived on, as the program reads it. */
struct ebpf_gpu_run_opts {
  size_t sz;                /* sizeof(struct ebpf_gpu_run_opts): for later fields */
  uint32_t ingress_ifindex; /* ctx->ingress_ifindex (0 in ebpf_gpu_prog__run_burst) */
  uint32_t rx_queue_index;  /* ctx->rx_queue_index (0 likewise) */
  /* API version 11. On the host back end, a burst that runs in place
   * (above) prefetches the first bytes of the packet this many ahead of the
   * one running (0: none), as a CPU data plane does with packets a NIC
   * left in memory. Other bursts, and the GPU back end, ignore it. */
  uint32_t prefetch;
};

/* ebpf_gpu_prog__run_burst with `opts` (NULL: as run_burst); -EINVAL too
 * for opts a newer header's fields are set in. */
EBPF_GPU_API
int ebpf_gpu_prog__run_burst_opts(struct ebpf_gpu_prog *prog, struct ebpf_gpu_packet *pkts,
                                  uint32_t count, const struct ebpf_gpu_run_opts *opts);

/* Workers (API version 9): a program loaded with `workers` N runs bursts
 * from N threads at once, each through its own lane, as each of a DPDK
 * application's lcores polls a queue of its own while the program's maps
 * (a conntrack table, counters) are shared; on the host each lane is a CPU
 * of its own for the per-CPU maps, as the kernel gives each CPU its slice.
 * A lane is used by one thread at a time; different lanes' bursts run at
 * once. ebpf_gpu_prog__run_burst runs as worker 0: not while lane 0 runs.
 * The map calls and the calls below wait for the bursts in progress;
 * global data handed out by ebpf_gpu_map__data is kept in step by
 * ebpf_gpu_prog__run_burst only (with lanes, use the map calls). */
struct ebpf_gpu_lane;

/* Lane `worker` (0 .. workers - 1) of a loaded program, the same one each
 * time for a worker; it lives as long as the program. NULL with errno
 * EINVAL for another worker or a program not loaded. */
EBPF_GPU_API
struct ebpf_gpu_lane *ebpf_gpu_prog__lane(struct ebpf_gpu_prog *prog, uint32_t worker);

/* ebpf_gpu_prog__run_burst_opts through `lane`, as its worker. */
EBPF_GPU_API
int ebpf_gpu_lane__run_burst(struct ebpf_gpu_lane *lane, struct ebpf_gpu_packet *pkts,
                             uint32_t count, const struct ebpf_gpu_run_opts *opts);

/* Packet memory (API version 10): the caller's packets live in [addr,
 * addr + size), a DPDK mempool's memory chunk for instance. A program
 * loaded for the GPU with EBPF_GPU_DATA_MAPPED page-locks the range and
 * maps it for the GPU (cuMemHostRegister), and from then on a burst whose
 * every packet lies in such memory with the room a copy would give it
 * (ebpf_gpu_prog__run_burst: from 40 bytes before `data` to its `cap`)
 * runs where it is: the GPU reads and writes the caller's buffers
 * over PCIe, and nothing is copied either way. Other bursts are copied as
 * before. Call it once per range (a pool in hugepages comes in several),
 * between bursts and with no lane's burst running; the memory must stay
 * allocated until ebpf_gpu_prog__forget_packet_memory or
 * ebpf_gpu_prog__close. Returns 0, or a negative errno: -EINVAL (no
 * program, one not loaded, a null or empty range), -EOPNOTSUPP (a GPU
 * program loaded with EBPF_GPU_DATA_COPY, whose bursts are always copied
 * into GPU memory), -EIO (the driver refused the range: already
 * registered, or not host memory). The host back end needs no
 * registration (its bursts run in place wherever the room allows): 0,
 * nothing done. */
EBPF_GPU_API
int ebpf_gpu_prog__use_packet_memory(struct ebpf_gpu_prog *prog, void *addr, size_t size);

/* Unmaps and unlocks every range ebpf_gpu_prog__use_packet_memory took
 * (before the caller frees it); later bursts are copied. Between bursts. */
EBPF_GPU_API
void ebpf_gpu_prog__forget_packet_memory(struct ebpf_gpu_prog *prog);

/* Packets the program ran where the caller's bursts held them, nothing
 * copied, since it was loaded (host and GPU alike): what tells the caller
 * its packet memory is used. 0 for no program. */
EBPF_GPU_API
uint64_t ebpf_gpu_prog__packets_in_place(const struct ebpf_gpu_prog *prog);

/* What the program leaves for user space besides its maps and packets,
 * gathered burst after burst and taken between bursts (as the map calls):
 * the records of its event maps (BPF_MAP_TYPE_RINGBUF and
 * PERF_EVENT_ARRAY, which a kernel program's reader polls), the lines of
 * bpf_trace_printk (the kernel's trace_pipe), and what the runs could not
 * keep. A program's records and lines stay with it until they are taken,
 * up to 64 MiB of each (those past it are counted: records in the
 * warnings, lines in a line of the trace), so a caller whose program
 * writes them takes them now and then. */

/* One record: its map's name and its bytes (perf records with perf's
 * padding, as a perf reader gets them), valid during the call only. A
 * negative return stops the call that made it. */
typedef int (*ebpf_gpu_event_fn)(void *ctx, const char *map, const void *data, size_t size);

/* Hands `fn` the records the program's event maps received since the last
 * call: map by map (by name), within a map burst by burst, by packet, and
 * within a packet in the order it wrote them (what `ebpf-gpu-loader run
 * --events` writes, one "MAP HEX" line each). Returns how many were
 * handed; where `fn` returns a negative value, returns that value with the
 * record counted as taken and the rest kept for the next call (as libbpf's
 * ring_buffer__consume). -EINVAL: no program, not loaded, or no `fn`;
 * -EIO: the back end failed to take them. */
EBPF_GPU_API
int ebpf_gpu_prog__consume_events(struct ebpf_gpu_prog *prog, ebpf_gpu_event_fn fn, void *ctx);

/* One line bpf_trace_printk wrote, without its newline. */
typedef int (*ebpf_gpu_trace_fn)(void *ctx, const char *line);

/* Hands `fn` the lines bpf_trace_printk wrote since the last call, and
 * then, where lines did not fit in the log, one line that counts them; as
 * ebpf_gpu_prog__consume_events otherwise. */
EBPF_GPU_API
int ebpf_gpu_prog__consume_trace(struct ebpf_gpu_prog *prog, ebpf_gpu_trace_fn fn, void *ctx);

/* One thing the runs so far lost, in a sentence. */
typedef int (*ebpf_gpu_warning_fn)(void *ctx, const char *message);

/* Hands `fn` what the program's runs have lost since load, each kind once
 * (with a count that grows): records a full event map refused or the log
 * could not keep, updates a hash map refused because a GPU launch used up
 * its spare elements (`ebpf-gpu-loader run` prints these as warnings).
 * Returns how many, or `fn`'s negative value; -EINVAL, -EIO as above. */
EBPF_GPU_API
int ebpf_gpu_prog__warnings(struct ebpf_gpu_prog *prog, ebpf_gpu_warning_fn fn, void *ctx);

/* The forwarding table bpf_fib_lookup reads, replaced by the one `text`
 * describes (`size` bytes in docs/MAPS.md's "Forwarding table" format:
 * links, routes and neighbours as ip(8) prints them; `name` names it in
 * messages, NULL: "text"), or the file at `path`. Between bursts. A
 * program starts with an empty table: every lookup finds no ingress link.
 * 0; -EINVAL for a table that does not parse (ebpf_gpu_last_error():
 * "NAME:LINE: why") or a program not loaded; the file's errno when it
 * cannot be read; -EIO when the back end could not take it. On error the
 * old table stays. */
EBPF_GPU_API
int ebpf_gpu_prog__set_fib(struct ebpf_gpu_prog *prog, const void *text, size_t size,
                           const char *name);
EBPF_GPU_API
int ebpf_gpu_prog__set_fib_file(struct ebpf_gpu_prog *prog, const char *path);

/* Checks the structure of every hashed map of the program (chains, bucket
 * heads, element counts, free and pending lists), as `ebpf-gpu-loader run
 * --check-maps` does after a run: 0 when sound; -EUCLEAN naming the map
 * and its first fault (or why the back end could not read the maps);
 * -EINVAL when not loaded. Between bursts. */
EBPF_GPU_API
int ebpf_gpu_prog__check_maps(struct ebpf_gpu_prog *prog);

/* The program's maps and global data as text, as `ebpf-gpu-loader run
 * --dump-maps` writes them (keys and values laid out by the object's BTF
 * where it has one, else in hex), in memory the caller frees with free();
 * NULL with errno set (EINVAL: not loaded; EIO: the back end could not
 * read them; ENOMEM). Between bursts. */
EBPF_GPU_API
char *ebpf_gpu_prog__format_maps(struct ebpf_gpu_prog *prog);

/* Milliseconds the GPU's kernels ran over the program's bursts so far,
 * timed apart from the copies by the GPU's events; -1 on the host back end
 * or for no program. */
EBPF_GPU_API
double ebpf_gpu_prog__gpu_kernel_ms(const struct ebpf_gpu_prog *prog);

/* The calling thread's last error, "" when none. */
EBPF_GPU_API
const char *ebpf_gpu_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* EBPF_GPU_EBPF_GPU_H */

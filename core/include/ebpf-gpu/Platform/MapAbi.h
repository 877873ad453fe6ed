/* SPDX-License-Identifier: Apache-2.0
 *
 * A map as the helper functions see it at run time, on the host and on the
 * GPU: one header followed by storage the loader allocates. The compiled
 * program holds a pointer to it in the module global named by its binding
 * (`ebpfgpu_map_<name>`), which the loader sets after loading. */

#ifndef EBPF_GPU_PLATFORM_MAPABI_H
#define EBPF_GPU_PLATFORM_MAPABI_H

#ifdef __cplusplus
#include <cstdint>
#else
#include <stdint.h>
#endif

/* The map types with a run-time implementation (the kernel's numbers). */
enum {
  EBPFGPU_MAP_HASH = 1,
  EBPFGPU_MAP_ARRAY = 2,
  EBPFGPU_MAP_PROG_ARRAY = 3, /* values: u32 program id + 1 (0: empty) */
  EBPFGPU_MAP_PERF_EVENT_ARRAY = 4, /* event records (bpf_perf_event_output) */
  EBPFGPU_MAP_PERCPU_HASH = 5,
  EBPFGPU_MAP_PERCPU_ARRAY = 6,
  EBPFGPU_MAP_LRU_HASH = 9,
  EBPFGPU_MAP_LRU_PERCPU_HASH = 10,
  EBPFGPU_MAP_LPM_TRIE = 11,
  EBPFGPU_MAP_ARRAY_OF_MAPS = 12, /* values: u32 inner map id + 1 (0: empty) */
  EBPFGPU_MAP_HASH_OF_MAPS = 13,
  EBPFGPU_MAP_DEVMAP = 14,
  EBPFGPU_MAP_CPUMAP = 16, /* values: struct bpf_cpumap_val (qsize 0: no entry) */
  EBPFGPU_MAP_XSKMAP = 17, /* values: u32 AF_XDP-style consumer id (0: no entry) */
  EBPFGPU_MAP_QUEUE = 22, /* no keys: values pushed, popped oldest first */
  EBPFGPU_MAP_STACK = 23, /* no keys: values pushed, popped newest first */
  EBPFGPU_MAP_DEVMAP_HASH = 25,
  EBPFGPU_MAP_RINGBUF = 27, /* event records (bpf_ringbuf_*) */
  EBPFGPU_MAP_BLOOM_FILTER = 30, /* no keys: values pushed, then asked for */
  /* ebpf-gpu's own map types, numbered far past the kernel's (which ends
   * in the 30s) so that no kernel ever gives the number a meaning: "EG" in
   * the upper half. The kernel refuses an object that declares one. */
  EBPFGPU_MAP_PATTERNS = 0x45470001, /* a compiled pattern set (ebpf_gpu_match) */
  EBPFGPU_MAP_MODEL = 0x45470002,    /* a classifier model (ebpf_gpu_classify) */
};

/* What the device code of a .gpu.o and the loader must agree on: map
 * layouts and control words, element headers, key hashing and compares.
 * Raised whenever one changes; a .gpu.o records the value it was compiled
 * with and the loader refuses any other (its host-side map updates would
 * put keys where the GPU code does not look). 2: word hash, LPM present
 * bits, pending link in header word 3. 3: free list linked through header
 * word 3 too, the pending list's tail kept (EBPFGPU_CTL_PENDING_TAIL), so
 * that a reclaim is one splice (ebpfgpu_hash_reclaim). 4: the XDP kernels
 * take a staging area (GpuAbi.h: EBPFGPU_STAGE_SLOT). 5: the persistent
 * ring posts a batch's number and size in one word, its arrays are the
 * ring's (struct ebpfgpu_ring). 6: a launch's last block publishes the
 * batch (ebpfgpu_batch_done). 7: the ring's slots have arrays of their own
 * and a CPU base (batches in flight, a persistent kernel per worker). 8: hash
 * elements own whole 32-byte sectors (EBPFGPU_ELEM_ALIGN). 9: queue, stack
 * and bloom filter maps (EBPFGPU_QS_*, the header's bloom fields). 10: pattern
 * maps (struct ebpfgpu_patterns). 11: model maps (struct ebpfgpu_model). 12:
 * pattern maps list every rule ending in each state (ebpf_gpu_match_all). 13:
 * a pattern map holds two automata, its literal rules' and its regexes'
 * (struct ebpfgpu_patterns names both, struct ebpfgpu_automaton each). 14:
 * the map header says where a value's bpf_spin_lock is (spin_lock). */
#define EBPFGPU_RUNTIME_ABI 14

/* Bytes before the key in a hash element: u32 next element + 1 (0 ends the
 * chain), u32 hash of the key, u32 LRU tick of the last use, u32 next
 * pending element + 1 (an element unlinked this run; its chain link stays
 * for readers still on it) or, on the free list, the next free one. Keys
 * start 8-byte aligned. */
#define EBPFGPU_ELEM_HEADER 16
/* Elements start and end on this boundary (from the map block's start,
 * which the loader allocates 256-byte aligned): 32 bytes is the sector,
 * the unit in which a GPU multiprocessor's L1 cache fills, so no element
 * shares a sector with another (lookups read them with plain loads:
 * MapHelpers.inc, EBPFGPU_PLAIN_LOOKUPS). */
#define EBPFGPU_ELEM_ALIGN 32u
/* Control words at the start of a hashed map's block (u32 each). */
#define EBPFGPU_CTL_FRESH 0   /* never-used elements handed out */
#define EBPFGPU_CTL_LPM_LIST 1 /* LPM tries: 1 + the keys in the prefix list when it is
                                  * current (ebpfgpu_lpm_list), else 0 */
#define EBPFGPU_CTL_FREE 2    /* free list head + 1 */
#define EBPFGPU_CTL_PENDING 3 /* unlinked this run, free after it + 1 */
#define EBPFGPU_CTL_LIVE 4    /* keys linked */
#define EBPFGPU_CTL_CLOCK 5   /* LRU: advances on every insert */
#define EBPFGPU_CTL_HAND 6    /* LRU: the bucket the next eviction scan starts at */
#define EBPFGPU_CTL_STARVED 7 /* updates refused (E2BIG) because one run unlinked every
                                 spare element: they return only when the run ends */
#define EBPFGPU_CTL_PENDING_TAIL 8 /* the pending list's last element + 1 (the
                                      first retired since the list was empty) */
/* Word 9 is unused: an even count keeps what follows the control words
 * (buckets, locks, an LPM trie's counts and then its u64 present words)
 * 8-byte aligned. */
#define EBPFGPU_CTL_WORDS 10
/* bpf_tail_call: at most this many tail calls per packet (the kernel's). */
#define EBPFGPU_MAX_TAIL_CALLS 33
/* LPM keys: u32 prefix length, then at most this many data bytes. */
#define EBPFGPU_LPM_MAX_DATA 256
/* Event maps (ring buffers, perf event arrays): records appended to one
 * stream that the host takes between runs. Control words (u32 each) before
 * the stream: */
#define EBPFGPU_EVT_HEAD 0    /* bytes of the stream in use */
#define EBPFGPU_EVT_DROPPED 1 /* records refused for want of room */
#define EBPFGPU_EVT_TAKEN 2   /* u64 over words 2-3: bytes the host has taken
                                 from the stream so far (bpf_ringbuf_query's
                                 consumer position) */
#define EBPFGPU_EVT_CTL_WORDS 4
/* Each record: u32 length | flags, u32 the packet's index in its run, then
 * the data, padded to 8 bytes (the kernel's 8-byte ring buffer header). */
#define EBPFGPU_EVT_HDR 8
#define EBPFGPU_EVT_BUSY (1u << 31)    /* reserved, not yet submitted */
#define EBPFGPU_EVT_DISCARD (1u << 30) /* discarded: the reader skips it */
/* Perf event arrays: bytes of their stream (the kernel back end maps as
 * many per CPU for the kernel's records). */
#define EBPFGPU_PERF_STREAM_BYTES (64u * 4096u)
/* Queue and stack maps: a ring of max_entries + 1 values at `values`
 * (value_stride apart; one slot stays free, so head == tail is empty), the
 * kernel's, and these control words (u32 each) at `control`. Every push,
 * pop and peek holds the map's lock, as the kernel's hold its spinlock
 * (MapHelpers.inc: ebpfgpu_qs_*). */
#define EBPFGPU_QS_LOCK 0 /* 0 free, 1 held */
#define EBPFGPU_QS_HEAD 1 /* the slot the next push writes */
#define EBPFGPU_QS_TAIL 2 /* the oldest value's slot */
#define EBPFGPU_QS_CTL_WORDS 4
/* Bloom filters: the kernel's number of hash functions when map_extra
 * gives none. */
#define EBPFGPU_BLOOM_DEFAULT_HASHES 5u
/* Pattern maps (EBPFGPU_MAP_PATTERNS): max_entries bytes at `values` hold
 * up to two automata, which the host compiles from a pattern file
 * (abi/lib/Patterns.cpp): the literal rules as an Aho-Corasick automaton
 * made into a DFA, the regex rules as one DFA of them all, by subset
 * construction (PatternRegex.cpp). Two, not one of all the rules: a DFA of
 * both kinds multiplies their states (10,000 literals are 147,394 states
 * alone, past the regex DFA's cap). The scans (MapPatterns.inc) run both
 * and combine their answers into those one automaton of all the rules
 * would give. struct ebpfgpu_patterns, at `values`, names each automaton
 * by its offset from itself (0: the file has no rule of that kind; 8-byte
 * aligned). The host checks every automaton before it is written (every
 * transition names a state, every size adds up, every state's outputs
 * agree with its match), so the scans trust them. After an automaton's
 * header (struct ebpfgpu_automaton):
 *   uint32_t next[nstates * nclasses]: state s on a byte of class c goes to
 *     next[s * nclasses + c] & ~EBPFGPU_PATTERNS_MATCH; the flag says that
 *     some rule ends in the state it goes to;
 *   int32_t match[nstates]: the lowest rule id of the rules that end in
 *     a state (for literals: its own and its suffixes'), -1 where none does;
 *   uint32_t outstart[nstates + 1]: state s's outputs are
 *     outputs[outstart[s]] to outputs[outstart[s + 1] - 1];
 *   int32_t outputs[noutputs]: each state's distinct rule ids, ascending
 *     (the first is match[s]).
 * State 0 is the start. All zero (never set) is no pattern set: the scans
 * answer -EINVAL. */
#define EBPFGPU_PATTERNS_MAGIC 0x41504745u /* "EGPA" */
#define EBPFGPU_PATTERNS_VERSION 3u
#define EBPFGPU_PATTERNS_MATCH 0x80000000u
/* The regex rules' DFA: at most this many states (a larger set is refused
 * at load, naming the rule that crosses it), each repetition count
 * ({m,n}) at most MAX_REPEAT. The literal rules' automaton has no cap but
 * the layout's (2^31 - 1 states) and the map's size. */
#ifndef EBPFGPU_PATTERNS_MAX_DFA_STATES
#define EBPFGPU_PATTERNS_MAX_DFA_STATES 65536u
#endif
#define EBPFGPU_PATTERNS_MAX_REPEAT 64u
/* ebpf_gpu_match_all's bitmap: 8 to this many bytes (rule ids 0 to 2047). */
#define EBPFGPU_PATTERNS_MAX_BITMAP 256u
struct ebpfgpu_patterns {
  uint32_t magic;    /* EBPFGPU_PATTERNS_MAGIC */
  uint32_t version;  /* EBPFGPU_PATTERNS_VERSION */
  uint32_t nrules;   /* of both automata */
  uint32_t reserved; /* 0 */
  uint64_t literals; /* the literal rules' automaton, from this header; 0: none */
  uint64_t regexes;  /* the regex rules' DFA, from this header; 0: none */
  uint64_t bytes;    /* this header and both automata */
};
struct ebpfgpu_automaton {
  uint32_t nstates;  /* 1 to 2^31 - 1 */
  uint32_t nclasses; /* 1 to 256 */
  uint32_t nrules;
  uint32_t noutputs;    /* entries of outputs[] */
  uint64_t bytes;       /* this header and the four tables */
  uint8_t classes[256]; /* each byte value's class */
};

/* Model maps (EBPFGPU_MAP_MODEL): max_entries bytes at `values` hold a
 * small classifier that the host compiles from a model file
 * (abi/lib/Model.cpp) and checks before it is written (every index in
 * range, every bound below), so the evaluator (MapModel.inc) trusts it.
 * The bounds keep the kfunc's result and its work per packet small:
 * classes below EBPFGPU_MODEL_MAX_CLASSES (the verifier's result range),
 * at most MAX_TREES trees of depth MAX_DEPTH, or MAX_LAYERS layers of
 * MAX_WIDTH. After this header, for a tree ensemble (EBPFGPU_MODEL_TREES):
 *   uint32_t root[ntrees]: each tree's root node;
 *   int32_t bias[nclasses]: the scores' starting values;
 *   struct ebpfgpu_model_node node[nnodes]: feature >= 0 a split (to
 *     `left` when x[feature] <= threshold, else `right`, both nodes after
 *     it), feature -1 a leaf whose scores are leaf[left .. left + nclasses);
 *   int32_t leaf[nleaves * nclasses].
 * The class is the argmax of bias plus each tree's leaf scores (int64
 * sums; the lowest class on a tie). For an MLP (EBPFGPU_MODEL_MLP): each
 * layer's int32 biases (width[l + 1] of them), layer after layer, then
 * each layer's int8 weights (width[l + 1] rows of width[l]), layer after
 * layer. A feature enters as x >> in_shift[i] clamped to [-128, 127]; a
 * layer's output j is (bias[j] + sum_i w[j][i] * in[i]) >> shift[l]
 * (int32, an arithmetic shift), clamped to [0, 127] (ReLU and int8) but
 * for the last layer, whose argmax is the class. All zero (never set) is
 * no model: the kfunc answers -EINVAL. */
#define EBPFGPU_MODEL_MAGIC 0x4f4d4745u /* "EGMO" */
#define EBPFGPU_MODEL_VERSION 1u
#define EBPFGPU_MODEL_TREES 1u
#define EBPFGPU_MODEL_MLP 2u
#define EBPFGPU_MODEL_MAX_FEATURES 64u
#define EBPFGPU_MODEL_MAX_CLASSES 16u
#define EBPFGPU_MODEL_MAX_TREES 256u
#define EBPFGPU_MODEL_MAX_DEPTH 16u /* edges from a root to its deepest leaf */
#define EBPFGPU_MODEL_MAX_NODES 65536u /* all trees' */
#define EBPFGPU_MODEL_MAX_LAYERS 4u
#define EBPFGPU_MODEL_MAX_WIDTH 64u
#define EBPFGPU_MODEL_MAX_BIAS (1 << 24) /* |MLP bias|: no int32 overflow */
struct ebpfgpu_model {
  uint32_t magic;     /* EBPFGPU_MODEL_MAGIC */
  uint32_t version;   /* EBPFGPU_MODEL_VERSION */
  uint32_t kind;      /* EBPFGPU_MODEL_TREES or EBPFGPU_MODEL_MLP */
  uint32_t nfeatures; /* 1 to MAX_FEATURES: the kfunc's features__sz / 4 */
  uint32_t nclasses;  /* 2 to MAX_CLASSES */
  uint32_t ntrees;    /* trees: 1 to MAX_TREES */
  uint32_t nnodes;    /* trees: all trees' nodes */
  uint32_t nleaves;   /* trees: leaf score vectors */
  uint32_t depth;     /* trees: the deepest tree's depth */
  uint32_t nlayers;   /* MLP: 1 to MAX_LAYERS */
  uint64_t bytes;     /* this header and what follows it */
  uint8_t in_shift[EBPFGPU_MODEL_MAX_FEATURES]; /* MLP: each feature's right shift, 0 to 31 */
  uint32_t width[EBPFGPU_MODEL_MAX_LAYERS + 1]; /* MLP: nfeatures, then each layer's outputs */
  uint32_t shift[EBPFGPU_MODEL_MAX_LAYERS];     /* MLP: each layer's right shift, 0 to 31 */
  uint32_t reserved;
};
struct ebpfgpu_model_node {
  int32_t feature; /* -1: a leaf */
  int32_t threshold;
  uint32_t left; /* a leaf's: its first score in leaf[] */
  uint32_t right;
};

struct ebpfgpu_map {
  uint32_t type; /* EBPFGPU_MAP_* */
  uint32_t key_size;
  uint32_t value_size;
  uint32_t max_entries;
  uint32_t flags;
  uint32_t value_stride; /* value_size rounded up to 8 */
  /* Arrays: max_entries entries of nslices * value_stride bytes. */
  uint64_t values;
  /* Hashed maps (hash, LRU, LPM, devmap_hash): chained buckets, each with a
   * lock for writers (readers take none), elements from a pool. Elements a
   * delete or a replacing update unlinks go to a pending list, and return
   * to the free list only when no program runs (between batches): a program
   * that still holds a pointer into one never sees it reused, as RCU gives
   * the kernel. */
  uint32_t nbuckets;    /* power of two >= max_entries */
  uint32_t elem_stride; /* header + key_stride + nslices * value_stride, to EBPFGPU_ELEM_ALIGN */
  uint32_t key_stride;  /* key_size rounded up to 8 */
  uint32_t pool_size;   /* elements: max_entries plus spares for replacements */
  uint64_t buckets;     /* u32 per bucket: first element + 1, 0 when empty */
  uint64_t locks;       /* u32 per bucket */
  uint64_t elems;       /* pool_size elements: header, key, value(s) */
  uint64_t control;     /* EBPFGPU_CTL_WORDS u32 */
  /* Per-CPU maps: copies of each value, one per CPU of the runtime (a GPU
   * thread of the batch kernel, or a host worker); 1 for other maps. */
  uint32_t nslices;
  /* LPM tries: key data bits ((key_size - 4) * 8). */
  uint32_t prefix_bits;
  /* LPM tries: u32 per prefix length 0..prefix_bits, the keys of that
   * length; then the lengths present (ebpfgpu_lpm_present). */
  uint64_t prefix_counts;
  /* Maps of maps: the maps its values may name, as an array of pointers to
   * their headers; a value holds an index into it + 1 (0: empty slot). */
  uint64_t inner_maps;
  uint32_t inner_count;
  /* Event maps: bytes of the record stream at `values` (control words at
   * `control`). */
  uint32_t event_capacity;
  /* See struct ebpfgpu_map_shape; set only in the helpers' shaped copies. */
  uint32_t stable;
  /* Bloom filters: the hash functions (map_extra's low 4 bits, 5 when 0)
   * and the bit array's bits - 1 (a power of two - 1, the kernel's size);
   * the bits, u32 words, at `values`. The hashes' seed is 0 (MapHelpers.inc:
   * ebpfgpu_bloom_bit). */
  uint32_t bloom_hashes;
  uint32_t bloom_mask;
  /* Maps whose values hold a struct bpf_spin_lock: its offset + 1 (0:
   * none). The loader's updates (--map-set, the daemon's map update, the C
   * API) leave that word as the map has it, as the kernel's do. */
  uint32_t spin_lock;
  uint32_t pad;
};

/* What a map's definition alone fixes: the compiler knows it at every call
 * site that names the map, the loader at load time. */
struct ebpfgpu_map_shape {
  uint32_t type; /* EBPFGPU_MAP_* */
  uint32_t key_size;
  uint32_t value_size;
  uint32_t max_entries;
  uint32_t flags;
  /* 1 when no program that can run with this map updates or deletes its
   * keys (the compiler sees every such call): its buckets and elements do
   * not change while programs run, only between runs, so readers follow
   * links with plain loads that stay in the L1 cache. 0 otherwise (and
   * always in the loader's headers): links are read with acquire loads,
   * which invalidate the L1 cache on the GPU. */
  uint32_t stable;
  /* The value's bpf_spin_lock offset + 1 (0: none), as the header's: a
   * constant at the call site, so a map without one compiles no lock code
   * (its updates' lock-word cases fold away). */
  uint32_t spin_lock;
};

static inline int ebpfgpu_map_is_percpu(uint32_t type) {
  return type == EBPFGPU_MAP_PERCPU_HASH || type == EBPFGPU_MAP_PERCPU_ARRAY ||
         type == EBPFGPU_MAP_LRU_PERCPU_HASH;
}
static inline int ebpfgpu_map_is_lru(uint32_t type) {
  return type == EBPFGPU_MAP_LRU_HASH || type == EBPFGPU_MAP_LRU_PERCPU_HASH;
}
static inline int ebpfgpu_map_is_event(uint32_t type) {
  return type == EBPFGPU_MAP_RINGBUF || type == EBPFGPU_MAP_PERF_EVENT_ARRAY;
}
/* Maps without keys (the kernel's push, pop and peek helpers). */
static inline int ebpfgpu_map_is_queue_stack(uint32_t type) {
  return type == EBPFGPU_MAP_QUEUE || type == EBPFGPU_MAP_STACK;
}
static inline int ebpfgpu_map_is_keyless(uint32_t type) {
  return ebpfgpu_map_is_queue_stack(type) || type == EBPFGPU_MAP_BLOOM_FILTER;
}
static inline int ebpfgpu_map_is_patterns(uint32_t type) {
  return type == EBPFGPU_MAP_PATTERNS;
}
static inline int ebpfgpu_map_is_model(uint32_t type) {
  return type == EBPFGPU_MAP_MODEL;
}
/* ebpf-gpu's own maps of one compiled object (a pattern set, a model):
 * written whole by the loader, read only by their kfunc. */
static inline int ebpfgpu_map_is_blob(uint32_t type) {
  return ebpfgpu_map_is_patterns(type) || ebpfgpu_map_is_model(type);
}
static inline int ebpfgpu_map_is_outer(uint32_t type) {
  return type == EBPFGPU_MAP_ARRAY_OF_MAPS || type == EBPFGPU_MAP_HASH_OF_MAPS;
}
/* Hashed maps keep keys in buckets; the others are arrays indexed by a u32. */
static inline int ebpfgpu_map_is_hashed(uint32_t type) {
  return type == EBPFGPU_MAP_HASH || type == EBPFGPU_MAP_PERCPU_HASH || ebpfgpu_map_is_lru(type) ||
         type == EBPFGPU_MAP_LPM_TRIE || type == EBPFGPU_MAP_DEVMAP_HASH ||
         type == EBPFGPU_MAP_HASH_OF_MAPS;
}

/* LPM tries: the prefix lengths that may hold keys, a bitmap after the
 * prefix counts (8-byte aligned): bit b of u64 word w stands for length
 * 64 * w + b, for EBPFGPU_LPM_PRESENT_WORDS(prefix_bits) words. Lookups
 * walk only the lengths set. An insert sets its length's bit; a delete
 * leaves it (a set bit without keys costs a probe, never a wrong answer)
 * and the loader recomputes the bitmap from the counts between runs
 * (reclaimHashMap), when no program can race with it. Every length with a
 * key has its bit set. */
#define EBPFGPU_LPM_PRESENT_WORDS(prefix_bits) (((prefix_bits) + 64u) / 64u)
static inline uint64_t *ebpfgpu_lpm_present(const struct ebpfgpu_map *m) {
  return (uint64_t *)(m->prefix_counts + (((m->prefix_bits + 1u) * 4u + 7u) & ~7u));
}

/* LPM tries with at most EBPFGPU_LPM_LIST_MAX keys also keep them as a
 * list, longest prefix first: a lookup in a trie that no program changes
 * (`stable`) scans it and takes the first entry that matches, a few loads
 * every thread of a warp shares, where the hashed lookup makes a chain of
 * dependent loads per prefix length present. The loader builds the list
 * between runs (after its own updates, and when it reclaims); an update or
 * delete by a program marks it stale (EBPFGPU_CTL_LPM_LIST = 0) and
 * lookups go back to the hashed buckets. An entry: the prefix length
 * (u32), the element's index (u32), the key's data masked to the length,
 * zero-padded to 8 bytes. */
#define EBPFGPU_LPM_LIST_MAX 32u
static inline uint32_t ebpfgpu_lpm_entry_stride(const struct ebpfgpu_map *m) {
  return 8u + ((m->key_size - 4u + 7u) & ~7u);
}
static inline uint8_t *ebpfgpu_lpm_list(const struct ebpfgpu_map *m) {
  return (uint8_t *)(ebpfgpu_lpm_present(m) + EBPFGPU_LPM_PRESENT_WORDS(m->prefix_bits));
}

/* A hashed map's element: header, key, each slice's value, whole sectors. */
static inline uint32_t ebpfgpu_elem_stride(uint32_t key_stride, uint32_t value_stride,
                                           uint32_t nslices) {
  const uint32_t bytes = EBPFGPU_ELEM_HEADER + key_stride + value_stride * nslices;
  return (bytes + EBPFGPU_ELEM_ALIGN - 1u) & ~(EBPFGPU_ELEM_ALIGN - 1u);
}

/* Sets the header fields that follow from the shape alone, as the layout
 * has them (abi/lib/MapMemory.cpp calls this for every map it lays out;
 * the map helpers call it on a copy of the header with the shape the
 * compiler emitted as a constant, so on the GPU every one of these fields
 * folds into the code: no type dispatch, no loops over a key size). Per-CPU
 * maps' slice count, and with it their element stride, is the runtime's
 * choice and stays as the header has it; so do the addresses and the
 * bucket count. */
static inline void ebpfgpu_map_set_shape(struct ebpfgpu_map *h,
                                         const struct ebpfgpu_map_shape *s) {
  h->type = s->type;
  h->key_size = s->key_size;
  h->value_size = s->value_size;
  h->max_entries = s->max_entries;
  h->flags = s->flags;
  h->stable = s->stable;
  h->spin_lock = s->spin_lock;
  h->value_stride = (s->value_size + 7u) & ~7u;
  int hashed = ebpfgpu_map_is_hashed(s->type);
  h->key_stride = hashed ? (s->key_size + 7u) & ~7u : 0;
  if (s->type == EBPFGPU_MAP_LPM_TRIE)
    h->prefix_bits = (s->key_size - 4u) * 8u;
  if (!ebpfgpu_map_is_percpu(s->type)) {
    h->nslices = 1;
    h->elem_stride = hashed ? ebpfgpu_elem_stride(h->key_stride, h->value_stride, 1) : 0;
  }
}

#endif /* EBPF_GPU_PLATFORM_MAPABI_H */

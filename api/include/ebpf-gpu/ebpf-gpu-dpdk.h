/* SPDX-License-Identifier: Apache-2.0
 *
 * libebpf-gpu in an existing DPDK application: a loaded program installed
 * as an rx callback on a port and queue, as DPDK's rte_bpf_eth_rx_install()
 * does, and removed again as rte_bpf_eth_rx_unload() does. Every burst the
 * application receives on that queue runs through the program first:
 * XDP_PASS packets stay in the burst (in order), XDP_DROP and XDP_ABORTED
 * are freed, XDP_TX goes back out the same port, XDP_REDIRECT out the port
 * the program names; each install counts what it did.
 *
 * Static inline functions over the DPDK-free C API (<ebpf-gpu/ebpf-gpu.h>),
 * compiled with the application's own DPDK: libebpf-gpu links no DPDK (two
 * copies of DPDK in one process break), and an mbuf's layout is the one the
 * application was built with.
 *
 * Threads: install and remove from a control thread; the callback runs on
 * the thread that polls the queue, the only one that may use the program
 * while it is installed (no ebpf_gpu_prog__run_burst and no map calls
 * elsewhere, as <ebpf-gpu/ebpf-gpu.h> says). Counters may be read from any
 * thread at any time.
 */
#ifndef EBPF_GPU_EBPF_GPU_DPDK_H
#define EBPF_GPU_EBPF_GPU_DPDK_H

#include <ebpf-gpu/ebpf-gpu.h>

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_pause.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Packets the program runs on at once: a longer burst runs in several. */
#define EBPF_GPU_RX_CHUNK 256

/* What an install did, packets each. Every packet the queue received is in
 * exactly one of action[] (by verdict, index = XDP_ABORTED .. XDP_REDIRECT),
 * invalid, run_failed or multi_seg; tx_failed and redirect_failed are
 * among action[XDP_TX] and action[XDP_REDIRECT]. */
struct ebpf_gpu_rx_counters {
  uint64_t action[5];       /* verdicts; PASS kept, TX/REDIRECT sent, others freed */
  uint64_t invalid;         /* verdicts past XDP_REDIRECT: freed (the kernel's XDP_ABORTED) */
  uint64_t tx_failed;       /* XDP_TX the tx queue did not take: freed */
  uint64_t redirect_failed; /* XDP_REDIRECT to no port, or not taken: freed */
  uint64_t run_failed;      /* packets of bursts the program failed to run: freed */
  uint64_t multi_seg;       /* chained mbufs (XDP sees one buffer): freed */
};

struct ebpf_gpu_rx_opts {
  size_t sz;         /* sizeof(struct ebpf_gpu_rx_opts) */
  uint16_t tx_queue; /* the queue XDP_TX and XDP_REDIRECT send on (each port's) */
  /* The mempool the queue's mbufs come from, or NULL (API version 12):
   * each of its memory chunks given to the program as packet memory
   * (ebpf_gpu_prog__use_packet_memory), so that a GPU program loaded with
   * EBPF_GPU_DATA_MAPPED runs the queue's bursts where the mbufs are,
   * nothing copied. The host back end needs none (it runs them in place
   * anyway); a GPU program on the copy data path refuses it (-EOPNOTSUPP).
   * The ranges stay the program's after ebpf_gpu_rx__remove, until
   * ebpf_gpu_prog__forget_packet_memory or ebpf_gpu_prog__close: the pool
   * must outlive them. */
  struct rte_mempool *packet_memory;
};

/* One install; opaque in use, public for the inline functions. */
struct ebpf_gpu_rx {
  uint32_t use; /* odd while the callback runs (rte_bpf's bpf_eth_cbi) */
  uint16_t port, queue, tx_queue;
  struct ebpf_gpu_prog *prog;
  const struct rte_eth_rxtx_callback *cb;
  struct ebpf_gpu_rx_counters counters;
  struct ebpf_gpu_packet pkts[EBPF_GPU_RX_CHUNK];
  struct rte_mbuf *out[EBPF_GPU_RX_CHUNK];
};

static inline void ebpf_gpu_rx__count(uint64_t *c, uint64_t n) {
  if (n)
    __atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

/* Sends `n` mbufs out port `port` on `queue`; frees and returns those it
 * did not take. */
static inline uint16_t ebpf_gpu_rx__send(uint16_t port, uint16_t queue, struct rte_mbuf **m,
                                         uint16_t n) {
  uint16_t sent = n ? rte_eth_tx_burst(port, queue, m, n) : 0;
  for (uint16_t i = sent; i < n; ++i)
    rte_pktmbuf_free(m[i]);
  return (uint16_t)(n - sent);
}

/* One chunk of a burst through the program; the mbufs that pass are moved
 * to the front of `m`, in order; returns how many. */
static inline uint16_t ebpf_gpu_rx__chunk(struct ebpf_gpu_rx *rx, struct rte_mbuf **m,
                                          uint16_t n) {
  struct ebpf_gpu_packet *p = rx->pkts;
  uint16_t run = 0, kept = 0, tx = 0;
  uint64_t multi = 0;
  /* Chained mbufs out first: XDP without frags sees one buffer. */
  for (uint16_t i = 0; i < n; ++i) {
    if (m[i]->nb_segs != 1) {
      rte_pktmbuf_free(m[i]);
      ++multi;
      continue;
    }
    m[run] = m[i];
    p[run].data = rte_pktmbuf_mtod(m[i], uint8_t *);
    p[run].len = m[i]->data_len;
    p[run].headroom = rte_pktmbuf_headroom(m[i]);
    p[run].cap = (uint32_t)(m[i]->buf_len - m[i]->data_off);
    ++run;
  }
  ebpf_gpu_rx__count(&rx->counters.multi_seg, multi);
  /* ctx->ingress_ifindex: the port as bpf_redirect names it (port + 1). */
  struct ebpf_gpu_run_opts ro;
  memset(&ro, 0, sizeof(ro));
  ro.sz = sizeof(ro);
  ro.ingress_ifindex = (uint32_t)rx->port + 1;
  ro.rx_queue_index = rx->queue;
  if (run && ebpf_gpu_prog__run_burst_opts(rx->prog, p, run, &ro) < 0) {
    for (uint16_t i = 0; i < run; ++i)
      rte_pktmbuf_free(m[i]);
    ebpf_gpu_rx__count(&rx->counters.run_failed, run);
    return 0;
  }
  uint64_t actions[5] = {0}, invalid = 0, redirect_failed = 0;
  for (uint16_t i = 0; i < run; ++i) {
    struct rte_mbuf *b = m[i];
    /* Where the program left the packet (adjust_head/tail). */
    b->data_off = (uint16_t)(p[i].data - (uint8_t *)b->buf_addr);
    b->data_len = (uint16_t)p[i].len;
    b->pkt_len = p[i].len;
    uint32_t v = p[i].verdict;
    if (v > 4) {
      ++invalid;
      rte_pktmbuf_free(b);
      continue;
    }
    ++actions[v];
    if (v == 2) {
      m[kept++] = b;
    } else if (v == 3) {
      rx->out[tx++] = b;
    } else if (v == 4) {
      /* bpf_redirect(ifindex): DPDK port ifindex - 1 (ifindexes count
       * from 1, as the daemon's ports), one packet at a time. */
      uint32_t to = p[i].redirect - 1;
      if (p[i].redirect == 0 || to >= RTE_MAX_ETHPORTS ||
          !rte_eth_dev_is_valid_port((uint16_t)to)) {
        rte_pktmbuf_free(b);
        ++redirect_failed;
      } else {
        redirect_failed += ebpf_gpu_rx__send((uint16_t)to, rx->tx_queue, &b, 1);
      }
    } else {
      rte_pktmbuf_free(b);
    }
  }
  ebpf_gpu_rx__count(&rx->counters.tx_failed,
                     ebpf_gpu_rx__send(rx->port, rx->tx_queue, rx->out, tx));
  for (int a = 0; a < 5; ++a)
    ebpf_gpu_rx__count(&rx->counters.action[a], actions[a]);
  ebpf_gpu_rx__count(&rx->counters.invalid, invalid);
  ebpf_gpu_rx__count(&rx->counters.redirect_failed, redirect_failed);
  return kept;
}

/* The rx callback (rte_rx_callback_fn). */
static inline uint16_t ebpf_gpu_rx__callback(uint16_t port, uint16_t queue, struct rte_mbuf **m,
                                             uint16_t n, uint16_t max, void *arg) {
  struct ebpf_gpu_rx *rx = (struct ebpf_gpu_rx *)arg;
  (void)port, (void)queue, (void)max;
  __atomic_add_fetch(&rx->use, 1, __ATOMIC_SEQ_CST);
  uint16_t kept = 0;
  for (uint16_t at = 0; at < n;) {
    uint16_t c = n - at < EBPF_GPU_RX_CHUNK ? (uint16_t)(n - at) : EBPF_GPU_RX_CHUNK;
    uint16_t k = ebpf_gpu_rx__chunk(rx, m + at, c);
    memmove(m + kept, m + at, k * sizeof(*m));
    kept = (uint16_t)(kept + k);
    at = (uint16_t)(at + c);
  }
  __atomic_add_fetch(&rx->use, 1, __ATOMIC_RELEASE);
  return kept;
}

/* Installs `prog` on `port`'s rx queue `queue` (rte_eth_add_rx_callback):
 * from the next rte_eth_rx_burst() there, every packet runs through it.
 * XDP_TX and XDP_REDIRECT send on `opts->tx_queue` (0 without opts), which
 * the callback then uses from the rx thread: no other thread may send on
 * it. NULL with errno set, as rte_eth_add_rx_callback() sets rte_errno
 * (EINVAL: no program, bad opts or queue; ENODEV: no such port; ENOTSUP:
 * this DPDK was built without rx callbacks; ENOMEM). The program stays the
 * caller's: close it after ebpf_gpu_rx__remove(). */
/* rte_mempool_mem_iter's callback: one memory chunk of the pool given to
 * the program; the first error kept. */
struct ebpf_gpu_rx_memory {
  struct ebpf_gpu_prog *prog;
  int err;
};
static inline void ebpf_gpu_rx__memory_chunk(struct rte_mempool *mp, void *opaque,
                                             struct rte_mempool_memhdr *chunk, unsigned idx) {
  (void)mp;
  (void)idx;
  struct ebpf_gpu_rx_memory *m = (struct ebpf_gpu_rx_memory *)opaque;
  if (!m->err)
    m->err = ebpf_gpu_prog__use_packet_memory(m->prog, chunk->addr, chunk->len);
}

static inline struct ebpf_gpu_rx *ebpf_gpu_rx__install(uint16_t port, uint16_t queue,
                                                       struct ebpf_gpu_prog *prog,
                                                       const struct ebpf_gpu_rx_opts *opts) {
  if (!prog || (opts && opts->sz < sizeof(size_t))) {
    errno = EINVAL;
    return NULL;
  }
  if (!rte_eth_dev_is_valid_port(port)) {
    errno = ENODEV;
    return NULL;
  }
  struct ebpf_gpu_rx *rx = (struct ebpf_gpu_rx *)calloc(1, sizeof(*rx));
  if (!rx) {
    errno = ENOMEM;
    return NULL;
  }
  rx->port = port;
  rx->queue = queue;
  if (opts && opts->sz >= offsetof(struct ebpf_gpu_rx_opts, tx_queue) + sizeof(uint16_t))
    rx->tx_queue = opts->tx_queue;
  rx->prog = prog;
  if (opts && opts->sz >= offsetof(struct ebpf_gpu_rx_opts, packet_memory) + sizeof(void *) &&
      opts->packet_memory) {
    /* What one chunk took before another failed is given back whole. */
    struct ebpf_gpu_rx_memory m = {prog, 0};
    rte_mempool_mem_iter(opts->packet_memory, ebpf_gpu_rx__memory_chunk, &m);
    if (m.err) {
      ebpf_gpu_prog__forget_packet_memory(prog);
      free(rx);
      errno = -m.err;
      return NULL;
    }
  }
  rx->cb = rte_eth_add_rx_callback(port, queue, ebpf_gpu_rx__callback, rx);
  if (!rx->cb) {
    int e = rte_errno;
    free(rx);
    errno = e;
    return NULL;
  }
  return rx;
}

/* Takes the install off its queue (rte_eth_remove_rx_callback) and waits
 * until the callback no longer runs, as rte_bpf_eth_rx_unload(), then frees
 * it; `counters`, when not NULL, gets its last counts. DPDK's rule for
 * rx callbacks holds: the rx thread must not be inside rte_eth_rx_burst()
 * on the queue between reading the callback and starting it while this
 * runs, which a stopped port or queue, or a remove from the rx thread
 * itself, guarantee (rte_bpf leaks the memory instead: a handle each). 0
 * or a negative errno from rte_eth_remove_rx_callback (the install is then
 * left in place). */
static inline int ebpf_gpu_rx__remove(struct ebpf_gpu_rx *rx,
                                      struct ebpf_gpu_rx_counters *counters) {
  if (!rx)
    return -EINVAL;
  int rc = rte_eth_remove_rx_callback(rx->port, rx->queue, rx->cb);
  if (rc < 0)
    return rc;
  uint32_t use = __atomic_load_n(&rx->use, __ATOMIC_SEQ_CST);
  if (use & 1)
    while (__atomic_load_n(&rx->use, __ATOMIC_ACQUIRE) == use)
      rte_pause();
  if (counters)
    *counters = rx->counters;
  /* The callback's record: DPDK leaves it to the application to free. */
  rte_free((void *)(uintptr_t)rx->cb);
  free(rx);
  return 0;
}

/* The counts so far (relaxed reads: each is exact, not a snapshot of all). */
static inline void ebpf_gpu_rx__counters(const struct ebpf_gpu_rx *rx,
                                         struct ebpf_gpu_rx_counters *out) {
  const uint64_t *from = (const uint64_t *)&rx->counters;
  uint64_t *to = (uint64_t *)out;
  for (size_t i = 0; i < sizeof(*out) / sizeof(uint64_t); ++i)
    to[i] = __atomic_load_n(&from[i], __ATOMIC_RELAXED);
}

#ifdef __cplusplus
}
#endif

#endif /* EBPF_GPU_EBPF_GPU_DPDK_H */

/* SPDX-License-Identifier: Apache-2.0
 *
 * An existing DPDK application given XDP in a few lines: the program from
 * the command line installed as an rx callback on port 0
 * (<ebpf-gpu/ebpf-gpu-dpdk.h>), then the application's own loop, which
 * only sees what the program passed: out port 1 when there is one, else
 * counted and freed. XDP_TX leaves through port 0 from the callback. At the
 * end (SIGINT, SIGTERM, or --idle-ms without a packet) the install's
 * counters are printed, one "name count" a line.
 *   dpdk_xdp_rx [EAL options] -- PROG.o|PROG.gpu.o [--section NAME]
 *               [--backend host|gpu] [--gpu-data mapped] [--idle-ms MS]
 * --gpu-data mapped: the GPU reads and writes the mbufs where they are
 * (the pool given to the program as packet memory).
 */
#include <ebpf-gpu/ebpf-gpu-dpdk.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BURST 32

static volatile sig_atomic_t force_quit;

static void on_signal(int sig) {
  (void)sig;
  force_quit = 1;
}

static int fail(const char *what, const char *why) {
  fprintf(stderr, "dpdk_xdp_rx: %s: %s\n", what, why);
  return 1;
}

/* One rx and one tx queue, started. */
static int port_init(uint16_t port, struct rte_mempool *pool) {
  struct rte_eth_conf conf;
  memset(&conf, 0, sizeof(conf));
  if (rte_eth_dev_configure(port, 1, 1, &conf) < 0 ||
      rte_eth_rx_queue_setup(port, 0, 1024, rte_eth_dev_socket_id(port), NULL, pool) < 0 ||
      rte_eth_tx_queue_setup(port, 0, 1024, rte_eth_dev_socket_id(port), NULL) < 0)
    return -1;
  return rte_eth_dev_start(port);
}

int main(int argc, char **argv) {
  int eal = rte_eal_init(argc, argv);
  if (eal < 0)
    return fail("EAL", rte_strerror(rte_errno));
  argc -= eal;
  argv += eal;
  const char *path = NULL;
  struct ebpf_gpu_load_opts lo = {.sz = sizeof(lo)};
  uint64_t idle_ms = 0;
  int mapped = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--section") && i + 1 < argc)
      lo.program = argv[++i];
    else if (!strcmp(argv[i], "--backend") && i + 1 < argc && !strcmp(argv[i + 1], "host"))
      lo.backend = EBPF_GPU_BACKEND_HOST, ++i;
    else if (!strcmp(argv[i], "--backend") && i + 1 < argc && !strcmp(argv[i + 1], "gpu"))
      lo.backend = EBPF_GPU_BACKEND_GPU, ++i;
    else if (!strcmp(argv[i], "--gpu-data") && i + 1 < argc && !strcmp(argv[i + 1], "mapped"))
      lo.gpu_data = EBPF_GPU_DATA_MAPPED, mapped = 1, ++i;
    else if (!strcmp(argv[i], "--idle-ms") && i + 1 < argc)
      idle_ms = strtoull(argv[++i], NULL, 10);
    else if (argv[i][0] != '-' && !path)
      path = argv[i];
    else
      return fail("usage", "dpdk_xdp_rx [EAL options] -- PROG.o|PROG.gpu.o [--section NAME] "
                           "[--backend host|gpu] [--gpu-data mapped] [--idle-ms MS]");
  }
  if (!path)
    return fail("usage", "no program given");
  uint16_t ports = rte_eth_dev_count_avail();
  if (ports < 1)
    return fail("ports", "none (give one with --vdev, e.g. net_pcap0,rx_pcap=in.pcap)");

  struct rte_mempool *pool =
      rte_pktmbuf_pool_create("mbufs", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE, rte_socket_id());
  if (!pool)
    return fail("mbuf pool", rte_strerror(rte_errno));
  for (uint16_t p = 0; p < ports && p < 2; ++p)
    if (port_init(p, pool) < 0)
      return fail("port setup", rte_strerror(rte_errno));

  /* XDP: load (verified, compiled), install on port 0's queue 0. */
  struct ebpf_gpu_prog *prog = ebpf_gpu_prog__load(path, &lo);
  if (!prog)
    return fail(path, ebpf_gpu_last_error());
  /* Mapped: the GPU runs the bursts where the pool's mbufs are. */
  struct ebpf_gpu_rx_opts ro = {.sz = sizeof(ro), .tx_queue = 0,
                                .packet_memory = mapped ? pool : NULL};
  struct ebpf_gpu_rx *rx = ebpf_gpu_rx__install(0, 0, prog, &ro);
  if (!rx)
    return fail("rx callback", strerror(errno));
  printf("%s (%s) on port 0, passes %s\n", ebpf_gpu_prog__name(prog),
         ebpf_gpu_prog__backend(prog), ports > 1 ? "out port 1" : "counted");
  fflush(stdout);

  signal(SIGINT, on_signal);
  signal(SIGTERM, on_signal);
  uint64_t passed = 0, pass_failed = 0, seen = 0;
  uint64_t last = rte_get_timer_cycles(), hz = rte_get_timer_hz();
  struct ebpf_gpu_rx_counters c;
  while (!force_quit) {
    struct rte_mbuf *bufs[BURST];
    uint16_t n = rte_eth_rx_burst(0, 0, bufs, BURST);
    /* Packets the program took count as activity too. */
    ebpf_gpu_rx__counters(rx, &c);
    uint64_t now_seen = c.invalid + c.run_failed + c.multi_seg;
    for (int a = 0; a < 5; ++a)
      now_seen += c.action[a];
    if (now_seen != seen) {
      seen = now_seen;
      last = rte_get_timer_cycles();
    } else if (idle_ms && seen && rte_get_timer_cycles() - last > idle_ms * hz / 1000) {
      break;
    }
    if (unlikely(n == 0))
      continue;
    passed += n;
    uint16_t sent = ports > 1 ? rte_eth_tx_burst(1, 0, bufs, n) : 0;
    for (uint16_t i = sent; i < n; ++i)
      rte_pktmbuf_free(bufs[i]);
    if (ports > 1)
      pass_failed += n - sent;
  }

  /* Off the queue (from the rx thread itself: nothing in flight), then the
   * ports stopped (net_pcap writes its files) and closed. */
  if (ebpf_gpu_rx__remove(rx, &c) < 0)
    return fail("rx callback", "cannot remove it");
  /* Packets the program ran where the mbufs hold them, nothing copied. */
  uint64_t in_place = ebpf_gpu_prog__packets_in_place(prog);
  ebpf_gpu_prog__close(prog);
  for (uint16_t p = 0; p < ports && p < 2; ++p) {
    rte_eth_dev_stop(p);
    rte_eth_dev_close(p);
  }
  static const char *names[5] = {"XDP_ABORTED", "XDP_DROP", "XDP_PASS", "XDP_TX", "XDP_REDIRECT"};
  for (int a = 0; a < 5; ++a)
    printf("%s %llu\n", names[a], (unsigned long long)c.action[a]);
  printf("invalid %llu\ntx_failed %llu\nredirect_failed %llu\nrun_failed %llu\n"
         "multi_seg %llu\npassed %llu\npass_failed %llu\nin_place %llu\n",
         (unsigned long long)c.invalid, (unsigned long long)c.tx_failed,
         (unsigned long long)c.redirect_failed, (unsigned long long)c.run_failed,
         (unsigned long long)c.multi_seg, (unsigned long long)passed,
         (unsigned long long)pass_failed, (unsigned long long)in_place);
  rte_eal_cleanup();
  return 0;
}

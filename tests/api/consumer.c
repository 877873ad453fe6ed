/* SPDX-License-Identifier: Apache-2.0
 *
 * A program built against an installed libebpf-gpu (tests/api/install.sh):
 * loads samples' objects through the C API on the host back end, runs
 * bursts of hand-made packets and checks each verdict, the bytes a program
 * rewrote, the headroom bpf_xdp_adjust_head takes, the maps (lookup,
 * update, delete, walk) and the errors; with OBJ-DIR, the test programs
 * compiled there: maps without keys (qsb.o: tests/lit/loader/
 * queue-stack-bloom.c), adjust_meta's bytes and the ingress a burst says
 * it came from (xdp_ctx.o: tests/api/xdp_ctx.c), and .gpu.o files opened
 * (their maps known before load, the host back end refused). With --gpu,
 * the same checks on the GPU back end over DIR's .gpu.o files (made by
 * scripts/gpu-check.sh prepare-api; adjust_meta's bytes are not checked:
 * the GPU back end does not return the headroom), against a library built
 * without the compiler, whose refusal of an eBPF object --no-compiler
 * checks alone (no GPU needed). Prints one line per check; exits 1 at the
 * first failure.
 *   consumer SAMPLES-DIR [OBJ-DIR]
 *   consumer --gpu DIR
 *   consumer --no-compiler DIR
 */
#include <ebpf-gpu/ebpf-gpu.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      printf("FAIL: " __VA_ARGS__);                                                                \
      printf(" (%s; last error: %s)\n", #cond, ebpf_gpu_last_error());                             \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

enum { XDP_ABORTED, XDP_DROP, XDP_PASS, XDP_TX, XDP_REDIRECT };

/* An Ethernet + IPv4 + UDP/TCP frame from `saddr` (first octet) to `dport`. */
static uint32_t frame(uint8_t *f, uint8_t proto, uint8_t src0, uint16_t dport) {
  memset(f, 0, 64);
  static const uint8_t dst[6] = {2, 0, 0, 0, 0, 1}, src[6] = {2, 0, 0, 0, 0, 2};
  memcpy(f, dst, 6);
  memcpy(f + 6, src, 6);
  f[12] = 0x08, f[13] = 0x00;           /* IPv4 */
  f[14] = 0x45, f[16] = 0, f[17] = 46;  /* 20 + 26 bytes */
  f[22] = 64, f[23] = proto;
  f[26] = src0, f[27] = 1, f[28] = 2, f[29] = 3;
  f[30] = 192, f[31] = 168, f[32] = 0, f[33] = 1;
  f[34] = 0x30, f[35] = 0x39;           /* source port 12345 */
  f[36] = (uint8_t)(dport >> 8), f[37] = (uint8_t)dport;
  if (proto == 6)
    f[46] = 0x50;                       /* TCP data offset */
  return 60;
}

/* The back end the checks run on: the host's over eBPF objects, or the
 * GPU's over .gpu.o files. */
static int on_gpu;

/* NAME.o on the host, NAME.gpu.o on the GPU, from `dir`. */
static struct ebpf_gpu_prog *load(const char *dir, const char *name) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/%s%s", dir, name, on_gpu ? ".gpu.o" : ".o");
  struct ebpf_gpu_load_opts o = {
      .sz = sizeof(o), .backend = on_gpu ? EBPF_GPU_BACKEND_GPU : EBPF_GPU_BACKEND_HOST};
  struct ebpf_gpu_prog *p = ebpf_gpu_prog__load(path, &o);
  CHECK(p, "load %s", path);
  CHECK(strcmp(ebpf_gpu_prog__backend(p), on_gpu ? "gpu" : "host") == 0, "%s: back end", name);
  return p;
}

/* The whole file at `path` in memory of its own (free it); its size in `*n`. */
static void *read_file(const char *path, size_t *n) {
  FILE *f = fopen(path, "rb");
  CHECK(f, "open %s", path);
  fseek(f, 0, SEEK_END);
  *n = (size_t)ftell(f);
  rewind(f);
  void *b = malloc(*n);
  CHECK(b && fread(b, 1, *n, f) == *n, "read %s", path);
  fclose(f);
  return b;
}

/* A .gpu.o opened (from its file, then from memory): its program and maps
 * known before load, the map calls and its global data's bytes refused
 * until then (they are compiled in), a program it does not hold refused;
 * then loaded on the GPU (`gpu`: a .bss counter that a .data value set
 * after load adds to, the map counting per protocol), or, without a GPU,
 * the host back end refused (GPU code only). */
static void open_gpu_object(const char *dir, int gpu) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/xdp_config_count.gpu.o", dir);
  size_t size;
  void *bytes = read_file(path, &size);
  for (int from_mem = 0; from_mem < 2; ++from_mem) {
    struct ebpf_gpu_load_opts o = {
        .sz = sizeof(o), .backend = gpu ? EBPF_GPU_BACKEND_DEFAULT : EBPF_GPU_BACKEND_HOST};
    struct ebpf_gpu_prog *p = from_mem ? ebpf_gpu_prog__open_mem(bytes, size, "embedded.gpu.o", &o)
                                       : ebpf_gpu_prog__open(path, &o);
    CHECK(p && strcmp(ebpf_gpu_prog__name(p), "xdp_config_count") == 0 &&
              !ebpf_gpu_prog__backend(p),
          "open the .gpu.o%s", from_mem ? " from memory" : "");
    struct ebpf_gpu_map *m = ebpf_gpu_prog__find_map_by_name(p, "proto_count");
    CHECK(m && ebpf_gpu_map__key_size(m) == 4 && ebpf_gpu_map__value_size(m) == 8 &&
              ebpf_gpu_map__max_entries(m) == 256 && ebpf_gpu_map__type(m) == 2,
          "opened .gpu.o: proto_count's shape");
    uint32_t key = 17;
    uint64_t v = 0;
    CHECK(ebpf_gpu_map__lookup_elem(m, &key, 4, &v, 8, 0) == -EINVAL &&
              strstr(ebpf_gpu_last_error(), "opened, not loaded"),
          "opened .gpu.o: lookup before load refused");
    struct ebpf_gpu_map *bss = ebpf_gpu_prog__find_map_by_name(p, ".bss");
    struct ebpf_gpu_map *ctl = ebpf_gpu_prog__find_map_by_name(p, ".data.ctl");
    CHECK(bss && ctl && !ebpf_gpu_map__data(bss, NULL) && errno == EOPNOTSUPP &&
              strstr(ebpf_gpu_last_error(), "compiled in"),
          "opened .gpu.o: global data's bytes refused before load");
    /* Its shapes are compiled into its code: not settable, nothing changed. */
    CHECK(ebpf_gpu_map__set_max_entries(m, 512) == -EOPNOTSUPP && errno == EOPNOTSUPP &&
              strstr(ebpf_gpu_last_error(), "compiled into its code") &&
              ebpf_gpu_map__set_value_size(m, 16) == -EOPNOTSUPP &&
              ebpf_gpu_map__set_key_size(m, 8) == -EOPNOTSUPP &&
              ebpf_gpu_map__max_entries(m) == 256 && ebpf_gpu_map__value_size(m) == 8,
          "opened .gpu.o: map shapes refused");
    /* Its .data.ctl takes bytes before load (written into the map by the
     * load), its .rodata does not (folded into its code). */
    uint32_t gen4 = 4;
    uint8_t ro[64] = {0};
    struct ebpf_gpu_map *rodata = ebpf_gpu_prog__find_map_by_name(p, ".rodata");
    CHECK(rodata && ebpf_gpu_map__value_size(rodata) <= sizeof(ro) &&
              ebpf_gpu_map__set_initial_value(rodata, ro, ebpf_gpu_map__value_size(rodata)) ==
                  -EOPNOTSUPP &&
              ebpf_gpu_map__set_initial_value(ctl, &gen4, sizeof(gen4)) == 0,
          "opened .gpu.o: initial values");
    if (!gpu) {
      CHECK(ebpf_gpu_prog__load_opened(p) == -EINVAL &&
                strstr(ebpf_gpu_last_error(), "GPU code only") && !ebpf_gpu_prog__backend(p),
            "opened .gpu.o: the host back end refused");
      printf("opened .gpu.o%s: maps known, %s\n", from_mem ? " (memory)" : "",
             ebpf_gpu_last_error());
      ebpf_gpu_prog__close(p);
      continue;
    }
    CHECK(ebpf_gpu_prog__load_opened(p) == 0 && strcmp(ebpf_gpu_prog__backend(p), "gpu") == 0,
          "opened .gpu.o loaded on the GPU");
    CHECK(ebpf_gpu_map__set_max_entries(m, 512) == -EBUSY, "loaded .gpu.o: map shapes -EBUSY");
    size_t n = 0;
    uint64_t *counters = ebpf_gpu_map__data(bss, &n);
    uint32_t *generation = ebpf_gpu_map__data(ctl, NULL);
    CHECK(counters && n == 32 && counters[0] == 0 && generation && *generation == 4,
          "loaded .gpu.o: .bss as compiled, .data.ctl as set before load");
    *generation = 5;
    uint8_t buf[3][128];
    struct ebpf_gpu_packet pk[3];
    for (int i = 0; i < 3; ++i)
      pk[i] = (struct ebpf_gpu_packet){buf[i], frame(buf[i], i == 2 ? 6 : 17, 192, 9), 128, 99, 0};
    CHECK(ebpf_gpu_prog__run_burst(p, pk, 3) == 3 && pk[0].verdict == XDP_PASS, "config count burst");
    CHECK(counters[0] == 15 && counters[1] == 0 && counters[2] == 180, ".bss after the burst: "
          "packets %llu, bytes %llu", (unsigned long long)counters[0],
          (unsigned long long)counters[2]);
    CHECK(ebpf_gpu_map__lookup_elem(m, &key, 4, &v, 8, 0) == 0 && v == 2, "UDP count %llu",
          (unsigned long long)v);
    printf("opened .gpu.o%s on the GPU: packets %llu (generation 5 set after load)\n",
           from_mem ? " (memory)" : "", (unsigned long long)counters[0]);
    ebpf_gpu_prog__close(p);
  }
  struct ebpf_gpu_load_opts o = {.sz = sizeof(o), .program = "no_such_program"};
  CHECK(!ebpf_gpu_prog__open(path, &o) && errno == EINVAL &&
            strstr(ebpf_gpu_last_error(), "holds program 'xdp_config_count'"),
        "a program the .gpu.o does not hold refused");
  printf("other program: %s\n", ebpf_gpu_last_error());
  free(bytes);
}

/* A library built without the compiler refuses an eBPF object, whichever
 * way it comes, with one message (and still opens a .gpu.o). */
static void no_compiler(const char *dir) {
  char path[4096];
  snprintf(path, sizeof(path), "%s/xdp_port_filter.o", dir);
  const char *why = "built without the compiler: compile with ebpf-gpu-cc first";
  CHECK(!ebpf_gpu_prog__load(path, NULL) && errno == EOPNOTSUPP &&
            strstr(ebpf_gpu_last_error(), why),
        "load of an eBPF object without the compiler");
  CHECK(!ebpf_gpu_prog__open(path, NULL) && errno == EOPNOTSUPP &&
            strstr(ebpf_gpu_last_error(), why),
        "open of an eBPF object without the compiler");
  size_t size;
  void *bytes = read_file(path, &size);
  CHECK(!ebpf_gpu_prog__open_mem(bytes, size, "skeleton", NULL) && errno == EOPNOTSUPP &&
            strstr(ebpf_gpu_last_error(), why),
        "open_mem of an eBPF object without the compiler");
  free(bytes);
  printf("without the compiler: %s\n", ebpf_gpu_last_error());
}

int main(int argc, char **argv) {
  if (argc == 3 && strcmp(argv[1], "--no-compiler") == 0) {
    no_compiler(argv[2]);
    open_gpu_object(argv[2], 0);
    return 0;
  }
  on_gpu = argc == 3 && strcmp(argv[1], "--gpu") == 0;
  if ((argc != 2 && argc != 3) || (argc == 3 && argv[2][0] == '-')) {
    fprintf(stderr, "usage: consumer SAMPLES-DIR [OBJ-DIR]\n"
                    "       consumer --gpu DIR\n"
                    "       consumer --no-compiler DIR\n");
    return 2;
  }
  /* DIR has the samples and the test programs, as .gpu.o files. */
  const char *dir = on_gpu ? argv[2] : argv[1];
  const char *objs = on_gpu || argc == 3 ? argv[argc - 1] : NULL;
  uint8_t buf[4][128];
  struct ebpf_gpu_packet pk[4];

  /* The port filter: UDP 53 and TCP 80 dropped, from 10/8 passed. */
  struct ebpf_gpu_prog *pf = load(dir, "xdp_port_filter");
  uint8_t protos[4] = {17, 6, 6, 17};
  uint8_t srcs[4] = {192, 192, 10, 192};
  uint16_t ports[4] = {53, 80, 80, 5353};
  int want[4] = {XDP_DROP, XDP_DROP, XDP_PASS, XDP_PASS};
  for (int i = 0; i < 4; ++i)
    pk[i] = (struct ebpf_gpu_packet){buf[i], frame(buf[i], protos[i], srcs[i], ports[i]), 128, 99, 0};
  CHECK(ebpf_gpu_prog__run_burst(pf, pk, 4) == 4, "port filter burst");
  for (int i = 0; i < 4; ++i)
    CHECK(pk[i].verdict == (uint32_t)want[i], "port filter packet %d: verdict %u", i, pk[i].verdict);
  printf("port filter: 4 verdicts as expected\n");
  ebpf_gpu_prog__close(pf);

  /* The MAC-swap reflector: XDP_TX with the addresses swapped. */
  struct ebpf_gpu_prog *ms = load(dir, "xdp_mac_swap");
  pk[0] = (struct ebpf_gpu_packet){buf[0], frame(buf[0], 17, 192, 7), 128, 99, 0};
  CHECK(ebpf_gpu_prog__run_burst(ms, pk, 1) == 1 && pk[0].verdict == XDP_TX, "mac swap verdict");
  CHECK(buf[0][5] == 2 && buf[0][11] == 1 && pk[0].len == 60, "mac swap bytes");
  printf("mac swap: XDP_TX, addresses swapped\n");
  ebpf_gpu_prog__close(ms);

  /* Headroom: the VLAN tagger pushes 4 bytes in front (adjust_head -4):
   * `data` moves back into the headroom, which shrinks, and the cap grows;
   * the untagger pops them (adjust_head 4), moving `data` on. */
  struct ebpf_gpu_prog *vl = load(dir, "xdp_vlan");
  uint8_t room[256], *at = room + 64;
  pk[0] = (struct ebpf_gpu_packet){at, frame(at, 17, 192, 7), 192, 99, 0, 64};
  CHECK(ebpf_gpu_prog__run_burst(vl, pk, 1) == 1 && pk[0].verdict == XDP_TX, "vlan push verdict");
  CHECK(pk[0].data == at - 4 && pk[0].len == 64 && pk[0].headroom == 60 && pk[0].cap == 196,
        "vlan push moved data back 4 (%td, len %u, headroom %u, cap %u)", pk[0].data - at,
        pk[0].len, pk[0].headroom, pk[0].cap);
  CHECK(at[-4 + 12] == 0x81 && at[-4 + 13] == 0x00 && at[-4 + 15] == 100 && at[-4 + 16] == 0x08 &&
            at[-4 + 5] == 1 && at[-4 + 11] == 2 && at[-4 + 18] == 0x45,
        "vlan push bytes");
  CHECK(ebpf_gpu_prog__run_burst(vl, pk, 1) == 1 && pk[0].verdict == XDP_PASS, "vlan pop verdict");
  CHECK(pk[0].data == at && pk[0].len == 60 && pk[0].headroom == 64 && pk[0].cap == 192 &&
            at[12] == 0x08 && at[14] == 0x45,
        "vlan pop moved data on 4");
  printf("headroom: vlan push and pop move data\n");
  /* The program sees each packet's own headroom, less the 40 bytes the
   * kernel keeps for its xdp_frame: adjust_head past it fails (-EINVAL),
   * as on a driver that gives less than XDP's 256, and the tagger aborts,
   * the packet as it was. 44 bytes take the 4-byte tag, 43 do not; so on
   * a copy (cap 192) and in place on the host (cap 700: the stride's room),
   * on every back end alike. */
  static uint8_t tight[1024];
  const uint32_t heads[] = {2, 43, 44, 44, 43}, caps[] = {192, 192, 192, 700, 700};
  for (int k = 0; k < 5; ++k) {
    uint8_t *p = tight + 300;
    pk[0] = (struct ebpf_gpu_packet){p, frame(p, 17, 192, 7), caps[k], 99, 0, heads[k]};
    const int fits = heads[k] >= 44;
    CHECK(ebpf_gpu_prog__run_burst(vl, pk, 1) == 1 &&
              pk[0].verdict == (fits ? XDP_TX : XDP_ABORTED) && pk[0].data == p - (fits ? 4 : 0) &&
              pk[0].len == (fits ? 64u : 60u) && pk[0].headroom == heads[k] - (fits ? 4 : 0) &&
              p[(fits ? -4 : 0) + 12] == (fits ? 0x81 : 0x08),
          "vlan push with %u bytes of headroom, cap %u: verdict %u, moved %td, len %u, "
          "headroom %u", heads[k], caps[k], pk[0].verdict, pk[0].data - p, pk[0].len,
          pk[0].headroom);
  }
  printf("headroom: a packet's own, 44 bytes take a tag, 43 do not\n");
  if (!on_gpu) {
    /* With XDP's room around it (256 bytes of headroom, and a cap past the
     * batch's tailroom), a packet runs where it is on the host: the
     * headroom bytes the program does not write stay as they were (a copy
     * would bring back its own). */
    static uint8_t big[1024];
    uint8_t *in = big + 300;
    memset(big, 0xa5, sizeof(big));
    pk[0] = (struct ebpf_gpu_packet){in, frame(in, 17, 192, 7), 700, 99, 0, 300};
    CHECK(ebpf_gpu_prog__run_burst(vl, pk, 1) == 1 && pk[0].verdict == XDP_TX &&
              pk[0].data == in - 4 && pk[0].len == 64 && pk[0].headroom == 296 &&
              pk[0].cap == 704 && in[-4 + 12] == 0x81,
          "vlan push in place (%td, len %u, headroom %u, cap %u)", pk[0].data - in, pk[0].len,
          pk[0].headroom, pk[0].cap);
    CHECK(big[0] == 0xa5 && in[-5] == 0xa5 && in[-300] == 0xa5, "the headroom kept its bytes");
    printf("headroom: in place with XDP's room\n");
    /* A burst in place with prefetch (API version 11): each packet's
     * outcome and bytes as without it. */
    static uint8_t with[4][1024], without[4][1024];
    struct ebpf_gpu_packet pw[4], po[4];
    for (int k = 0; k < 4; ++k) {
      memset(with[k], k, sizeof(with[k]));
      pw[k] = (struct ebpf_gpu_packet){with[k] + 300, frame(with[k] + 300, 17, 192, 7 + k), 700,
                                       99, 0, 300};
      memcpy(without[k], with[k], sizeof(with[k]));
      po[k] = pw[k];
      po[k].data = without[k] + 300;
    }
    struct ebpf_gpu_run_opts pf = {.sz = sizeof(pf), .prefetch = 2};
    CHECK(ebpf_gpu_prog__run_burst_opts(vl, pw, 4, &pf) == 4 &&
              ebpf_gpu_prog__run_burst(vl, po, 4) == 4,
          "bursts with and without prefetch");
    for (int k = 0; k < 4; ++k)
      CHECK(pw[k].verdict == po[k].verdict && pw[k].len == po[k].len &&
                pw[k].data - with[k] == po[k].data - without[k] &&
                pw[k].headroom == po[k].headroom && pw[k].cap == po[k].cap &&
                memcmp(with[k], without[k], sizeof(with[k])) == 0,
            "packet %d: the same outcome with prefetch", k);
    printf("headroom: a burst in place with prefetch 2 as without\n");
  }
  ebpf_gpu_prog__close(vl);

  if (objs && !on_gpu) {
    /* Metadata: adjust_meta's bytes land just before `data`, which stays. */
    char ctx[4096];
    snprintf(ctx, sizeof(ctx), "%s/xdp_ctx.o", objs);
    struct ebpf_gpu_load_opts mo = {
        .sz = sizeof(mo), .program = "xdp_meta", .backend = EBPF_GPU_BACKEND_HOST};
    struct ebpf_gpu_prog *me = ebpf_gpu_prog__load(ctx, &mo);
    CHECK(me, "load xdp_meta");
    memset(room, 0, sizeof(room));
    pk[0] = (struct ebpf_gpu_packet){at, frame(at, 17, 192, 7), 192, 99, 0, 64};
    CHECK(ebpf_gpu_prog__run_burst(me, pk, 1) == 1 && pk[0].verdict == XDP_PASS, "meta verdict");
    uint32_t meta;
    memcpy(&meta, at - 4, 4);
    CHECK(pk[0].data == at && pk[0].len == 60 && meta == 0xfeedf00d, "meta before data (%08x)",
          meta);
    printf("metadata: %08x before the packet\n", meta);
    ebpf_gpu_prog__close(me);

    /* Tailroom: the packet's own, to its cap (at most a copy's): 100 bytes
     * more fit a cap of 160, not one of 159; the program's adjust_tail
     * fails there and it aborts, the packet as it was, the burst run. */
    struct ebpf_gpu_load_opts go = {
        .sz = sizeof(go), .program = "xdp_grow", .backend = EBPF_GPU_BACKEND_HOST};
    struct ebpf_gpu_prog *gr = ebpf_gpu_prog__load(ctx, &go);
    CHECK(gr, "load xdp_grow");
    const uint32_t gcaps[] = {192, 160, 159};
    for (int k = 0; k < 3; ++k) {
      pk[0] = (struct ebpf_gpu_packet){at, frame(at, 17, 192, 7), gcaps[k], 99, 0, 64};
      const int fits = gcaps[k] >= 160;
      CHECK(ebpf_gpu_prog__run_burst(gr, pk, 1) == 1 &&
                pk[0].verdict == (fits ? XDP_PASS : XDP_ABORTED) && pk[0].data == at &&
                pk[0].len == (fits ? 160u : 60u) && pk[0].cap == gcaps[k],
            "grow 100 with cap %u: verdict %u, len %u (%s)", gcaps[k], pk[0].verdict, pk[0].len,
            ebpf_gpu_last_error());
    }
    printf("tailroom: a packet's own, 100 bytes grown to a cap of 160, not 159\n");
    ebpf_gpu_prog__close(gr);
  }

  if (objs) {
    /* Ingress: ctx->ingress_ifindex and rx_queue_index from the run's
     * opts, 0 and 0 without; a newer caller's unknown field is refused. */
    char ctx[4096];
    snprintf(ctx, sizeof(ctx), "%s/%s", objs, on_gpu ? "xdp_ingress.gpu.o" : "xdp_ctx.o");
    struct ebpf_gpu_load_opts mo = {.sz = sizeof(mo), .program = "xdp_ingress",
                                    .backend = on_gpu ? EBPF_GPU_BACKEND_GPU : EBPF_GPU_BACKEND_HOST};
    struct ebpf_gpu_prog *in = ebpf_gpu_prog__load(ctx, &mo);
    CHECK(in, "load xdp_ingress");
    struct ebpf_gpu_run_opts ro = {.sz = sizeof(ro), .ingress_ifindex = 5, .rx_queue_index = 2};
    pk[0] = (struct ebpf_gpu_packet){buf[0], frame(buf[0], 17, 192, 7), 128, 99, 0, 0};
    CHECK(ebpf_gpu_prog__run_burst_opts(in, pk, 1, &ro) == 1 && pk[0].verdict == XDP_PASS,
          "ingress 5, queue 2: verdict %u", pk[0].verdict);
    CHECK(ebpf_gpu_prog__run_burst(in, pk, 1) == 1 && pk[0].verdict == XDP_DROP,
          "no ingress: verdict %u", pk[0].verdict);
    struct {
      struct ebpf_gpu_run_opts o;
      uint32_t later;
    } newer = {{.sz = sizeof(newer)}, 1};
    CHECK(ebpf_gpu_prog__run_burst_opts(in, pk, 1, &newer.o) == -EINVAL &&
              strstr(ebpf_gpu_last_error(), "ebpf_gpu_run_opts has fields"),
          "unknown run option refused");
    printf("ingress: ifindex and queue from the run's options\n");
    ebpf_gpu_prog__close(in);
  }

  /* Per-protocol counters: the array map through lookup, update, walk. */
  struct ebpf_gpu_prog *pc = load(dir, "xdp_proto_count");
  struct ebpf_gpu_map *m = ebpf_gpu_prog__find_map_by_name(pc, "proto_counters");
  CHECK(m, "find proto_counters");
  CHECK(ebpf_gpu_map__key_size(m) == 4 && ebpf_gpu_map__value_size(m) == 16 &&
            ebpf_gpu_map__max_entries(m) == 256 && ebpf_gpu_map__type(m) == 2,
        "proto_counters' shape");
  for (int i = 0; i < 3; ++i)
    pk[i] = (struct ebpf_gpu_packet){buf[i], frame(buf[i], i == 2 ? 6 : 17, 192, 9), 128, 99, 0};
  CHECK(ebpf_gpu_prog__run_burst(pc, pk, 3) == 3, "proto count burst");
  uint32_t key = 17;
  uint64_t v[2];
  CHECK(ebpf_gpu_map__lookup_elem(m, &key, 4, v, 16, 0) == 0 && v[0] == 2 && v[1] == 120,
        "UDP counter: %llu packets %llu bytes", (unsigned long long)v[0], (unsigned long long)v[1]);
  key = 6;
  uint64_t set[2] = {1000, 2000};
  CHECK(ebpf_gpu_map__update_elem(m, &key, 4, set, 16, 0) == 0, "update TCP counter");
  CHECK(ebpf_gpu_prog__run_burst(pc, pk + 2, 1) == 1, "proto count burst 2");
  CHECK(ebpf_gpu_map__lookup_elem(m, &key, 4, v, 16, 0) == 0 && v[0] == 1001 && v[1] == 2060,
        "TCP counter after update and a packet");
  uint32_t k, next, n = 0;
  int rc;
  errno = 0;
  for (rc = ebpf_gpu_map__get_next_key(m, NULL, &next, 4); rc == 0;
       rc = ebpf_gpu_map__get_next_key(m, &k, &next, 4)) {
    CHECK(next == n, "walk order at %u", n);
    k = next;
    ++n;
  }
  CHECK(n == 256 && rc == -ENOENT && errno == ENOENT, "walk covers 256 keys (%u), then -ENOENT", n);
  printf("proto count: counters read, updated and walked (%u keys)\n", n);

  /* Errors: negative errno and one message. */
  CHECK(ebpf_gpu_map__lookup_elem(m, &key, 2, v, 16, 0) == -EINVAL &&
            strstr(ebpf_gpu_last_error(), "the key has 4 bytes, not 2"),
        "short key refused");
  CHECK(ebpf_gpu_map__delete_elem(m, &key, 4, 0) == -EINVAL, "delete from an array refused");
  key = 256;
  CHECK(ebpf_gpu_map__lookup_elem(m, &key, 4, v, 16, 0) == -ENOENT, "index past the array");
  CHECK(!ebpf_gpu_prog__find_map_by_name(pc, "nope") && errno == ENOENT, "unknown map");
  printf("errors: %s\n", ebpf_gpu_last_error());
  ebpf_gpu_prog__close(pc);

  /* Maps without keys take a NULL key of 0 bytes, as the kernel's system
   * calls: a queue's update pushes, its lookup peeks, its delete and walk
   * are -EINVAL; a bloom filter's lookup and delete -EOPNOTSUPP. */
  if (objs) {
    struct ebpf_gpu_prog *qp = load(objs, "qsb");
    struct ebpf_gpu_map *q = ebpf_gpu_prog__find_map_by_name(qp, "q");
    CHECK(q && ebpf_gpu_map__key_size(q) == 0 && ebpf_gpu_map__type(q) == 22, "queue q");
    for (uint32_t x = 1; x <= 3; ++x)
      CHECK(ebpf_gpu_map__update_elem(q, NULL, 0, &x, 4, 0) == 0, "push %u", x);
    uint32_t x = 4, got = 0;
    CHECK(ebpf_gpu_map__update_elem(q, NULL, 0, &x, 4, 0) == -E2BIG, "push into a full queue");
    CHECK(ebpf_gpu_map__lookup_elem(q, NULL, 0, &got, 4, 0) == 0 && got == 1, "peek: %u", got);
    CHECK(ebpf_gpu_map__delete_elem(q, NULL, 0, 0) == -EINVAL, "queue delete refused");
    CHECK(ebpf_gpu_map__get_next_key(q, NULL, &got, 0) == -EINVAL, "queue walk refused");
    struct ebpf_gpu_map *bf = ebpf_gpu_prog__find_map_by_name(qp, "bf");
    CHECK(bf && ebpf_gpu_map__update_elem(bf, NULL, 0, &x, 4, 0) == 0, "bloom filter push");
    CHECK(ebpf_gpu_map__lookup_elem(bf, NULL, 0, &got, 4, 0) == -EOPNOTSUPP,
          "bloom filter lookup refused");
    CHECK(ebpf_gpu_map__delete_elem(bf, NULL, 0, 0) == -EOPNOTSUPP, "bloom filter delete refused");
    printf("queue and bloom filter: pushed, peeked, the rest refused as by the kernel\n");
    ebpf_gpu_prog__close(qp);
  }

  if (objs)
    open_gpu_object(objs, on_gpu);
  if (on_gpu)
    no_compiler(objs);

  struct ebpf_gpu_load_opts o = {.sz = sizeof(o), .program = "no_such_program"};
  char path[4096];
  snprintf(path, sizeof(path), "%s/xdp_port_filter%s", dir, on_gpu ? ".gpu.o" : ".o");
  CHECK(!ebpf_gpu_prog__load(path, &o) && errno == EINVAL, "unknown program refused");
  printf("unknown program: %s\n", ebpf_gpu_last_error());
  CHECK(!ebpf_gpu_prog__load("/nonexistent.o", NULL) && errno == ENOENT, "missing file");
  printf("missing file: %s\n", ebpf_gpu_last_error());
  return 0;
}

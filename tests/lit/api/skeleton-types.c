// Skeleton structs from BTF for the C types global data holds: typedefs
// of anonymous structs, unions, nested anonymous members, bitfields,
// arrays of arrays, pointers (to structs declared only, to functions),
// enums of 1 and 8 bytes, gaps the compiler would not leave (a variable
// aligned past its type's alignment), a packed struct, _Bool. The header
// checks its own layout as it is compiled (every struct's size, every
// variable's offset), as C99 and as C++.
// REQUIRES: libebpf-gpu
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang-bpf -c %s -o %t/types.o
// RUN: ebpf-gpu-cc --emit=skeleton %t/types.o -o %t/types.skel.h 2>%t/notes
// RUN: FileCheck %s < %t/types.skel.h
// RUN: not grep . %t/notes
// RUN: echo '#include "types.skel.h"' > %t/use.c
// RUN: cc -std=c99 -pedantic -Wall -Werror -Wno-error=pedantic %api-cflags -I%t -c %t/use.c -o %t/use-c.o
// RUN: c++ -std=c++17 -Wall -Werror %api-cflags -I%t -x c++ -c %t/use.c -o %t/use-cxx.o

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

typedef struct {
  __u16 port;
  __u8 proto;
} flow_key_t;

struct node; // declared only: pointers to it
struct peer {
  struct node *next;
  int (*cb)(int);
  union {
    __u32 addr4;
    __u8 addr6[16];
  } addr;
  struct {
    __u8 flags : 3;
    __u8 kind : 5;
  };
};

enum __attribute__((packed)) small { SMALL_A = 1, SMALL_B = 200 };
enum big { BIG_A = 1, BIG_B = 0x100000000ULL };

struct __attribute__((packed)) wire {
  __u8 tag;
  __u32 value;
};

flow_key_t keys[4] = {{80, 6}};
struct peer peers[2][3] = {};
enum small small_one = SMALL_B;
enum big big_one = BIG_B;
struct wire wire = {1, 2};
_Bool enabled = 1;
__u8 spaced __attribute__((aligned(16))) = 7;
const volatile __u64 limits[2] = {10, 20};

SEC("xdp")
int types(struct xdp_md *ctx) { return XDP_PASS; }

char LICENSE[] SEC("license") = "GPL";

// CHECK:      typedef struct {
// CHECK-NEXT:   __u16 port;
// CHECK-NEXT:   __u8 proto;
// CHECK-NEXT: } flow_key_t;
// CHECK:      struct wire {
// CHECK-NEXT:   __u8 tag;
// CHECK-NEXT:   __u32 value;
// CHECK-NEXT: } __attribute__((packed));
// CHECK-NEXT: typedef char ebpf_gpu_size_of_struct_wire[sizeof(struct wire) == 5 ? 1 : -1];
// CHECK:      struct node;
// CHECK:      struct peer {
// CHECK-NEXT:   struct node *next;
// CHECK-NEXT:   void *cb;
// CHECK-NEXT:   union {
// CHECK-NEXT:     __u32 addr4;
// CHECK-NEXT:     __u8 addr6[16];
// CHECK-NEXT:   } addr;
// CHECK-NEXT:   struct {
// CHECK-NEXT:     __u8 flags : 3;
// CHECK-NEXT:     __u8 kind : 5;
// CHECK-NEXT:   };
// CHECK:      struct types_gpu__data {
// CHECK-NEXT:   flow_key_t keys[4];
// CHECK:        unsigned char small_one;
// CHECK:        unsigned long long big_one;
// CHECK:        struct wire wire;
// CHECK:        bool enabled;
// CHECK:        char __pad{{[0-9]+}}[{{[0-9]+}}];
// CHECK-NEXT:   __u8 spaced;
// CHECK-NEXT: };
// CHECK-NEXT: typedef char ebpf_gpu_size_of_struct_types_gpu__data[sizeof(struct types_gpu__data) == 56 ? 1 : -1];
// CHECK:      typedef char ebpf_gpu_offset_of_types_gpu__data_spaced[offsetof(struct types_gpu__data, spaced) == 48 ? 1 : -1];
// CHECK:      struct types_gpu__bss {
// CHECK-NEXT:   struct peer peers[2][3];
// CHECK:      struct types_gpu__rodata {
// CHECK-NEXT:   __u64 limits[2];

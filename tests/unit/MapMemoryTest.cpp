// SPDX-License-Identifier: Apache-2.0
//
// Map semantics through the host's map operations, which run the same C
// code as the programs' helpers on the host and on the GPU: hash limits,
// LRU eviction order, LPM longest-prefix matching, per-CPU copies, and
// the text form of each.

#include "ebpf-gpu/Abi/MapMemory.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>

using namespace ebpfgpu;
using namespace ebpfgpu::abi;

namespace {

std::vector<uint8_t> u32(uint32_t V) {
  std::vector<uint8_t> B(4);
  std::memcpy(B.data(), &V, 4);
  return B;
}

std::vector<uint8_t> u64(uint64_t V) {
  std::vector<uint8_t> B(8);
  std::memcpy(B.data(), &V, 8);
  return B;
}

/// An LPM key for IPv4: prefix length, then the address's bytes.
std::vector<uint8_t> prefix(uint32_t Len, uint8_t A, uint8_t B, uint8_t C, uint8_t D) {
  // Built in place rather than by inserting into u32(Len): GCC 12 at -O2
  // takes the insert's reallocation for a 4-byte overread (-Warray-bounds).
  std::vector<uint8_t> K(8);
  std::memcpy(K.data(), &Len, 4);
  K[4] = A;
  K[5] = B;
  K[6] = C;
  K[7] = D;
  return K;
}

uint64_t value64(const uint8_t *V) {
  uint64_t X;
  std::memcpy(&X, V, 8);
  return X;
}

/// A map block in host memory, as HostMap makes it, with `Slices` CPUs.
struct Block {
  std::vector<uint8_t> Storage;
  MapLayout L;
  Block(const platform::MapShape &S, uint32_t Slices = 1) {
    L = mapLayout(S, Slices, 0);
    Storage.assign(L.Bytes, 0);
    L = mapLayout(S, Slices, reinterpret_cast<uint64_t>(Storage.data()));
  }
  ebpfgpu_map &h() { return L.Header; }
  std::string text() const { return formatMap("m", L, Storage.data()); }
};

TEST(MapMemory, HashIsBoundedByMaxEntries) {
  Block M({EBPFGPU_MAP_HASH, 4, 8, 2, 0});
  EXPECT_EQ(hostMapUpdate(M.h(), u32(1).data(), u64(10).data(), 0), 0);
  EXPECT_EQ(hostMapUpdate(M.h(), u32(2).data(), u64(20).data(), 0), 0);
  EXPECT_EQ(hostMapUpdate(M.h(), u32(3).data(), u64(30).data(), 0), -7); // E2BIG
  EXPECT_EQ(hostMapUpdate(M.h(), u32(2).data(), u64(21).data(), 0), 0);  // replace
  EXPECT_EQ(hostMapUpdate(M.h(), u32(1).data(), u64(11).data(), 1), -17); // NOEXIST: EEXIST
  EXPECT_EQ(hostMapDelete(M.h(), u32(3).data()), -2);                     // ENOENT
  EXPECT_EQ(M.text(), "m{01000000} = 10\nm{02000000} = 21\n");
}

TEST(MapMemory, LruEvictsTheLeastRecentlyUsed) {
  Block M({EBPFGPU_MAP_LRU_HASH, 4, 8, 4, 0});
  for (uint32_t K = 1; K <= 4; ++K)
    ASSERT_EQ(hostMapUpdate(M.h(), u32(K).data(), u64(K).data(), 0), 0);
  // Key 1 is used again; key 2 is now the oldest.
  ASSERT_NE(hostMapLookup(M.h(), u32(1).data()), nullptr);
  EXPECT_EQ(hostMapUpdate(M.h(), u32(5).data(), u64(5).data(), 0), 0);
  EXPECT_EQ(hostMapLookup(M.h(), u32(2).data()), nullptr);
  EXPECT_EQ(M.text(), "m{01000000} = 1\nm{03000000} = 3\nm{04000000} = 4\nm{05000000} = 5\n");
  // Full again: the next insert evicts key 3, the oldest left.
  EXPECT_EQ(hostMapUpdate(M.h(), u32(6).data(), u64(6).data(), 0), 0);
  EXPECT_EQ(hostMapLookup(M.h(), u32(3).data()), nullptr);
  // Many more keys than entries: every insert succeeds, 4 keys stay; what
  // the runs unlinked goes back to the pool between them.
  for (uint32_t K = 100; K < 5000; ++K) {
    ASSERT_EQ(hostMapUpdate(M.h(), u32(K).data(), u64(K).data(), 0), 0) << K;
    reclaimHashMap(M.L, M.Storage.data());
  }
  EXPECT_EQ(M.text(), "m{84130000} = 4996\nm{85130000} = 4997\nm{86130000} = 4998\n"
                      "m{87130000} = 4999\n");
}

TEST(MapMemory, IntegrityCheckFindsBrokenBlocks) {
  Block M({EBPFGPU_MAP_HASH, 4, 8, 64, 0});
  for (uint32_t K = 0; K < 40; ++K)
    ASSERT_EQ(hostMapUpdate(M.h(), u32(K).data(), u64(K).data(), 0), 0);
  for (uint32_t K = 0; K < 40; K += 3)
    ASSERT_EQ(hostMapDelete(M.h(), u32(K).data()), 0);
  ASSERT_EQ(hostMapUpdate(M.h(), u32(1).data(), u64(100).data(), 0), 0);
  EXPECT_FALSE(checkMapIntegrity("m", M.L, M.Storage.data()).has_value());
  reclaimHashMap(M.L, M.Storage.data());
  EXPECT_FALSE(checkMapIntegrity("m", M.L, M.Storage.data()).has_value());
  // A lost element: the pending list forgets its head.
  ASSERT_EQ(hostMapDelete(M.h(), u32(2).data()), 0);
  std::vector<uint8_t> Saved = M.Storage;
  uint32_t Zero = 0;
  std::memcpy(M.Storage.data() + 4 * EBPFGPU_CTL_PENDING, &Zero, 4);
  auto E = checkMapIntegrity("m", M.L, M.Storage.data());
  ASSERT_TRUE(E.has_value());
  EXPECT_EQ(E->message(), "map 'm': 1 elements lost (41 handed out, 25 linked, 15 free or pending)");
  // A wrong live count.
  M.Storage = Saved;
  std::memcpy(M.Storage.data() + 4 * EBPFGPU_CTL_LIVE, &Zero, 4);
  E = checkMapIntegrity("m", M.L, M.Storage.data());
  ASSERT_TRUE(E.has_value());
  EXPECT_EQ(E->message(), "map 'm': 25 elements linked, the live count says 0");
  // A pending list whose tail word is wrong (a reclaim would splice at it).
  M.Storage = Saved;
  std::memcpy(M.Storage.data() + 4 * EBPFGPU_CTL_PENDING_TAIL, &Zero, 4);
  E = checkMapIntegrity("m", M.L, M.Storage.data());
  ASSERT_TRUE(E.has_value());
  EXPECT_EQ(E->message(), "map 'm': the pending list ends at element 2, its tail word says none");
}

TEST(MapMemory, ReclaimSplicesThePendingList) {
  // Deleted elements wait on the pending list (linked through header word
  // 3, its tail kept); one splice puts them all on the free list, whose
  // next allocations take them back: the pool is never exhausted by churn.
  Block M({EBPFGPU_MAP_HASH, 4, 8, 16, 0});
  for (uint32_t Round = 0; Round < 20; ++Round) {
    for (uint32_t K = 0; K < 16; ++K)
      ASSERT_EQ(hostMapUpdate(M.h(), u32(Round * 16 + K).data(), u64(K).data(), 0), 0)
          << "round " << Round << " key " << K;
    for (uint32_t K = 0; K < 16; ++K)
      ASSERT_EQ(hostMapDelete(M.h(), u32(Round * 16 + K).data()), 0);
    ASSERT_FALSE(checkMapIntegrity("m", M.L, M.Storage.data()).has_value());
    reclaimHashMap(M.L, M.Storage.data());
    auto E = checkMapIntegrity("m", M.L, M.Storage.data());
    ASSERT_FALSE(E.has_value()) << E->message();
  }
}

TEST(MapMemory, LpmFindsTheLongestPrefix) {
  platform::MapShape S{EBPFGPU_MAP_LPM_TRIE, 8, 8, 8, 1};
  Block M(S);
  auto Lookup = [&](uint8_t A, uint8_t B, uint8_t C, uint8_t D) -> int64_t {
    const uint8_t *V = hostMapLookup(M.h(), prefix(32, A, B, C, D).data());
    return V ? int64_t(value64(V)) : -1;
  };
  EXPECT_EQ(Lookup(10, 1, 2, 3), -1);
  ASSERT_EQ(hostMapUpdate(M.h(), prefix(8, 10, 0, 0, 0).data(), u64(8).data(), 0), 0);
  ASSERT_EQ(hostMapUpdate(M.h(), prefix(24, 10, 1, 2, 0).data(), u64(24).data(), 0), 0);
  // Bits past the prefix length do not matter: this is 10.1.0.0/16.
  ASSERT_EQ(hostMapUpdate(M.h(), prefix(16, 10, 1, 99, 99).data(), u64(16).data(), 0), 0);
  ASSERT_EQ(hostMapUpdate(M.h(), prefix(32, 10, 1, 2, 3).data(), u64(32).data(), 0), 0);
  EXPECT_EQ(Lookup(10, 1, 2, 3), 32);
  EXPECT_EQ(Lookup(10, 1, 2, 4), 24);
  EXPECT_EQ(Lookup(10, 1, 3, 4), 16);
  EXPECT_EQ(Lookup(10, 9, 3, 4), 8);
  EXPECT_EQ(Lookup(11, 1, 2, 3), -1);
  // A shorter lookup key only matches prefixes at most as long.
  const uint8_t *V = hostMapLookup(M.h(), prefix(20, 10, 1, 2, 3).data());
  ASSERT_NE(V, nullptr);
  EXPECT_EQ(value64(V), 16u);
  // Delete needs the exact prefix.
  EXPECT_EQ(hostMapDelete(M.h(), prefix(24, 10, 1, 2, 77).data()), 0);
  EXPECT_EQ(hostMapDelete(M.h(), prefix(24, 10, 1, 2, 0).data()), -2);
  EXPECT_EQ(Lookup(10, 1, 2, 4), 16);
  // A default route; longer than 32 bits is invalid.
  ASSERT_EQ(hostMapUpdate(M.h(), prefix(0, 0, 0, 0, 0).data(), u64(0xdef).data(), 0), 0);
  EXPECT_EQ(Lookup(11, 1, 2, 3), 0xdef);
  EXPECT_EQ(hostMapUpdate(M.h(), prefix(33, 10, 0, 0, 0).data(), u64(1).data(), 0), -22);
  EXPECT_EQ(M.text(), "m{0000000000000000} = 3567\n"
                      "m{080000000a000000} = 8\n"
                      "m{100000000a010000} = 16\n"
                      "m{200000000a010203} = 32\n");
  // Full: ENOSPC, as the kernel's trie.
  for (uint8_t I = 0; I < 4; ++I)
    ASSERT_EQ(hostMapUpdate(M.h(), prefix(32, 20, 0, 0, I).data(), u64(I).data(), 0), 0);
  EXPECT_EQ(hostMapUpdate(M.h(), prefix(32, 30, 0, 0, 0).data(), u64(1).data(), 0), -28);
}

/// The LPM present-length bitmap of a block (MapAbi.h: ebpfgpu_lpm_present).
uint64_t presentWord(Block &M, uint32_t W) {
  uint64_t X;
  std::memcpy(&X, ebpfgpu_lpm_present(&M.h()) + W, 8);
  return X;
}

TEST(MapMemory, LpmWalksOnlyThePresentLengths) {
  Block M({EBPFGPU_MAP_LPM_TRIE, 8, 8, 16, 1});
  ASSERT_EQ(presentWord(M, 0), 0u);
  ASSERT_EQ(hostMapUpdate(M.h(), prefix(8, 10, 0, 0, 0).data(), u64(8).data(), 0), 0);
  ASSERT_EQ(hostMapUpdate(M.h(), prefix(24, 10, 1, 2, 0).data(), u64(24).data(), 0), 0);
  ASSERT_EQ(hostMapUpdate(M.h(), prefix(24, 10, 1, 3, 0).data(), u64(25).data(), 0), 0);
  // Inserts mark their lengths (a replacement changes nothing).
  EXPECT_EQ(presentWord(M, 0), (1ull << 8) | (1ull << 24));
  ASSERT_EQ(hostMapUpdate(M.h(), prefix(24, 10, 1, 3, 0).data(), u64(26).data(), 0), 0);
  EXPECT_EQ(presentWord(M, 0), (1ull << 8) | (1ull << 24));
  auto Lookup = [&](uint32_t Len, uint8_t A, uint8_t B, uint8_t C) -> int64_t {
    const uint8_t *V = hostMapLookup(M.h(), prefix(Len, A, B, C, 9).data());
    return V ? int64_t(value64(V)) : -1;
  };
  EXPECT_EQ(Lookup(32, 10, 1, 3), 26);
  EXPECT_EQ(Lookup(23, 10, 1, 3), 8); // a key shorter than /24 skips that length
  // A length whose bit is clear is never tried: the lookup follows the
  // bitmap, not the counts.
  uint64_t Only8 = 1ull << 8;
  std::memcpy(ebpfgpu_lpm_present(&M.h()), &Only8, 8);
  EXPECT_EQ(Lookup(32, 10, 1, 3), 8);
  auto Broken = checkMapIntegrity("m", M.L, M.Storage.data());
  ASSERT_TRUE(Broken.has_value());
  EXPECT_EQ(Broken->message(),
            "map 'm': a key of prefix length 24 is linked, but the length is not marked present");
  // reclaimHashMap recomputes the bitmap from the counts.
  reclaimHashMap(M.L, M.Storage.data());
  EXPECT_EQ(presentWord(M, 0), (1ull << 8) | (1ull << 24));
  // Deletes leave the bit (still a superset) until the next reclaim, and
  // the last key of a length clears it there.
  ASSERT_EQ(hostMapDelete(M.h(), prefix(24, 10, 1, 2, 0).data()), 0);
  reclaimHashMap(M.L, M.Storage.data());
  EXPECT_EQ(presentWord(M, 0), (1ull << 8) | (1ull << 24));
  ASSERT_EQ(hostMapDelete(M.h(), prefix(24, 10, 1, 3, 0).data()), 0);
  EXPECT_EQ(presentWord(M, 0), (1ull << 8) | (1ull << 24));
  EXPECT_EQ(Lookup(32, 10, 1, 3), 8);
  EXPECT_FALSE(checkMapIntegrity("m", M.L, M.Storage.data()).has_value());
  reclaimHashMap(M.L, M.Storage.data());
  EXPECT_EQ(presentWord(M, 0), 1ull << 8);
  EXPECT_FALSE(checkMapIntegrity("m", M.L, M.Storage.data()).has_value());
  // The counts must match the keys too.
  uint32_t Wrong = 5;
  std::memcpy(reinterpret_cast<uint8_t *>(M.h().prefix_counts) + 4 * 8, &Wrong, 4);
  Broken = checkMapIntegrity("m", M.L, M.Storage.data());
  ASSERT_TRUE(Broken.has_value());
  EXPECT_EQ(Broken->message(), "map 'm': 1 keys of prefix length 8 linked, its count says 5");
}

uint32_t lpmListWord(Block &M) {
  uint32_t X;
  std::memcpy(&X, reinterpret_cast<uint8_t *>(M.h().control) + 4 * EBPFGPU_CTL_LPM_LIST, 4);
  return X;
}

TEST(MapMemory, LpmPrefixListMatchesTheHashedLookup) {
  Block M({EBPFGPU_MAP_LPM_TRIE, 8, 8, 64, 1});
  EXPECT_EQ(lpmListWord(M), 0u); // a new map: no list (lookups use the buckets)
  // The host's updates keep the list current: longest prefix first.
  const std::vector<std::pair<uint32_t, std::array<uint8_t, 4>>> Routes = {
      {16, {10, 1, 0, 0}}, {24, {10, 1, 2, 0}}, {8, {10, 0, 0, 0}}, {32, {10, 1, 2, 3}},
      {17, {192, 168, 128, 0}}, {0, {0, 0, 0, 0}}};
  for (size_t I = 0; I < Routes.size(); ++I) {
    auto &[Len, A] = Routes[I];
    ASSERT_EQ(hostMapUpdate(M.h(), prefix(Len, A[0], A[1], A[2], A[3]).data(), u64(Len).data(), 0), 0);
    EXPECT_EQ(lpmListWord(M), I + 2);
  }
  const uint8_t *List = ebpfgpu_lpm_list(&M.h());
  const uint32_t Stride = ebpfgpu_lpm_entry_stride(&M.h());
  EXPECT_EQ(Stride, 16u);
  std::vector<uint32_t> Lens;
  for (uint32_t I = 0; I < Routes.size(); ++I) {
    uint32_t L;
    std::memcpy(&L, List + I * Stride, 4);
    Lens.push_back(L);
  }
  EXPECT_EQ(Lens, (std::vector<uint32_t>{32, 24, 17, 16, 8, 0}));
  EXPECT_FALSE(checkMapIntegrity("m", M.L, M.Storage.data()).has_value());
  // A header that says the map is stable (as a program that never changes
  // it sees it) scans the list; it must answer as the buckets do.
  ebpfgpu_map Stable = M.h();
  Stable.stable = 1;
  for (uint32_t Len : {32u, 31u, 24u, 23u, 17u, 16u, 9u, 8u, 0u})
    for (std::array<uint8_t, 4> A : std::vector<std::array<uint8_t, 4>>{
             {10, 1, 2, 3}, {10, 1, 2, 9}, {10, 1, 7, 7}, {10, 9, 9, 9}, {192, 168, 200, 1},
             {192, 168, 1, 1}, {11, 0, 0, 0}}) {
      std::vector<uint8_t> K = prefix(Len, A[0], A[1], A[2], A[3]);
      const uint8_t *ByList = hostMapLookup(Stable, K.data());
      const uint8_t *ByBuckets = hostMapLookup(M.h(), K.data());
      ASSERT_EQ(ByList, ByBuckets) << "/" << Len << " " << int(A[0]) << "." << int(A[1]) << "."
                                   << int(A[2]) << "." << int(A[3]);
    }
  // A replaced value is a new element: the list follows it.
  ASSERT_EQ(hostMapUpdate(M.h(), prefix(24, 10, 1, 2, 0).data(), u64(99).data(), 0), 0);
  EXPECT_EQ(value64(hostMapLookup(Stable, prefix(32, 10, 1, 2, 77).data())), 99u);
  // Past EBPFGPU_LPM_LIST_MAX keys there is no list; back under it, again.
  for (uint8_t I = 0; I < EBPFGPU_LPM_LIST_MAX; ++I)
    ASSERT_EQ(hostMapUpdate(M.h(), prefix(32, 20, 0, 0, I).data(), u64(I).data(), 0), 0);
  EXPECT_EQ(lpmListWord(M), 0u);
  EXPECT_EQ(value64(hostMapLookup(Stable, prefix(32, 20, 0, 0, 5).data())), 5u);
  EXPECT_FALSE(checkMapIntegrity("m", M.L, M.Storage.data()).has_value());
  for (uint8_t I = 0; I < EBPFGPU_LPM_LIST_MAX; ++I)
    ASSERT_EQ(hostMapDelete(M.h(), prefix(32, 20, 0, 0, I).data()), 0);
  EXPECT_EQ(lpmListWord(M), Routes.size() + 1);
  EXPECT_EQ(value64(hostMapLookup(Stable, prefix(32, 20, 0, 0, 5).data())), 0u); // the /0 route
  // The integrity check reads the list: an entry out of order is a fault.
  uint8_t *Mutable = ebpfgpu_lpm_list(&M.h());
  std::swap_ranges(Mutable, Mutable + Stride, Mutable + Stride);
  auto Broken = checkMapIntegrity("m", M.L, M.Storage.data());
  ASSERT_TRUE(Broken.has_value());
  EXPECT_EQ(Broken->message(),
            "map 'm': prefix list entry 1 is not a linked key in longest-first order");
}

TEST(MapMemory, LpmPresentLengthsSpanWords) {
  // IPv6: 129 lengths, three words; /0, /63, /64, /127 and /128 sit at the
  // words' edges.
  Block M({EBPFGPU_MAP_LPM_TRIE, 20, 8, 16, 1});
  auto Key = [](uint32_t Len, uint8_t Last) {
    std::vector<uint8_t> K = u32(Len);
    for (int I = 0; I < 15; ++I)
      K.push_back(0x20);
    K.push_back(Last);
    return K;
  };
  for (uint32_t Len : {0u, 63u, 64u, 127u, 128u})
    ASSERT_EQ(hostMapUpdate(M.h(), Key(Len, 0xff).data(), u64(Len).data(), 0), 0) << Len;
  EXPECT_EQ(presentWord(M, 0), (1ull << 0) | (1ull << 63));
  EXPECT_EQ(presentWord(M, 1), (1ull << 0) | (1ull << 63));
  EXPECT_EQ(presentWord(M, 2), 1ull << 0);
  auto Lookup = [&](uint32_t Len, uint8_t Last, uint8_t First = 0x20) -> int64_t {
    std::vector<uint8_t> K = Key(Len, Last);
    K[4] = First;
    const uint8_t *V = hostMapLookup(M.h(), K.data());
    return V ? int64_t(value64(V)) : -1;
  };
  EXPECT_EQ(Lookup(128, 0xff), 128);
  EXPECT_EQ(Lookup(128, 0xfe), 127);
  EXPECT_EQ(Lookup(127, 0xff), 127);
  EXPECT_EQ(Lookup(126, 0xff), 64);
  EXPECT_EQ(Lookup(64, 0xff), 64);
  EXPECT_EQ(Lookup(63, 0xff), 63);
  EXPECT_EQ(Lookup(128, 0xff, 0x21), 0); // differs in the first byte: the default route
  ASSERT_EQ(hostMapDelete(M.h(), Key(64, 0).data()), 0);
  ASSERT_EQ(hostMapDelete(M.h(), Key(0, 0).data()), 0);
  reclaimHashMap(M.L, M.Storage.data());
  EXPECT_EQ(presentWord(M, 0), 1ull << 63);
  EXPECT_EQ(presentWord(M, 1), 1ull << 63);
  EXPECT_EQ(Lookup(126, 0xff), 63);
  EXPECT_EQ(Lookup(128, 0xff, 0x21), -1);
  EXPECT_FALSE(checkMapIntegrity("m", M.L, M.Storage.data()).has_value());
}

TEST(MapMemory, KeysOfEverySizeCompareWholeAndOnlyTheirBytes) {
  // Keys are hashed and compared in words (8 and 4 bytes, then single
  // bytes): keys that differ in their last byte only stay apart, and the
  // stored key's padding up to 8 bytes is never compared.
  for (uint32_t Size = 1; Size <= 19; ++Size) {
    Block M({EBPFGPU_MAP_HASH, Size, 8, 64, 0});
    std::vector<uint8_t> A(Size, 0x5a), B = A;
    B.back() ^= 1;
    ASSERT_EQ(hostMapUpdate(M.h(), A.data(), u64(1).data(), 0), 0) << Size;
    ASSERT_EQ(hostMapUpdate(M.h(), B.data(), u64(2).data(), 0), 0) << Size;
    const uint8_t *VA = hostMapLookup(M.h(), A.data()), *VB = hostMapLookup(M.h(), B.data());
    ASSERT_NE(VA, nullptr);
    ASSERT_NE(VB, nullptr);
    EXPECT_EQ(value64(VA), 1u) << Size;
    EXPECT_EQ(value64(VB), 2u) << Size;
    // Garbage in the padding of every stored key (an earlier, longer key
    // could leave it in a reused element): lookups still find them.
    uint32_t Stride = M.h().elem_stride, KeyStride = M.h().key_stride;
    for (uint32_t E = 0; E < 2; ++E)
      for (uint32_t Pad = Size; Pad < KeyStride; ++Pad)
        reinterpret_cast<uint8_t *>(M.h().elems)[size_t(E) * Stride + EBPFGPU_ELEM_HEADER + Pad] =
            0xee;
    VA = hostMapLookup(M.h(), A.data());
    ASSERT_NE(VA, nullptr) << Size;
    EXPECT_EQ(value64(VA), 1u);
    EXPECT_FALSE(checkMapIntegrity("m", M.L, M.Storage.data()).has_value());
    std::vector<uint8_t> C = A;
    C[0] ^= 0x80;
    EXPECT_EQ(hostMapLookup(M.h(), C.data()), nullptr) << Size;
  }
}

TEST(MapMemory, FlowKeysSpreadOverTheBuckets) {
  // 4,096 5-tuples of a few hosts and sequential ports (struct flow of
  // samples/xdp_conntrack.c: 16 bytes with padding) in 4,096 buckets: a
  // uniform hash leaves ~37% of the buckets empty and chains of at most
  // ~7; a weak one piles them up.
  Block M({EBPFGPU_MAP_HASH, 16, 8, 4096, 0});
  for (uint32_t I = 0; I < 4096; ++I) {
    uint8_t K[16] = {10, 0, 0, uint8_t(I % 4), 192, 168, 1, uint8_t(I % 3)};
    uint16_t Sport = uint16_t(1024 + I), Dport = 80;
    std::memcpy(K + 8, &Sport, 2);
    std::memcpy(K + 10, &Dport, 2);
    K[12] = 6;
    ASSERT_EQ(hostMapUpdate(M.h(), K, u64(I).data(), 0), 0) << I;
  }
  const auto *Buckets = reinterpret_cast<const uint32_t *>(M.h().buckets);
  const auto *Elems = reinterpret_cast<const uint8_t *>(M.h().elems);
  uint32_t Empty = 0, Longest = 0;
  for (uint32_t B = 0; B < M.h().nbuckets; ++B) {
    uint32_t Chain = 0;
    for (uint32_t At = Buckets[B]; At; ++Chain)
      std::memcpy(&At, Elems + size_t(At - 1) * M.h().elem_stride, 4);
    Empty += Chain == 0;
    Longest = std::max(Longest, Chain);
  }
  EXPECT_GT(Empty, 4096u * 30 / 100);
  EXPECT_LT(Empty, 4096u * 44 / 100);
  EXPECT_LE(Longest, 9u);
}

// Two maps that took the same keys in different orders, with replaced,
// deleted and re-inserted keys between (elements on the pending and free
// lists), hold the same bytes once relaid.
TEST(MapMemory, RelayMakesThePlacementTheKeysOrder) {
  platform::MapShape S{EBPFGPU_MAP_HASH, 6, 8, 64, 0};
  auto key = [](uint32_t K) {
    std::vector<uint8_t> B(6, 0);
    std::memcpy(B.data(), &K, 4);
    B[4] = uint8_t(K * 7);
    return B;
  };
  Block A(S), B(S);
  for (uint32_t K = 0; K < 50; ++K)
    ASSERT_EQ(hostMapUpdate(A.h(), key(K).data(), u64(K).data(), 0), 0);
  for (uint32_t K = 0; K < 50; K += 5)
    ASSERT_EQ(hostMapDelete(A.h(), key(K).data()), 0);
  reclaimHashMap(A.L, A.Storage.data());
  for (uint32_t K = 0; K < 50; K += 10) // back again, and one replaced
    ASSERT_EQ(hostMapUpdate(A.h(), key(K).data(), u64(K).data(), 0), 0);
  ASSERT_EQ(hostMapUpdate(A.h(), key(7).data(), u64(7).data(), 0), 0);
  for (uint32_t I = 0; I < 50; ++I) {
    uint32_t K = (I * 17 + 3) % 50; // every key once, another order
    if (K % 5 || K % 10 == 0) {
      ASSERT_EQ(hostMapUpdate(B.h(), key(K).data(), u64(K).data(), 0), 0);
    }
  }
  ASSERT_EQ(A.text(), B.text());
  ASSERT_NE(A.Storage, B.Storage);
  relayHashMap(A.h());
  relayHashMap(B.h());
  EXPECT_EQ(A.Storage, B.Storage);
  auto E = checkMapIntegrity("m", A.L, A.Storage.data());
  ASSERT_FALSE(E.has_value()) << E->message();
  EXPECT_EQ(A.text(), B.text());
  const uint8_t *V = hostMapLookup(A.h(), key(30).data());
  ASSERT_NE(V, nullptr);
  EXPECT_EQ(value64(V), 30u);
  EXPECT_EQ(hostMapLookup(A.h(), key(35).data()), nullptr);
  // The pool is whole: the map fills to max_entries.
  for (uint32_t K = 100; K < 200; ++K)
    hostMapUpdate(A.h(), key(K).data(), u64(K).data(), 0);
  E = checkMapIntegrity("m", A.L, A.Storage.data());
  ASSERT_FALSE(E.has_value()) << E->message();
  const std::string Full = A.text();
  EXPECT_EQ(std::count(Full.begin(), Full.end(), '\n'), 64);
}

// A relay keeps what the map holds beyond keys and values: LRU ticks (the
// same key is evicted next) and every CPU's copy of a per-CPU value.
TEST(MapMemory, RelayKeepsTicksAndEveryCpusValue) {
  Block M({EBPFGPU_MAP_LRU_HASH, 4, 8, 4, 0});
  for (uint32_t K : {4u, 2u, 3u, 1u})
    ASSERT_EQ(hostMapUpdate(M.h(), u32(K).data(), u64(K).data(), 0), 0);
  relayHashMap(M.h());
  ASSERT_EQ(hostMapUpdate(M.h(), u32(5).data(), u64(5).data(), 0), 0);
  EXPECT_EQ(hostMapLookup(M.h(), u32(4).data()), nullptr); // the oldest
  EXPECT_EQ(M.text(), "m{01000000} = 1\nm{02000000} = 2\nm{03000000} = 3\nm{05000000} = 5\n");

  Block P({EBPFGPU_MAP_PERCPU_HASH, 4, 8, 4, 0}, 3);
  for (uint32_t K : {3u, 1u, 2u})
    ASSERT_EQ(hostMapUpdate(P.h(), u32(K).data(), u64(K).data(), 0), 0);
  // CPU 2's copy of key 1, as a program on that CPU writes it.
  uint8_t *V = const_cast<uint8_t *>(hostMapLookup(P.h(), u32(1).data()));
  ASSERT_NE(V, nullptr);
  std::memcpy(V + 2 * P.h().value_stride, u64(40).data(), 8);
  relayHashMap(P.h());
  EXPECT_EQ(P.text(), "m{01000000} = 41\nm{02000000} = 2\nm{03000000} = 3\n");
  auto E = checkMapIntegrity("m", P.L, P.Storage.data());
  ASSERT_FALSE(E.has_value()) << E->message();
}

TEST(MapMemory, PerCpuValuesAreSummed) {
  // Two CPUs' copies, written directly as the runtime's CPUs would.
  Block M({EBPFGPU_MAP_PERCPU_ARRAY, 4, 16, 4, 0}, 2);
  uint8_t *Entry1 = M.Storage.data() + 1 * 2 * 16;
  uint64_t A[2] = {3, 300}, B[2] = {4, 400};
  std::memcpy(Entry1, A, 16);
  std::memcpy(Entry1 + 16, B, 16);
  EXPECT_EQ(M.text(), "m[1] = 0700000000000000bc02000000000000\n");
  // A new per-CPU hash key from the host: CPU 0 gets the value, others 0.
  Block H({EBPFGPU_MAP_PERCPU_HASH, 4, 8, 4, 0}, 3);
  ASSERT_EQ(hostMapUpdate(H.h(), u32(9).data(), u64(5).data(), 0), 0);
  EXPECT_EQ(H.text(), "m{09000000} = 5\n");
}

// Queues and stacks from the host (the kernel's system calls: update is a
// push, lookup a peek), with the programs' code: full, BPF_EXIST, empty.
TEST(MapMemory, QueueAndStackKeepTheKernelsOrder) {
  for (uint32_t Type : {uint32_t(EBPFGPU_MAP_QUEUE), uint32_t(EBPFGPU_MAP_STACK)}) {
    const bool Queue = Type == EBPFGPU_MAP_QUEUE;
    Block M({Type, 0, 8, 3, 0});
    EXPECT_EQ(hostMapLookup(M.h(), nullptr), nullptr); // empty
    for (uint64_t V : {1, 2, 3})
      ASSERT_EQ(hostMapUpdate(M.h(), nullptr, u64(V).data(), 0), 0);
    EXPECT_EQ(hostMapUpdate(M.h(), nullptr, u64(4).data(), 0), -7);  // full: E2BIG
    EXPECT_EQ(hostMapUpdate(M.h(), nullptr, u64(4).data(), 1), -22); // BPF_NOEXIST: EINVAL
    EXPECT_EQ(hostMapUpdate(M.h(), nullptr, u64(4).data(), 3), -22);
    EXPECT_EQ(M.text(), "m<0> = 1\nm<1> = 2\nm<2> = 3\n");
    // BPF_EXIST drops the oldest, the queue's front or the stack's bottom.
    ASSERT_EQ(hostMapUpdate(M.h(), nullptr, u64(4).data(), 2), 0);
    EXPECT_EQ(M.text(), "m<0> = 2\nm<1> = 3\nm<2> = 4\n");
    EXPECT_EQ(value64(hostMapLookup(M.h(), nullptr)), Queue ? 2u : 4u);
    EXPECT_EQ(hostMapDelete(M.h(), nullptr), -22);
    std::vector<uint64_t> Listed;
    forEachMapEntry(M.h(), [&](const uint8_t *, const uint8_t *V) { Listed.push_back(value64(V)); });
    EXPECT_EQ(Listed, (std::vector<uint64_t>{2, 3, 4}));
    // The ring wraps: one more push and the oldest goes again.
    ASSERT_EQ(hostMapUpdate(M.h(), nullptr, u64(5).data(), 2), 0);
    EXPECT_EQ(M.text(), "m<0> = 3\nm<1> = 4\nm<2> = 5\n");
  }
}

TEST(MapMemory, BloomFilterFindsWhatWasPushed) {
  Block M({EBPFGPU_MAP_BLOOM_FILTER, 0, 4, 100, 0, /*Extra=*/3});
  EXPECT_EQ(M.h().bloom_hashes, 3u);
  EXPECT_EQ(M.h().bloom_mask, 511u); // 100 * 3 * 7 / 5 = 420 bits, rounded up to 512
  EXPECT_EQ(M.L.Bytes, 64u);
  for (uint32_t V = 0; V < 100; V += 2)
    ASSERT_EQ(hostMapUpdate(M.h(), nullptr, u32(V).data(), 0), 0);
  for (uint32_t V = 0; V < 100; V += 2)
    EXPECT_TRUE(hostBloomContains(M.h(), u32(V).data())) << V;
  unsigned Absent = 0;
  for (uint32_t V = 1; V < 100; V += 2)
    Absent += !hostBloomContains(M.h(), u32(V).data());
  EXPECT_GT(Absent, 30u); // a few false positives, not many
  EXPECT_EQ(hostMapUpdate(M.h(), nullptr, u32(1).data(), 2), -22); // flags: EINVAL
  EXPECT_EQ(hostMapDelete(M.h(), nullptr), -95);                    // EOPNOTSUPP
  EXPECT_EQ(M.text(), "");
  // The kernel's sizes: at least 64 bits; 5 hashes when map_extra is 0.
  Block Small({EBPFGPU_MAP_BLOOM_FILTER, 0, 8, 1, 0});
  EXPECT_EQ(Small.h().bloom_hashes, 5u);
  EXPECT_EQ(Small.h().bloom_mask, 63u);
}

TEST(MapMemory, UnsupportedShapesAreRefusedByName) {
  EXPECT_FALSE(checkMapSupported("x", {EBPFGPU_MAP_XSKMAP, 4, 4, 4, 0}).has_value());
  EXPECT_TRUE(checkMapSupported("x", {EBPFGPU_MAP_XSKMAP, 4, 8, 4, 0}).has_value());
  EXPECT_FALSE(checkMapSupported("c", {EBPFGPU_MAP_CPUMAP, 4, 8, 4, 0}).has_value());
  EXPECT_TRUE(checkMapSupported("c", {EBPFGPU_MAP_CPUMAP, 4, 12, 4, 0}).has_value());
  EXPECT_FALSE(checkMapSupported("q", {EBPFGPU_MAP_QUEUE, 0, 8, 4, 0}).has_value());
  auto Keyed = checkMapSupported("q", {EBPFGPU_MAP_QUEUE, 4, 8, 4, 0});
  ASSERT_TRUE(Keyed.has_value());
  EXPECT_EQ(Keyed->message(), "map 'q': queue maps have no keys (key size 0, not 4)");
  EXPECT_TRUE(checkMapSupported("b", {EBPFGPU_MAP_BLOOM_FILTER, 0, 8, 4, 0, 16}).has_value());
  EXPECT_TRUE(checkMapSupported("h", {EBPFGPU_MAP_HASH, 4, 8, 4, 0, 1}).has_value());
  auto E = checkMapSupported("routes", {EBPFGPU_MAP_LPM_TRIE, 4, 8, 4, 0});
  ASSERT_TRUE(E.has_value());
  EXPECT_NE(E->message().find("map 'routes': LPM trie keys"), std::string::npos);
  EXPECT_TRUE(checkMapSupported("a", {EBPFGPU_MAP_ARRAY, 8, 8, 4, 0}).has_value());
  EXPECT_FALSE(checkMapSupported("w", {EBPFGPU_MAP_ARRAY, 4, 8, 4, platform::MapFlagWriteOnlyProg})
                   .has_value());
  auto Both = checkMapSupported("w", {EBPFGPU_MAP_HASH, 4, 8, 4,
                                      platform::MapFlagReadOnlyProg | platform::MapFlagWriteOnlyProg});
  ASSERT_TRUE(Both);
  EXPECT_EQ(Both->message(), "map 'w': flags BPF_F_RDONLY_PROG and BPF_F_WRONLY_PROG together (the "
                             "program could neither read nor write it)");
  EXPECT_FALSE(checkMapSupported("d", {EBPFGPU_MAP_DEVMAP, 4, 8, 4, 0}).has_value());
}

} // namespace

TEST(MapMemory, MapsOfMapsLookUpTheirInnerMaps) {
  HostMap Gold("gold", {EBPFGPU_MAP_HASH, 4, 8, 16, 0});
  HostMap Silver("silver", {EBPFGPU_MAP_HASH, 4, 8, 16, 0});
  for (uint32_t Type : {uint32_t(EBPFGPU_MAP_ARRAY_OF_MAPS), uint32_t(EBPFGPU_MAP_HASH_OF_MAPS)}) {
    HostMap Outer("outer", {Type, 4, 4, 4, 0});
    Outer.setInnerMaps({"gold", "silver"}, {&Gold, &Silver});
    auto V = innerMapValue("outer", Outer.innerNames(), "silver");
    ASSERT_TRUE(V);
    EXPECT_EQ(*V, u32(2));
    EXPECT_FALSE(setMapEntry("outer", *Outer.header(), u32(1), *V));
    // An empty slot, a key past the array: null; a filled slot: the map.
    EXPECT_EQ(hostMapLookup(*Outer.header(), u32(0).data()), nullptr);
    EXPECT_EQ(hostMapLookup(*Outer.header(), u32(9).data()), nullptr);
    EXPECT_EQ(hostMapLookup(*Outer.header(), u32(1).data()),
              reinterpret_cast<const uint8_t *>(Silver.header()));
    // An id past the table (not written by the loader) is no map.
    EXPECT_FALSE(setMapEntry("outer", *Outer.header(), u32(2), u32(3)));
    EXPECT_EQ(hostMapLookup(*Outer.header(), u32(2).data()), nullptr);
    EXPECT_EQ(Outer.format(), Type == EBPFGPU_MAP_ARRAY_OF_MAPS
                                  ? "outer[1] = @silver\nouter[2] = @(bad id 3)\n"
                                  : "outer{01000000} = @silver\nouter{02000000} = @(bad id 3)\n");
    auto Bad = innerMapValue("outer", Outer.innerNames(), "outer");
    ASSERT_FALSE(Bad);
    EXPECT_EQ(Bad.error().message(), "map 'outer': 'outer' is not a map it can hold (those that "
                                     "fit its inner map definition: gold, silver)");
  }
}

TEST(MapMemory, EventStreamsAreTakenInOrderAndEmptied) {
  HostMap Ring("ring", {EBPFGPU_MAP_RINGBUF, 0, 0, 4096, 0});
  ASSERT_EQ(Ring.info().event_capacity, 4096u);
  uint8_t *Control = reinterpret_cast<uint8_t *>(Ring.info().control);
  uint8_t *Stream = reinterpret_cast<uint8_t *>(Ring.info().values);
  auto Put = [&](uint32_t At, uint32_t Word, uint32_t Packet, uint8_t Fill) {
    std::memcpy(Stream + At, &Word, 4);
    std::memcpy(Stream + At + 4, &Packet, 4);
    std::memset(Stream + At + 8, Fill, Word & 0xffff);
  };
  // Three records: 5 bytes (packet 2), a discarded one, 8 bytes (packet 0).
  Put(0, 5, 2, 0xaa);
  Put(16, 3 | EBPFGPU_EVT_DISCARD, 1, 0xbb);
  Put(32, 8, 0, 0xcc);
  uint32_t Head = 48, Dropped = 3;
  std::memcpy(Control + 4 * EBPFGPU_EVT_HEAD, &Head, 4);
  std::memcpy(Control + 4 * EBPFGPU_EVT_DROPPED, &Dropped, 4);
  std::vector<EventRecord> Records;
  uint64_t Refused = 0;
  ASSERT_FALSE(Ring.takeEvents(Records, Refused));
  ASSERT_EQ(Records.size(), 2u);
  EXPECT_EQ(Refused, 3u);
  EXPECT_EQ(Records[0].Packet, 2u);
  EXPECT_EQ(Records[0].Bytes, std::vector<uint8_t>(5, 0xaa));
  // Map by map, then run by run, by packet.
  EventLog Log;
  EventBatch B{{{"ring", Records}, {"perf", {{0, {1}}}}}, {{"ring", 3}}};
  Log.add(B);
  EventBatch B2{{{"perf", {{1, {2}}, {0, {3}}}}}, {}};
  Log.add(B2);
  EXPECT_EQ(Log.take(), "perf 01\nperf 03\nperf 02\nring cccccccccccccccc\nring aaaaaaaaaa\n");
  EXPECT_EQ(Log.take(), "");
  ASSERT_EQ(Log.warnings().size(), 1u);
  EXPECT_EQ(Log.warnings()[0], "map ring: 3 event records refused: no room left in the run (a "
                               "larger map or smaller batches keep them)");
  // Emptied: nothing the second time.
  Records.clear();
  ASSERT_FALSE(Ring.takeEvents(Records, Refused));
  EXPECT_TRUE(Records.empty());
  // A record never submitted, and a head past the stream, are errors.
  Put(0, 5 | EBPFGPU_EVT_BUSY, 0, 0);
  Head = 16;
  std::memcpy(Control + 4 * EBPFGPU_EVT_HEAD, &Head, 4);
  auto E = Ring.takeEvents(Records, Refused);
  ASSERT_TRUE(E);
  EXPECT_EQ(E->message(), "map 'ring': the record at byte 0 was reserved and never submitted or discarded");
  Head = 8192;
  std::memcpy(Control + 4 * EBPFGPU_EVT_HEAD, &Head, 4);
  E = Ring.takeEvents(Records, Refused);
  ASSERT_TRUE(E);
  EXPECT_EQ(E->message(), "map 'ring': the record stream's head (8192) is past its 4096 bytes");
  EXPECT_TRUE(checkMapSupported("r", {EBPFGPU_MAP_RINGBUF, 0, 0, 6000, 0}));
  EXPECT_FALSE(checkMapSupported("r", {EBPFGPU_MAP_RINGBUF, 0, 0, 8192, 0}));
  EXPECT_FALSE(checkMapSupported("p", {EBPFGPU_MAP_PERF_EVENT_ARRAY, 4, 4, 0, 0}));
}

TEST(MapMemory, LayoutKeepsWordsAligned) {
  // The GPU faults on a misaligned u64 (CUDA_ERROR_MISALIGNED_ADDRESS); the
  // host does not: the layout must keep an LPM trie's u64 present words and
  // every element 8-byte aligned whatever the control block's size.
  for (uint32_t KeySize : {5u, 8u, 20u}) {
    MapLayout L = mapLayout({EBPFGPU_MAP_LPM_TRIE, KeySize, 8, 100, 1}, 1, 0);
    EXPECT_EQ(reinterpret_cast<uint64_t>(ebpfgpu_lpm_present(&L.Header)) % 8, 0u) << KeySize;
    EXPECT_EQ(L.Header.elems % 8, 0u) << KeySize;
  }
  MapLayout H = mapLayout({EBPFGPU_MAP_HASH, 4, 8, 64, 0}, 1, 0);
  EXPECT_EQ(H.Header.elems % 8, 0u);
  EXPECT_EQ(H.Header.buckets % 8, 0u);
}

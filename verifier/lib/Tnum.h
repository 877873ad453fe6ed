// SPDX-License-Identifier: Apache-2.0
//
// Private to the verifier: tracked numbers ("tnums", as the kernel's
// kernel/bpf/tnum.c), the known bits of a scalar. A bit set in Mask is
// unknown; every other bit equals the bit of Value (Value & Mask is 0).
// Operations over-approximate: the result holds every value the operation
// can give on values the operands hold.

#ifndef EBPF_GPU_VERIFIER_TNUM_H
#define EBPF_GPU_VERIFIER_TNUM_H

#include <bit>
#include <cstdint>

namespace ebpfgpu::verifier {

struct Tnum {
  uint64_t Value = 0;
  uint64_t Mask = ~uint64_t(0);

  static Tnum known(uint64_t V) { return {V, 0}; }
  static Tnum unknown() { return {0, ~uint64_t(0)}; }
  /// The values from Min to Max share the bits above their highest
  /// difference.
  static Tnum range(uint64_t Min, uint64_t Max) {
    uint64_t Chi = Min ^ Max;
    unsigned Bits = unsigned(std::bit_width(Chi));
    if (Bits > 63)
      return unknown();
    uint64_t Delta = (uint64_t(1) << Bits) - 1;
    return {Min & ~Delta, Delta};
  }

  bool isConst() const { return Mask == 0; }
  uint64_t min() const { return Value; }
  uint64_t max() const { return Value | Mask; }
  /// True when every value of `O` is one of this.
  bool contains(const Tnum &O) const {
    return !(O.Mask & ~Mask) && (O.Value & ~Mask) == Value;
  }
  /// False when the two have no value in common.
  bool compatible(const Tnum &O) const { return !((Value ^ O.Value) & ~Mask & ~O.Mask); }
  Tnum intersect(const Tnum &O) const {
    uint64_t V = Value | O.Value, M = Mask & O.Mask;
    return {V & ~M, M};
  }
  /// The low 32 bits, zero-extended.
  Tnum low32() const { return {Value & 0xffffffffu, Mask & 0xffffffffu}; }
  /// The low 32 bits, sign-extended.
  Tnum sext32() const {
    return {uint64_t(int64_t(int32_t(uint32_t(Value)))), uint64_t(int64_t(int32_t(uint32_t(Mask))))};
  }
  bool operator==(const Tnum &O) const = default;
};

inline Tnum tnumAdd(Tnum A, Tnum B) {
  uint64_t SM = A.Mask + B.Mask, SV = A.Value + B.Value;
  uint64_t Chi = (SM + SV) ^ SV;
  uint64_t Mu = Chi | A.Mask | B.Mask;
  return {SV & ~Mu, Mu};
}

inline Tnum tnumSub(Tnum A, Tnum B) {
  uint64_t DV = A.Value - B.Value;
  uint64_t Chi = (DV + A.Mask) ^ (DV - B.Mask);
  uint64_t Mu = Chi | A.Mask | B.Mask;
  return {DV & ~Mu, Mu};
}

inline Tnum tnumAnd(Tnum A, Tnum B) {
  uint64_t Alpha = A.Value | A.Mask, Beta = B.Value | B.Mask, V = A.Value & B.Value;
  return {V, Alpha & Beta & ~V};
}

inline Tnum tnumOr(Tnum A, Tnum B) {
  uint64_t V = A.Value | B.Value, Mu = A.Mask | B.Mask;
  return {V, Mu & ~V};
}

inline Tnum tnumXor(Tnum A, Tnum B) {
  uint64_t V = A.Value ^ B.Value, Mu = A.Mask | B.Mask;
  return {V & ~Mu, Mu};
}

inline Tnum tnumLsh(Tnum A, unsigned K) { return {A.Value << K, A.Mask << K}; }
inline Tnum tnumRsh(Tnum A, unsigned K) { return {A.Value >> K, A.Mask >> K}; }
inline Tnum tnumArsh(Tnum A, unsigned K) {
  return {uint64_t(int64_t(A.Value) >> K), uint64_t(int64_t(A.Mask) >> K)};
}

/// Long multiplication over known and unknown bits (the kernel's tnum_mul).
inline Tnum tnumMul(Tnum A, Tnum B) {
  Tnum Acc = Tnum::known(0);
  uint64_t AccV = A.Value * B.Value;
  while (A.Value || A.Mask) {
    if (A.Value & 1)
      Acc = tnumAdd(Acc, {0, B.Mask});
    else if (A.Mask & 1)
      Acc = tnumAdd(Acc, {0, B.Value | B.Mask});
    A = tnumRsh(A, 1);
    B = tnumLsh(B, 1);
  }
  return tnumAdd(Tnum::known(AccV), Acc);
}

} // namespace ebpfgpu::verifier

#endif // EBPF_GPU_VERIFIER_TNUM_H

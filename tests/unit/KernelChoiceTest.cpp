// SPDX-License-Identifier: Apache-2.0
//
// loader::KernelChoice's decision, on a driver of its own: the events and
// register counts the test makes up stand for the GPU's, so that which
// build wins, when trials run and what happens when events fail are
// checked without a GPU.

#include "../../loader/lib/KernelChoice.h"

#include <gtest/gtest.h>

#include <map>

namespace {

using ebpfgpu::loader::CudaApi;
using ebpfgpu::loader::KernelChoice;

// The made-up driver's state: registers per kernel, each stop event's
// elapsed time, whether event creation fails, the events alive.
struct FakeDriver {
  std::map<CUfunction, int> Registers;
  std::map<CUevent, float> Elapsed; // by stop event
  bool EventsFail = false;
  int Live = 0, Next = 1;
};
FakeDriver *D = nullptr;

CUfunction fn(uintptr_t N) { return reinterpret_cast<CUfunction>(N); }

CudaApi fakeApi() {
  CudaApi A;
  A.cuFuncGetAttribute = [](int *N, CUfunction_attribute, CUfunction F) {
    *N = D->Registers[F];
    return CUDA_SUCCESS;
  };
  A.cuEventCreate = [](CUevent *E, unsigned) {
    if (D->EventsFail)
      return CUDA_ERROR_OUT_OF_MEMORY;
    *E = reinterpret_cast<CUevent>(uintptr_t(D->Next++));
    ++D->Live;
    return CUDA_SUCCESS;
  };
  A.cuEventDestroy = [](CUevent) {
    --D->Live;
    return CUDA_SUCCESS;
  };
  A.cuEventRecord = [](CUevent, CUstream) { return CUDA_SUCCESS; };
  A.cuEventQuery = [](CUevent) { return CUDA_SUCCESS; };
  A.cuEventElapsedTime = [](float *Ms, CUevent, CUevent Stop) {
    *Ms = D->Elapsed[Stop];
    return CUDA_SUCCESS;
  };
  return A;
}

/// Runs `N` batches of `Packets` through `C`, the default build taking
/// `DefaultMs` and the budget build `BudgetMs` a batch; returns the builds run.
std::vector<int> run(KernelChoice &C, unsigned N, uint32_t Packets, float DefaultMs,
                     float BudgetMs) {
  std::vector<int> Builds;
  for (unsigned I = 0; I < N; ++I) {
    KernelChoice::Launch L = C.begin(nullptr, Packets);
    Builds.push_back(L.Build);
    if (L.Stop)
      D->Elapsed[L.Stop] = L.Build ? BudgetMs : DefaultMs;
    C.end(L, nullptr, true);
  }
  return Builds;
}

class KernelChoiceTest : public ::testing::Test {
protected:
  void SetUp() override {
    D = &Driver;
    Driver.Registers = {{fn(1), 80}, {fn(2), 32}};
  }
  void TearDown() override { D = nullptr; }
  FakeDriver Driver;
};

TEST_F(KernelChoiceTest, KeepsTheFasterBuildAfterTheTrials) {
  CudaApi A = fakeApi();
  {
    KernelChoice C(A, fn(1), fn(2));
    // Alternating trials, then the budget build (half the time) for good.
    std::vector<int> First = run(C, 2 * KernelChoice::TrialsEach, 4096, 2.0f, 1.0f);
    EXPECT_EQ(First, std::vector<int>({0, 1, 0, 1, 0, 1, 0, 1, 0, 1}));
    std::vector<int> Then = run(C, 5, 4096, 2.0f, 1.0f);
    EXPECT_EQ(Then, std::vector<int>(5, 1));
    EXPECT_NE(C.describe().find("register-budget build (32 registers)"), std::string::npos)
        << C.describe();
  }
  EXPECT_EQ(Driver.Live, 0); // every trial's events destroyed
  KernelChoice C(A, fn(1), fn(2));
  run(C, 2 * KernelChoice::TrialsEach, 4096, 1.0f, 3.0f);
  EXPECT_EQ(run(C, 3, 4096, 1.0f, 3.0f), std::vector<int>(3, 0));
  EXPECT_NE(C.describe().find("default build (80 registers)"), std::string::npos) << C.describe();
}

TEST_F(KernelChoiceTest, SmallBatchesRunUntimedTheDefault) {
  CudaApi A = fakeApi();
  KernelChoice C(A, fn(1), fn(2));
  EXPECT_EQ(run(C, 20, KernelChoice::TrialPackets - 1, 2.0f, 1.0f), std::vector<int>(20, 0));
  EXPECT_EQ(Driver.Live, 0);
  EXPECT_NE(C.describe().find("timing"), std::string::npos) << C.describe();
}

TEST_F(KernelChoiceTest, NoTrialWithoutABuildOfFewerRegisters) {
  CudaApi A = fakeApi();
  KernelChoice None(A, fn(1), nullptr);
  EXPECT_EQ(run(None, 4, 4096, 2.0f, 1.0f), std::vector<int>(4, 0));
  Driver.Registers[fn(1)] = 30; // the default build within the budget already
  KernelChoice Alike(A, fn(1), fn(2));
  EXPECT_EQ(run(Alike, 4, 4096, 2.0f, 1.0f), std::vector<int>(4, 0));
  EXPECT_EQ(Driver.Live, 0);
  EXPECT_EQ(Alike.describe(), "default build (30 registers)");
}

TEST_F(KernelChoiceTest, WithoutEventsTheDefaultBuild) {
  CudaApi A = fakeApi();
  Driver.EventsFail = true;
  KernelChoice C(A, fn(1), fn(2));
  EXPECT_EQ(run(C, 6, 4096, 2.0f, 1.0f), std::vector<int>(6, 0));
  EXPECT_EQ(Driver.Live, 0);
}

} // namespace

// SPDX-License-Identifier: Apache-2.0
//
// foldUniformWarpMatches (compiler/lib/Gpu/WarpUniform.cpp): a warp match
// folds only where every lane holds the value alike. Hand-written NVPTX IR,
// each match's result kept alive by a call, so that what is folded and what
// stays is seen call by call.

#include "ebpf-gpu/Compiler/WarpUniform.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace {

const char *const Ir = R"(
target triple = "nvptx64-nvidia-cuda"
@hdr = addrspace(4) global [4 x i64] zeroinitializer
@mem = addrspace(1) global i64 0
declare i32 @llvm.nvvm.activemask()
declare i32 @llvm.nvvm.match.any.sync.i64(i32, i64)
declare { i32, i1 } @llvm.nvvm.match.all.sync.i64p(i32, i64)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare void @use(i32)
declare void @use1(i1)

define ptx_kernel void @k(i64 %param, i1 %c) {
entry:
  %m = call i32 @llvm.nvvm.activemask()
  %h = call ptr addrspace(4) asm sideeffect "mov.u64 $0, $1;", "=l,l"(ptr addrspace(4) @hdr)
  %hg = addrspacecast ptr addrspace(4) %h to ptr
  %f = getelementptr inbounds i8, ptr %hg, i64 24
  %data = load i64, ptr %f, align 8
  %counter = add i64 %data, 16
  %key = or i64 %counter, 1
  %a1 = call i32 @llvm.nvvm.match.any.sync.i64(i32 %m, i64 %key) ; constant memory: folds
  call void @use(i32 %a1)
  %a2 = call i32 @llvm.nvvm.match.any.sync.i64(i32 %m, i64 %param) ; kernel parameter: folds
  call void @use(i32 %a2)
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %t = zext i32 %tid to i64
  %k1 = call i32 @llvm.nvvm.match.any.sync.i64(i32 %m, i64 %t) ; the thread's: kept
  call void @use(i32 %k1)
  %g = load i64, ptr addrspace(1) @mem, align 8
  %k2 = call i32 @llvm.nvvm.match.any.sync.i64(i32 %m, i64 %g) ; memory threads write: kept
  call void @use(i32 %k2)
  %all = call { i32, i1 } @llvm.nvvm.match.all.sync.i64p(i32 %k1, i64 1) ; a constant: folds
  %same = extractvalue { i32, i1 } %all, 1
  call void @use1(i1 %same)
  br i1 %c, label %left, label %right
left:
  %h2 = call ptr addrspace(4) asm sideeffect "mov.u64 $0, $1;", "=l,l"(ptr addrspace(4) @hdr)
  %hg2 = addrspacecast ptr addrspace(4) %h2 to ptr
  %f2 = getelementptr inbounds i8, ptr %hg2, i64 24
  %data2 = load i64, ptr %f2, align 8
  %counter2 = add i64 %data2, 16
  br label %join
right:
  br label %join
join:
  %one = phi i64 [ %counter2, %left ], [ %counter, %right ] ; one computation twice: folds
  %two = phi i64 [ 0, %left ], [ 8, %right ] ; two values: kept
  %a3 = call i32 @llvm.nvvm.match.any.sync.i64(i32 %m, i64 %one)
  call void @use(i32 %a3)
  %k3 = call i32 @llvm.nvvm.match.any.sync.i64(i32 %m, i64 %two)
  call void @use(i32 %k3)
  ret void
}
)";

TEST(WarpUniform, FoldsOnlyWhatEveryLaneHoldsAlike) {
  llvm::LLVMContext Ctx;
  llvm::SMDiagnostic Err;
  std::unique_ptr<llvm::Module> M = llvm::parseAssemblyString(Ir, Err, Ctx);
  ASSERT_TRUE(M) << Err.getMessage().str();
  EXPECT_EQ(ebpfgpu::compiler::foldUniformWarpMatches(*M, nullptr), 4u);
  std::string Msg;
  llvm::raw_string_ostream OS(Msg);
  ASSERT_FALSE(llvm::verifyModule(*M, &OS)) << OS.str();
  // What is left: the matches of the thread id, of global memory and of
  // two different values joined; no match.all.
  std::multiset<std::string> Left;
  unsigned All = 0;
  for (llvm::Instruction &I : llvm::instructions(*M->getFunction("k")))
    if (auto *Call = llvm::dyn_cast<llvm::IntrinsicInst>(&I)) {
      if (Call->getIntrinsicID() == llvm::Intrinsic::nvvm_match_any_sync_i64)
        Left.insert(Call->getArgOperand(1)->getName().str());
      All += Call->getIntrinsicID() == llvm::Intrinsic::nvvm_match_all_sync_i64p;
    }
  EXPECT_EQ(Left, (std::multiset<std::string>{"t", "g", "two"}));
  EXPECT_EQ(All, 0u);
  // A folded match.all says "all the same": its use gets true.
  bool SameIsTrue = false;
  for (llvm::Instruction &I : llvm::instructions(*M->getFunction("k")))
    if (auto *Call = llvm::dyn_cast<llvm::CallInst>(&I))
      if (Call->getCalledFunction() && Call->getCalledFunction()->getName() == "use1")
        SameIsTrue = llvm::isa<llvm::ConstantInt>(Call->getArgOperand(0)) &&
                     llvm::cast<llvm::ConstantInt>(Call->getArgOperand(0))->isOne();
  EXPECT_TRUE(SameIsTrue);
}

TEST(WarpUniform, LeavesAModuleWithoutMatchesAlone) {
  llvm::LLVMContext Ctx;
  llvm::SMDiagnostic Err;
  std::unique_ptr<llvm::Module> M = llvm::parseAssemblyString(
      "define void @f() {\n  ret void\n}\n", Err, Ctx);
  ASSERT_TRUE(M);
  EXPECT_EQ(ebpfgpu::compiler::foldUniformWarpMatches(*M, nullptr), 0u);
}

} // namespace

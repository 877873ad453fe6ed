// SPDX-License-Identifier: Apache-2.0
//
// The daemon's building blocks: its JSON reader and writer, the batch
// latency histogram, map values pretty-printed from BTF, the guard that
// contains back-end faults, and the metrics endpoint's answers.

#include "ebpf-gpu/Daemon/DaemonConfig.h"
#include "ebpf-gpu/Daemon/DaemonFaults.h"
#include "ebpf-gpu/Daemon/Json.h"
#include "ebpf-gpu/Daemon/MetricsEndpoint.h"

#include "ebpf-gpu/Loader/BtfFormat.h"
#include "ebpf-gpu/Object/Object.h"
#include "ebpf-gpu/Runtime/LatencyHistogram.h"

#include "FakeExecutor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

using namespace ebpfgpu;
namespace json = ebpfgpu::tools::json;

namespace {

TEST(Json, ParsesAndWritesBack) {
  auto V = json::parse(R"( {"id": 18446744073709551615, "cmd": "map update",
      "args": {"key": "0a00", "n": -3, "f": 1.5e2, "ok": true, "none": null,
               "list": [1, "two", [], {}], "esc": "a\"b\\c\n\u00e9\ud83d\ude00"}} )");
  ASSERT_TRUE(V) << V.error().message();
  EXPECT_EQ(V->get("id")->u64(), UINT64_MAX);
  const json::Value *A = V->get("args");
  ASSERT_TRUE(A && A->isObject());
  EXPECT_EQ(A->get("key")->text(), "0a00");
  EXPECT_EQ(A->get("n")->i64(), -3);
  EXPECT_FALSE(A->get("n")->u64());
  EXPECT_FALSE(A->get("f")->u64());
  EXPECT_DOUBLE_EQ(A->get("f")->number(), 150.0);
  EXPECT_TRUE(A->get("ok")->boolean());
  EXPECT_TRUE(A->get("none")->isNull());
  EXPECT_EQ(A->get("list")->items().size(), 4u);
  EXPECT_EQ(A->get("esc")->text(), "a\"b\\c\n\xc3\xa9\xf0\x9f\x98\x80");
  EXPECT_EQ(A->get("missing"), nullptr);
  // Written and read again: the same document.
  auto Again = json::parse(V->write());
  ASSERT_TRUE(Again);
  EXPECT_EQ(Again->write(), V->write());
  EXPECT_EQ(json::Value::object().set("a", 1).set("b", "x").set("a", 2).write(),
            R"({"a": 2, "b": "x"})");
}

TEST(Json, RefusesMalformedDocumentsWithTheByte) {
  struct Case {
    const char *Text, *Error;
  } Cases[] = {
      {"", "malformed JSON at byte 0: expected a value, found the end"},
      {"{\"a\" 1}", "malformed JSON at byte 5: expected ':', found '1'"},
      {"[1, 2", "malformed JSON at byte 5: expected ',' or ']', found the end"},
      {"{\"a\": 1,}", "malformed JSON at byte 8: expected a member name in quotes, found '}'"},
      {"\"abc", "malformed JSON at byte 4: expected the closing '\"', found the end"},
      {"\"\\q\"", "malformed JSON at byte 2: expected an escape"},
      {"01", "malformed JSON at byte 1: expected the end of the document, found '1'"},
      {"1.", "malformed JSON at byte 2: expected digits after '.'"},
      {"tru", "malformed JSON at byte 0: expected a value, found 't'"},
      {"\"\\ud800x\"", "malformed JSON at byte 7: expected the low half of a surrogate pair"},
      {"{} {}", "malformed JSON at byte 3: expected the end of the document"},
  };
  for (const Case &C : Cases) {
    auto V = json::parse(C.Text);
    ASSERT_FALSE(V) << C.Text;
    EXPECT_EQ(V.error().message().rfind(C.Error, 0), 0u) << C.Text << ": " << V.error().message();
  }
  std::string Deep(100, '[');
  EXPECT_FALSE(json::parse(Deep + std::string(100, ']')));
}

TEST(LatencyHistogram, BucketsBoundTheirValues) {
  using H = runtime::LatencyHistogram;
  for (uint64_t V :
       {0ull, 1ull, 15ull, 16ull, 17ull, 31ull, 32ull, 1000ull, 123456789ull, (1ull << 43) + 5}) {
    unsigned B = H::bucketOf(V);
    ASSERT_LT(B, H::Buckets);
    EXPECT_GE(H::upperBound(B), V) << V;
    if (B > 0 && B < H::Buckets - 1) {
      EXPECT_LT(H::upperBound(B - 1), V) << V;
    }
    // At most 12.5% wide above 16 ns.
    if (V >= 16 && B < H::Buckets - 1) {
      EXPECT_LE(H::upperBound(B) - V, V / 8) << V;
    }
  }
  H Hist;
  for (uint64_t I = 1; I <= 1000; ++I)
    Hist.record(I * 1000); // 1 us .. 1 ms
  H::Counts C{};
  Hist.addTo(C);
  uint64_t P50 = H::quantile(C, 0.5), P99 = H::quantile(C, 0.99);
  EXPECT_GE(P50, 500000u);
  EXPECT_LE(P50, 500000u * 9 / 8);
  EXPECT_GE(P99, 990000u);
  EXPECT_LE(P99, 990000u * 9 / 8);
  EXPECT_EQ(H::quantile(H::Counts{}, 0.5), 0u);
  EXPECT_EQ(Hist.sumNs(), 1000u * 1001 / 2 * 1000);
  // No bucket straddles a power of two (the metrics' histogram edges).
  for (unsigned B = 0; B + 1 < H::Buckets; ++B)
    for (unsigned K = 4; K < 44; ++K)
      EXPECT_FALSE(H::upperBound(B) < (1ull << K) && H::upperBound(B + 1) >= (1ull << K) &&
                   H::upperBound(B) + 1 != (1ull << K))
          << B << " " << K;
}

TEST(BtfFormat, RouterMapsFromTheSample) {
  auto Obj = object::readObjectFile(std::string(EBPF_GPU_SAMPLES_DIR) + "/xdp_router.o");
  ASSERT_TRUE(Obj) << Obj.error().message();
  auto Btf = loader::BtfTypes::read(Obj->Btf);
  ASSERT_TRUE(Btf) << Btf.error().message();
  auto [Key, Value] = Btf->mapTypes("routes");
  ASSERT_NE(Key, 0u);
  ASSERT_NE(Value, 0u);
  EXPECT_EQ(Btf->sizeOf(Key), 8u);
  EXPECT_EQ(Btf->sizeOf(Value), 16u);
  uint8_t K[8] = {24, 0, 0, 0, 192, 168, 1, 0};
  uint8_t V[16] = {4, 0, 0, 0, 2, 0, 0, 0, 0, 10, 2, 0, 0, 0, 0, 11};
  EXPECT_EQ(Btf->format(Key, K, 8), R"({"prefixlen":24,"addr":108736})");
  EXPECT_EQ(Btf->format(Value, V, 16),
            R"({"ifindex":4,"dmac":[2,0,0,0,0,10],"smac":[2,0,0,0,0,11]})");
  // The wrong size is not printed as the type.
  EXPECT_FALSE(Btf->format(Value, V, 15));
  auto [SK, SV] = Btf->mapTypes("route_stats");
  uint8_t Count[8] = {0x2a};
  EXPECT_EQ(Btf->format(SK, Count, 4), "42");
  EXPECT_EQ(Btf->format(SV, Count, 8), "42");
  EXPECT_EQ(Btf->mapTypes("nothing"), std::make_pair(0u, 0u));
}

TEST(BtfFormat, RefusesMalformedBtf) {
  auto Obj = object::readObjectFile(std::string(EBPF_GPU_SAMPLES_DIR) + "/xdp_router.o");
  ASSERT_TRUE(Obj);
  std::vector<uint8_t> B = Obj->Btf;
  B.resize(B.size() / 2);
  EXPECT_FALSE(loader::BtfTypes::read(B));
  B = Obj->Btf;
  B[0] ^= 1;
  auto R = loader::BtfTypes::read(B);
  ASSERT_FALSE(R);
  EXPECT_EQ(R.error().message(), "BTF: bad magic (not little-endian BTF)");
  EXPECT_FALSE(loader::BtfTypes::read({}));
}

/// A back end whose runs fail while `Broken` is set; with `Lanes`, its
/// lanes keep batches in flight until `Ready`.
class ToyBackend final : public test::FakeExecutor {
public:
  std::atomic<bool> Broken{false}, Ready{true};
  bool Lanes = false;
  std::atomic<int> Runs{0}, LanesOpen{0};
  MaybeError run(runtime::PacketBatch &) override {
    ++Runs;
    return Broken ? MaybeError(Error("device lost")) : std::nullopt;
  }
  Expected<std::unique_ptr<runtime::BatchLane>> openLane(unsigned Depth, unsigned Worker) override;
};

/// A ToyBackend lane: a batch stays in flight until the back end is Ready,
/// and fails if it is Broken by then.
class ToyLane final : public runtime::BatchLane {
public:
  ToyLane(ToyBackend &B, unsigned Depth)
      : B(B), InFlight(Depth, false), Descs(Depth, std::vector<ebpfgpu_packet_desc>(8)),
        Verdicts(Depth, std::vector<ebpfgpu_verdict>(8)) {
    ++B.LanesOpen;
  }
  ~ToyLane() override { --B.LanesOpen; }
  unsigned depth() const override { return unsigned(InFlight.size()); }
  MaybeError submit(unsigned Slot, runtime::PacketBatch &) override { return start(Slot); }
  ebpfgpu_packet_desc *stage(unsigned Slot, uint32_t Capacity) override {
    return Capacity <= 8 ? Descs[Slot].data() : nullptr;
  }
  MaybeError submitStaged(unsigned Slot, uint32_t) override { return start(Slot); }
  const ebpfgpu_verdict *verdicts(unsigned Slot) const override { return Verdicts[Slot].data(); }
  Expected<bool> poll(unsigned Slot, bool) override {
    if (!InFlight[Slot])
      return true;
    if (B.Broken) {
      InFlight[Slot] = false;
      return Error("device lost");
    }
    if (!B.Ready)
      return false;
    InFlight[Slot] = false;
    return true;
  }

private:
  MaybeError start(unsigned Slot) {
    ++B.Runs;
    InFlight[Slot] = true;
    return std::nullopt;
  }
  ToyBackend &B;
  std::vector<bool> InFlight;
  std::vector<std::vector<ebpfgpu_packet_desc>> Descs;
  std::vector<std::vector<ebpfgpu_verdict>> Verdicts;
};

/// poll()'s answer; an error fails the test.
bool polled(Expected<bool> Done) {
  EXPECT_TRUE(Done) << (Done ? "" : Done.error().message());
  return Done && *Done;
}

Expected<std::unique_ptr<runtime::BatchLane>> ToyBackend::openLane(unsigned Depth,
                                                                   unsigned Worker) {
  if (!Lanes)
    return BatchExecutor::openLane(Depth, Worker);
  return std::unique_ptr<runtime::BatchLane>(new ToyLane(*this, Depth));
}

TEST(GuardedExecutor, ContainsAFailedBackEndUntilReplaced) {
  auto Old = std::make_shared<ToyBackend>();
  int Wakeups = 0;
  tools::GuardedExecutor G(Old, {}, [&] { ++Wakeups; });
  runtime::PacketBatch B(64);
  uint8_t Frame[60] = {};
  B.add(Frame, sizeof(Frame));
  B.add(Frame, sizeof(Frame));
  EXPECT_FALSE(G.run(B));
  Old->Broken = true;
  auto E = G.run(B);
  ASSERT_TRUE(E);
  EXPECT_EQ(E->message(), "device lost");
  EXPECT_TRUE(G.faulted());
  EXPECT_EQ(G.faultError(), "device lost");
  // Later batches fail without reaching the broken back end.
  EXPECT_TRUE(G.run(B));
  EXPECT_TRUE(G.run(B));
  EXPECT_EQ(Old->Runs, 2);
  EXPECT_EQ(Wakeups, 1);
  EXPECT_EQ(G.faults(), 1u);
  EXPECT_EQ(G.failedBatches(), 3u);
  EXPECT_EQ(G.failedPackets(), 6u);
  // Taken out, the program has no back end: map access fails.
  EXPECT_EQ(G.takeOut(), Old);
  EXPECT_TRUE(G.accessMap("m", [](ebpfgpu_map &, bool &) { return MaybeError(); }));
  auto New = std::make_shared<ToyBackend>();
  G.install(New);
  EXPECT_FALSE(G.faulted());
  EXPECT_FALSE(G.run(B));
  EXPECT_EQ(New->Runs, 1);
  EXPECT_EQ(G.faults(), 1u);
}

TEST(GuardedExecutor, InjectsFaultsAtTheBatchesNamed) {
  auto F = tools::FaultInjection::parse("3,1");
  ASSERT_TRUE(F);
  EXPECT_TRUE(F->fails(1) && F->fails(3) && !F->fails(2));
  for (const char *Bad : {"", "0", "1,", "x", "-1", "1,,2", "2 "}) {
    auto R = tools::FaultInjection::parse(Bad);
    ASSERT_FALSE(R) << Bad;
    EXPECT_NE(R.error().message().find("whole numbers from 1"), std::string::npos);
  }
  auto Back = std::make_shared<ToyBackend>();
  tools::GuardedExecutor G(Back, *F, nullptr);
  runtime::PacketBatch B(64);
  uint8_t Frame[60] = {};
  B.add(Frame, sizeof(Frame));
  auto E = G.run(B);
  ASSERT_TRUE(E);
  EXPECT_EQ(E->message(),
            "injected fault at batch 1 (test only: EBPF_GPU_LOADER_TEST_FAIL_BATCHES)");
  EXPECT_EQ(Back->Runs, 0); // the injected batch never reaches the back end
  G.install(G.takeOut());
  EXPECT_FALSE(G.run(B)); // batch 2
  EXPECT_TRUE(G.run(B));  // batch 3
  EXPECT_EQ(Back->Runs, 1);
}

TEST(GuardedExecutor, LanesAreCountedContainedAndOpenedAgainAfterARecovery) {
  auto Old = std::make_shared<ToyBackend>();
  Old->Lanes = true;
  int Wakeups = 0;
  tools::GuardedExecutor G(Old, {}, [&] { ++Wakeups; });
  auto L = G.openLane(2, 0);
  ASSERT_TRUE(L) << L.error().message();
  runtime::BatchLane &Lane = **L;
  EXPECT_EQ(Lane.depth(), 2u);
  EXPECT_EQ(Old->LanesOpen, 1);
  ASSERT_TRUE(Lane.stage(0, 4));
  EXPECT_FALSE(Lane.submitStaged(0, 4));
  EXPECT_TRUE(polled(Lane.poll(0, false)));
  EXPECT_TRUE(Lane.verdicts(0));
  Lane.finish(0);
  // A batch in flight when the back end breaks fails through the guard.
  Old->Broken = true;
  ASSERT_TRUE(Lane.stage(1, 3));
  EXPECT_FALSE(Lane.submitStaged(1, 3));
  auto Done = Lane.poll(1, true);
  ASSERT_FALSE(Done);
  EXPECT_EQ(Done.error().message(), "device lost");
  Lane.finish(1);
  EXPECT_TRUE(G.faulted());
  EXPECT_EQ(G.faultError(), "device lost");
  EXPECT_EQ(Wakeups, 1);
  EXPECT_EQ(G.failedBatches(), 1u);
  EXPECT_EQ(G.failedPackets(), 3u);
  // Later batches are refused without reaching the broken back end.
  EXPECT_FALSE(Lane.stage(0, 4));
  runtime::PacketBatch B(64);
  uint8_t Frame[60] = {};
  B.add(Frame, sizeof(Frame));
  EXPECT_TRUE(Lane.submit(0, B));
  EXPECT_EQ(Old->Runs, 2);
  EXPECT_EQ(G.failedBatches(), 2u);
  EXPECT_EQ(G.failedPackets(), 4u);
  // Taken out, its lanes are closed before it is handed over.
  EXPECT_EQ(G.takeOut(), Old);
  EXPECT_EQ(Old->LanesOpen, 0);
  // The lane's next batch opens a lane of the new back end.
  auto New = std::make_shared<ToyBackend>();
  New->Lanes = true;
  G.install(New);
  ASSERT_TRUE(Lane.stage(0, 4));
  EXPECT_EQ(New->LanesOpen, 1);
  EXPECT_FALSE(Lane.submitStaged(0, 4));
  EXPECT_TRUE(polled(Lane.poll(0, false)));
  Lane.finish(0);
  EXPECT_EQ(New->Runs, 1);
  EXPECT_EQ(G.faults(), 1u);
  L->reset();
  EXPECT_EQ(New->LanesOpen, 0);
}

TEST(GuardedExecutor, TakingOutWaitsUntilTheWorkersAreDoneWithTheirSlots) {
  auto Back = std::make_shared<ToyBackend>();
  Back->Lanes = true;
  Back->Ready = false;
  tools::GuardedExecutor G(Back, {}, nullptr);
  auto L = G.openLane(2, 0);
  ASSERT_TRUE(L) << L.error().message();
  runtime::BatchLane &Lane = **L;
  ASSERT_TRUE(Lane.stage(0, 2));
  EXPECT_FALSE(Lane.submitStaged(0, 2));
  EXPECT_FALSE(polled(Lane.poll(0, false)));
  std::atomic<bool> Took{false};
  std::shared_ptr<runtime::BatchExecutor> Out;
  int OpenWhileIdle = -1;
  std::thread Control([&] {
    // Its maps are read with no batch running and its lanes still open (a
    // GPU lane closing aborts a hung kernel, and the maps with it).
    Out = G.takeOut([&](runtime::BatchExecutor &) { OpenWhileIdle = Back->LanesOpen; });
    Took = true;
  });
  // In flight: the lane stays open.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(Took);
  EXPECT_EQ(Back->LanesOpen, 1);
  // Done, but its verdicts still being acted on: still open.
  Back->Ready = true;
  EXPECT_TRUE(polled(Lane.poll(0, false)));
  const ebpfgpu_verdict *V = Lane.verdicts(0);
  ASSERT_TRUE(V);
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(Took);
  EXPECT_EQ(V[0].action, 0u); // still readable
  // Finished with: the lane closes and the back end is handed over.
  Lane.finish(0);
  Control.join();
  EXPECT_TRUE(Took);
  EXPECT_EQ(Out, Back);
  EXPECT_EQ(OpenWhileIdle, 1);
  EXPECT_EQ(Back->LanesOpen, 0);
}

TEST(GuardedExecutor, InjectsFaultsIntoLaneBatches) {
  auto F = tools::FaultInjection::parse("2");
  ASSERT_TRUE(F);
  auto Back = std::make_shared<ToyBackend>();
  Back->Lanes = true;
  tools::GuardedExecutor G(Back, *F, nullptr);
  auto L = G.openLane(1, 0);
  ASSERT_TRUE(L) << L.error().message();
  runtime::BatchLane &Lane = **L;
  ASSERT_TRUE(Lane.stage(0, 1));
  EXPECT_FALSE(Lane.submitStaged(0, 1)); // batch 1
  EXPECT_TRUE(polled(Lane.poll(0, true)));
  Lane.finish(0);
  ASSERT_TRUE(Lane.stage(0, 1));
  auto E = Lane.submitStaged(0, 1); // batch 2
  ASSERT_TRUE(E);
  EXPECT_EQ(E->message(),
            "injected fault at batch 2 (test only: EBPF_GPU_LOADER_TEST_FAIL_BATCHES)");
  Lane.finish(0);
  EXPECT_EQ(Back->Runs, 1);
  EXPECT_TRUE(G.faulted());
  EXPECT_EQ(G.failedPackets(), 1u);
}

} // namespace

namespace {

TEST(MetricsEndpoint, AnswersScrapesAndRefusesTheRest) {
  int Made = 0;
  auto Body = [&] {
    ++Made;
    return std::string("ebpf_gpu_workers 2\n");
  };
  std::string A = tools::metricsHttpAnswer("GET /metrics HTTP/1.1\r\nHost: x\r\nAccept: */*", Body);
  EXPECT_EQ(A, "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
               "Content-Length: 19\r\nConnection: close\r\n\r\nebpf_gpu_workers 2\n");
  EXPECT_EQ(tools::metricsHttpAnswer("GET /metrics?x=1 HTTP/1.0", Body).rfind("HTTP/1.1 200 OK", 0), 0u);
  EXPECT_EQ(Made, 2);
  EXPECT_EQ(tools::metricsHttpAnswer("GET / HTTP/1.1", Body).rfind("HTTP/1.1 404 Not Found", 0), 0u);
  EXPECT_EQ(tools::metricsHttpAnswer("POST /metrics HTTP/1.1", Body)
                .rfind("HTTP/1.1 405 Method Not Allowed", 0),
            0u);
  for (const char *Bad : {"", "GET", "GET /metrics", "GET /metrics FTP/1.0", "hello"})
    EXPECT_EQ(tools::metricsHttpAnswer(Bad, Body).rfind("HTTP/1.1 400 Bad Request", 0), 0u) << Bad;
  EXPECT_EQ(Made, 2); // nothing made for what is not a scrape
}

TEST(MetricsEndpoint, RefusesAddressesItCannotServeOn) {
  for (const char *Spec : {"", "x", "65536", "-1", "127.0.0.1:", "localhost:9464", "::1:9464",
                           "127.0.0.1:80x", "1.2.3:80"}) {
    auto E = tools::MetricsEndpoint::listen(Spec);
    ASSERT_FALSE(E) << Spec;
    EXPECT_NE(E.error().message().find("--metrics needs [ADDR:]PORT"), std::string::npos)
        << E.error().message();
  }
  auto E = tools::MetricsEndpoint::listen("127.0.0.1:0");
  ASSERT_TRUE(E) << E.error().message();
  EXPECT_EQ((*E)->address().rfind("127.0.0.1:", 0), 0u);
  EXPECT_NE((*E)->address(), "127.0.0.1:0");
}

} // namespace

namespace {

TEST(DaemonConfig, ReadsProgramsAndPortsAndRefusesTheRest) {
  auto C = tools::parseDaemonConfig("# comment\n"
                                    "program fw path=/a/fw.o section=xdp backend=gpu blocks=8 # x\n"
                                    "\n"
                                    "port net_null0 program=fw batch=64 exception=net_null1\n",
                                    "d.conf");
  ASSERT_TRUE(C) << C.error().message();
  ASSERT_EQ(C->Programs.size(), 1u);
  ASSERT_EQ(C->Ports.size(), 1u);
  EXPECT_EQ(C->Programs[0].Args.write(),
            R"({"path": "/a/fw.o", "section": "xdp", "backend": "gpu", "blocks": 8})");
  EXPECT_EQ(C->Ports[0].Program, "fw");
  EXPECT_EQ(C->Ports[0].Line, 4u);
  EXPECT_EQ(C->Ports[0].Args.write(),
            R"({"batch": 64, "exception": "net_null1", "device": "net_null0"})");
  // The shapes set before load, as `prog load` takes them (MAP=N lists).
  auto Sized = tools::parseDaemonConfig(
      "program lb path=/a/lb.o map_sizes=conns=1024 map_key_sizes=conns=16 "
      "map_value_sizes=conns=8,.bss=72 inner_maps=outer=tmpl\n",
      "d.conf");
  ASSERT_TRUE(Sized) << Sized.error().message();
  EXPECT_EQ(Sized->Programs[0].Args.write(),
            R"({"path": "/a/lb.o", "map_sizes": "conns=1024", "map_key_sizes": "conns=16", )"
            R"("map_value_sizes": "conns=8,.bss=72", "inner_maps": "outer=tmpl"})");
  struct Case {
    const char *Text, *Error;
  } Bad[] = {
      {"progam fw path=/a\n", "d.conf:1: 'progam': a line is"},
      {"program\n", "d.conf:1: program needs a name first"},
      {"program fw\n", "d.conf:1: program fw needs path=/absolute/object.o"},
      {"program fw path=/a path=/b\n", "d.conf:1: 'path' given twice"},
      {"program fw path=/a blocks=x\n", "d.conf:1: 'blocks' needs a number, not 'x'"},
      {"program fw path=/a\nprogram fw path=/b\n", "d.conf:2: program fw named twice"},
      {"program fw path=/a\nport p0\n", "d.conf:2: port p0 needs program=NAME"},
      {"program fw path=/a\nport p0 program=fw colour=1\n", "d.conf:2: unknown key 'colour' for a port"},
      {"port p0 program=fw\n", "d.conf:1: port p0 runs program fw, which no program line names"},
      {"program fw path=/a nokey\n", "d.conf:1: 'nokey' is not key=value"},
  };
  for (const Case &B : Bad) {
    auto E = tools::parseDaemonConfig(B.Text, "d.conf");
    ASSERT_FALSE(E) << B.Text;
    EXPECT_EQ(E.error().message().rfind(B.Error, 0), 0u) << E.error().message();
  }
}

} // namespace

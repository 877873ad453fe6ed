// SPDX-License-Identifier: Apache-2.0
//
// The one interface between the packet paths (one-shot pcap runs, the DPDK
// forwarder) and the back ends that run a program over a batch: the host
// JIT and the GPU. Back ends live where their dependencies are linked (the
// JIT needs LLVM, the GPU the CUDA driver); the runtime sees only this. A
// batch is a PacketBatch today; mbuf-backed batches in pinned memory (the
// GPU's zero-copy path) will be another PacketBatch storage, not another
// interface.

#ifndef EBPF_GPU_RUNTIME_BATCHEXECUTOR_H
#define EBPF_GPU_RUNTIME_BATCHEXECUTOR_H

#include "ebpf-gpu/Platform/GpuAbi.h"
#include "ebpf-gpu/Platform/MapAbi.h"
#include "ebpf-gpu/Platform/MapShape.h"
#include "ebpf-gpu/Platform/MapSpec.h"
#include "ebpf-gpu/Runtime/Packets.h"
#include "ebpf-gpu/Support/Error.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ebpfgpu::runtime {

/// A map of a loaded program as the operator sees it (bpftool's `map
/// list`): its shape as it runs. Global data (.data, .rodata, .bss) is an
/// array of one entry whose value is the whole section. Made from the
/// program's spec by liveMap(), the one place its rules are written.
struct MapInfo : platform::MapShape {
  std::string Name;
  bool GlobalData = false;
  /// Updates from the operator are refused (.rodata: folded into the code).
  bool ReadOnly = false;
  /// BTF type ids of key and value in the program's BTF, for pretty-
  /// printing (0: print in hex); a global data section's value is its
  /// DATASEC.
  uint32_t BtfKeyTypeId = 0;
  uint32_t BtfValueTypeId = 0;
};

/// The live description of map `Spec` of a loaded program, for every back
/// end, the daemon and the C API alike: its shape, except that global data
/// is an array of one entry whose value is the whole section (key 4 bytes,
/// the section's flags); read-only when it is global data the program may
/// not write (.rodata, BPF_F_RDONLY_PROG); the spec's BTF type ids (the
/// object reader's, which it clears where a size set before load no
/// longer matches its type).
MapInfo liveMap(const platform::MapSpec &Spec);

/// What an operator's map operation gets: the map's header, its addresses
/// pointing into host memory (the map itself on the host back end, a copy
/// of the device block on the GPU), for abi::hostMapLookup/Update/Delete
/// and abi::forEachMapEntry. Set `Changed` when the operation wrote the
/// map (the GPU copies the block back then).
using MapOperation = std::function<MaybeError(ebpfgpu_map &Map, bool &Changed)>;

/// One packet path's own way into a back end, with up to `depth()` batches
/// in flight at once (slots 0..depth()-1): a data plane worker submits a
/// batch, goes on receiving the next one, and acts on the oldest when
/// poll() says it is done. Each worker owns its lanes (a GPU lane has its
/// own streams and pinned buffers), so workers never wait for each other
/// in the back end. A lane is used by one thread at a time and must not
/// outlive its executor.
class BatchLane {
public:
  virtual ~BatchLane() = default;
  /// Batches this lane can have in flight (slots); a lane whose back end
  /// cannot overlap batches runs each to its end in submit().
  virtual unsigned depth() const = 0;
  /// Starts the program over `Batch` in slot `Slot` (not in flight). The
  /// batch and the packet buffers it points to must stay untouched until
  /// poll() says the slot is done. An error means the batch did not start.
  virtual MaybeError submit(unsigned Slot, PacketBatch &Batch) = 0;
  /// True when slot `Slot`'s batch is done: its verdicts and bytes are in
  /// the batch, as run() leaves them. `Wait`: returns only then. An error
  /// (a device fault, a watchdog) means the batch failed; the slot is free
  /// again either way.
  virtual Expected<bool> poll(unsigned Slot, bool Wait) = 0;

  /// Staging without a PacketBatch, for packets in the memory given to
  /// BatchExecutor::usePacketMemory (mbufs read in place): slot `Slot`'s
  /// descriptors, room for `Capacity`, which the caller fills with the
  /// packets' host buffer addresses (GpuAbi.h; the lane makes them device
  /// addresses, refusing a buffer outside that memory) and starts with
  /// submitStaged(). All the host writes per packet is one descriptor.
  /// Null: the lane takes PacketBatches only.
  virtual ebpfgpu_packet_desc *stage(unsigned Slot, uint32_t Capacity) { return nullptr; }
  /// Starts the first `Count` descriptors staged in slot `Slot`.
  virtual MaybeError submitStaged(unsigned Slot, uint32_t Count) {
    return Error("this back end takes batches only");
  }
  /// Once poll() said a staged batch is done: a verdict per descriptor,
  /// checked to leave each packet inside its buffer. Valid until the slot
  /// is staged again.
  virtual const ebpfgpu_verdict *verdicts(unsigned Slot) const { return nullptr; }
  /// Whether submitStaged() reads the staged packets' bytes (a copy of
  /// their first bytes for the GPU): the caller then asks for each
  /// packet's line as it stages it, so that the copy finds it cached.
  virtual bool readsPacketBytes() const { return false; }
  /// The caller is done with slot `Slot` for now: it acted on a batch
  /// poll() said is done (its verdicts are read), or it will not submit
  /// what it staged there. Until then the slot's memory may still be read
  /// or written by the caller; a lane that must know when it is not (the
  /// daemon's fault guard, which closes lanes) counts on this call.
  virtual void finish(unsigned Slot) {}
};

/// A lane whose batches run to their end in submit() through `Run` (a
/// failure is the batch's, told by poll()), with `Depth` slots.
std::unique_ptr<BatchLane> makeSynchronousLane(std::function<MaybeError(PacketBatch &)> Run,
                                               unsigned Depth);

/// One packet of an in-place burst, laid out as the C API's struct
/// ebpf_gpu_packet (api/lib/CApi.cpp checks it): `Len` bytes at `Data`;
/// after the run, where the program left it (`Data`, `Len`, and `Headroom`
/// and `Cap` moved with `Data`), its verdict and redirect target.
struct InPlacePacket {
  uint8_t *Data;
  uint32_t Len, Cap, Verdict, Redirect, Headroom;
};

/// Packets that run where they lie, each in a buffer from
/// dataOffsetFor(its `Headroom`) bytes before its `Data` to its `Cap` or
/// `Stride` - XdpHeadroom bytes after it, whichever is less (the bounds a
/// batch's copy would have, PacketBatch::addAt).
struct InPlaceBurst {
  InPlacePacket *Packets = nullptr;
  uint32_t Count = 0, Stride = 0;
  uint32_t IngressIfindex = 0, RxQueueIndex = 0;
  /// Prefetch the packet this many ahead of the one running (0: none).
  uint32_t Prefetch = 0;
};

class BatchExecutor {
public:
  virtual ~BatchExecutor() = default;

  /// Whether runInPlace runs bursts (the host back end's: no batch made
  /// of them, nothing copied).
  virtual bool runsInPlaceBursts() const { return false; }
  /// Runs `B` as worker `Worker` (run()'s 0, or a lane's), with what run()
  /// and a lane's submit promise for a batch; only where
  /// runsInPlaceBursts().
  virtual MaybeError runInPlace(InPlaceBurst &B, unsigned Worker) {
    return Error("this back end runs batches, not bursts in place");
  }

  /// Runs the program over every packet of `Batch`, in place: each packet
  /// gets its verdict, redirect target and final bytes (after
  /// adjust_head/tail). Safe to call from several threads at once, each
  /// with its own batch (implementations serialise internally where their
  /// back end needs it). An error means the back end failed (a device
  /// fault), not that a program refused a packet; the batch's verdicts are
  /// then unspecified.
  virtual MaybeError run(PacketBatch &Batch) = 0;

  /// A lane of up to `Depth` batches in flight for data plane worker
  /// `Worker` (0, 1, ...; back ends with per-CPU state, the host's per-CPU
  /// maps, run its batches as that worker's CPU). The default
  /// runs each batch synchronously in submit() through run();
  /// back ends that can overlap batches with the worker's own work (the
  /// GPU) return deeper lanes. Safe to call while other threads call run().
  virtual Expected<std::unique_ptr<BatchLane>> openLane(unsigned Depth, unsigned Worker = 0);

  /// The program's maps and global data as text (abi/MapMemory.h). Not
  /// to be called while run() is in progress.
  virtual Expected<std::string> dumpMaps() = 0;

  /// Sets `Key` to `Value` in the program's map named `Map` (the bytes as
  /// the map stores them). Not while run() is in progress.
  virtual MaybeError updateMap(const std::string &Map, const std::vector<uint8_t> &Key,
                               const std::vector<uint8_t> &Value) = 0;
  /// Replaces the forwarding table bpf_fib_lookup reads (a block of
  /// loader/Fib.h). Not while run() is in progress.
  virtual MaybeError setFib(const std::vector<uint8_t> &Block) = 0;
  /// Makes slot `Key` of the map of maps `Outer` hold the program's map
  /// named `Inner`. Not while run() is in progress.
  virtual MaybeError setInnerMap(const std::string &Outer, const std::vector<uint8_t> &Key,
                                 const std::string &Inner) = 0;
  /// Checks the structure of every map (abi::checkMapIntegrity). Not
  /// while run() is in progress.
  virtual MaybeError checkMaps() = 0;
  /// The lines bpf_trace_printk wrote since the last call (each ends in a
  /// newline), and the log emptied; a count of lines that did not fit
  /// follows them as a line of its own. Not while run() is in progress.
  virtual Expected<std::string> takeTrace() = 0;
  /// The records the program's event maps (ringbuf, perf_event_array)
  /// received since the last call, one line "MAP HEXBYTES" each
  /// (abi::EventLog): map by map, and within a map run by run, by
  /// packet. Not while run() is in progress. Records refused for want of
  /// room are counted in warnings().
  virtual Expected<std::string> takeEvents() = 0;
  /// What the operator should know about the runs so far (e.g. updates a
  /// map refused for want of room within a batch); empty when nothing.
  virtual Expected<std::vector<std::string>> warnings() = 0;

  /// The program's maps and global data, in the object's order.
  virtual std::vector<MapInfo> maps() const = 0;
  /// Runs `Op` on the map named `Name` while no batch of this program is
  /// in flight: safe to call while other threads call run() (it waits for
  /// the batches in flight to end and holds new ones back until `Op`
  /// returns). Fails when there is no such map, or with `Op`'s error.
  virtual MaybeError accessMap(const std::string &Name, const MapOperation &Op) = 0;

  /// The runtime's packet buffers (an mbuf pool's memory) live in
  /// [Addr, Addr + Bytes): a back end that can run packets there in place
  /// (a GPU mapping the range) prepares to. Packets added to a batch with
  /// PacketBatch::addExternal lie in such ranges. Before any run().
  virtual MaybeError usePacketMemory(void *Addr, size_t Bytes) { return std::nullopt; }
  /// The ranges are about to be freed: forget them. After the last run().
  virtual void forgetPacketMemory() {}
  /// Packets run so far where their batch held them (packet memory the
  /// back end maps), nothing copied to or from it. 0 where it never does.
  virtual uint64_t packetsRunInPlace() const { return 0; }

  /// Stops the back end's work that runs on its own (a persistent GPU
  /// kernel) and holds its batches off until the returned token is
  /// dropped; the next batch starts that work again. Another back end's
  /// device-wide operations (making or destroying a CUDA context) wait for
  /// every running kernel of the device, so the daemon quiesces the others
  /// around them. Null: nothing to stop.
  virtual std::shared_ptr<void> quiesce() { return nullptr; }
  /// Ends the back end's loops on the device (persistent GPU kernels: the
  /// executor's own, and its lanes', which end once their batches are
  /// done) without freeing what they use. Pinning, unpinning or freeing
  /// host memory that is mapped into every context of a process waits for
  /// every running kernel of those contexts: the back ends of one program
  /// over several contexts (exec/MultiGpu.h) are all stopped this way
  /// before any of them does one. A stopped loop starts again only at a
  /// later batch of a run(). Default: no such loop.
  virtual void stopDeviceLoops() {}

  /// True when the program is proven to leave every packet as it came (no
  /// byte written, no bound moved): a data path may then keep frames as
  /// they are. False when it may change them, or nobody proved it.
  virtual bool readsOnlyPackets() const { return false; }

  /// True when the program calls an XDP RX metadata kfunc: a data plane
  /// then writes each packet's struct ebpfgpu_rx_meta (XdpContext.h) at
  /// its buffer's start and marks the batch (PacketBatch::setRxMeta), a
  /// cost no other program pays.
  virtual bool readsRxMetadata() const { return false; }

  /// The program's name (function or section) and the back end's name
  /// ("host", "gpu").
  virtual const std::string &programName() const = 0;
  virtual const char *backendName() const = 0;
};

} // namespace ebpfgpu::runtime

#endif // EBPF_GPU_RUNTIME_BATCHEXECUTOR_H

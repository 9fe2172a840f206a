// One sampling round of `gpuplan watch`: every GPU read through NVML (the per-interval read,
// and every `full_every`th round the costly one with processes, retired pages and remapped
// rows), turned into archive Readings, events for what changed (a PCIe link or NVLink state,
// an ECC count that rose, a GPU lost or back), and the new WatchState. A lost GPU is recorded
// as a lost Reading every round and asked again the next.
//
// Two steps so the daemon holds the state's lock only while applying: read() talks to NVML,
// apply() updates the state and hands rows to the archive.
#pragma once

#include <cstdint>
#include <vector>

#include "archive/archive.h"
#include "nvml/nvml.h"
#include "watch/state.h"

namespace gpuplan::watch {

struct RoundReadings {
  int64_t time_ms = 0;
  bool full = false;
  std::vector<nvml::WatchReading> gpus;  // by NVML index
};

class Sampling {
 public:
  // `full_every` >= 1: the costly reads every that many rounds (the first round is full).
  Sampling(nvml::Nvml& nvml, int full_every);

  // Identity of every GPU into `state` (index, uuid, bus id, name, max link), and as the
  // archive registers them. A GPU lost at start has an empty identity until it returns.
  std::vector<archive::ArchivedGpu> start(WatchState& state);
  // Reads every GPU (no lock needed: only NVML is touched).
  RoundReadings read(int64_t now_ms);
  // Updates `state` and adds the round's readings and events to `archive`. Returns true when a
  // GPU's identity became known (returned after being lost at start): register the GPUs again.
  bool apply(const RoundReadings& round, WatchState& state, archive::Archive& archive);

 private:
  nvml::Nvml& nvml_;
  int full_every_;
  int64_t rounds_ = 0;
};

// The events between two readings of one GPU: link generation/width, NVLink active count,
// ECC counts that rose (aggregate when read, else volatile; one event per counter).
std::vector<archive::Event> change_events(unsigned gpu, int64_t time_ms, const nvml::GpuDynamic& before,
                                          const nvml::GpuDynamic& after);

}  // namespace gpuplan::watch

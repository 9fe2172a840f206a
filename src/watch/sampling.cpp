// The sampling round: NVML reads, change events, the state and the archive rows.
#include "watch/sampling.h"

#include <algorithm>
#include <string>

namespace gpuplan::watch {
namespace {

std::string link_text(const nvml::GpuDynamic& d) {
  return "gen " + std::to_string(*d.link_gen) + " x" + std::to_string(*d.link_width);
}

// The costly facts a per-interval reading leaves out, carried from the last full one so the
// exporter always shows them (the archive rows keep what each round really read).
void carry_costly(const nvml::GpuDynamic& last, nvml::GpuDynamic& now) {
  if (!now.processes) now.processes = last.processes;
  if (!now.retired_pages_sbe) now.retired_pages_sbe = last.retired_pages_sbe;
  if (!now.retired_pages_dbe) now.retired_pages_dbe = last.retired_pages_dbe;
  if (!now.retired_pages_pending) now.retired_pages_pending = last.retired_pages_pending;
  if (!now.remapped_rows_correctable) now.remapped_rows_correctable = last.remapped_rows_correctable;
  if (!now.remapped_rows_uncorrectable) now.remapped_rows_uncorrectable = last.remapped_rows_uncorrectable;
  if (!now.remapping_pending) now.remapping_pending = last.remapping_pending;
  if (!now.remapping_failed) now.remapping_failed = last.remapping_failed;
}

archive::ArchivedGpu archived(const nvml::GpuStatic& s) {
  return {s.index, s.uuid, s.pci_bus_id, s.name, s.memory_total_mib};
}

}  // namespace

std::vector<archive::Event> change_events(unsigned gpu, int64_t time_ms, const nvml::GpuDynamic& before,
                                          const nvml::GpuDynamic& after) {
  std::vector<archive::Event> out;
  auto event = [&](archive::EventKind kind, std::optional<int64_t> code, std::string detail) {
    archive::Event e;
    e.time_ms = time_ms;
    e.kind = kind;
    e.gpu = gpu;
    e.code = code;
    e.detail = std::move(detail);
    out.push_back(std::move(e));
  };
  if (before.link_gen && before.link_width && after.link_gen && after.link_width &&
      (*before.link_gen != *after.link_gen || *before.link_width != *after.link_width)) {
    event(archive::EventKind::kLinkChange, *after.link_gen, link_text(before) + " -> " + link_text(after));
  }
  auto active = [](const nvml::GpuDynamic& d) {
    return std::count(d.nvlink_active.begin(), d.nvlink_active.end(), true);
  };
  if (!before.nvlink_active.empty() && !after.nvlink_active.empty() && active(before) != active(after)) {
    event(archive::EventKind::kLinkChange, std::nullopt,
          "nvlink " + std::to_string(active(before)) + " -> " + std::to_string(active(after)) + " active");
  }
  // Aggregate counts survive a driver reload; volatile ones only where aggregate is not read.
  struct Counter {
    const char* name;
    std::optional<uint64_t> nvml::GpuDynamic::*field;
  };
  const bool aggregate = after.ecc_aggregate_corrected || after.ecc_aggregate_uncorrected;
  const Counter counters[] = {
      {"aggregate corrected", &nvml::GpuDynamic::ecc_aggregate_corrected},
      {"aggregate uncorrected", &nvml::GpuDynamic::ecc_aggregate_uncorrected},
      {"volatile corrected", &nvml::GpuDynamic::ecc_volatile_corrected},
      {"volatile uncorrected", &nvml::GpuDynamic::ecc_volatile_uncorrected},
  };
  for (const auto& c : counters) {
    if (aggregate != std::string(c.name).starts_with("aggregate")) continue;
    const auto& was = before.*c.field;
    const auto& is = after.*c.field;
    if (was && is && *is > *was) {
      event(archive::EventKind::kEccRise, static_cast<int64_t>(*is),
            std::string(c.name) + " " + std::to_string(*was) + " -> " + std::to_string(*is));
    }
  }
  return out;
}

Sampling::Sampling(nvml::Nvml& nvml, int full_every) : nvml_(nvml), full_every_(std::max(1, full_every)) {}

std::vector<archive::ArchivedGpu> Sampling::start(WatchState& state) {
  std::vector<archive::ArchivedGpu> out;
  state.gpus.clear();
  for (unsigned i = 0; i < nvml_.count(); ++i) {
    GpuState g;
    g.info = nvml_.read_static(i);
    g.info.index = i;
    out.push_back(archived(g.info));
    state.gpus.push_back(std::move(g));
  }
  return out;
}

RoundReadings Sampling::read(int64_t now_ms) {
  RoundReadings r;
  r.time_ms = now_ms;
  r.full = rounds_ % full_every_ == 0;
  ++rounds_;
  for (unsigned i = 0; i < nvml_.count(); ++i) r.gpus.push_back(nvml_.read_watch(i, r.full));
  return r;
}

bool Sampling::apply(const RoundReadings& round, WatchState& state, archive::Archive& archive) {
  bool identity_changed = false;
  ++state.samples_taken;
  for (unsigned i = 0; i < round.gpus.size() && i < state.gpus.size(); ++i) {
    const nvml::WatchReading& r = round.gpus[i];
    GpuState& g = state.gpus[i];
    archive.add(archive::Reading{round.time_ms, i, r.lost, r.values});
    auto event = [&](archive::EventKind kind) {
      archive::Event e;
      e.time_ms = round.time_ms;
      e.kind = kind;
      e.gpu = i;
      e.device = g.info.pci_bus_id;
      archive.add(e);
    };
    if (r.lost) {
      if (!g.lost) {
        g.lost = true;
        g.lost_since_ms = round.time_ms;
        event(archive::EventKind::kGpuLost);
      }
      continue;  // the last good reading stays in g.now, to compare with when it returns
    }
    if (g.lost) {
      g.lost = false;
      event(archive::EventKind::kGpuBack);
    }
    if (g.info.uuid.empty()) {
      g.info = nvml_.read_static(i);
      g.info.index = i;
      identity_changed |= !g.info.uuid.empty();
    }
    nvml::GpuDynamic now = r.values;
    if (g.now) {
      for (auto& e : change_events(i, round.time_ms, *g.now, now)) {
        e.device = g.info.pci_bus_id;
        archive.add(e);
      }
      carry_costly(*g.now, now);
    }
    g.now = std::move(now);
    g.read_ms = round.time_ms;
  }
  return identity_changed;
}

}  // namespace gpuplan::watch

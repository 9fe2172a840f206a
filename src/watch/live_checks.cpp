// Each live check mirrors the acceptance check of the same id (accept/gpu_checks.cpp,
// accept/pcie_checks.cpp) on the evidence watch has: NVML's counters and the Xids it followed.
#include "watch/live_checks.h"

#include <algorithm>

namespace gpuplan::watch {
namespace {

int ecc_status(const WatchState& s, const catalog::Catalog& cat) {
  const double max_corrected = cat.threshold("accept.ecc.max_corrected");
  int status = kLivePass;
  for (const GpuState& g : s.gpus) {
    if (g.lost || !g.now) continue;
    const nvml::GpuDynamic& d = *g.now;
    const uint64_t uncorrected =
        std::max(d.ecc_volatile_uncorrected.value_or(0), d.ecc_aggregate_uncorrected.value_or(0));
    const uint64_t corrected = std::max(d.ecc_volatile_corrected.value_or(0), d.ecc_aggregate_corrected.value_or(0));
    if (uncorrected > 0 || d.retired_pages_dbe.value_or(0) > 0 || d.retired_pages_pending.value_or(false) ||
        d.remapping_failed.value_or(false))
      return kLiveFail;
    if (d.remapping_pending.value_or(false) || static_cast<double>(corrected) > max_corrected ||
        (d.ecc_enabled && !*d.ecc_enabled))
      status = kLiveWarn;
  }
  return status;
}

// A fail-class Xid (catalog/xid.yaml) fails; a warn-class or uncatalogued code warns.
int xid_status(const WatchState& s, const catalog::Catalog& cat) {
  int status = kLivePass;
  for (const GpuState& g : s.gpus)
    for (const auto& [code, count] : g.xid_counts) {
      if (count == 0) continue;
      const catalog::Entry* known = nullptr;
      for (const catalog::Entry* e : cat.of_kind("xid"))
        if (e->number("code") == static_cast<double>(code) && (!e->has("scope") || e->text("scope") == "gpu"))
          known = e;
      const std::string severity = known ? known->text("severity") : "warn";
      if (severity == "fail") return kLiveFail;
      if (severity == "warn") status = kLiveWarn;
    }
  return status;
}

// A GPU NVML reports lost has fallen off the bus: the count the server was accepted with is gone.
int gpu_count_status(const WatchState& s) {
  return std::any_of(s.gpus.begin(), s.gpus.end(), [](const GpuState& g) { return g.lost; }) ? kLiveFail : kLivePass;
}

// A link narrower than the acceptance minimum or the GPU's maximum fails; a slower one warns (an
// idle A100 trains its speed down to save power, and one reading may catch it on its way back up).
// Unknown links pass:
// the acceptance run judged them from sysfs, which watch does not read.
int pcie_status(const WatchState& s, const catalog::Catalog& cat) {
  const unsigned min_gen = static_cast<unsigned>(cat.threshold("accept.pcie.min_gen"));
  const unsigned min_width = static_cast<unsigned>(cat.threshold("accept.pcie.min_width"));
  int status = kLivePass;
  for (const GpuState& g : s.gpus) {
    if (g.lost || !g.now || !g.now->link_gen || !g.now->link_width) continue;
    const unsigned gen = *g.now->link_gen, width = *g.now->link_width;
    const unsigned max_gen = g.info.max_link_gen.value_or(gen), max_width = g.info.max_link_width.value_or(width);
    const bool width_low = width < std::max(min_width, max_width);
    const bool gen_low = gen < std::max(min_gen, max_gen);
    if (!width_low && !gen_low) continue;
    // A narrower link is wiring or seating: fail. A slower one may be a reading taken as the GPU
    // left idle power saving (one sample every few seconds all day catches that moment), so it
    // warns; the alert rule, which waits watch.alert.for_minutes, is what says it lasts.
    if (width_low) return kLiveFail;
    status = kLiveWarn;
  }
  return status;
}

}  // namespace

std::vector<LiveCheck> live_checks(const WatchState& state, const catalog::Catalog& cat) {
  return {{"ecc", ecc_status(state, cat)},
          {"xid", xid_status(state, cat)},
          {"gpu.count", gpu_count_status(state)},
          {"pcie.link", pcie_status(state, cat)}};
}

}  // namespace gpuplan::watch

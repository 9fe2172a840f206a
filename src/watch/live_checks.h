// The acceptance checks watch can judge while the server runs, from what it knows now (a
// WatchState) and the catalog: "ecc", "xid", "gpu.count" and "pcie.link", each 0 pass, 1 warn,
// 2 fail, judged as `accept` judges the same evidence. A caller may rely on: always these four
// ids in this order; evidence that is missing or ambiguous never reads as fail.
#pragma once

#include <vector>

#include "catalog/catalog.h"
#include "watch/state.h"

namespace gpuplan::watch {

inline constexpr int kLivePass = 0;
inline constexpr int kLiveWarn = 1;
inline constexpr int kLiveFail = 2;

std::vector<LiveCheck> live_checks(const WatchState& state, const catalog::Catalog& cat);

}  // namespace gpuplan::watch

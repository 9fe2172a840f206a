// Monte Carlo throughput of `gpuplan tco`: draws per second of the model (totals from demand
// statistics computed once) against a named baseline on the same scenario in the same run,
// "hourly re-simulation" (every draw walks the horizon hour by hour, as a spreadsheet would).
// Prints the medians of 5 runs and their ratio. Usage: bench_tco_montecarlo [DRAWS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "tco/tco.h"

namespace {

using gpuplan::Range;
using gpuplan::tco::Scenario;

Scenario nightly_peak() {
  Scenario s;
  s.horizon_hours = 26280;
  s.owned.gpus = 8;
  s.owned.purchase = {1400000, 1800000};
  s.owned.power_kw = {5.0, 6.0};
  s.owned.electricity_kwh = {0.6, 1.0};
  s.owned.pue = {1.25, 1.6};
  s.owned.staff_monthly = {8000, 15000};
  s.rent.on_demand_gpu_hour = Range{12.8, 34.74};
  s.rent.monthly_gpu = Range{3000, 4500};
  s.rent.spot_gpu_hour = Range{4, 8};
  s.demand.resize(26280);
  for (size_t h = 0; h < s.demand.size(); ++h) s.demand[h] = h % 24 >= 20 ? 8 : 4;
  return s;
}

// The baseline: each draw sets point prices and costs buy and rent with two passes over the hours.
double baseline_probability(Scenario s, int draws, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  const Scenario ranges = s;
  auto draw = [&](const Range& r) { return Range::point(r.low + unit(rng) * (r.high - r.low)); };
  int buy_wins = 0;
  for (int d = 0; d < draws; ++d) {
    s.owned.purchase = draw(ranges.owned.purchase);
    s.owned.power_kw = draw(ranges.owned.power_kw);
    s.owned.electricity_kwh = draw(ranges.owned.electricity_kwh);
    s.owned.pue = draw(ranges.owned.pue);
    s.owned.staff_monthly = draw(ranges.owned.staff_monthly);
    s.rent.on_demand_gpu_hour = draw(*ranges.rent.on_demand_gpu_hour);
    const double buy = gpuplan::tco::hybrid_total(s, s.owned.gpus);  // own all, overflow on demand
    const double rent = gpuplan::tco::hybrid_total(s, 0);             // all on demand
    buy_wins += buy < rent;
  }
  return static_cast<double>(buy_wins) / draws;
}

template <class F>
double median_seconds(F&& run) {
  std::vector<double> seconds;
  for (int i = 0; i < 5; ++i) {
    auto start = std::chrono::steady_clock::now();
    run();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  return seconds[2];
}

}  // namespace

int main(int argc, char** argv) {
  const int draws = argc > 1 ? std::atoi(argv[1]) : 1000000;
  const int baseline_draws = std::max(1, draws / 1000);  // the baseline is far slower
  const Scenario s = nightly_peak();
  volatile double sink = 0;
  double model = median_seconds([&] { sink = gpuplan::tco::monte_carlo_probability(s, draws, 1); });
  double baseline = median_seconds([&] { sink = baseline_probability(s, baseline_draws, 1); });
  const double model_rate = draws / model;
  const double baseline_rate = baseline_draws / baseline;
  std::printf("scenario: 8 GPUs, 26,280 h, nightly peak; 6 uncertain inputs\n");
  std::printf("model draws_per_second: %.0f (median of 5 runs of %d draws)\n", model_rate, draws);
  std::printf("baseline hourly_resimulation draws_per_second: %.0f (median of 5 runs of %d draws)\n", baseline_rate,
              baseline_draws);
  std::printf("ratio_vs_hourly_resimulation: %.1f\n", model_rate / baseline_rate);
  return sink < 0;  // keeps the work observable
}

#include "catalog/required_thresholds.h"

namespace gpuplan::catalog {

const std::vector<std::string_view>& required_thresholds() {
  static const std::vector<std::string_view> kIds = {
      // plan: quote, rules, recommend, audit
      "memory.min_gb",
      "term.years",
      "rack.continuous_fraction",
      "cooling.hot_room_c",
      "cooling.air_throttle_pct",
      "band.rent_per_gpu_month",
      "band.buy_per_gpu",
      "market.tolerance",
      "audit.price_tolerance",
      "recommend.bytes_per_param_training",
      "recommend.bytes_per_param_inference",
      "recommend.gpu_memory_usable_fraction",
      "recommend.cores_per_gpu",
      "recommend.high_concurrency",
      "recommend.host_to_gpu_memory_ratio",
      "recommend.dataset_headroom",
      "recommend.min_data_tb",
      // tco
      "tco.mc_draws",
      "tco.sensitivity_step",
      "tco.rent_below_utilization",
      "tco.buy_above_utilization",
      "tco.bursty_peak_to_mean",
      "power.server_factor",
      "power.psu_efficiency",
      "power.idle_fraction",
      "electricity.price_kwh",
      "pue",
      "pue.air",
      "pue.liquid",
      "egress.price_gb",
      "network.epoch_min_10gbe",
      "network.epoch_min_ib",
      // usage
      "usage.idle_below_pct",
      "usage.idle_share",
      "usage.buy_band_pct",
      "usage.buy_share",
      "usage.peak_to_mean",
      "usage.busy_threshold_pct",
      // accept
      "accept.soak.hours",
      "accept.soak.max_temperature_c",
      "accept.soak.min_utilization_pct",
      "accept.soak.max_below_share",
      "accept.load.hours",
      "accept.load.max_memory_growth_mb_per_h",
      "accept.logs.max_skipped_share",
      "accept.archive.max_interval_s",
      "accept.kernel_log.max_malformed_share",
      "accept.performance.min_images_per_s_per_gpu",
      "accept.contract.disk_capacity_tolerance",
      "accept.ecc.max_corrected",
      "accept.pcie.min_gen",
      "accept.pcie.min_width",
      "accept.pcie.max_replays",
      "accept.nvme.max_percentage_used",
      // diagnose
      "diagnose.thermal.airflow_c",
      "diagnose.thermal.sustained_minutes",
      "diagnose.thermal.normal_c",
      "diagnose.thermal.slowdown_pct",
      "diagnose.input.max_utilization_pct",
      "diagnose.input.idle_below_pct",
      "diagnose.input.low_power_fraction",
      "diagnose.input.sustained_minutes",
      "diagnose.input.min_periodic_drops",
      "diagnose.input.period_tolerance",
      "diagnose.memory.near_full_fraction",
      "diagnose.memory.leftover_mib",
  };
  return kIds;
}

}  // namespace gpuplan::catalog

// The text format written family by family: HELP, TYPE, then one sample per GPU (or per code).
// dcgm-exporter's HELP texts are kept word for word (its default-counters.csv): they are part of
// the interface dashboards and alerts were written against, not prose of ours to translate.
#include "watch/exposition.h"

#include <charconv>
#include <cmath>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

namespace gpuplan::watch {
namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

struct Family {
  std::string name, type, help;
  std::vector<std::pair<Labels, double>> samples;
};

std::string number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest form that reads back exactly
  return std::string(buf, end);
}

void write(std::string& out, const Family& f) {
  if (f.samples.empty()) return;  // a family with nothing known is left out, not shown empty
  out += "# HELP " + f.name + " " + f.help + "\n# TYPE " + f.name + " " + f.type + "\n";
  for (const auto& [labels, value] : f.samples) {
    out += f.name;
    if (!labels.empty()) {
      out += '{';
      for (size_t i = 0; i < labels.size(); ++i) {
        if (i) out += ',';
        out += labels[i].first + "=\"" + escape_label_value(labels[i].second) + "\"";
      }
      out += '}';
    }
    out += ' ' + number(value) + '\n';
  }
}

// dcgm-exporter's labels, in its order (as in its /metrics scrapes).
Labels dcgm_labels(const WatchState& s, const GpuState& g) {
  const std::string index = std::to_string(g.info.index);
  return {{"gpu", index},
          {"UUID", g.info.uuid},
          {"pci_bus_id", g.info.pci_bus_id},
          {"device", "nvidia" + index},
          {"modelName", g.info.name},
          {"Hostname", s.host}};
}

// gpuplan's own series: the same labels less modelName, whose camelCase promtool's lint refuses;
// gpu, UUID and Hostname still join them to the DCGM series.
Labels own_labels(const WatchState& s, const GpuState& g) {
  const std::string index = std::to_string(g.info.index);
  return {{"gpu", index},
          {"UUID", g.info.uuid},
          {"pci_bus_id", g.info.pci_bus_id},
          {"device", "nvidia" + index},
          {"Hostname", s.host}};
}

template <class T>
std::optional<double> as_number(const std::optional<T>& v) {
  if (!v) return std::nullopt;
  return static_cast<double>(*v);
}

using Pick = std::function<std::optional<double>(const nvml::GpuDynamic&)>;

struct DcgmField {
  const char* name;
  const char* type;
  const char* help;
  Pick pick;
};

#define GPUPLAN_FIELD(member) [](const nvml::GpuDynamic& d) { return as_number(d.member); }

const std::vector<DcgmField>& dcgm_fields() {
  static const std::vector<DcgmField> kFields = {
      {"DCGM_FI_DEV_SM_CLOCK", "gauge", "SM clock frequency (in MHz).", GPUPLAN_FIELD(sm_clock_mhz)},
      {"DCGM_FI_DEV_MEM_CLOCK", "gauge", "Memory clock frequency (in MHz).", GPUPLAN_FIELD(memory_clock_mhz)},
      {"DCGM_FI_DEV_MEMORY_TEMP", "gauge", "Memory temperature (in C).", GPUPLAN_FIELD(memory_temperature_c)},
      {"DCGM_FI_DEV_GPU_TEMP", "gauge", "GPU temperature (in C).", GPUPLAN_FIELD(temperature_c)},
      {"DCGM_FI_DEV_POWER_USAGE", "gauge", "Power draw (in W).", GPUPLAN_FIELD(power_w)},
      {"DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", "counter", "Total energy consumption since boot (in mJ).",
       GPUPLAN_FIELD(energy_mj)},
      {"DCGM_FI_DEV_PCIE_REPLAY_COUNTER", "counter", "Total number of PCIe retries.", GPUPLAN_FIELD(pcie_replays)},
      {"DCGM_FI_DEV_GPU_UTIL", "gauge", "GPU utilization (in %).", GPUPLAN_FIELD(utilization_pct)},
      {"DCGM_FI_DEV_MEM_COPY_UTIL", "gauge", "Memory utilization (in %).", GPUPLAN_FIELD(memory_copy_utilization_pct)},
      {"DCGM_FI_DEV_FB_FREE", "gauge", "Framebuffer memory free (in MiB).", GPUPLAN_FIELD(memory_free_mib)},
      {"DCGM_FI_DEV_FB_USED", "gauge", "Framebuffer memory used (in MiB).", GPUPLAN_FIELD(memory_used_mib)},
      {"DCGM_FI_DEV_ECC_SBE_VOL_TOTAL", "counter", "Total number of single-bit volatile ECC errors.",
       GPUPLAN_FIELD(ecc_volatile_corrected)},
      {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "counter", "Total number of double-bit volatile ECC errors.",
       GPUPLAN_FIELD(ecc_volatile_uncorrected)},
      {"DCGM_FI_DEV_ECC_SBE_AGG_TOTAL", "counter", "Total number of single-bit persistent ECC errors.",
       GPUPLAN_FIELD(ecc_aggregate_corrected)},
      {"DCGM_FI_DEV_ECC_DBE_AGG_TOTAL", "counter", "Total number of double-bit persistent ECC errors.",
       GPUPLAN_FIELD(ecc_aggregate_uncorrected)},
      {"DCGM_FI_DEV_RETIRED_SBE", "counter", "Total number of retired pages due to single-bit errors.",
       GPUPLAN_FIELD(retired_pages_sbe)},
      {"DCGM_FI_DEV_RETIRED_DBE", "counter", "Total number of retired pages due to double-bit errors.",
       GPUPLAN_FIELD(retired_pages_dbe)},
      // NVML tells only whether pages wait for retirement, so the "count" is 0 or 1.
      {"DCGM_FI_DEV_RETIRED_PENDING", "counter", "Total number of pages pending retirement.",
       GPUPLAN_FIELD(retired_pages_pending)},
      {"DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", "counter", "Total number of NVLink flow-control CRC errors.",
       GPUPLAN_FIELD(nvlink_crc_flit_errors)},
      {"DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", "counter", "Total number of NVLink data CRC errors.",
       GPUPLAN_FIELD(nvlink_crc_data_errors)},
      {"DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", "counter", "Total number of NVLink retries.",
       GPUPLAN_FIELD(nvlink_replay_errors)},
      {"DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", "counter", "Total number of NVLink recovery errors.",
       GPUPLAN_FIELD(nvlink_recovery_errors)},
      {"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", "counter", "Number of remapped rows for uncorrectable errors",
       GPUPLAN_FIELD(remapped_rows_uncorrectable)},
      {"DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS", "counter", "Number of remapped rows for correctable errors",
       GPUPLAN_FIELD(remapped_rows_correctable)},
      {"DCGM_FI_DEV_ROW_REMAP_FAILURE", "gauge", "Whether remapping of rows has failed",
       GPUPLAN_FIELD(remapping_failed)},
  };
  return kFields;
}

#undef GPUPLAN_FIELD

// NVML's clock-event reason bits (nvmlClocksEventReason* / nvmlClocksThrottleReason*), named as
// NVML names them, less the prefix.
const std::vector<std::pair<uint64_t, const char*>>& clock_event_bits() {
  static const std::vector<std::pair<uint64_t, const char*>> kBits = {
      {0x1, "GpuIdle"},
      {0x2, "ApplicationsClocksSetting"},
      {0x4, "SwPowerCap"},
      {0x8, "HwSlowdown"},
      {0x10, "SyncBoost"},
      {0x20, "SwThermalSlowdown"},
      {0x40, "HwThermalSlowdown"},
      {0x80, "HwPowerBrakeSlowdown"},
      {0x100, "DisplayClockSetting"},
  };
  return kBits;
}

// The readings of GPUs that answer: a lost GPU's last reading is stale and is not shown.
std::vector<Family> dcgm_families(const WatchState& s) {
  std::vector<Family> out;
  for (const DcgmField& f : dcgm_fields()) {
    Family fam{f.name, f.type, f.help, {}};
    for (const GpuState& g : s.gpus)
      if (!g.lost && g.now)
        if (auto v = f.pick(*g.now)) fam.samples.push_back({dcgm_labels(s, g), *v});
    out.push_back(std::move(fam));
    if (std::string_view(f.name) == "DCGM_FI_DEV_MEM_COPY_UTIL") {
      // The last Xid sits where dcgm-exporter lists it, after the utilizations.
      Family xid{"DCGM_FI_DEV_XID_ERRORS", "gauge", "Value of the last XID error encountered.", {}};
      for (const GpuState& g : s.gpus)
        if (g.last_xid) xid.samples.push_back({dcgm_labels(s, g), static_cast<double>(*g.last_xid)});
      out.push_back(std::move(xid));
    }
  }
  return out;
}

void add_link_families(const WatchState& s, std::vector<Family>& out) {
  Family gen{"gpuplan_pcie_link_gen", "gauge", "Current PCIe link generation of the GPU.", {}};
  Family gen_max{
      "gpuplan_pcie_link_gen_max", "gauge", "Highest PCIe link generation the GPU and its slot support.", {}};
  Family width{"gpuplan_pcie_link_width", "gauge", "Current PCIe link width of the GPU (lanes).", {}};
  Family width_max{
      "gpuplan_pcie_link_width_max", "gauge", "Widest PCIe link the GPU and its slot support (lanes).", {}};
  Family reasons{"gpuplan_clock_event_reason",
                 "gauge",
                 "1 while NVML reports this clock-event (throttle) reason for the GPU, else 0.",
                 {}};
  for (const GpuState& g : s.gpus) {
    Labels l = own_labels(s, g);
    if (auto v = as_number(g.info.max_link_gen)) gen_max.samples.push_back({l, *v});
    if (auto v = as_number(g.info.max_link_width)) width_max.samples.push_back({l, *v});
    if (g.lost || !g.now) continue;
    if (auto v = as_number(g.now->link_gen)) gen.samples.push_back({l, *v});
    if (auto v = as_number(g.now->link_width)) width.samples.push_back({l, *v});
    if (g.now->clock_event_reasons)
      for (const auto& [bit, name] : clock_event_bits()) {
        Labels r = l;
        r.emplace_back("reason", name);
        reasons.samples.push_back({r, (*g.now->clock_event_reasons & bit) ? 1.0 : 0.0});
      }
  }
  for (Family* f : {&gen, &gen_max, &width, &width_max, &reasons}) out.push_back(std::move(*f));
}

void add_event_families(const WatchState& s, std::vector<Family>& out) {
  Family xids{"gpuplan_xid_errors_total",
              "counter",
              "Xid errors the kernel logged for the GPU since watch started, by code.",
              {}};
  Family lost{"gpuplan_gpu_lost", "gauge", "1 while NVML reports the GPU lost (fallen off the bus), else 0.", {}};
  for (const GpuState& g : s.gpus) {
    for (const auto& [code, count] : g.xid_counts) {
      Labels l = own_labels(s, g);
      l.emplace_back("xid", std::to_string(code));
      xids.samples.push_back({l, static_cast<double>(count)});
    }
    lost.samples.push_back({own_labels(s, g), g.lost ? 1.0 : 0.0});
  }
  const Labels host = {{"Hostname", s.host}};
  Family sxids{"gpuplan_sxid_errors_total",
               "counter",
               "NVSwitch SXid errors the kernel logged since watch started, by code.",
               {}};
  for (const auto& [code, count] : s.sxid_counts)
    sxids.samples.push_back({{{"Hostname", s.host}, {"sxid", std::to_string(code)}}, static_cast<double>(count)});
  Family aer{"gpuplan_pcie_aer_events_total",
             "counter",
             "PCIe AER events the kernel logged since watch started.",
             {{host, static_cast<double>(s.aer_events)}}};
  Family checks{
      "gpuplan_acceptance_check_status", "gauge", "Live status of an acceptance check: 0 pass, 1 warn, 2 fail.", {}};
  for (const LiveCheck& c : s.checks)
    checks.samples.push_back({{{"Hostname", s.host}, {"check", c.id}}, static_cast<double>(c.status)});
  for (Family* f : {&xids, &lost, &sxids, &aer, &checks}) out.push_back(std::move(*f));
}

void add_archive_families(const WatchState& s, std::vector<Family>& out) {
  const Labels host = {{"Hostname", s.host}};
  const ArchiveState& a = s.archive;
  auto one = [&](const char* name, const char* type, const char* help, double v) {
    out.push_back({name, type, help, {{host, v}}});
  };
  one("gpuplan_samples_total", "counter", "Sampling rounds (one reading of every GPU) since watch started.",
      static_cast<double>(s.samples_taken));
  one("gpuplan_archive_readings_committed_total", "counter", "Readings committed to the archive since watch started.",
      static_cast<double>(a.readings_committed));
  one("gpuplan_archive_pending_rows", "gauge", "Readings and events waiting for the next archive commit.",
      static_cast<double>(a.pending));
  one("gpuplan_archive_dropped_rows_total", "counter",
      "Readings and events dropped because the archive could not take them in time.", static_cast<double>(a.dropped));
  one("gpuplan_archive_commit_errors_total", "counter", "Archive commits that failed (disk full, read-only).",
      static_cast<double>(a.commit_errors));
  one("gpuplan_archive_writable", "gauge", "1 when the last archive commit succeeded, else 0.", a.writable ? 1 : 0);
  if (a.last_commit_ms > 0)
    one("gpuplan_archive_last_commit_timestamp_seconds", "gauge", "When the archive last committed (Unix time).",
        static_cast<double>(a.last_commit_ms) / 1000.0);
}

}  // namespace

std::string escape_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '"')
      out += "\\\"";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string render_metrics(const WatchState& state) {
  std::vector<Family> families = dcgm_families(state);
  add_link_families(state, families);
  add_event_families(state, families);
  add_archive_families(state, families);
  std::string out;
  for (const Family& f : families) write(out, f);
  return out;
}

}  // namespace gpuplan::watch

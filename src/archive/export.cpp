// Writing the archive back as nvidia-smi logs (see export.h). The CSV header is the one
// `nvidia-smi --query-gpu=<smi_csv_query()> --format=csv` prints (units in brackets, values with
// their units: "96 %", "61000 MiB", "348.00 W"); the dmon header is the one driver R470–R535
// print for `dmon -s pucm -o DT` (public captures: "# gpu pwr gtemp mtemp sm mem enc dec mclk
// pclk fb bar1", with the "#Date Time" columns of -o DT).
#include "archive/export.h"

#include <fmt/format.h>

#include <cmath>
#include <map>

#include "archive/archive.h"
#include "core/dates.h"

namespace gpuplan::archive {

namespace {

constexpr const char* kQuery =
    "timestamp,name,pci.bus_id,index,utilization.gpu,utilization.memory,memory.used,memory.total,temperature.gpu,"
    "temperature.memory,power.draw,clocks.current.sm,clocks.current.memory,clocks_event_reasons.active,"
    "ecc.errors.corrected.volatile.total,ecc.errors.uncorrected.volatile.total,"
    "ecc.errors.corrected.aggregate.total,ecc.errors.uncorrected.aggregate.total,pcie.link.gen.current,"
    "pcie.link.width.current";
constexpr const char* kCsvHeader =
    "timestamp, name, pci.bus_id, index, utilization.gpu [%], utilization.memory [%], memory.used [MiB], "
    "memory.total [MiB], temperature.gpu, temperature.memory, power.draw [W], clocks.current.sm [MHz], "
    "clocks.current.memory [MHz], clocks_event_reasons.active, ecc.errors.corrected.volatile.total, "
    "ecc.errors.uncorrected.volatile.total, ecc.errors.corrected.aggregate.total, "
    "ecc.errors.uncorrected.aggregate.total, pcie.link.gen.current, pcie.link.width.current";
constexpr const char* kDmonHeader =
    "#Date       Time        gpu   pwr gtemp mtemp    sm   mem   enc   dec  mclk  pclk    fb  bar1\n"
    "#YYYYMMDD   HH:MM:SS    Idx     W     C     C     %     %     %     %   MHz   MHz    MB    MB\n";

constexpr const char* kNa = "[N/A]";

template <class T>
std::string csv(const std::optional<T>& v, const char* unit) {
  if (!v) return kNa;
  return fmt::format("{}{}", static_cast<int64_t>(std::llround(static_cast<double>(*v))), unit);
}

std::string csv_watts(const std::optional<double>& v) {
  return v ? fmt::format("{:.2f} W", *v) : kNa;
}

std::string csv_count(const std::optional<uint64_t>& v) {
  return v ? std::to_string(*v) : kNa;
}

std::string csv_line(const Reading& r, const ArchivedGpu* gpu) {
  const CivilTime t = civil_from_ms(r.time_ms);
  const nvml::GpuDynamic& v = r.values;
  const std::optional<double> total = gpu != nullptr ? gpu->memory_total_mib : std::nullopt;
  return fmt::format(
      "{:04}/{:02}/{:02} {:02}:{:02}:{:02}.{:03}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, {}, "
      "{}, {}\n",
      t.year, t.month, t.day, t.hour, t.minute, t.second, ((r.time_ms % 1000) + 1000) % 1000,
      gpu != nullptr ? gpu->name : kNa, gpu != nullptr ? gpu->pci_bus_id : kNa, r.gpu, csv(v.utilization_pct, " %"),
      csv(v.memory_copy_utilization_pct, " %"), csv(v.memory_used_mib, " MiB"), csv(total, " MiB"),
      csv(v.temperature_c, ""), csv(v.memory_temperature_c, ""), csv_watts(v.power_w), csv(v.sm_clock_mhz, " MHz"),
      csv(v.memory_clock_mhz, " MHz"),
      v.clock_event_reasons ? fmt::format("0x{:016X}", *v.clock_event_reasons) : std::string(kNa),
      csv_count(v.ecc_volatile_corrected), csv_count(v.ecc_volatile_uncorrected), csv_count(v.ecc_aggregate_corrected),
      csv_count(v.ecc_aggregate_uncorrected), csv(v.link_gen, ""), csv(v.link_width, ""));
}

template <class T>
std::string dmon(const std::optional<T>& v) {
  return v ? std::to_string(static_cast<int64_t>(std::llround(static_cast<double>(*v)))) : std::string("-");
}

std::string dmon_line(const Reading& r) {
  const CivilTime t = civil_from_ms(r.time_ms);
  const nvml::GpuDynamic& v = r.values;
  // enc, dec and bar1 are not kept in the archive: "-", as dmon prints a value it cannot read.
  return fmt::format(
      " {:04}{:02}{:02}   {:02}:{:02}:{:02}  {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} {:>5} "
      "{:>5} {:>5}\n",
      t.year, t.month, t.day, t.hour, t.minute, t.second, r.gpu, dmon(v.power_w), dmon(v.temperature_c),
      dmon(v.memory_temperature_c), dmon(v.utilization_pct), dmon(v.memory_copy_utilization_pct), "-", "-",
      dmon(v.memory_clock_mhz), dmon(v.sm_clock_mhz), dmon(v.memory_used_mib), "-");
}

}  // namespace

const char* smi_csv_query() {
  return kQuery;
}

Result<int64_t> export_readings(const std::string& path, ExportFormat format, int64_t from_ms, int64_t to_ms,
                                std::ostream& out) {
  auto header = read_header(path);
  if (!header) return header.error();
  std::map<unsigned, const ArchivedGpu*> gpus;
  for (const ArchivedGpu& g : header->gpus) gpus[g.index] = &g;
  out << (format == ExportFormat::kSmiCsv ? std::string(kCsvHeader) + "\n" : std::string(kDmonHeader));
  int64_t lines = 0;
  auto read = read_readings(path, from_ms, to_ms, [&](const Reading& r) {
    if (r.lost) return true;
    if (format == ExportFormat::kSmiCsv) {
      const auto gpu = gpus.find(r.gpu);
      out << csv_line(r, gpu != gpus.end() ? gpu->second : nullptr);
    } else {
      out << dmon_line(r);
    }
    ++lines;
    return static_cast<bool>(out);
  });
  if (!read) return read.error();
  return lines;
}

}  // namespace gpuplan::archive

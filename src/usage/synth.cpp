#include "usage/synth.h"

#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/dates.h"

namespace gpuplan::usage {
namespace {

uint64_t mix(uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A deterministic 0..n-1 for (seed, gpu, t).
int noise(const SynthOptions& o, int gpu, int64_t t, int n) {
  return static_cast<int>(mix(o.seed * 0x100000001b3ULL ^ (static_cast<uint64_t>(gpu) << 48) ^ static_cast<uint64_t>(t)) % n);
}

std::string uuid(const SynthOptions& o, int gpu) {
  uint64_t h = mix(o.seed ^ (0xabcdefULL + gpu));
  return fmt::format("GPU-{:08x}-{:04x}-{:04x}-{:04x}-{:012x}", h >> 32, (h >> 16) & 0xffff, h & 0xffff, gpu,
                     mix(h) & 0xffffffffffffULL);
}

constexpr double kMemoryTotalMib = 81920;

}  // namespace

std::optional<SynthPattern> parse_synth_pattern(const std::string& s) {
  if (s == "idle") return SynthPattern::kIdle;
  if (s == "steady") return SynthPattern::kSteady;
  if (s == "nightly-peak") return SynthPattern::kNightlyPeak;
  if (s == "weekly-burst") return SynthPattern::kWeeklyBurst;
  return std::nullopt;
}

std::optional<SynthFormat> parse_synth_format(const std::string& s) {
  if (s == "smi-csv") return SynthFormat::kSmiCsv;
  if (s == "dmon") return SynthFormat::kDmon;
  if (s == "prom") return SynthFormat::kProm;
  if (s == "openmetrics") return SynthFormat::kOpenMetrics;
  return std::nullopt;
}

// Whether a job holds the GPU at `t`. Outside a job a GPU reads as a real idle A100 does: 0% and
// 0 MiB. The idle pattern is a GPU held but hardly used (a notebook left open).
bool synth_held(const SynthOptions& o, int gpu, int64_t t) {
  const int64_t hour_of_day = (t / 3600) % 24;
  const int64_t day_of_week = (t / 86400) % 7;  // the start is a Monday
  switch (o.pattern) {
    case SynthPattern::kIdle:
    case SynthPattern::kSteady:
      return true;
    case SynthPattern::kNightlyPeak:
      return gpu < o.gpus / 2 || hour_of_day >= 20;
    case SynthPattern::kWeeklyBurst:
      return day_of_week < 2;
  }
  return false;
}

int synth_utilization(const SynthOptions& o, int gpu, int64_t t) {
  if (!synth_held(o, gpu, t)) return 0;
  switch (o.pattern) {
    case SynthPattern::kIdle:
      return noise(o, gpu, t, 11);
    case SynthPattern::kSteady:
      return 70 + noise(o, gpu, t, 21);
    case SynthPattern::kNightlyPeak:
      return 85 + noise(o, gpu, t, 11);
    case SynthPattern::kWeeklyBurst:
      return 90 + noise(o, gpu, t, 11);
  }
  return 0;
}

int synth_memory_used_mib(const SynthOptions& o, int gpu, int64_t t) {
  return synth_held(o, gpu, t) ? 500 + synth_utilization(o, gpu, t) * 700 : 0;
}

int synth_temperature_c(const SynthOptions& o, int gpu, int64_t t) {
  return 32 + synth_utilization(o, gpu, t) * 45 / 100;
}

void synthesize(const SynthOptions& o, std::ostream& out) {
  std::string buf;
  buf.reserve(1 << 20);
  auto flush = [&](bool force) {
    if (force || buf.size() > (1 << 20) - 512) {
      out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
      buf.clear();
    }
  };
  const int64_t end = static_cast<int64_t>(o.days) * 86400;
  std::vector<std::string> uuids;
  for (int g = 0; g < o.gpus; ++g) uuids.push_back(uuid(o, g));
  auto power = [&](int g, int64_t t) { return 60 + synth_utilization(o, g, t) * 3.4 + noise(o, g, t + 7, 100) / 100.0; };

  switch (o.format) {
    case SynthFormat::kSmiCsv:
      buf += "timestamp, index, uuid, utilization.gpu [%], memory.used [MiB], memory.total [MiB], temperature.gpu, power.draw [W]\n";
      for (int64_t t = 0; t < end; t += o.interval_s) {
        const CivilTime c = civil_from_seconds(o.start_s + t);
        std::string stamp = fmt::format("{:04}/{:02}/{:02} {:02}:{:02}:{:02}.{:03}", c.year, c.month, c.day, c.hour,
                                        c.minute, c.second, noise(o, 0, t, 1000));
        for (int g = 0; g < o.gpus; ++g) {
          fmt::format_to(std::back_inserter(buf), "{}, {}, {}, {} %, {} MiB, {} MiB, {}, {:.2f} W\n", stamp, g, uuids[g],
                         synth_utilization(o, g, t), synth_memory_used_mib(o, g, t), kMemoryTotalMib,
                         synth_temperature_c(o, g, t), power(g, t));
          flush(false);
        }
      }
      break;
    case SynthFormat::kDmon:
      for (int64_t t = 0; t < end; t += o.interval_s) {
        if ((t / o.interval_s) % 50 == 0) {  // dmon repeats its header
          buf += "#Date       Time        gpu    pwr  gtemp  mtemp     sm    mem    enc    dec   mclk   pclk     fb   bar1\n";
          buf += "#YYYYMMDD   HH:MM:SS    Idx      W      C      C      %      %      %      %    MHz    MHz     MB     MB\n";
        }
        const CivilTime c = civil_from_seconds(o.start_s + t);
        for (int g = 0; g < o.gpus; ++g) {
          int u = synth_utilization(o, g, t);
          fmt::format_to(std::back_inserter(buf), " {:04}{:02}{:02}   {:02}:{:02}:{:02}   {:>4}  {:>5.0f}  {:>5}      -  {:>5}  {:>5}      0      0   1593   1410  {:>5}      2\n",
                         c.year, c.month, c.day, c.hour, c.minute, c.second, g, power(g, t), synth_temperature_c(o, g, t),
                         u, u / 2, synth_memory_used_mib(o, g, t));
          flush(false);
        }
      }
      break;
    case SynthFormat::kProm:
    case SynthFormat::kOpenMetrics: {
      const bool om = o.format == SynthFormat::kOpenMetrics;
      struct Metric {
        const char* name;
        const char* help;
        int (*value)(const SynthOptions&, int, int64_t);
      };
      const std::array<Metric, 3> metrics = {{
          {"DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", synth_utilization},
          {"DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", synth_memory_used_mib},
          {"DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", synth_temperature_c},
      }};
      // OpenMetrics wants each family's samples together and each series in time order.
      for (const Metric& m : metrics) {
        fmt::format_to(std::back_inserter(buf), "# HELP {} {}\n# TYPE {} gauge\n", m.name, m.help, m.name);
        for (int g = 0; g < o.gpus; ++g) {
          const std::string labels = fmt::format("gpu=\"{}\",UUID=\"{}\",device=\"nvidia{}\",modelName=\"NVIDIA A100-SXM4-80GB\",Hostname=\"{}\"",
                                                 g, uuids[g], g, o.host);
          for (int64_t t = 0; t < end; t += o.interval_s) {
            if (om) fmt::format_to(std::back_inserter(buf), "{}{{{}}} {} {}\n", m.name, labels, m.value(o, g, t), o.start_s + t);
            else fmt::format_to(std::back_inserter(buf), "{}{{{}}} {} {}000\n", m.name, labels, m.value(o, g, t), o.start_s + t);
            flush(false);
          }
        }
      }
      if (om) buf += "# EOF\n";
      break;
    }
  }
  flush(true);
}

}  // namespace gpuplan::usage

// A synthetic utilization history read back as the hourly data `usage` analyses: the shared
// fixture of the usage tests (synthesized, written to a temp file, read through the real reader).
#pragma once

#include <gtest/gtest.h>

#include <sstream>

#include "telemetry/hourly.h"
#include "test_support.h"
#include "usage/synth.h"

namespace gpuplan::testing {

inline telemetry::HourlyData synth_hours(usage::SynthPattern pattern, int days, int gpus = 8, int interval_s = 60,
                                         usage::SynthFormat format = usage::SynthFormat::kSmiCsv) {
  usage::SynthOptions o;
  o.pattern = pattern;
  o.format = format;
  o.gpus = gpus;
  o.days = days;
  o.interval_s = interval_s;
  std::ostringstream text;
  usage::synthesize(o, text);
  const std::string path = write_file(temp_dir(), "synth.log", text.str());
  auto data = telemetry::read_hourly({path}, telemetry::SourceFormat::kAuto);
  EXPECT_TRUE(data.ok()) << (data.ok() ? "" : data.error().str());
  return data.ok() ? *data : telemetry::HourlyData{};
}

}  // namespace gpuplan::testing

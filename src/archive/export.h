// The archive written back as the logs other tools read (`gpuplan watch export`): an nvidia-smi
// `--query-gpu ... --format=csv` log or an `nvidia-smi dmon -s pucm -o DT` log, in nvidia-smi's
// own header and value forms, so that gpuplan's readers and other tools read them as real logs.
// Times are written in UTC (the archive's clock), with no zone, as nvidia-smi writes local time.
// A caller may rely on: the raw readings of [from_ms, to_ms) in time then GPU order, lost
// readings left out (nvidia-smi prints nothing for a GPU it cannot see), a value the archive
// lacks written as nvidia-smi writes one it cannot read ("[N/A]" in CSV, "-" in dmon).
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "core/error.h"

namespace gpuplan::archive {

enum class ExportFormat { kSmiCsv, kDmon };

// The query list of the CSV export, as `nvidia-smi --query-gpu=` takes it.
const char* smi_csv_query();

// Writes the readings of [from_ms, to_ms); returns how many lines of readings it wrote.
Result<int64_t> export_readings(const std::string& path, ExportFormat format, int64_t from_ms, int64_t to_ms,
                                std::ostream& out);

}  // namespace gpuplan::archive

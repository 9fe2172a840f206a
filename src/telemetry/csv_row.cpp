// The out-of-line part of csv_row.h: cutting the rare unfinished last line of a file.
#include "telemetry/csv_row.h"

namespace gpuplan::telemetry::detail {

void split_row(std::string_view line, CsvRow& row) {
  int n = 0;
  row.starts[0] = line.data();
  for (size_t i = 0; i < line.size(); ++i)
    if (line[i] == ',') row.starts[std::min(++n, kMaxFields)] = line.data() + i + 1;
  row.end = line.data() + line.size();
  row.fields = n + 1;
  row.starts[std::min(n + 1, kMaxFields)] = row.end + 1;
}

}  // namespace gpuplan::telemetry::detail

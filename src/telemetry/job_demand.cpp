// Job accounting → hourly GPU demand (job_demand.h): the sacct and kube-state-metrics readers
// turn their records into stretches of GPUs held, and one accumulator spreads those over hours.
#include "telemetry/job_demand.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "core/dates.h"
#include "core/files.h"
#include "core/text.h"
#include "telemetry/byte_source.h"

namespace gpuplan::telemetry {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kMsPerHour = 3'600'000;
// The last millisecond of 9999-12-31: a later time is no scheduler's, and refusing it keeps every
// difference of two times far inside int64.
constexpr int64_t kLatestMs = 253'402'300'799'999;
// Counts are summed capped here, far above any limit, so that hostile ones never overflow.
constexpr int64_t kCountCap = int64_t{1} << 50;

int64_t add_capped(int64_t a, int64_t b) {
  return std::min(std::min(a, kCountCap) + std::min(b, kCountCap), kCountCap);
}

// GPUs held from begin to end: a job from Start to End, or one scrape's requests until the next.
struct Held {
  int64_t begin_ms = 0, end_ms = 0;
  int64_t gpus = 0;
};

// Each line of `text` without its '\n' (and a CRLF file's '\r'), numbered from 1.
template <class Each>
void for_each_text_line(std::string_view text, Each&& each) {
  int64_t number = 0;
  size_t at = 0;
  while (at < text.size()) {
    const size_t nl = text.find('\n', at);
    const size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(at, end - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    each(line, ++number);
    if (nl == std::string_view::npos) break;
    at = nl + 1;
  }
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A whole count of GPUs ("2"): nullopt when it is not one (a sign, a fraction, a suffix); a count
// too long for int64 reads as the largest, which every limit refuses.
std::optional<int64_t> whole_count(std::string_view s) {
  s = trim(s);
  if (!all_digits(s)) return std::nullopt;
  if (s.size() > 18) return std::numeric_limits<int64_t>::max();
  int64_t n = 0;
  std::from_chars(s.data(), s.data() + s.size(), n);
  return n;
}

std::string civil_ms(int64_t ms) {
  return civil_from_ms(ms).date_time();
}

// ---------------------------------------------------------------------------------------------
// The accumulator.

// The hours [first_ms, last_ms) covers and the GPU-hours each stretch adds to them. A stretch's
// whole hours go through a difference array, so a job of years costs what a job of minutes does.
Result<JobDemand> demand_of(const std::vector<Held>& held, int64_t first_ms, int64_t last_ms,
                            const std::string& where) {
  JobDemand out;
  out.first_hour = first_ms / kMsPerHour;
  // An end exactly on the hour does not open the next hour.
  const int64_t last_hour = last_ms > first_ms ? (last_ms - 1) / kMsPerHour : out.first_hour;
  if (last_hour - out.first_hour + 1 > limits::kMaxSpanHours)
    return Error{where,
                 0,
                 {},
                 Phrase("error.jobs.span_too_long")
                     .fact("first", civil_ms(first_ms))
                     .fact("last", civil_ms(last_ms))
                     .fact("years", std::to_string(limits::kMaxSpanYears))};

  // The most held at once: ends before starts at the same instant (one job ending at 10:00 and
  // another starting then never overlap).
  std::vector<std::pair<int64_t, int64_t>> events;
  events.reserve(held.size() * 2);
  for (const Held& h : held) {
    events.emplace_back(h.begin_ms, h.gpus);
    events.emplace_back(h.end_ms, -h.gpus);
  }
  std::sort(events.begin(), events.end());
  int64_t now = 0, peak = 0, peak_at = first_ms;
  for (const auto& [t, delta] : events) {
    now += delta;
    if (now > peak) {
      peak = now;
      peak_at = t;
    }
  }
  if (peak > kMaxJobGpus)
    return Error{where,
                 0,
                 {},
                 Phrase("error.jobs.too_many_gpus_at_once")
                     .fact("time", civil_ms(peak_at))
                     .fact("gpus", std::to_string(peak))
                     .fact("limit", std::to_string(kMaxJobGpus))};
  out.peak_gpus = static_cast<int>(peak);

  // GPU-milliseconds of the partial hours at a stretch's ends, whole hours as counts: at most
  // peak x 3.6e6 per hour, far inside int64.
  const size_t hours = static_cast<size_t>(last_hour - out.first_hour + 1);
  std::vector<int64_t> part_ms(hours, 0), whole(hours + 1, 0);
  for (const Held& h : held) {
    const int64_t hb = h.begin_ms / kMsPerHour, he = (h.end_ms - 1) / kMsPerHour;
    const size_t b = static_cast<size_t>(hb - out.first_hour), e = static_cast<size_t>(he - out.first_hour);
    if (b == e) {
      part_ms[b] += (h.end_ms - h.begin_ms) * h.gpus;
      continue;
    }
    part_ms[b] += ((hb + 1) * kMsPerHour - h.begin_ms) * h.gpus;
    part_ms[e] += (h.end_ms - he * kMsPerHour) * h.gpus;
    whole[b + 1] += h.gpus;
    whole[e] -= h.gpus;
  }
  out.demand.resize(hours);
  int64_t whole_now = 0;
  for (size_t i = 0; i < hours; ++i) {
    whole_now += whole[i];
    out.demand[i] = static_cast<double>(whole_now) + static_cast<double>(part_ms[i]) / kMsPerHour;
  }
  return out;
}

std::string joined(const std::vector<std::string>& files) {
  std::string out;
  for (const auto& f : files) out += (out.empty() ? "" : ", ") + f;
  return out;
}

Error no_gpu_records(const std::vector<std::string>& files, const ReadStats& stats, int jobs, const char* hint) {
  return Error{joined(files),
               0,
               {},
               Phrase("error.jobs.no_gpu_records")
                   .fact("lines", std::to_string(stats.lines))
                   .fact("jobs", std::to_string(jobs))
                   .fact("skipped", std::to_string(stats.skipped_count))
                   .fact("hint", std::vector<Phrase>{Phrase(hint)})};
}

// ---------------------------------------------------------------------------------------------
// Slurm sacct.

// "2024-04-04T21:45:17" (or a space for the T) as seconds since 1970 of that wall clock; a zone
// suffix (SLURM_TIME_FORMAT with %z: "+0100", "+01:00", "Z") is ignored, as the wall clock is what
// the hours are. nullopt for anything else or a date or time out of range.
std::optional<int64_t> sacct_seconds(std::string_view s) {
  if (s.size() < 19 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':')
    return std::nullopt;
  auto num = [&](size_t at, size_t n) -> std::optional<int> {
    const std::string_view d = s.substr(at, n);
    if (!all_digits(d)) return std::nullopt;
    int v = 0;
    std::from_chars(d.data(), d.data() + d.size(), v);
    return v;
  };
  const auto y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2), se = num(17, 2);
  if (!y || !mo || !d || !h || !mi || !se) return std::nullopt;
  const std::string_view zone = s.substr(19);
  const bool zone_ok =
      zone.empty() || zone == "Z" ||
      ((zone[0] == '+' || zone[0] == '-') &&
       ((zone.size() == 5 && all_digits(zone.substr(1))) ||
        (zone.size() == 6 && zone[3] == ':' && all_digits(zone.substr(1, 2)) && all_digits(zone.substr(4)))));
  if (!zone_ok) return std::nullopt;
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (*y < 1970 || *mo < 1 || *mo > 12 || *h > 23 || *mi > 59 || *se > 59) return std::nullopt;
  const bool leap = (*y % 4 == 0 && *y % 100 != 0) || *y % 400 == 0;
  const int month_days = kDays[*mo - 1] + (*mo == 2 && leap ? 1 : 0);
  if (*d < 1 || *d > month_days) return std::nullopt;
  return days_from_civil(*y, static_cast<unsigned>(*mo), static_cast<unsigned>(*d)) * 86400 + *h * 3600 + *mi * 60 +
         *se;
}

// A time field sacct writes for a job that has none yet.
bool no_time(std::string_view s) {
  return s.empty() || iequals(s, "Unknown") || iequals(s, "None");
}

// GPUs in a TRES list ("billing=8,cpu=8,gres/gpu:v100=1,gres/gpu=1,mem=10G,node=1"): the untyped
// gres/gpu entry, else the sum of the typed gres/gpu:TYPE ones (Slurm writes the untyped total
// beside the typed entries; counting both would double it). gres/gpumem and gres/gpuutil are
// other TRES. nullopt when a GPU entry's count is not a whole number.
std::optional<int64_t> tres_gpus(std::string_view tres, std::string_view& bad) {
  std::optional<int64_t> untyped;
  int64_t typed = 0;
  size_t at = 0;
  while (at <= tres.size()) {
    size_t comma = tres.find(',', at);
    if (comma == std::string_view::npos) comma = tres.size();
    const std::string_view entry = trim(tres.substr(at, comma - at));
    at = comma + 1;
    const size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    const std::string_view key = entry.substr(0, eq), value = entry.substr(eq + 1);
    const bool is_untyped = iequals(key, "gres/gpu");
    const bool is_typed = key.size() > 9 && iequals(key.substr(0, 9), "gres/gpu:");
    if (!is_untyped && !is_typed) continue;
    const auto n = whole_count(value);
    if (!n) {
      bad = entry;
      return std::nullopt;
    }
    if (is_untyped)
      untyped = *n;
    else
      typed = add_capped(typed, *n);
  }
  return untyped.value_or(typed);
}

// GPUs in a GRES list ("gpu:a100:2(IDX:0-1),mps:100", "gpu:2", "gpu"), per node: the last part
// of each gpu entry when it is a number, else 1. The (IDX:...) of each entry is dropped first, as
// it may hold commas of its own.
std::optional<int64_t> gres_gpus(std::string_view gres, std::string_view& bad) {
  std::string plain;
  int depth = 0;
  for (char c : gres) {
    if (c == '(') ++depth;
    if (depth == 0) plain += c;
    if (c == ')' && depth > 0) --depth;
  }
  int64_t total = 0;
  std::string_view rest = plain;
  while (true) {
    const size_t comma = rest.find(',');
    std::string_view entry = trim(rest.substr(0, comma));
    for (std::string_view prefix : {"gres/", "gres:"})
      if (entry.size() > prefix.size() && iequals(entry.substr(0, prefix.size()), prefix))
        entry.remove_prefix(prefix.size());
    const size_t colon = entry.find(':');
    if (iequals(entry.substr(0, colon), "gpu")) {
      int64_t n = 1;
      const size_t last = entry.rfind(':');
      if (last != std::string_view::npos) {
        const std::string_view count = entry.substr(last + 1);
        if (all_digits(count)) {
          n = *whole_count(count);
        } else if (colon == last && !count.empty()) {
          bad = gres;  // "gpu:x": neither a type with a count nor a count
          return std::nullopt;
        }
      }
      total = add_capped(total, n);
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return total;
}

// The columns of a sacct header, located by name.
struct SacctColumns {
  size_t count = 0;  // fields of a row (a -p line's trailing '|' left out)
  int job = -1, start = -1, end = -1, cluster = -1, nnodes = -1;
  // Where a job's GPUs are read, in this order: the first of them the line fills in.
  int gpu[4] = {-1, -1, -1, -1};  // AllocTRES, AllocGRES, ReqTRES, ReqGRES
  bool gres[4] = {false, true, false, true};
};

constexpr const char* kGpuColumns[4] = {"AllocTRES", "AllocGRES", "ReqTRES", "ReqGRES"};

// The '|'-separated fields of a line; a -p line ends in a '|' of its own, left out when the line
// then has one field more than `expected` (0: the header, whose names are never empty).
std::vector<std::string_view> sacct_fields(std::string_view line, size_t expected) {
  std::vector<std::string_view> out;
  size_t at = 0;
  while (true) {
    const size_t bar = line.find('|', at);
    out.push_back(line.substr(at, bar == std::string_view::npos ? std::string_view::npos : bar - at));
    if (bar == std::string_view::npos) break;
    at = bar + 1;
  }
  if (out.size() > 1 && out.back().empty() && (expected == 0 || out.size() == expected + 1)) out.pop_back();
  return out;
}

bool is_job_id_name(std::string_view name) {
  return iequals(name, "JobID") || iequals(name, "JobIDRaw");
}

std::optional<SacctColumns> sacct_header(std::string_view line) {
  if (line.find('|') == std::string_view::npos) return std::nullopt;
  SacctColumns c;
  const auto names = sacct_fields(line, 0);
  c.count = names.size();
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string_view n = trim(names[i]);
    const int at = static_cast<int>(i);
    if (iequals(n, "JobID") || (iequals(n, "JobIDRaw") && c.job < 0)) c.job = at;
    if (iequals(n, "Start")) c.start = at;
    if (iequals(n, "End")) c.end = at;
    if (iequals(n, "Cluster")) c.cluster = at;
    if (iequals(n, "NNodes")) c.nnodes = at;
    for (int g = 0; g < 4; ++g)
      if (iequals(n, kGpuColumns[g])) c.gpu[g] = at;
  }
  if (c.job < 0) return std::nullopt;
  return c;
}

class SacctReader {
 public:
  // One file's text into the records read so far.
  Result<void> read(std::string_view text, const std::string& file) {
    stats_.bytes += static_cast<int64_t>(text.size());
    std::optional<SacctColumns> cols;
    std::optional<Error> failed;
    int64_t file_first = std::numeric_limits<int64_t>::max(), file_last = std::numeric_limits<int64_t>::min();
    std::vector<Held> running;  // End Unknown: held until the file's latest time
    for_each_text_line(text, [&](std::string_view line, int64_t number) {
      if (failed) return;
      ++stats_.lines;
      if (trim(line).empty()) return;
      if (!cols) {
        cols = sacct_header(line);
        if (!cols) {
          failed = Error{file, static_cast<int>(number), {}, Phrase("error.jobs.sacct_no_header")};
          return;
        }
        if (auto missing = missing_column(*cols, line)) failed = Error{file, static_cast<int>(number), {}, *missing};
        return;
      }
      auto fields = sacct_fields(line, cols->count);
      if (fields.size() > static_cast<size_t>(cols->job) && is_job_id_name(trim(fields[cols->job]))) {
        // Another header: outputs of several sacct runs concatenated, perhaps with other columns.
        auto next = sacct_header(line);
        if (!next) {
          stats_.skip(file, number,
                      Phrase("skip.field_count").fact("expected", std::to_string(cols->count)).fact("found", "1"));
          return;
        }
        if (auto missing = missing_column(*next, line)) {
          failed = Error{file, static_cast<int>(number), {}, *missing};
          return;
        }
        if (next->count != cols->count ||
            !std::equal(std::begin(next->gpu), std::end(next->gpu), std::begin(cols->gpu)))
          ++stats_.header_changes;
        cols = next;
        return;
      }
      row(*cols, fields, file, number, file_first, file_last, running);
    });
    if (failed) return *failed;
    if (!cols) return Error{file, 1, {}, Phrase("error.jobs.sacct_no_header")};
    for (Held& h : running) {
      ++still_running_;
      h.end_ms = std::max(h.begin_ms, file_last);
      if (h.end_ms > h.begin_ms) held_.push_back(h);
    }
    first_ms_ = std::min(first_ms_, file_first);
    last_ms_ = std::max(last_ms_, file_last);
    return {};
  }

  Result<JobDemand> finish(const std::vector<std::string>& files) {
    if (held_.empty()) return no_gpu_records(files, stats_, jobs_read_, "error.jobs.hint_sacct");
    auto out = demand_of(held_, first_ms_, last_ms_, joined(files));
    if (!out) return out.error();
    out->jobs = static_cast<int>(std::min<size_t>(held_.size(), std::numeric_limits<int>::max()));
    out->format = "sacct";
    out->still_running = still_running_;
    out->stats = stats_;
    out->stats.samples = static_cast<int64_t>(held_.size());
    return out;
  }

 private:
  static std::optional<Phrase> missing_column(const SacctColumns& c, std::string_view header) {
    const char* missing = c.start < 0 ? "Start" : c.end < 0 ? "End" : nullptr;
    if (!missing && std::all_of(std::begin(c.gpu), std::end(c.gpu), [](int g) { return g < 0; })) missing = "AllocTRES";
    if (!missing) return std::nullopt;
    std::vector<std::string> names;
    for (auto n : sacct_fields(header, 0)) names.emplace_back(trim(n));
    return Phrase("error.jobs.sacct_missing_column").fact("column", missing).fact(list_of("columns", names));
  }

  void row(const SacctColumns& c, const std::vector<std::string_view>& f, const std::string& file, int64_t number,
           int64_t& file_first, int64_t& file_last, std::vector<Held>& running) {
    if (f.size() != c.count) {
      stats_.skip(
          file, number,
          Phrase("skip.field_count").fact("expected", std::to_string(c.count)).fact("found", std::to_string(f.size())));
      return;
    }
    const std::string_view job = trim(f[c.job]);
    if (job.empty()) return stats_.skip(file, number, Phrase("skip.jobs.no_job_id"));
    // A step (123.batch, 123.extern, 123.0) repeats its job's allocation: only the job's line counts.
    if (job.find('.') != std::string_view::npos) return;
    const std::string_view start_text = trim(f[c.start]), end_text = trim(f[c.end]);
    std::optional<int64_t> start_s, end_s;
    if (!no_time(start_text) && !(start_s = sacct_seconds(start_text)))
      return stats_.skip(file, number, Phrase("skip.bad_timestamp").fact("text", std::string(start_text)));
    if (!no_time(end_text) && !(end_s = sacct_seconds(end_text)))
      return stats_.skip(file, number, Phrase("skip.bad_timestamp").fact("text", std::string(end_text)));
    if (start_s && end_s && *end_s < *start_s)
      return stats_.skip(file, number,
                         Phrase("skip.jobs.end_before_start")
                             .fact("start", std::string(start_text))
                             .fact("end", std::string(end_text)));
    if (start_s && end_s && *end_s - *start_s > limits::kMaxSpanHours * 3600)
      return stats_.skip(file, number,
                         Phrase("skip.jobs.too_long")
                             .fact("hours", std::to_string((*end_s - *start_s) / 3600))
                             .fact("limit", std::to_string(limits::kMaxSpanHours)));
    std::string key = c.cluster >= 0 ? std::string(trim(f[c.cluster])) : std::string();
    key.append("|").append(job).append("|").append(start_text);
    if (!seen_.insert(std::move(key)).second) {
      ++stats_.duplicates;
      return;
    }
    ++jobs_read_;
    if (!start_s) return;  // pending, or cancelled before it started: it held nothing
    // The times of the jobs that ran, GPU or not, bound the demand and the hold of running jobs.
    file_first = std::min(file_first, *start_s * 1000);
    file_last = std::max(file_last, (end_s ? *end_s : *start_s) * 1000);
    std::string_view bad;
    std::optional<int64_t> gpus = 0;
    for (int g = 0; g < 4; ++g) {
      if (c.gpu[g] < 0) continue;
      const std::string_view text = trim(f[c.gpu[g]]);
      if (text.empty()) continue;
      gpus = c.gres[g] ? gres_gpus(text, bad) : tres_gpus(text, bad);
      // A GRES count is per node (Slurm's --gres is); TRES counts are the job's.
      if (gpus && c.gres[g] && c.nnodes >= 0) {
        const auto nodes = whole_count(f[c.nnodes]);
        if (nodes && *nodes > 1)
          gpus = *gpus > kMaxJobGpus || *nodes > kMaxJobGpus ? add_capped(*gpus, *nodes) : *gpus * *nodes;
      }
      break;
    }
    if (!gpus) return stats_.skip(file, number, Phrase("skip.jobs.bad_gpu_count").fact("text", std::string(bad)));
    if (*gpus > kMaxJobGpus)
      return stats_.skip(file, number,
                         Phrase("skip.jobs.too_many_gpus")
                             .fact("gpus", std::to_string(*gpus))
                             .fact("limit", std::to_string(kMaxJobGpus)));
    if (*gpus == 0) return;
    Held h{*start_s * 1000, end_s ? *end_s * 1000 : 0, *gpus};
    if (!end_s) {
      running.push_back(h);
    } else if (h.end_ms > h.begin_ms) {
      held_.push_back(h);
    }
  }

  ReadStats stats_;
  std::vector<Held> held_;
  std::unordered_set<std::string> seen_;  // Cluster|JobID|Start of every job read
  int64_t first_ms_ = std::numeric_limits<int64_t>::max(), last_ms_ = std::numeric_limits<int64_t>::min();
  int jobs_read_ = 0, still_running_ = 0;
};

// ---------------------------------------------------------------------------------------------
// kube-state-metrics.

// Parses the labels `{k="v",...}` at the start of `s`, calling each(key, value) with each value as
// written (escapes kept: the values compared here never hold any); the position after the '}', or
// npos when they are malformed or unclosed.
template <class Each>
size_t parse_labels(std::string_view s, Each&& each) {
  size_t i = 1;
  auto blanks = [&] {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  };
  while (true) {
    blanks();
    if (i >= s.size()) return std::string_view::npos;
    if (s[i] == '}') return i + 1;
    const size_t eq = s.find('=', i);
    if (eq == std::string_view::npos) return std::string_view::npos;
    const std::string_view key = trim(s.substr(i, eq - i));
    i = eq + 1;
    blanks();
    if (i >= s.size() || s[i] != '"') return std::string_view::npos;
    const size_t open = ++i;
    while (i < s.size() && s[i] != '"') i += s[i] == '\\' ? 2 : 1;
    if (i >= s.size()) return std::string_view::npos;
    each(key, s.substr(open, i - open));
    ++i;
    blanks();
    if (i < s.size() && s[i] == ',') {
      ++i;
      continue;
    }
    if (i < s.size() && s[i] == '}') return i + 1;
    return std::string_view::npos;
  }
}

// A resource name as kube-state-metrics writes it: "nvidia.com/gpu" becomes "nvidia_com_gpu".
bool is_gpu_resource(std::string_view r) {
  std::string norm;
  for (char c : r)
    norm += (c == '.' || c == '/' || c == '-') ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return norm == "nvidia_com_gpu";
}

// A scrape file's time from the digits in its name (Unix seconds or milliseconds), as the
// dcgm-exporter reader takes it.
std::optional<int64_t> time_from_name(const std::string& path) {
  const std::string name = fs::path(path).filename().string();
  std::string digits;
  for (char c : name) {
    if (c >= '0' && c <= '9') {
      digits += c;
    } else if (digits.size() >= 10) {
      break;
    } else {
      digits.clear();
    }
  }
  int64_t n = 0;
  if (digits.size() != 10 && digits.size() != 13) return std::nullopt;
  std::from_chars(digits.data(), digits.data() + digits.size(), n);
  return digits.size() == 10 ? n * 1000 : n;
}

enum class KubeMetric { kNone, kRequests, kGpuRequests, kPhase };

KubeMetric kube_metric(std::string_view name) {
  if (name == "kube_pod_container_resource_requests") return KubeMetric::kRequests;
  if (name == "kube_pod_container_resource_requests_nvidia_com_gpu" ||
      name == "kube_pod_container_resource_requests_nvidia_gpu_devices")
    return KubeMetric::kGpuRequests;
  if (name == "kube_pod_status_phase") return KubeMetric::kPhase;
  // Other kube_pod_container_resource_requests_* (cpu_cores, memory_bytes) still mark a scrape.
  if (name.rfind("kube_pod_container_resource_requests_", 0) == 0) return KubeMetric::kRequests;
  return KubeMetric::kNone;
}

class KubeReader {
 public:
  Result<void> read(std::string_view text, const std::string& file) {
    stats_.bytes += static_cast<int64_t>(text.size());
    // OpenMetrics ends each exposition with "# EOF" and writes timestamps in seconds.
    bool open_metrics = false;
    for_each_text_line(text,
                       [&](std::string_view line, int64_t) { open_metrics = open_metrics || trim(line) == "# EOF"; });
    const std::optional<int64_t> file_time = time_from_name(file);
    std::optional<Error> failed;
    for_each_text_line(text, [&](std::string_view raw, int64_t number) {
      if (failed) return;
      ++stats_.lines;
      sample(trim(raw), number, file, open_metrics, file_time);
      if (requests_.size() + phases_.size() + times_.size() > static_cast<size_t>(limits::kMaxPromPoints))
        failed = Error{file,
                       static_cast<int>(std::min<int64_t>(number, std::numeric_limits<int>::max())),
                       {},
                       Phrase("error.jobs.too_many_samples").fact("limit", std::to_string(limits::kMaxPromPoints))};
    });
    if (failed) return *failed;
    return {};
  }

  Result<JobDemand> finish(const std::vector<std::string>& files) {
    const std::string where = joined(files);
    const int pods_seen = static_cast<int>(std::min<size_t>(pods_.size(), std::numeric_limits<int>::max()));
    if (std::none_of(requests_.begin(), requests_.end(), [](const Request& r) { return r.gpus > 0; }))
      return no_gpu_records(files, stats_, pods_seen, "error.jobs.hint_kube");
    std::sort(times_.begin(), times_.end());
    times_.erase(std::unique(times_.begin(), times_.end()), times_.end());
    if (times_.size() < 2)
      return Error{where, 0, {}, Phrase("error.jobs.single_scrape").fact("time", civil_ms(times_.front()))};
    std::vector<int64_t> gaps;
    gaps.reserve(times_.size() - 1);
    for (size_t i = 1; i < times_.size(); ++i) gaps.push_back(times_[i] - times_[i - 1]);
    // The median gap, the lower middle one of an even count.
    std::nth_element(gaps.begin(), gaps.begin() + static_cast<std::ptrdiff_t>((gaps.size() - 1) / 2), gaps.end());
    const int64_t median = gaps[(gaps.size() - 1) / 2];

    // A series read twice at one time (overlapping exports) counts once.
    std::stable_sort(requests_.begin(), requests_.end(),
                     [](const Request& a, const Request& b) { return a.t != b.t ? a.t < b.t : a.series < b.series; });
    std::sort(phases_.begin(), phases_.end(),
              [](const Phase& a, const Phase& b) { return a.pod != b.pod ? a.pod < b.pod : a.t < b.t; });
    std::vector<int64_t> gpus_at(times_.size(), 0);
    std::vector<bool> pod_held(pods_.size(), false);
    for (size_t i = 0; i < requests_.size(); ++i) {
      const Request& r = requests_[i];
      if (i + 1 < requests_.size() && requests_[i + 1].t == r.t && requests_[i + 1].series == r.series) {
        ++stats_.duplicates;
        continue;
      }
      if (r.gpus == 0) continue;
      const uint32_t pod = series_pod_[r.series];
      if (has_phase_ && !running(pod, r.t)) continue;
      const size_t at = static_cast<size_t>(std::lower_bound(times_.begin(), times_.end(), r.t) - times_.begin());
      gpus_at[at] += r.gpus;
      pod_held[pod] = true;
      ++stats_.samples;
    }
    std::vector<Held> held;
    for (size_t i = 0; i < times_.size(); ++i)
      if (gpus_at[i] > 0)
        held.push_back({times_[i], i + 1 < times_.size() ? times_[i + 1] : times_[i] + median, gpus_at[i]});
    if (held.empty()) return no_gpu_records(files, stats_, 0, "error.jobs.hint_kube");
    auto out = demand_of(held, times_.front(), times_.back() + median, where);
    if (!out) return out.error();
    out->jobs = static_cast<int>(std::count(pod_held.begin(), pod_held.end(), true));
    out->format = "kube";
    out->scrapes = static_cast<int>(std::min<size_t>(times_.size(), std::numeric_limits<int>::max()));
    out->stats = stats_;
    return out;
  }

 private:
  struct Request {
    int64_t t = 0;
    uint32_t series = 0;
    int64_t gpus = 0;
  };
  struct Phase {
    int64_t t = 0;
    uint32_t pod = 0;
    bool running = false;
  };

  void sample(std::string_view line, int64_t number, const std::string& file, bool open_metrics,
              const std::optional<int64_t>& file_time) {
    if (line.empty() || line[0] == '#') return;
    const size_t name_end = line.find_first_of("{ \t");
    const KubeMetric metric = kube_metric(line.substr(0, name_end));
    if (metric == KubeMetric::kNone) return;
    if (name_end == std::string_view::npos) return stats_.skip(file, number, Phrase("skip.no_value"));
    std::string_view rest = line.substr(name_end);
    std::string_view cluster, ns, pod, container, resource, phase;
    if (rest[0] == '{') {
      const size_t close = parse_labels(rest, [&](std::string_view k, std::string_view v) {
        if (k == "cluster") cluster = v;
        if (k == "namespace") ns = v;
        if (k == "pod") pod = v;
        if (k == "container") container = v;
        if (k == "resource") resource = v;
        if (k == "phase") phase = v;
      });
      if (close == std::string_view::npos) return stats_.skip(file, number, Phrase("skip.unclosed_labels"));
      rest = rest.substr(close);
    }
    rest = trim(rest);
    const size_t space = rest.find_first_of(" \t");
    std::string_view value_text = rest.substr(0, space);
    if (value_text.empty()) return stats_.skip(file, number, Phrase("skip.no_value"));
    std::string_view ts_text = space == std::string_view::npos ? std::string_view() : trim(rest.substr(space));
    if (!ts_text.empty() && ts_text[0] == '#') ts_text = {};  // an OpenMetrics exemplar, no timestamp
    ts_text = ts_text.substr(0, ts_text.find_first_of(" \t"));
    if (!value_text.empty() && value_text[0] == '+') value_text.remove_prefix(1);
    double value = 0;
    const auto [vend, vec] = std::from_chars(value_text.data(), value_text.data() + value_text.size(), value);
    if (vec != std::errc() || vend != value_text.data() + value_text.size())
      return stats_.skip(file, number, Phrase("skip.bad_value"));
    int64_t t = 0;
    if (!ts_text.empty()) {
      const auto parsed = open_metrics ? seconds_ms(ts_text) : whole_ms(ts_text);
      if (!parsed) return stats_.skip(file, number, Phrase("skip.bad_prom_timestamp"));
      t = *parsed;
    } else if (file_time) {
      t = *file_time;
    } else {
      return stats_.skip(file, number, Phrase("skip.no_prom_timestamp"));
    }
    if (t < 0 || t > kLatestMs) return stats_.skip(file, number, Phrase("skip.bad_prom_timestamp"));
    if (times_.empty() || times_.back() != t) times_.push_back(t);
    if (metric == KubeMetric::kPhase) {
      if (phase != "Running") return;
      has_phase_ = true;
      phases_.push_back({t, pod_id(cluster, ns, pod), value == 1});
      return;
    }
    if (metric == KubeMetric::kRequests && !is_gpu_resource(resource)) return;
    if (!std::isfinite(value) || value < 0 || value != std::floor(value))
      return stats_.skip(file, number, Phrase("skip.jobs.bad_gpu_count").fact("text", std::string(value_text)));
    if (value > static_cast<double>(kMaxJobGpus))
      return stats_.skip(file, number,
                         Phrase("skip.jobs.too_many_gpus")
                             .fact("gpus", std::string(value_text))
                             .fact("limit", std::to_string(kMaxJobGpus)));
    requests_.push_back({t, series_id(cluster, ns, pod, container), static_cast<int64_t>(value)});
  }

  // "1700000000123" (Prometheus text: milliseconds, a whole number).
  static std::optional<int64_t> whole_ms(std::string_view s) {
    int64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return v;
  }

  // "1700000000.5" (OpenMetrics: seconds, a fraction allowed), to the nearest millisecond.
  static std::optional<int64_t> seconds_ms(std::string_view s) {
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || !std::isfinite(v) || v < 0 ||
        v > static_cast<double>(kLatestMs) / 1000)
      return std::nullopt;
    return std::llround(v * 1000);
  }

  uint32_t pod_id(std::string_view cluster, std::string_view ns, std::string_view pod) {
    std::string key;
    key.append(cluster).append(1, '\x1f').append(ns).append(1, '\x1f').append(pod);
    const auto [it, added] = pods_.emplace(std::move(key), static_cast<uint32_t>(pods_.size()));
    return it->second;
  }

  uint32_t series_id(std::string_view cluster, std::string_view ns, std::string_view pod, std::string_view container) {
    const uint32_t p = pod_id(cluster, ns, pod);
    std::string key = std::to_string(p);
    key.append(1, '\x1f').append(container);
    const auto [it, added] = series_.emplace(std::move(key), static_cast<uint32_t>(series_.size()));
    if (added) series_pod_.push_back(p);
    return it->second;
  }

  // Whether the pod's latest phase="Running" sample at or before `t` says it runs.
  bool running(uint32_t pod, int64_t t) const {
    auto it = std::upper_bound(phases_.begin(), phases_.end(), std::make_pair(pod, t),
                               [](const std::pair<uint32_t, int64_t>& key, const Phase& p) {
                                 return key.first != p.pod ? key.first < p.pod : key.second < p.t;
                               });
    if (it == phases_.begin()) return false;
    --it;
    return it->pod == pod && it->running;
  }

  ReadStats stats_;
  std::unordered_map<std::string, uint32_t> pods_, series_;
  std::vector<uint32_t> series_pod_;
  std::vector<Request> requests_;
  std::vector<Phase> phases_;
  std::vector<int64_t> times_;  // scrape times, each once in a row (sorted and made unique at the end)
  bool has_phase_ = false;
};

// ---------------------------------------------------------------------------------------------
// Files.

std::optional<JobFormat> detect_job_format(std::string_view text) {
  std::optional<JobFormat> found;
  bool first = true;
  for_each_text_line(text, [&](std::string_view line, int64_t) {
    if (!first || trim(line).empty()) return;
    first = false;
    if (sacct_header(line)) found = JobFormat::kSacct;
  });
  if (found) return found;
  if (text.find("kube_pod_container_resource_requests") != std::string_view::npos ||
      text.find("kube_pod_status_phase") != std::string_view::npos)
    return JobFormat::kKubeRequests;
  return std::nullopt;
}

const char* format_name(JobFormat f) {
  return f == JobFormat::kSacct ? "sacct" : "kube";
}

// The whole text of a file, inflated when it is gzip, at most limits::kMaxTextFileBytes.
Result<std::string> file_text(const std::string& path) {
  if (!is_gzip_file(path)) return read_text_file(path);
  auto src = detail::open_source(path);
  if (!src) return src.error();
  std::string out;
  std::vector<char> buf(1 << 20);
  while (true) {
    const ssize_t got = (*src)->source->read(buf.data(), buf.size());
    if (got < 0) return Error{path, 0, {}, detail::read_failure(*(*src)->source)};
    if (got == 0) break;
    if (static_cast<int64_t>(out.size()) + got > limits::kMaxTextFileBytes)
      return Error{
          path,
          0,
          {},
          Phrase("error.gzip.too_large").fact("limit", std::to_string(limits::kMaxTextFileBytes >> 20) + " MiB")};
    out.append(buf.data(), static_cast<size_t>(got));
  }
  if (auto failure = (*src)->source->failure()) return Error{path, 0, {}, *failure};
  return out;
}

}  // namespace

Result<JobDemand> parse_sacct(std::string_view text, const std::string& file) {
  SacctReader reader;
  if (auto read = reader.read(text, file); !read) return read.error();
  return reader.finish({file});
}

Result<JobDemand> parse_kube_requests(std::string_view text, const std::string& file) {
  KubeReader reader;
  if (auto read = reader.read(text, file); !read) return read.error();
  return reader.finish({file});
}

Result<JobDemand> read_job_demand(const std::vector<std::string>& paths, JobFormat format) {
  if (paths.empty()) return Error{"", 0, {}, Phrase("error.jobs.no_files")};
  SacctReader sacct;
  KubeReader kube;
  std::optional<JobFormat> kind;
  for (const std::string& path : paths) {
    auto text = file_text(path);
    if (!text) return text.error();
    std::optional<JobFormat> f = format == JobFormat::kAuto ? detect_job_format(*text) : std::optional(format);
    if (!f) return Error{path, 1, {}, Phrase("error.jobs.unknown_format")};
    if (kind && *kind != *f)
      return Error{path,
                   0,
                   {},
                   Phrase("error.jobs.mixed_formats")
                       .fact("format", format_name(*f))
                       .fact("first", paths.front())
                       .fact("first_format", format_name(*kind))};
    kind = f;
    auto read = *f == JobFormat::kSacct ? sacct.read(*text, path) : kube.read(*text, path);
    if (!read) return read.error();
  }
  return *kind == JobFormat::kSacct ? sacct.finish(paths) : kube.finish(paths);
}

}  // namespace gpuplan::telemetry

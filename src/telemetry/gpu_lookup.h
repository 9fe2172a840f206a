// GPU keys of one file → GpuRegistry ids (private to telemetry/): logs name their GPUs in a fixed
// cycle, so the GPU expected next is tried first, compared in place; any other key is hashed. Also holds what the CSV fast path remembers per GPU (its identity span and
// line shapes), and the host a file's GPUs belong to when the file names none.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "telemetry/line_shape.h"
#include "telemetry/readers.h"
#include "telemetry/text_scan.h"

namespace gpuplan::telemetry::detail {

// A GPU key → registry id. Logs cycle through their GPUs in a fixed order, so the one after the
// last hit is tried first, compared byte for byte with the key in place (no hashing, no copy);
// a miss is looked up in a hash map.
class GpuLookup {
 public:
  // A GPU seen in this file: its key, its registry id, and the text of its last line from the
  // start of the fast path's identity span through the key's separator (SmiCsvParser::fast_rows).
  struct Known {
    std::string key;
    uint32_t id;
    std::string span;
    // The shapes of its last two lines of different shapes; `recent` is the index of the newer.
    LineShape shapes[2];
    int recent = 0;
  };
  static constexpr size_t kMaxSpan = 64;  // within the read buffers' slack: a span is compared in place

  GpuLookup(GpuRegistry& registry, std::string host) : registry_(registry), host_(std::move(host)) {}
  [[gnu::always_inline]] uint32_t id(std::string_view key) {
    if (!known_.empty() && same(known_[next_].key, key)) return found(next_);
    return search(key);
  }

  // The id of a key seen before, without registering a new one: hashed, so a file naming tens
  // of thousands of GPUs is read in linear time.
  bool find(std::string_view key, uint32_t& id) {
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    id = found(it->second);
    return true;
  }

  // The GPU expected next (the one after the last found, in the order first seen), or nullptr.
  [[gnu::always_inline]] const Known* expected() const { return count_ == 0 ? nullptr : &known_[next_]; }
  // The expected GPU is the one this line names.
  [[gnu::always_inline]] uint32_t take_expected() { return found(next_); }

  // Whether the text at k, up to `sep`, is the key expected next: then `id` is its id and `after`
  // one past `sep`. Reads nothing at or past `end`.
  [[gnu::always_inline]] bool next_is(const char* k, const char* end, char sep, uint32_t& id, const char*& after) {
    if (known_.empty()) return false;
    const std::string& key = known_[next_].key;
    if (static_cast<size_t>(end - k) <= key.size() || k[key.size()] != sep || !bytes_equal(k, key.data(), key.size()))
      return false;
    id = found(next_);
    after = k + key.size() + 1;
    return true;
  }

  // Forgets every identity span and line shape: they stand for the columns of one header.
  void forget_layouts() {
    for (Known& k : known_) {
      k.span.clear();
      k.shapes[0].size = k.shapes[1].size = 0;
    }
  }

  // A shape of the GPU last found to be filled in, in place of its older one.
  LineShape& new_shape() {
    Known& k = known_[last_];
    k.recent = 1 - k.recent;
    return k.shapes[k.recent];
  }
  // For a loop that follows the GPUs' cycle itself (SmiCsvParser::shaped_rows): the GPUs in the
  // order first seen, the index of the one expected next, and, when the loop ends, the GPU it
  // found last.
  Known* cycle() { return known_.data(); }
  size_t cycle_size() const { return count_; }
  size_t cycle_next() const { return next_; }
  void cycle_found(size_t i) { found(i); }

  // Remembers [p, p + n) as the identity span of the GPU last found. Never one with a '\0': the
  // sentinel at the end of the data must end any in-place compare.
  void remember_span(const char* p, size_t n) {
    if (n <= kMaxSpan && !std::memchr(p, '\0', n)) known_[last_].span.assign(p, n);
  }

 private:
  static bool same(const std::string& a, std::string_view b) {
    return a.size() == b.size() && bytes_equal(a.data(), b.data(), b.size());
  }

  [[gnu::always_inline]] uint32_t found(size_t i) {
    last_ = i;
    next_ = i + 1 == count_ ? 0 : i + 1;
    return known_[i].id;
  }

  uint32_t search(std::string_view key) {
    uint32_t v = 0;
    if (find(key, v)) return v;
    v = registry_.id(host_, std::string(key));
    // GPUs past the registry's limit share one entry (the first of them): the read is refused
    // anyway, and the entries stay bounded.
    if (v == GpuRegistry::kOverflow && overflow_entry_ != kNone) return found(overflow_entry_);
    known_.push_back({std::string(key), v, {}, {}, 0});
    count_ = known_.size();
    index_.emplace(known_.back().key, count_ - 1);
    if (v == GpuRegistry::kOverflow) overflow_entry_ = count_ - 1;
    return found(count_ - 1);
  }

  struct KeyHash {
    using is_transparent = void;
    size_t operator()(std::string_view k) const { return std::hash<std::string_view>{}(k); }
  };
  static constexpr size_t kNone = SIZE_MAX;

  size_t last_ = 0, next_ = 0, count_ = 0;  // count_: known_.size(), without a division by 72
  GpuRegistry& registry_;
  std::string host_;
  std::vector<Known> known_;
  std::unordered_map<std::string, size_t, KeyHash, std::equal_to<>> index_;  // key → index in known_
  size_t overflow_entry_ = kNone;
};

// The host of a file that names none: its name less the extensions logs carry (".csv.gz" …).
std::string host_of(const std::string& path);

}  // namespace gpuplan::telemetry::detail

// Reading contract terms written in words (English and Chinese) into typed values. Each reader
// normalises the text (ASCII lower case, full-width forms and "×" to ASCII, thousands separators
// dropped) and reads only what the wording states; two readings of one quantity, or a wording
// that fits more than one value, read as nothing: the term is then listed as unparsed and
// quoted by the audit rather than guessed.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <regex>
#include <set>

#include "core/text.h"
#include "plan/contract_terms.h"

namespace gpuplan::plan {
namespace {

const std::regex::flag_type kRe = std::regex::ECMAScript | std::regex::optimize;
// A number as written once thousands separators are gone: "1850", "0.5".
const std::string kNum = R"((\d+(?:\.\d+)?))";

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
  return s;
}

// Full-width ASCII forms (U+FF01..U+FF5E, UTF-8 EF BC 81..BF and EF BD 80..9E) and the
// ideographic space (U+3000, E3 80 80) to ASCII. In valid UTF-8 an EF or E3 byte always starts a
// three-byte character, so the scan cannot match inside another character.
std::string ascii_forms(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto b = [&](size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0; };
    if (b(0) == 0xEF && b(1) == 0xBC && b(2) >= 0x81 && b(2) <= 0xBF) {
      out += static_cast<char>(b(2) - 0x60);  // U+FF01 '！' → 0x21 '!'
      i += 2;
    } else if (b(0) == 0xEF && b(1) == 0xBD && b(2) >= 0x80 && b(2) <= 0x9E) {
      out += static_cast<char>(b(2) - 0x20);  // U+FF40 '｀' → 0x60 '`'
      i += 2;
    } else if (b(0) == 0xE3 && b(1) == 0x80 && b(2) == 0x80) {
      out += ' ';
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

std::string normalise(std::string_view text) {
  std::string s(trim(ascii_forms(text)));
  // Lower case would erase bytes against bits: "12.5 MB/s" is 100 Mbit/s, "25 GB/s" 200 Gbit/s.
  // A capital B before "/s" or "ps" names bytes and is spelt out before the case goes.
  static const std::regex kBytes(R"(([MG])B(?:/[sS]|ps)(?![a-zA-Z]))", kRe);
  s = lower(std::regex_replace(s, kBytes, "$1byte/s"));
  static const std::pair<const char*, const char*> kForms[] = {
      {"×", "x"}, {"*", "x"}, {"≥", ">="}, {"￥", "¥"}, {"雙", "双"}};
  for (const auto& [from, to] : kForms) s = replace_all(s, from, to);
  static const std::regex kThousands(R"((\d),(\d{3})(?!\d))", kRe);
  for (std::string prev; prev != s;) prev = s, s = std::regex_replace(s, kThousands, "$1$2");
  return s;
}

bool has(const std::string& s, const std::regex& re) {
  return std::regex_search(s, re);
}

bool has_any(const std::string& s, std::initializer_list<const char*> words) {
  return std::any_of(words.begin(), words.end(), [&](const char* w) { return s.find(w) != std::string::npos; });
}

// Every number captured by group 1 of `re` in `s`, as distinct values.
std::set<double> numbers(const std::string& s, const std::regex& re) {
  std::set<double> out;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), re); it != std::sregex_iterator(); ++it) {
    double v = std::strtod((*it)[1].str().c_str(), nullptr);
    if (std::isfinite(v)) out.insert(v);  // 400 digits read as infinity: no value, not a huge one
  }
  return out;
}

// The one value of `values`, or nothing when there are none or several.
std::optional<double> only(const std::set<double>& values) {
  return values.size() == 1 ? std::optional<double>(*values.begin()) : std::nullopt;
}

// A count of ports, GPUs or a batch: whole, at least 1 and plausible, else nothing.
std::optional<int> whole_count(const std::set<double>& values) {
  std::optional<double> v = only(values);
  if (!v || *v < 1 || *v > 100000 || *v != std::floor(*v)) return std::nullopt;
  return static_cast<int>(*v);
}

// A duration in minutes: "4 h", "4小时", "30 min", "15分钟"; nothing when no unit or two durations.
std::optional<double> duration_min(const std::string& s) {
  static const std::regex kHours(kNum + R"(\s*(?:hours?|hrs?|h(?![a-z])|个小时|小时|小時))", kRe);
  static const std::regex kMinutes(kNum + R"(\s*(?:minutes?|mins?(?![a-z])|m(?![a-z])|分钟|分鐘|分))", kRe);
  std::set<double> minutes = numbers(s, kMinutes);
  for (double h : numbers(s, kHours)) minutes.insert(h * 60);
  return only(minutes);
}

// A whole number written in Chinese words for a port or card count: 单/双/四/八.
std::optional<int> chinese_count(const std::string& s, const std::vector<std::string>& units) {
  static const std::pair<const char*, int> kWords[] = {{"单", 1}, {"單", 1}, {"双", 2},
                                                       {"两", 2}, {"四", 4}, {"八", 8}};
  for (const auto& [word, n] : kWords)
    for (const std::string& unit : units)
      if (s.find(word + unit) != std::string::npos) return n;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> read_driver_wording(std::string_view text) {
  if (text.size() > kMaxTermBytes) return std::nullopt;
  // "535.104.05", "R535", "驱动 535.104.05": a driver branch has three digits (CUDA "12.1" has not).
  static const std::regex kDriver(R"((?:^|[^0-9a-z.])(?:r\s*)?(\d{3}(?:\.\d{1,3}){0,2})(?![\d.]*\d))", kRe);
  std::string s = normalise(text);
  std::set<std::string> found;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), kDriver); it != std::sregex_iterator(); ++it)
    found.insert((*it)[1]);
  if (found.size() != 1) return std::nullopt;
  return *found.begin();
}

std::optional<std::string> read_cuda_wording(std::string_view text) {
  if (text.size() > kMaxTermBytes) return std::nullopt;
  // "12.1", "CUDA 12.1", "CUDA 12"; a bare number must have its minor version.
  static const std::regex kCuda(R"((?:^|[^\d.])(\d{1,2}\.\d{1,2}(?:\.\d{1,3})?)(?![\d.]*\d))", kRe);
  static const std::regex kMajor(R"(cuda\s*(?:toolkit\s*)?(\d{1,2})(?![\d.]))", kRe);
  std::string s = normalise(text);
  std::set<std::string> found;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), kCuda); it != std::sregex_iterator(); ++it)
    found.insert((*it)[1]);
  if (found.empty())
    for (auto it = std::sregex_iterator(s.begin(), s.end(), kMajor); it != std::sregex_iterator(); ++it)
      found.insert((*it)[1]);
  if (found.size() != 1) return std::nullopt;
  return *found.begin();
}

std::optional<RackTerm> read_rack_wording(std::string_view text) {
  if (text.size() > kMaxTermBytes) return std::nullopt;
  static const std::regex kAmps(kNum + R"(\s*(?:amps?(?![a-z])|a(?![a-z0-9])|安培|安))", kRe);
  static const std::regex kVolts(kNum + R"(\s*(?:volts?(?![a-z])|v(?![a-z0-9])|伏特|伏))", kRe);
  // Several feeds ("2 x 16 A", "16A x 2路", "双路16A", "A+B 16A"): per feed or summed is not said.
  static const std::regex kFeeds(
      R"(\d\s*x\s*\d+(?:\.\d+)?\s*(?:a(?![a-z])|安)|\d\s*(?:a(?![a-z])|安)\s*x\s*\d|(?:\d|双|两|兩)\s*(?:回)?路|a\s*[+/&]\s*b(?![a-z])|dual|redundant|双电源)",
      kRe);
  // Three phases: the capacity depends on phases and wiring. 380/400/415 V are three-phase line voltages.
  static const std::regex kThreePhase(R"(three[\s-]*phase|3[\s-]*(?:phase|ph(?![a-z])|φ|Φ)|三相)", kRe);
  std::string s = normalise(text);
  if (has(s, kFeeds) || has(s, kThreePhase)) return std::nullopt;
  // Power alone ("7 kW") is not a current: the voltage would have to be guessed.
  std::optional<double> amps = only(numbers(s, kAmps));
  if (!amps || *amps <= 0) return std::nullopt;
  RackTerm r{*amps, std::nullopt};
  std::set<double> volts = numbers(s, kVolts);
  if (volts.size() > 1) return std::nullopt;
  if (volts.size() == 1 && (*volts.begin() == 380 || *volts.begin() == 400 || *volts.begin() == 415))
    return std::nullopt;
  if (volts.size() == 1 && *volts.begin() > 0) r.voltage_v = *volts.begin();
  return r;
}

std::optional<PublicBandwidthTerm> read_public_bandwidth_wording(std::string_view text) {
  if (text.size() > kMaxTermBytes) return std::nullopt;
  static const std::regex kTraffic(kNum + R"(\s*(tb|gb|t|g)\s*(?:/|per|每|一个)\s*(?:month|mo(?![a-z])|月))", kRe);
  static const std::regex kPackage(
      R"((?:流量包|traffic package|traffic|每月|monthly)\s*:?\s*)" + kNum + R"(\s*(tb|gb|t|g)(?![a-z]))", kRe);
  static const std::regex kRate(kNum + R"(\s*(gbyte/s|mbyte/s|gbps|gbit/s|gb/s|g|mbps|mbit/s|mb/s|mb|m|兆)(?![a-z]))",
                                kRe);
  static const std::regex kPercentile(R"(95\s*(?:th|%|计费|计|峰值)|burst)", kRe);
  std::string s = normalise(text);
  if (has(s, kPercentile)) return std::nullopt;  // 95th-percentile billing is neither fixed nor metered
  PublicBandwidthTerm b;
  std::set<double> tb;
  for (const std::regex* re : {&kTraffic, &kPackage}) {
    for (auto it = std::sregex_iterator(s.begin(), s.end(), *re); it != std::sregex_iterator(); ++it) {
      double v = std::strtod((*it)[1].str().c_str(), nullptr);
      tb.insert((*it)[2].str()[0] == 'g' ? v / 1000 : v);
    }
    s = std::regex_replace(s, *re, " ");
  }
  if (tb.size() > 1) return std::nullopt;
  if (tb.size() == 1) b.traffic_tb_month = *tb.begin();
  std::set<double> mbps;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), kRate); it != std::sregex_iterator(); ++it) {
    const std::string unit = (*it)[2];
    const double bits = unit.find("byte") != std::string::npos ? 8 : 1;  // normalise spelt bytes out
    mbps.insert(std::strtod((*it)[1].str().c_str(), nullptr) * (unit[0] == 'g' ? 1000 : 1) * bits);
  }
  if (mbps.size() > 1) return std::nullopt;
  if (mbps.size() == 1) b.mbps = *mbps.begin();
  bool fixed = has_any(s, {"fixed", "固定", "按带宽", "按帶寬", "flat"});
  bool metered = has_any(s, {"metered", "按流量", "按量", "pay-as-you-go", "per gb", "/gb"});
  if (fixed && metered) return std::nullopt;
  if (fixed || metered) b.billing = fixed ? Billing::kFixed : Billing::kMetered;
  if (!b.mbps && !b.billing && !b.traffic_tb_month) return std::nullopt;
  return b;
}

std::optional<InternalNetworkTerm> read_internal_network_wording(std::string_view text) {
  if (text.size() > kMaxTermBytes) return std::nullopt;
  static const std::regex kSpeed(kNum + R"(\s*(?:gbe|gb/s|gbps|gbit/s|gb|g)(?![a-z0-9]))", kRe);
  static const std::regex kSpeedBytes(kNum + R"(\s*gbyte/s)", kRe);
  static const std::regex kPortsBefore(R"((?:^|[^\d.])(\d+)\s*x(?=\s|\d|hdr|ndr|edr))", kRe);
  static const std::regex kPortsAfter(R"((?:gbe|gb/s|gbps|g|hdr|ndr|edr|ib|infiniband)\s*x\s*(\d+))", kRe);
  static const std::regex kPortsWords(R"((\d+)\s*(?:口|端口|ports?(?![a-z])|张|張|块|塊))", kRe);
  static const std::regex kIb(R"((?:^|[^a-z])(?:ib|infiniband|hdr|ndr|edr)(?![a-z]))", kRe);
  static const std::regex kEth(R"(gbe|ethernet|以太网|以太網|roce|万兆|萬兆|千兆)", kRe);
  std::string s = normalise(text);
  bool ib = has(s, kIb), eth = has(s, kEth);
  if (ib && eth) return std::nullopt;  // two fabrics: which one the term means is not said
  InternalNetworkTerm n;
  if (ib || eth) n.kind = ib ? NetworkKind::kInfiniband : NetworkKind::kEthernet;
  std::set<double> gbps = numbers(s, kSpeed);
  for (double bytes : numbers(s, kSpeedBytes)) gbps.insert(bytes * 8);  // "25 GB/s": bytes, spelt out by normalise
  if (has_any(s, {"万兆", "萬兆"})) gbps.insert(10);
  if (has_any(s, {"千兆"})) gbps.insert(1);
  if (gbps.empty()) {  // an InfiniBand generation alone names its rate (NVIDIA/Mellanox: EDR 100, HDR 200, NDR 400)
    if (s.find("edr") != std::string::npos) gbps.insert(100);
    if (s.find("hdr") != std::string::npos) gbps.insert(200);
    if (s.find("ndr") != std::string::npos) gbps.insert(400);
  }
  std::optional<double> speed = only(gbps);
  if (!speed || *speed <= 0) return std::nullopt;
  n.gbps = *speed;
  std::set<double> ports = numbers(s, kPortsBefore);
  for (double p : numbers(s, kPortsAfter)) ports.insert(p);
  for (double p : numbers(s, kPortsWords)) ports.insert(p);
  if (auto words = chinese_count(s, {"口", "端口", "张", "張", "块", "塊"})) ports.insert(*words);
  if (ports.size() > 1) return std::nullopt;
  n.ports = whole_count(ports);
  return n;
}

std::optional<PerformanceTerm> read_performance_wording(std::string_view text, std::optional<int> gpus_per_server) {
  if (text.size() > kMaxTermBytes) return std::nullopt;
  static const std::regex kRate(
      kNum + R"(\s*(?:images?|imgs?|张|張|幅)\s*(?:/|per\s*|每)\s*(?:seconds?|secs?|s(?![a-z])|秒))", kRe);
  static const std::regex kBatch(R"((?:batch[\s_-]*(?:size)?|bs|批大小|批量大小|批量)\s*[:=]?\s*(\d+))", kRe);
  static const std::regex kPerGpu(
      R"(per[\s-]*(?:gpu|card)|/\s*(?:gpu|卡)|每卡|单卡|單卡|每张卡|每張卡|每块|每塊|每gpu|单gpu|單gpu)", kRe);
  static const std::regex kPerServer(
      R"(per[\s-]*(?:server|node|machine)|/\s*(?:server|node|台)|整机|整機|单机|單機|每台|每节点|每節點|单节点|單節點)",
      kRe);
  std::string s = normalise(text);
  // Only the catalog's reference benchmark is read: ResNet-50 training, named or implied by images/s.
  static const std::regex kOther(
      R"(inference|推理|diffusion|(?:^|[^a-z])(?:bert|yolo|gpt|llama|vit|vgg|inception|ssd|tokens?)(?![a-z]))", kRe);
  if (has(s, kOther)) return std::nullopt;
  std::optional<double> rate = only(numbers(s, kRate));
  if (!rate || *rate <= 0) return std::nullopt;
  bool per_gpu = has(s, kPerGpu), per_server = has(s, kPerServer);
  if (per_gpu == per_server) return std::nullopt;  // neither or both: the divisor is not said
  PerformanceTerm p;
  if (per_server) {
    if (!gpus_per_server || *gpus_per_server < 1) return std::nullopt;
    p.min_images_per_gpu = *rate / *gpus_per_server;
  } else {
    p.min_images_per_gpu = *rate;
  }
  std::set<double> batch = numbers(s, kBatch);
  if (batch.size() > 1) return std::nullopt;
  p.batch = whole_count(batch);
  return p;
}

std::optional<double> read_hours_wording(std::string_view text) {
  if (text.size() > kMaxTermBytes) return std::nullopt;
  auto m = duration_min(normalise(text));
  return m ? std::optional<double>(*m / 60) : std::nullopt;
}

std::optional<double> read_minutes_wording(std::string_view text) {
  if (text.size() > kMaxTermBytes) return std::nullopt;
  return duration_min(normalise(text));
}

std::optional<ServiceHours> read_service_hours_wording(std::string_view text) {
  if (text.size() > kMaxTermBytes) return std::nullopt;
  static const std::regex k7x24(R"(7\s*x\s*24|24\s*x\s*7|24\s*/\s*7|7\s*天\s*x?\s*24\s*小(?:时|時))", kRe);
  static const std::regex k5x8(R"(5\s*x\s*8(?![\d.])|5\s*天\s*x?\s*8\s*小(?:时|時))", kRe);
  std::string s = normalise(text);
  bool full = has(s, k7x24), office = has(s, k5x8);
  if (full == office) return std::nullopt;
  return full ? ServiceHours::k7x24 : ServiceHours::k5x8;
}

PenaltyTerm read_penalty_wording(std::string_view text) {
  if (text.size() > kMaxTermBytes) return PenaltyTerm{};
  static const std::regex kPercent(kNum + R"(\s*%)", kRe);
  static const std::regex kMoney(
      R"((?:¥|\$|usd|cny|rmb)\s*\d|\d\s*(?:万元|萬元|元|万|萬|cny|rmb|usd|dollars?)(?![a-z]))", kRe);
  // Fee credit in days ("1 day's fee", "免1天服务费") or in credited hours ("8 hours of service credit").
  static const std::regex kDays(R"(\d\s*(?:days?|天|日)(?![a-z]))", kRe);
  static const std::regex kTimes(R"(\d\s*(?:倍|times(?![a-z])))", kRe);  // "2倍日租金", "2 times the daily fee"
  static const std::regex kCreditHours(R"(\d\s*(?:hours?|h)\s*(?:of\s*)?(?:service\s*)?credit)", kRe);
  // "None." and "无。" are "none": a closing full stop is not part of the wording.
  std::string s = normalise(text);
  while (s.size() >= 3 && s.compare(s.size() - 3, 3, "。") == 0) s.erase(s.size() - 3);
  s = std::string(trim_chars(s, " ."));
  PenaltyTerm p;
  static const std::set<std::string> kNone = {"",  "none", "no", "nil",  "n/a",    "na",
                                              "-", "无",   "無", "没有", "不适用", "暂无"};
  bool fee = has_any(s, {"fee", "credit", "rent", "费", "費", "租金"});
  // An availability target ("99.9% availability", "可用性 99.9%") is a promise, not what is paid.
  bool availability = has_any(s, {"availab", "uptime", "可用", "sla"});
  bool percent = false;
  for (double v : numbers(s, kPercent)) percent = percent || v < 90 || !availability;
  p.has_amount = percent || has(s, kMoney) || has(s, kCreditHours) || (fee && (has(s, kDays) || has(s, kTimes)));
  // A penalty of nothing ("0", "0%", "¥0", "0元") is none: every figure written is zero.
  static const std::regex kFigure(kNum, kRe);
  const std::set<double> figures = numbers(s, kFigure);
  const bool zero = !figures.empty() && *figures.rbegin() == 0;
  // Words that exclude any penalty; "无赔偿上限" (no cap on compensation) does not.
  const bool excluded =
      has_any(s, {"no penalty", "no penalties", "without penalty", "no compensation", "无违约金", "無違約金",
                  "不承担违约责任", "不承擔違約責任", "免责", "免責", "无赔偿", "無賠償", "不赔偿", "不賠償"}) &&
      !has_any(s, {"上限", "cap", "limit"});
  // Only when no amount is named: "免责 for force majeure, else 5% of the monthly fee" has one.
  p.none = kNone.count(s) != 0 || zero || (excluded && !p.has_amount);
  if (p.none) p.has_amount = false;
  return p;
}

std::optional<GpuTerm> read_gpu_wording(std::string_view text, const catalog::Catalog& catalog) {
  if (text.size() > kMaxTermBytes) return std::nullopt;
  static const std::regex kMemory(R"((\d{2,3})\s*g(?:b|ib)?(?![a-z0-9/]))", kRe);
  static const std::regex kCountBefore(R"((?:^|[^\d.])(\d{1,2})\s*x\s*(?=[a-z]))", kRe);
  static const std::regex kCountAfter(R"((?:pcie|sxm\d?|\dgb?|\dg)\s*x\s*(\d{1,2})(?!\d))", kRe);
  static const std::regex kCountWords(R"((\d{1,2})\s*(?:-?\s*gpus?(?![a-z])|卡|块|塊|张|張|片))", kRe);
  std::string s = normalise(text);
  GpuTerm g;
  std::set<double> counts = numbers(s, kCountBefore);
  for (double c : numbers(s, kCountAfter)) counts.insert(c);
  for (double c : numbers(s, kCountWords)) counts.insert(c);
  g.count = whole_count(counts);
  // The memory size must be written: A100 came in 40 GB and 80 GB, and the catalog need not list both.
  std::set<double> memory = numbers(s, kMemory);
  bool sxm = has_any(s, {"sxm", "hgx"}), pcie = s.find("pcie") != std::string::npos;
  std::vector<std::string> fits;
  for (const catalog::Entry* e : catalog.of_kind("gpu")) {
    // The model is the word of the catalog name that is neither the maker, the memory nor the form factor.
    static const std::regex kWord(R"([a-z]\d{2,4})", kRe);
    const std::string name = lower(e->name);
    std::smatch m;
    if (!std::regex_search(name, m, kWord)) continue;
    const std::string model = m.str();
    const std::regex named("(?:^|[^a-z0-9])" + model + "(?![0-9])", kRe);
    if (!has(s, named)) continue;
    if (memory.size() != 1 || !e->opt_number("memory_gb") || *e->opt_number("memory_gb") != *memory.begin()) continue;
    std::string form = e->has("form_factor") ? e->text("form_factor") : "";
    if ((sxm && form != "sxm") || (pcie && form != "pcie")) continue;
    fits.push_back(e->id);
  }
  if (fits.size() == 1) g.model = fits[0];
  if (g.model.empty() && !g.count) return std::nullopt;
  return g;
}

}  // namespace gpuplan::plan

#include "probe/attached_tools.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <initializer_list>

#include "core/text.h"

namespace gpuplan::probe {
namespace {

// One line of a pasted output: where it starts (indented lines belong to the block above) and
// its text without surrounding blanks.
struct Line {
  bool indented = false;
  std::string_view text;
};

std::vector<Line> lines_of(std::string_view all) {
  std::vector<Line> out;
  size_t start = 0;
  while (start <= all.size()) {
    size_t end = all.find('\n', start);
    if (end == std::string_view::npos) end = all.size();
    std::string_view raw = all.substr(start, end - start);
    out.push_back({!raw.empty() && (raw[0] == ' ' || raw[0] == '\t'), trim_chars(raw, " \t\r")});
    if (end == all.size()) break;
    start = end + 1;
  }
  return out;
}

bool begins(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

std::optional<int> int_of(std::string_view s) {
  int v = 0;
  const bool hex = begins(s, "0x") || begins(s, "0X");
  if (hex) s.remove_prefix(2);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, hex ? 16 : 10);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// "Key   : value" → (Key, value); none without a colon.
std::optional<std::pair<std::string_view, std::string_view>> key_value(std::string_view line) {
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return std::nullopt;
  return std::make_pair(trim_chars(line.substr(0, colon), " \t"), trim_chars(line.substr(colon + 1), " \t"));
}

void add_form(std::vector<std::string>& forms, const char* form) {
  if (std::find(forms.begin(), forms.end(), form) == forms.end()) forms.push_back(form);
}

// The blocks of one tool: a header line at the left margin and the indented or blank lines under
// it, up to the next line at the margin.
std::vector<std::vector<Line>> blocks(const std::vector<Line>& lines, bool (*is_header)(std::string_view)) {
  std::vector<std::vector<Line>> out;
  bool in = false;
  for (const Line& l : lines) {
    if (!l.indented && is_header(l.text)) {
      out.push_back({l});
      in = true;
    } else if (in && (l.indented || l.text.empty())) {
      out.back().push_back(l);
    } else {
      in = false;
    }
  }
  return out;
}

// --- InfiniBand ----------------------------------------------------------------------------------

// ibstat blocks go to parse_ibstat as they are; a block it refuses, or a port without its state,
// was cut short.
void read_ibstat(const std::vector<Line>& lines, IbEvidence& ev) {
  auto ca = blocks(lines, [](std::string_view t) { return begins(t, "CA '"); });
  if (ca.empty()) return;
  std::string text;
  for (const auto& block : ca)
    for (const Line& l : block) text += std::string(l.indented ? "\t" : "") + std::string(l.text) + "\n";
  auto ports = parse_ibstat(text);
  const bool whole = ports && std::all_of(ports->begin(), ports->end(), [](const IbstatPort& p) {
                       return !p.state.empty() && !p.physical_state.empty();
                     });
  if (!whole) return add_form(ev.incomplete, "ibstat");
  add_form(ev.forms, "ibstat");
  ev.ports.insert(ev.ports.end(), ports->begin(), ports->end());
}

// "4: ACTIVE" → "Active", "5: LinkUp" → "LinkUp", "2: INIT" → "Initializing": ibstat's words.
std::string ibstat_word(std::string_view value) {
  const size_t colon = value.find(':');
  std::string word(trim_chars(colon == std::string_view::npos ? value : value.substr(colon + 1), " \t"));
  if (word == "INIT") return "Initializing";
  bool all_caps =
      !word.empty() && std::none_of(word.begin(), word.end(), [](unsigned char c) { return std::islower(c); });
  if (all_caps)
    std::transform(word.begin() + 1, word.end(), word.begin() + 1, [](unsigned char c) { return std::tolower(c); });
  return word;
}

void read_ibstatus(const std::vector<Line>& lines, IbEvidence& ev) {
  auto found = blocks(lines, [](std::string_view t) { return begins(t, "Infiniband device '"); });
  if (found.empty()) return;
  std::vector<IbstatPort> ports;
  for (const auto& block : found) {
    // Infiniband device 'mlx5_0' port 1 status:
    std::string_view head = block.front().text.substr(std::string_view("Infiniband device '").size());
    const size_t quote = head.find('\'');
    const size_t port_at = head.find(" port ");
    IbstatPort p;
    std::optional<int> n;
    if (quote != std::string_view::npos && port_at != std::string_view::npos) {
      p.ca = std::string(head.substr(0, quote));
      std::string_view rest = head.substr(port_at + 6);
      n = int_of(rest.substr(0, rest.find(' ')));
    }
    if (!n) return add_form(ev.incomplete, "ibstatus");
    p.port = *n;
    for (const Line& l : block) {
      auto kv = key_value(l.text);
      if (!kv || !l.indented) continue;
      const auto [key, value] = *kv;
      if (key == "state")
        p.state = ibstat_word(value);
      else if (key == "phys state")
        p.physical_state = ibstat_word(value);
      else if (key == "link_layer")
        p.link_layer = std::string(value);
      else if (key == "sm lid")
        p.sm_lid = int_of(value);
      else if (key == "rate") {
        // "200 Gb/sec (4X HDR)"
        double rate = 0;
        auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), rate);
        if (ec == std::errc() && std::isfinite(rate)) p.rate_gbps = static_cast<int>(std::lround(rate));
      }
    }
    if (p.state.empty() || p.physical_state.empty()) return add_form(ev.incomplete, "ibstatus");
    ports.push_back(std::move(p));
  }
  add_form(ev.forms, "ibstatus");
  ev.ports.insert(ev.ports.end(), ports.begin(), ports.end());
}

// sminfo: sm lid 37 sm guid 0x7cfe90030016aef1, activity count 4484381 priority 14 state 3 SMINFO_MASTER
void read_sminfo(const std::vector<Line>& lines, IbEvidence& ev) {
  for (const Line& l : lines) {
    if (!begins(l.text, "sminfo:")) continue;
    SmInfo sm;
    sm.line = std::string(l.text);
    if (l.text.find("iberror") != std::string_view::npos) {
      ev.sminfo = sm;  // the query failed: no subnet manager answered
      add_form(ev.forms, "sminfo");
      return;
    }
    std::vector<std::string_view> words;
    std::string_view rest = l.text;
    while (!rest.empty()) {
      const size_t sp = rest.find(' ');
      std::string_view w = trim_chars(rest.substr(0, sp), ",");
      if (!w.empty()) words.push_back(w);
      rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp + 1);
    }
    std::optional<int> lid;
    for (size_t i = 0; i + 1 < words.size(); ++i) {
      if (words[i] == "lid" && i > 0 && words[i - 1] == "sm")
        lid = int_of(words[i + 1]);
      else if (words[i] == "guid")
        sm.guid = std::string(words[i + 1]);
      else if (words[i] == "priority")
        sm.priority = int_of(words[i + 1]).value_or(0);
    }
    if (!lid) return add_form(ev.incomplete, "sminfo");
    sm.answered = true;
    sm.lid = *lid;
    if (!words.empty() && begins(words.back(), "SMINFO_")) sm.state = std::string(words.back());
    ev.sminfo = sm;
    add_form(ev.forms, "sminfo");
    return;
  }
}

// "-I- Discovery                 3          0" → (Discovery, 3, 0); names may hold spaces.
std::optional<IbdiagnetSummary::Stage> stage_row(std::string_view line) {
  std::vector<std::string_view> words;
  for (std::string_view rest = line.substr(3); !rest.empty();) {
    rest = trim_chars(rest, " \t");
    const size_t sp = rest.find_first_of(" \t");
    if (!rest.empty()) words.push_back(rest.substr(0, sp));
    rest = sp == std::string_view::npos ? std::string_view() : rest.substr(sp);
  }
  for (size_t i = 1; i + 1 < words.size(); ++i) {
    auto w = int_of(words[i]), e = int_of(words[i + 1]);
    if (!w || !e) continue;
    IbdiagnetSummary::Stage s;
    for (size_t k = 0; k < i; ++k) s.name += (k ? " " : "") + std::string(words[k]);
    s.warnings = *w;
    s.errors = *e;
    return s;
  }
  return std::nullopt;
}

void read_ibdiagnet(const std::vector<Line>& lines, IbEvidence& ev) {
  IbdiagnetSummary sum;
  bool seen = false, in_stages = false, header_only = false;
  for (const Line& l : lines) {
    const std::string_view t = l.text;
    if (begins(t, "-I- Stage") && t.find("Errors") != std::string_view::npos) {
      seen = in_stages = header_only = true;
      continue;
    }
    if (in_stages && begins(t, "-I- ")) {
      if (auto s = stage_row(t)) {
        sum.stages.push_back(*s);
        header_only = false;
        continue;
      }
    }
    in_stages = false;
    if (begins(t, "Master SM:")) {
      sum.master_sm = std::string(trim_chars(t.substr(10), " \t"));
      seen = true;
    } else if (begins(t, "Adaptive Routing is enabled on ")) {
      std::string_view n = t.substr(std::string_view("Adaptive Routing is enabled on ").size());
      sum.ar_switches = int_of(n.substr(0, n.find(' ')));
      seen = true;
    } else if (auto kv = key_value(t);
               kv && !l.indented && (kv->first == "IB Switches" || kv->first == "IB Channel Adapters")) {
      (kv->first == "IB Switches" ? sum.switches : sum.channel_adapters) = int_of(kv->second);
      seen = true;
    }
  }
  if (!seen) return;
  if (header_only) return add_form(ev.incomplete, "ibdiagnet");
  ev.ibdiagnet = sum;
  add_form(ev.forms, "ibdiagnet");
}

// --- Firmware ------------------------------------------------------------------------------------

// ipmitool's lines sit at the left margin ("Firmware Revision         : 3.19"); dmidecode's
// "Firmware Revision" (the embedded controller's) is indented under its record and is not the BMC.
void read_ipmitool(const std::vector<Line>& lines, FirmwareEvidence& ev) {
  BmcInfo bmc;
  bool seen = false;
  for (const Line& l : lines) {
    auto kv = key_value(l.text);
    if (!kv || l.indented) continue;
    const auto [key, value] = *kv;
    if (key == "Firmware Revision") {
      seen = true;
      bmc.firmware = std::string(value);
    } else if (key == "Manufacturer Name") {
      bmc.manufacturer = std::string(value);
    } else if (key == "Product Name") {
      bmc.product = std::string(value);
    }
  }
  if (!seen) return;
  if (bmc.firmware.empty()) return add_form(ev.incomplete, "ipmitool mc info");
  ev.bmc = bmc;
  add_form(ev.forms, "ipmitool mc info");
}

void read_dmidecode(const std::vector<Line>& lines, FirmwareEvidence& ev) {
  auto records = blocks(lines, [](std::string_view t) { return t == "BIOS Information"; });
  if (records.empty()) return;
  BiosInfo bios;
  for (const Line& l : records.front()) {
    auto kv = key_value(l.text);
    if (!kv) continue;
    if (kv->first == "Vendor")
      bios.vendor = std::string(kv->second);
    else if (kv->first == "Version")
      bios.version = std::string(kv->second);
    else if (kv->first == "Release Date")
      bios.release_date = std::string(kv->second);
  }
  if (bios.version.empty()) return add_form(ev.incomplete, "dmidecode -t bios");
  ev.bios = bios;
  add_form(ev.forms, "dmidecode -t bios");
}

// GPU blocks ("GPU 00000000:2F:00.0" and the lines under it) give each GPU's name, serial and
// VBIOS; VBIOS lines outside any block are a grep of them.
void read_nvidia_smi(const std::vector<Line>& lines, FirmwareEvidence& ev) {
  auto gpus = blocks(lines, [](std::string_view t) { return begins(t, "GPU 0000"); });
  std::vector<GpuVbios> found;
  for (const auto& block : gpus) {
    GpuVbios g;
    g.bus_id = std::string(block.front().text.substr(4));
    for (const Line& l : block) {
      auto kv = key_value(l.text);
      if (!kv) continue;
      if (kv->first == "Product Name" && g.name.empty())
        g.name = std::string(kv->second);
      else if (kv->first == "Serial Number" && g.serial.empty())
        g.serial = std::string(kv->second);
      else if (kv->first == "VBIOS Version" && g.vbios.empty())
        g.vbios = std::string(kv->second);
    }
    if (g.vbios.empty()) return add_form(ev.incomplete, "nvidia-smi -q");
    found.push_back(std::move(g));
  }
  if (gpus.empty())
    for (const Line& l : lines)
      if (auto kv = key_value(l.text); kv && kv->first == "VBIOS Version" && !kv->second.empty())
        found.push_back({"", "", "", std::string(kv->second)});
  if (found.empty()) return;
  ev.gpus = std::move(found);
  add_form(ev.forms, "nvidia-smi -q");
}

// --- GPU memory health ---------------------------------------------------------------------------

std::optional<uint64_t> count_value(std::string_view v) {
  uint64_t n = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (ec != std::errc() || p != v.data() + v.size()) return std::nullopt;  // "N/A", a cut line
  return n;
}

std::optional<bool> yes_no(std::string_view v) {
  if (v == "Yes") return true;
  if (v == "No") return false;
  return std::nullopt;
}

void add_to(std::optional<uint64_t>& total, std::optional<uint64_t> n) {
  if (n) total = total.value_or(0) + *n;
}

// --- Memory devices ------------------------------------------------------------------------------

// dmidecode's words for a field the firmware left empty.
std::string known(std::string_view value) {
  for (std::string_view none : {"Unknown", "Not Specified", "NO DIMM", "None", "Other"})
    if (value == none) return "";
  return std::string(value);
}

// "3200 MT/s", "3200 MHz" → 3200; "Unknown" → nullopt.
std::optional<double> speed_of(std::string_view value) {
  for (std::string_view unit : {" MT/s", " MHz"}) {
    if (value.size() <= unit.size() || value.substr(value.size() - unit.size()) != unit) continue;
    auto n = int_of(value.substr(0, value.size() - unit.size()));
    if (n && *n > 0) return *n;
  }
  return std::nullopt;
}

// "64 GB" → 64, "65536 MB" → 64, "1 TB" → 1024, "16384 kB" → 1/64: GiB, since SMBIOS sizes are
// binary whatever dmidecode calls them. nullopt when it does not parse.
std::optional<double> gib_of(std::string_view value) {
  const size_t space = value.find(' ');
  if (space == std::string_view::npos) return std::nullopt;
  auto n = int_of(value.substr(0, space));
  if (!n || *n <= 0) return std::nullopt;
  const std::string_view unit = value.substr(space + 1);
  if (unit == "kB") return *n / (1024.0 * 1024.0);
  if (unit == "MB") return *n / 1024.0;
  if (unit == "GB") return static_cast<double>(*n);
  if (unit == "TB") return *n * 1024.0;
  return std::nullopt;
}

struct MemoryRecord {
  int line = 0;                                     // of its "Memory Device" header
  std::optional<std::pair<int, std::string>> size;  // line and value
  Dimm dimm;
};

}  // namespace

Result<std::vector<Dimm>> parse_dmidecode_memory(std::string_view text) {
  const std::vector<Line> lines = lines_of(text);
  std::vector<MemoryRecord> records;
  bool in = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const Line& l = lines[i];
    if (!l.indented && l.text == "Memory Device") {
      records.push_back({static_cast<int>(i + 1), std::nullopt, {}});
      in = true;
      continue;
    }
    if (!in || !(l.indented || l.text.empty())) {
      in = false;
      continue;
    }
    auto kv = key_value(l.text);
    if (!kv) continue;
    Dimm& d = records.back().dimm;
    const auto [key, value] = *kv;
    if (key == "Size")
      records.back().size = {static_cast<int>(i + 1), std::string(value)};
    else if (key == "Locator")
      d.locator = known(value);
    else if (key == "Type")
      d.type = known(value);
    else if (key == "Speed")
      d.speed_mts = speed_of(value);
    else if (key == "Part Number")
      d.part_number = known(value);
  }
  if (records.empty()) return Error{"", 0, "", Phrase("error.dmidecode.no_memory_device")};
  std::vector<Dimm> dimms;
  for (MemoryRecord& r : records) {
    if (!r.size) return Error{"", r.line, "Size", Phrase("error.dmidecode.no_size")};
    const std::string& size = r.size->second;
    if (size == "No Module Installed" || size == "Not Installed") continue;
    if (r.dimm.type == "Flash" || r.dimm.type == "ROM") continue;
    auto gib = gib_of(size);
    if (!gib) return Error{"", r.size->first, "Size", Phrase("error.dmidecode.bad_size").fact("got", size)};
    r.dimm.size_gb = *gib;
    dimms.push_back(std::move(r.dimm));
  }
  return dimms;
}

namespace {

// Each reader picks its own tool's lines out of the same text, in the order of the forms' list.
template <class Evidence>
Evidence read_with(std::string_view text,
                   std::initializer_list<void (*)(const std::vector<Line>&, Evidence&)> readers) {
  const std::vector<Line> lines = lines_of(text);
  Evidence ev;
  for (auto reader : readers) reader(lines, ev);
  return ev;
}

}  // namespace

std::vector<GpuMemoryHealth> read_memory_health(std::string_view text) {
  const std::vector<Line> lines = lines_of(text);
  std::vector<GpuMemoryHealth> out;
  for (const auto& block : blocks(lines, [](std::string_view t) { return begins(t, "GPU 0000"); })) {
    GpuMemoryHealth g;
    g.bus_id = std::string(trim_chars(block.front().text.substr(4), " \t"));
    bool seen = false;
    // The heading the line is under ("ECC Errors", "Retired Pages", "Remapped Rows", any other) and,
    // in "ECC Errors", its part ("Volatile", "Aggregate").
    std::string_view section, part;
    for (const Line& l : block) {
      const std::string_view t = trim_chars(l.text, " \t");
      if (t.empty()) continue;
      auto kv = key_value(t);
      if (!kv) {  // a heading: a section at the first level of indentation, a part below it
        if (t == "Volatile" || t == "Aggregate") {
          part = t;
        } else if (!begins(t, "[")) {  // not the "[...]" an author leaves for what was cut
          section = t;
          part = {};
        }
        continue;
      }
      const auto [key, value] = *kv;
      if (section == "ECC Errors" && !part.empty()) {
        const bool vol = part == "Volatile";
        const bool uncorrected = key == "DRAM Uncorrectable" || key == "SRAM Uncorrectable";
        const bool corrected = key == "DRAM Correctable" || key == "SRAM Correctable";
        if (uncorrected) add_to(vol ? g.volatile_uncorrected : g.aggregate_uncorrected, count_value(value));
        if (corrected) add_to(vol ? g.volatile_corrected : g.aggregate_corrected, count_value(value));
        seen = seen || uncorrected || corrected;
      } else if (section == "Retired Pages") {
        seen = true;
        if (key == "Single Bit ECC") g.retired_sbe = count_value(value);
        else if (key == "Double Bit ECC") g.retired_dbe = count_value(value);
        else if (key == "Pending Page Blacklist" || key == "Pending") g.retire_pending = yes_no(value);
      } else if (section == "Remapped Rows") {
        seen = true;
        if (key == "Correctable Error") g.rows_correctable = count_value(value);
        else if (key == "Uncorrectable Error") g.rows_uncorrectable = count_value(value);
        else if (key == "Pending") g.remap_pending = yes_no(value);
        else if (key == "Remapping Failure Occurred") g.remap_failed = yes_no(value);
      }
    }
    if (seen) out.push_back(std::move(g));
  }
  return out;
}

IbEvidence read_ib_evidence(std::string_view text) {
  return read_with<IbEvidence>(text, {read_ibstat, read_ibstatus, read_sminfo, read_ibdiagnet});
}

FirmwareEvidence read_firmware_evidence(std::string_view text) {
  return read_with<FirmwareEvidence>(text, {read_ipmitool, read_dmidecode, read_nvidia_smi});
}

}  // namespace gpuplan::probe

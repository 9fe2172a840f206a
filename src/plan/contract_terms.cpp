// The YAML side of contract terms: each term under `contract:` and `service:` is either a scalar
// read by its wording reader (contract_wordings.cpp) or, for the structured terms, a mapping whose
// values are checked strictly (a wrong value there is an Error, not an unparsed term).
#include "plan/contract_terms.h"

#include <algorithm>
#include <cstdlib>

#include "core/text.h"
#include "core/units.h"

namespace gpuplan::plan {
namespace {

// A term's field name and the older free-text key read as the same field ("" when none).
struct Key {
  const char* field;
  const char* alias;
};

const Key kContractKeys[] = {{"gpu", "gpu_model"},
                             {"driver", "driver_version"},
                             {"cuda", "cuda_version"},
                             {"rack", "rack_current"},
                             {"public_bandwidth", ""},
                             {"internal_network", "internal_bandwidth"},
                             {"performance", "performance_clause"},
                             {"reboot_sla_min", "reboot_sla"},
                             {"installation", ""},
                             {"cooling", ""}};
const Key kServiceKeys[] = {{"response_h", "response_time_h"}, {"mttr_h", ""}, {"penalty", ""}, {"hours", ""}};

template <size_t N>
std::vector<std::string> key_names(const Key (&keys)[N]) {
  std::vector<std::string> out;
  for (const Key& k : keys) {
    out.push_back(k.field);
    if (*k.alias) out.push_back(k.alias);
  }
  return out;
}

std::string join_keys(const std::vector<std::string>& keys) {
  std::string out;
  for (const std::string& k : keys) out += (out.empty() ? "" : ", ") + k;
  return out;
}

class TermReader {
 public:
  TermReader(const YamlReader& r, const catalog::Catalog& catalog) : r_(r), catalog_(catalog) {}

  ContractTerms read(const YAML::Node& contract, const YAML::Node& service) {
    if (contract) {
      r_.check_keys(contract, "contract", key_names(kContractKeys));
      // The GPU first: a performance figure per server is divided by its count.
      for (const Key& k : kContractKeys) contract_term(contract, k);
    }
    if (service) {
      r_.check_keys(service, "service", key_names(kServiceKeys));
      for (const Key& k : kServiceKeys) service_term(service, k);
    }
    return std::move(t_);
  }

 private:
  // The node of `key`'s term, under its field name or its alias (never both); `at` is the key used.
  std::optional<YAML::Node> pick(const YAML::Node& map, const std::string& prefix, const Key& key, std::string& at) {
    std::vector<std::pair<YAML::Node, YAML::Node>> found;  // copies: assigning a YAML::Node would rewrite it
    for (const auto& kv : map) {
      const std::string name = kv.first.Scalar();
      if (name == key.field || name == key.alias) found.emplace_back(kv.first, kv.second);
    }
    if (found.empty()) return std::nullopt;
    if (found.size() > 1)
      r_.fail(found[1].first, prefix + "." + found[1].first.Scalar(), "error.contract.duplicate_term",
              {{"other", found[0].first.Scalar()}, {"line", std::to_string(r_.line_of(found[0].first))}});
    at = prefix + "." + found[0].first.Scalar();
    key_line_ = r_.line_of(found[0].first);
    return found[0].second;
  }

  // Records the term as written, on its key's line (an empty value has none of its own): the
  // scalar, or a mapping as "key: value, …".
  void write(const std::string& field, const YAML::Node& n) {
    std::string text;
    if (n.IsMap()) {
      for (const auto& kv : n) text += (text.empty() ? "" : ", ") + kv.first.Scalar() + ": " + kv.second.Scalar();
    } else if (n.IsScalar()) {
      text = n.Scalar();
    }
    t_.written[field] = WrittenTerm{text, key_line_};
  }

  void unparsed(const std::string& field) { t_.unparsed.push_back(field); }

  // A term that must be words or a mapping of `keys`, not a list.
  void need_scalar_or_map(const YAML::Node& n, const std::string& at, const std::vector<std::string>& keys) {
    if (n.IsMap()) {
      r_.check_keys(n, at, keys);
      if (n.size() == 0) r_.fail(n, at, "error.contract.empty_term", {{"keys", join_keys(keys)}});
      return;
    }
    if (!n.IsScalar() || trim(n.Scalar()).empty())
      r_.fail(n, at, "error.contract.not_term", {{"keys", join_keys(keys)}});
  }

  YAML::Node required(const YAML::Node& map, const std::string& at, const std::string& key) {
    if (!map[key]) r_.fail(map, at + "." + key, "error.contract.missing_key", {{"key", key}});
    return map[key];
  }

  double positive(const YAML::Node& n, const std::string& field) {
    double v = r_.non_negative(n, field);
    if (v <= 0) r_.fail(n, field, "error.contract.not_positive", {{"got", n.Scalar()}});
    return v;
  }

  std::string one_of(const YAML::Node& n, const std::string& field, const std::vector<std::string>& allowed) {
    std::string v = r_.text(n, field);
    if (std::find(allowed.begin(), allowed.end(), v) == allowed.end()) r_.fail(n, field, not_one_of(v, allowed));
    return v;
  }

  // A plain number written as the field's own unit (hours for service times, minutes for reboot).
  std::optional<double> bare_number(const YAML::Node& n, const std::string& at) {
    const std::string s(trim(n.Scalar()));
    if (s.size() > kMaxTermBytes) return std::nullopt;  // left to the wording reader, which refuses it
    char* end = nullptr;
    std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size()) return std::nullopt;
    return r_.non_negative(n, at);
  }

  void contract_term(const YAML::Node& contract, const Key& key) {
    std::string at;
    const std::optional<YAML::Node> term = pick(contract, "contract", key, at);
    if (!term) return;
    const YAML::Node& n = *term;
    const std::string field = key.field;
    if (field == "gpu") return gpu(n, at);
    if (field == "rack") return rack(n, at);
    if (field == "public_bandwidth") return public_bandwidth(n, at);
    if (field == "internal_network") return internal_network(n, at);
    if (field == "performance") return performance(n, at);
    write(field, n);
    if (field == "reboot_sla_min") {
      if (!n.IsScalar() || trim(n.Scalar()).empty()) r_.fail(n, at, Phrase("error.yaml.not_text"));
      auto minutes = bare_number(n, at);
      if (!minutes) minutes = read_minutes_wording(n.Scalar());
      if (minutes)
        t_.reboot_sla_min = *minutes;
      else
        unparsed(field);
      return;
    }
    const std::string text = r_.text(n, at);  // driver, cuda, installation, cooling: words only
    if (field == "installation") {
      t_.installation = text;
    } else if (field == "cooling") {
      t_.cooling = text;
    } else if (field == "driver") {
      if (!(t_.driver = read_driver_wording(text))) unparsed(field);
    } else if (!(t_.cuda = read_cuda_wording(text))) {
      unparsed(field);
    }
  }

  void gpu(const YAML::Node& n, const std::string& at) {
    need_scalar_or_map(n, at, {"model", "count"});
    write("gpu", n);
    if (n.IsScalar()) {
      t_.gpu = read_gpu_wording(n.Scalar(), catalog_);
      if (!t_.gpu || t_.gpu->model.empty()) unparsed("gpu");
      return;
    }
    GpuTerm g;
    const YAML::Node model = required(n, at, "model");
    g.model = r_.text(model, at + ".model");
    if (!catalog_.find("gpu", g.model))
      r_.fail(model, at + ".model", unknown_id("gpu", g.model, catalog_.ids_of_kind("gpu")));
    if (n["count"]) g.count = r_.count(n["count"], at + ".count", 1);
    t_.gpu = g;
  }

  void rack(const YAML::Node& n, const std::string& at) {
    need_scalar_or_map(n, at, {"current_a", "voltage_v"});
    write("rack", n);
    if (n.IsScalar()) {
      if (!(t_.rack = read_rack_wording(n.Scalar()))) unparsed("rack");
      return;
    }
    RackTerm rack;
    const YAML::Node amps = required(n, at, "current_a");
    rack.current_a = r_.quantity(amps, at + ".current_a", Dimension::kCurrent, "A");
    if (rack.current_a <= 0) r_.fail(amps, at + ".current_a", "error.contract.not_positive", {{"got", amps.Scalar()}});
    if (const YAML::Node volts = n["voltage_v"]) {
      rack.voltage_v = r_.quantity(volts, at + ".voltage_v", Dimension::kVoltage, "V");
      if (*rack.voltage_v <= 0)
        r_.fail(volts, at + ".voltage_v", "error.contract.not_positive", {{"got", volts.Scalar()}});
    }
    t_.rack = rack;
  }

  void public_bandwidth(const YAML::Node& n, const std::string& at) {
    need_scalar_or_map(n, at, {"mbps", "billing", "traffic_tb_month"});
    write("public_bandwidth", n);
    if (n.IsScalar()) {
      if (!(t_.public_bandwidth = read_public_bandwidth_wording(n.Scalar()))) unparsed("public_bandwidth");
      return;
    }
    PublicBandwidthTerm b;
    if (n["mbps"]) b.mbps = positive(n["mbps"], at + ".mbps");
    if (n["billing"])
      b.billing =
          one_of(n["billing"], at + ".billing", {"fixed", "metered"}) == "fixed" ? Billing::kFixed : Billing::kMetered;
    if (n["traffic_tb_month"]) b.traffic_tb_month = r_.non_negative(n["traffic_tb_month"], at + ".traffic_tb_month");
    t_.public_bandwidth = b;
  }

  void internal_network(const YAML::Node& n, const std::string& at) {
    need_scalar_or_map(n, at, {"kind", "gbps", "ports"});
    write("internal_network", n);
    if (n.IsScalar()) {
      if (!(t_.internal_network = read_internal_network_wording(n.Scalar()))) unparsed("internal_network");
      return;
    }
    InternalNetworkTerm net;
    net.gbps = positive(required(n, at, "gbps"), at + ".gbps");
    if (n["kind"])
      net.kind = one_of(n["kind"], at + ".kind", {"ethernet", "infiniband"}) == "ethernet" ? NetworkKind::kEthernet
                                                                                           : NetworkKind::kInfiniband;
    if (n["ports"]) net.ports = r_.count(n["ports"], at + ".ports", 1);
    t_.internal_network = net;
  }

  void performance(const YAML::Node& n, const std::string& at) {
    need_scalar_or_map(n, at, {"benchmark", "batch", "min_images_per_gpu"});
    write("performance", n);
    if (n.IsScalar()) {
      std::optional<int> gpus = t_.gpu ? t_.gpu->count : std::nullopt;
      if (!(t_.performance = read_performance_wording(n.Scalar(), gpus))) unparsed("performance");
      return;
    }
    PerformanceTerm p;
    if (n["benchmark"]) p.benchmark = one_of(n["benchmark"], at + ".benchmark", {"resnet50-train"});
    if (n["batch"]) p.batch = r_.count(n["batch"], at + ".batch", 1);
    p.min_images_per_gpu = positive(required(n, at, "min_images_per_gpu"), at + ".min_images_per_gpu");
    t_.performance = p;
  }

  void service_term(const YAML::Node& service, const Key& key) {
    std::string at;
    const std::optional<YAML::Node> term = pick(service, "service", key, at);
    if (!term) return;
    const YAML::Node& n = *term;
    const std::string field = std::string("service.") + key.field;
    if (key.field == std::string("penalty")) {
      // An empty penalty is a penalty of none, written down: the audit fails it.
      if (!n.IsNull() && !n.IsScalar()) r_.fail(n, at, Phrase("error.yaml.not_text"));
      write(field, n);
      if (n.IsScalar() && n.Scalar().size() > kMaxTermBytes) return unparsed(field);  // too long to read
      t_.service.penalty = read_penalty_wording(n.IsScalar() ? n.Scalar() : "");
      return;
    }
    if (!n.IsScalar() || trim(n.Scalar()).empty()) r_.fail(n, at, Phrase("error.yaml.not_text"));
    write(field, n);
    if (key.field == std::string("hours")) {
      if (!(t_.service.hours = read_service_hours_wording(n.Scalar()))) unparsed(field);
      return;
    }
    std::optional<double> hours = bare_number(n, at);
    if (!hours) hours = read_hours_wording(n.Scalar());
    if (!hours) return unparsed(field);
    (key.field == std::string("mttr_h") ? t_.service.mttr_h : t_.service.response_h) = hours;
  }

  const YamlReader& r_;
  const catalog::Catalog& catalog_;
  ContractTerms t_;
  int key_line_ = 0;  // the line of the key the last pick() found
};

}  // namespace

ContractTerms read_contract_terms(const YamlReader& reader, const YAML::Node& contract, const YAML::Node& service,
                                  const catalog::Catalog& catalog) {
  return TermReader(reader, catalog).read(contract, service);
}

}  // namespace gpuplan::plan

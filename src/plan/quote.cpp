#include "plan/quote.h"

#include <fmt/format.h>

#include <cmath>

#include "core/money.h"
#include "core/units.h"
#include "plan/rules.h"

namespace gpuplan::plan {
namespace {

std::string cited(const catalog::Entry& e) {
  return e.source + " (" + e.as_of + ")";
}
std::string cited_zh(const catalog::Entry& e) {
  return e.display_source_zh() + "（" + e.as_of + "）";
}

// A line named by its catalog entry, in both languages (name, name_zh), through `key`.
Phrase named(const char* key, const catalog::Entry& e) {
  return Phrase(key).fact("name", e.name, e.display_name_zh());
}

std::string years_text(double years) {
  return format_number(years, 1);
}

// "1 node" / "3 nodes" as the fact "nodes".
Fact node_count(int nodes) {
  return Fact{"nodes",
              std::to_string(nodes),
              std::nullopt,
              {Phrase(nodes == 1 ? "quote.one_node" : "quote.nodes").fact("count", std::to_string(nodes))},
              {}};
}

const catalog::Entry* market_class(const catalog::Catalog& cat, const std::string& family, int gpus) {
  const catalog::Entry* best = nullptr;
  for (const catalog::Entry* m : cat.of_kind("market")) {
    if (m->text("family") != family || m->number("gpus") < gpus) continue;
    if (!best || m->number("gpus") < best->number("gpus")) best = m;
  }
  return best;
}

}  // namespace

Range disk_price(const catalog::Entry& disk, int count) {
  double multiplier = disk.opt_number("endurance_multiplier").value_or(1);
  return disk.range("buy_per_tb") * (disk.number("capacity_tb") * multiplier * count);
}

bool add_part_power(PowerBudget& p, const catalog::Entry& part, double count) {
  struct Share {
    const char* kind;
    const char* field;
    double PowerBudget::*watts;
  };
  static constexpr Share kShares[] = {
      {"gpu", "tdp_w", &PowerBudget::gpus_w},        {"cpu", "tdp_w", &PowerBudget::cpus_w},
      {"memory", "power_w", &PowerBudget::memory_w}, {"disk", "power_w", &PowerBudget::disks_w},
      {"nic", "power_w", &PowerBudget::nics_w},      {"platform", "base_power_w", &PowerBudget::platform_w}};
  for (const Share& s : kShares) {
    if (part.kind != s.kind) continue;
    const std::optional<double> w = part.opt_number(s.field);
    if (!w) return false;
    p.*s.watts += count * *w;
    return true;
  }
  return false;
}

RackChoice rack_for_load(double load_w, const catalog::Catalog& cat) {
  const double fraction = cat.threshold("rack.continuous_fraction");
  auto watts = [](const catalog::Entry* r) { return r->number("amps") * r->number("volts"); };
  RackChoice smallest, largest;
  for (const catalog::Entry* r : cat.of_kind("rack")) {
    if (!largest.rack || watts(r) > watts(largest.rack)) largest.rack = r;
    if (watts(r) * fraction >= load_w && (!smallest.rack || watts(r) < watts(smallest.rack))) smallest = {r, true};
  }
  return smallest.rack ? smallest : largest;
}

PowerBudget node_power(const ServerConfig& c, const catalog::Catalog& cat) {
  PowerBudget p;
  add_part_power(p, *cat.find("gpu", c.gpu), c.gpus);
  add_part_power(p, *cat.find("cpu", c.cpu), c.cpu_sockets);
  add_part_power(p, *cat.find("memory", c.memory.part), c.memory.count);
  add_part_power(p, *cat.find("disk", c.system_disk.part), c.system_disk.count);
  add_part_power(p, *cat.find("disk", c.data_disk.part), c.data_disk.count);
  for (const auto& n : c.nics) add_part_power(p, *cat.find("nic", n.part), n.count);
  const catalog::Entry* platform = cat.find("platform", c.platform);
  add_part_power(p, *platform, 1);
  set_system_power(p, platform, cat);
  return p;
}

void set_system_power(PowerBudget& p, const catalog::Entry* platform, const catalog::Catalog& cat) {
  if (platform) {
    if (const std::optional<double> max = platform->opt_number("system_max_w")) {
      p.system_w = *max;
      p.system_basis = "vendor_max";
      p.system_source = cited(*platform);
      p.system_source_zh = cited_zh(*platform);
      return;
    }
  }
  if (p.gpus_w <= 0) return;
  const catalog::Entry* factor = cat.find("threshold", "power.server_factor");
  p.system_w = factor->number("value") * p.gpus_w;
  p.system_basis = "server_factor";
  p.system_source = cited(*factor);
  p.system_source_zh = cited_zh(*factor);
}

Phrase governing_power(const PowerBudget& p) {
  if (!p.system_governs()) return Phrase("quote.power.governs.parts").fact("parts", format_watts(p.parts_w()));
  if (p.system_basis == "vendor_max")
    return Phrase("quote.power.governs.vendor_max").fact("system", format_watts(p.system_w));
  // The factor is shown as the ratio it produced, so the line reads as its own arithmetic.
  return Phrase("quote.power.governs.server_factor")
      .fact("factor", format_figure(p.system_w / p.gpus_w, 2))
      .fact("gpu_draw", format_watts(p.gpus_w))
      .fact("system", format_watts(p.system_w));
}

namespace {

// Subscriptions: priced for the term when buying, per month when renting.
void add_subscriptions(const ServerConfig& c, const catalog::Catalog& cat, Quote& q) {
  const int nodes = c.nodes;
  const double years = c.term_years;
  for (const std::string& id : c.licences) {
    const catalog::Entry& lic = *cat.find("licence", id);
    Range per_year = lic.range("per_gpu_year") * c.total_gpus();
    q.lines.push_back(
        {lic.id,
         named("quote.line.licence", lic).fact("gpus", std::to_string(c.total_gpus())).fact("years", years_text(years)),
         static_cast<double>(c.total_gpus()),
         per_year * years,
         per_year / 12,
         cited(lic),
         cited_zh(lic),
         {&lic}});
  }
  const catalog::Entry& support = *cat.find("support", c.support);
  if (support.range("per_year").high > 0) {
    // Rented servers come with the provider's support, so only the purchase carries it.
    q.lines.push_back(
        {support.id,
         named("quote.line.per_nodes_years", support).fact(node_count(nodes)).fact("years", years_text(years)),
         static_cast<double>(nodes),
         support.range("per_year") * (nodes * years),
         {},
         cited(support),
         cited_zh(support),
         {&support}});
  }
  if (!c.cluster_manager.empty()) {
    const catalog::Entry& cm = *cat.find("cluster_manager", c.cluster_manager);
    if (auto licence = cm.opt_range("licence")) {
      double share =
          nodes / cm.opt_number("licence_nodes").value_or(1) * years / cm.opt_number("licence_years").value_or(1);
      Range cost = *licence * share;
      q.lines.push_back(
          {cm.id,
           named("quote.line.per_nodes_years", cm).fact(node_count(nodes)).fact("years", years_text(years)),
           static_cast<double>(nodes),
           cost,
           cost / (years * 12),
           cited(cm),
           cited_zh(cm),
           {&cm}});
    } else {
      q.lines.push_back({cm.id,
                         named("quote.line.setup_weeks", cm)
                             .fact("weeks", format_number(cm.opt_number("setup_engineer_weeks").value_or(0))),
                         static_cast<double>(nodes),
                         {},
                         {},
                         cited(cm),
                         cited_zh(cm),
                         {&cm}});
    }
  }
}

const catalog::Entry* rent_addon(const catalog::Catalog& cat, const std::string& applies_to) {
  for (const catalog::Entry* a : cat.of_kind("rent_addon"))
    if (a->text("applies_to") == applies_to) return a;
  return nullptr;
}

// What the configuration adds to the market class's rent (its baseline: catalog/market.yaml):
// InfiniBand adapters, data disks beyond the class's included TB, and a fixed bandwidth tier.
// Not scaled by the region factor: the add-on figures are the providers' own list prices.
void add_rent_addons(const ServerConfig& c, const catalog::Catalog& cat, const catalog::Entry& market, Quote& q) {
  const int nodes = c.nodes;
  auto line = [&](const catalog::Entry& a, Phrase item, double qty, Range rent) {
    q.lines.push_back({a.id, std::move(item), qty, {}, rent, cited(a), cited_zh(a), {&a}});
  };
  if (const catalog::Entry* ib = rent_addon(cat, "infiniband")) {
    int adapters = 0;
    for (const auto& n : c.nics)
      if (cat.find("nic", n.part)->text("protocol") == "infiniband") adapters += n.count * nodes;
    if (adapters > 0)
      line(*ib, named("quote.line.rent_ib", *ib).fact("adapters", std::to_string(adapters)), adapters,
           ib->range("rent_monthly") * adapters);
  }
  const catalog::Entry* storage = rent_addon(cat, "storage");
  const catalog::Entry& data_disk = *cat.find("disk", c.data_disk.part);
  const double data_tb = c.data_disk.count * data_disk.number("capacity_tb");
  const double included_tb = market.opt_number("included_data_tb").value_or(0);
  if (storage && data_tb > included_tb) {
    const double beyond_tb = (data_tb - included_tb) * nodes;
    line(*storage,
         named("quote.line.rent_storage", *storage)
             .fact("data", format_figure(data_tb, 2))
             .fact("included", format_figure(included_tb, 2))
             .fact("nodes", std::to_string(nodes))
             .fact("beyond", format_figure(beyond_tb, 2)),
         beyond_tb, storage->range("rent_monthly") * beyond_tb);
  }
  const catalog::Entry* tier = c.public_bandwidth.empty() ? nullptr : cat.find("rent_addon", c.public_bandwidth);
  if (tier && tier->text("applies_to") == "bandwidth")
    line(*tier,
         named("quote.line.rent_bandwidth", *tier)
             .fact("traffic", format_figure(tier->opt_number("traffic_tb_month").value_or(0), 2)),
         nodes, tier->range("rent_monthly") * nodes);
}

// Renting: the whole server at its market rent in the region's price level, the add-ons the
// configuration needs beyond the market class, the rack circuit's extra rent and the software
// image, per month.
void add_rent_lines(const ServerConfig& c, const catalog::Catalog& cat, const catalog::Entry& gpu, Quote& q) {
  const int nodes = c.nodes;
  const catalog::Entry& region = *cat.find("region", c.region);
  q.region_factor = region.range("price_factor");
  if (const catalog::Entry* m = market_class(cat, gpu.text("family"), c.gpus)) {
    q.market = MarketRange{
        m->id, static_cast<int>(m->number("gpus")), m->range("buy"), m->range("rent_monthly"), cited(*m), cited_zh(*m)};
    Phrase item = Phrase("quote.line.server_rent")
                      .fact("family", gpu.text("family"))
                      .fact("gpus", std::to_string(q.market->gpus))
                      .fact("region", region.id)
                      .fact("factor", format_range(q.region_factor, 2));
    q.lines.push_back({"server-rent",
                       item,
                       static_cast<double>(nodes),
                       {},
                       q.market->rent_monthly * q.region_factor * nodes,
                       cited(*m) + "; " + cited(region),
                       cited_zh(*m) + "；" + cited_zh(region),
                       {m, &region}});
    add_rent_addons(c, cat, *m, q);
  }
  const catalog::Entry& rack = *cat.find("rack", c.rack);
  if (auto extra = rack.opt_range("rent_monthly"); extra && extra->high > 0) {
    int racks = (nodes + c.servers_per_rack - 1) / c.servers_per_rack;
    q.lines.push_back({rack.id,
                       named("quote.line.rack", rack),
                       static_cast<double>(racks),
                       {},
                       *extra * racks,
                       cited(rack),
                       cited_zh(rack),
                       {&rack}});
  }
  if (c.software_image) {
    const auto images = cat.of_kind("software_image");
    if (!images.empty()) {
      const catalog::Entry& image = *images.front();
      q.lines.push_back({image.id,
                         named("quote.line.part", image),
                         static_cast<double>(nodes),
                         {},
                         image.range("rent_monthly") * nodes,
                         cited(image),
                         cited_zh(image),
                         {&image}});
    }
  }
}

}  // namespace

Quote build_quote(const ServerConfig& c, const catalog::Catalog& cat) {
  Quote q;
  q.config = c;
  const int nodes = c.nodes;
  const catalog::Entry& gpu = *cat.find("gpu", c.gpu);
  const catalog::Entry& platform = *cat.find("platform", c.platform);

  // Hardware of one node, then multiplied by the node count.
  std::vector<QuoteLine> node_lines;
  auto hardware = [&](const catalog::Entry& e, int per_node, Phrase item, Range unit_buy) {
    if (per_node == 0) return;
    node_lines.push_back(
        {e.id, item, static_cast<double>(per_node), unit_buy * per_node, {}, cited(e), cited_zh(e), {&e}});
  };
  hardware(gpu, c.gpus, named("quote.line.part", gpu), gpu.range("buy"));
  hardware(platform, 1, named("quote.line.part", platform), platform.range("buy"));
  const catalog::Entry& cpu = *cat.find("cpu", c.cpu);
  hardware(cpu, c.cpu_sockets, named("quote.line.part", cpu), cpu.range("buy"));
  const catalog::Entry& memory = *cat.find("memory", c.memory.part);
  hardware(memory, c.memory.count,
           named("quote.line.memory", memory).fact("gb", format_number(c.memory.count * memory.number("size_gb"))),
           memory.range("buy"));
  for (const PartCount* d : {&c.system_disk, &c.data_disk}) {
    const catalog::Entry& disk = *cat.find("disk", d->part);
    hardware(disk, d->count, named("quote.line.part", disk), disk_price(disk, 1));
  }
  for (const auto& n : c.nics) {
    const catalog::Entry& nic = *cat.find("nic", n.part);
    hardware(nic, n.count, named("quote.line.part", nic), nic.range("buy"));
  }
  const catalog::Entry& cooling = *cat.find("cooling", c.cooling);
  hardware(cooling, 1, named("quote.line.cooling", cooling), cooling.range("buy"));

  for (QuoteLine& line : node_lines) {
    q.node_hardware_buy += line.buy;
    if (nodes > 1) {
      line.item = Phrase("quote.line.per_node")
                      .fact("line", {line.item})
                      .fact("per_node", format_number(line.qty))
                      .fact("nodes", std::to_string(nodes));
      line.qty *= nodes;
      line.buy = line.buy * nodes;
    }
    q.lines.push_back(line);
  }
  if (auto install = cooling.opt_range("install_if_not_in_contract")) {
    q.lines.push_back({"install." + cooling.id,
                       Phrase("quote.line.install"),
                       static_cast<double>(nodes),
                       *install * nodes,
                       {},
                       cited(cooling),
                       cited_zh(cooling),
                       {&cooling}});
  }
  if (c.network_switch) {
    const catalog::Entry& sw = *cat.find("switch", c.network_switch->part);
    q.lines.push_back({sw.id,
                       named("quote.line.part", sw),
                       static_cast<double>(c.network_switch->count),
                       sw.range("buy") * c.network_switch->count,
                       {},
                       cited(sw),
                       cited_zh(sw),
                       {&sw}});
  }

  add_rent_lines(c, cat, gpu, q);
  add_subscriptions(c, cat, q);

  for (const QuoteLine& line : q.lines) {
    q.total_buy += line.buy;
    q.total_rent_monthly += line.rent_monthly;
  }
  q.buy_per_gpu = q.total_buy / c.total_gpus();
  q.rent_per_gpu_month = q.total_rent_monthly / c.total_gpus();
  q.budget = {q.total_buy.high, "build_up"};
  if (q.market && q.market->buy.high > q.node_hardware_buy.high) {
    q.budget.amount += nodes * (q.market->buy.high - q.node_hardware_buy.high);
    q.budget.basis = "market";
  }

  for (const catalog::Entry* h : cat.of_kind("hidden_cost")) {
    HiddenCostLine line{h->id, h->name, h->text("name_zh"), std::nullopt};
    for (const auto& figure : c.hidden_costs)
      if (figure.id == h->id) line.monthly = figure.monthly;
    if (line.monthly) q.hidden_monthly += *line.monthly;
    q.hidden_costs.push_back(line);
  }

  q.power = node_power(c, cat);
  q.findings = check_rules(q, cat);
  return q;
}

std::vector<const catalog::Entry*> priced_entries(const Quote& q) {
  std::vector<const catalog::Entry*> out;
  for (const QuoteLine& line : q.lines)
    if (line.buy.high > 0 || line.rent_monthly.high > 0)
      out.insert(out.end(), line.priced_by.begin(), line.priced_by.end());
  return out;
}

void date_prices(Quote& q, const std::string& today, const catalog::Catalog& cat) {
  std::vector<const catalog::Entry*> priced = priced_entries(q);
  if (q.market && q.budget.basis == "market") priced.push_back(cat.find("market", q.market->id));
  q.price_age = price_age(priced, today, cat);
  if (auto stale = stale_prices(q.price_age)) q.findings.push_back(*stale);
}

}  // namespace gpuplan::plan

// Contract terms of a vendor quote (issue 13): every wording the README's "Contract terms" table
// lists reads to the typed values written beside it here, by hand from the wording itself; the
// structured form of the same term gives the same values; unreadable wordings stay unparsed with
// their text kept; old keys read as the new fields; wrong structured values are errors.
// Where the wordings come from: the seed articles' own lines (S0 §2.3 "2x25GbE", "HDR 200G IB网卡",
// "按固定带宽计费", "固定带宽+X TB流量包"; S0 §3.3 "8A电流", "16A以上电流"; S1 §2 "雙口200Gb/s InfiniBand
// HDR"; S1 §3 "5x8", "7x24", "MTTR≤4小时"; S1 §5 "单卡A100在ResNet-50训练batch256…1,850 images/sec"), the
// shipped examples, and our own variants and edge cases beside them.
#include "plan/contract_terms.h"

#include <gtest/gtest.h>

#include "plan/audit.h"
#include "test_support.h"

namespace gpuplan::plan {
namespace {

using gpuplan::testing::default_catalog;
using gpuplan::testing::source_path;

const std::string kHead = "vendor: V\ngpus: 8\nlines:\n  - {item: x, unit_price: 1}\n";  // contract: is line 5

// `s` as a single-quoted YAML scalar.
std::string quoted(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

ContractTerms terms_of(const std::string& sections) {
  auto q = parse_vendor_quote(kHead + sections, "q.yaml", default_catalog());
  if (!q) {
    ADD_FAILURE() << q.error().str();
    return {};
  }
  return q->terms;
}

// One contract term written as `key: value` (value already YAML).
ContractTerms contract(const std::string& key, const std::string& value) {
  return terms_of("contract:\n  " + key + ": " + value + "\n");
}
ContractTerms service(const std::string& key, const std::string& value) {
  return terms_of("service:\n  " + key + ": " + value + "\n");
}

// The term is written as `text` on line 6 (the line after `contract:`/`service:`) and not unparsed.
void expect_read(const ContractTerms& t, const std::string& field, const std::string& text) {
  ASSERT_TRUE(t.has(field)) << field;
  EXPECT_EQ(t.written.at(field).text, text);
  EXPECT_EQ(t.written.at(field).line, 6);
  EXPECT_TRUE(t.unparsed.empty()) << t.unparsed[0];
}

void expect_unparsed(const ContractTerms& t, const std::string& field, const std::string& text) {
  ASSERT_TRUE(t.has(field)) << field;
  EXPECT_EQ(t.written.at(field).text, text);
  EXPECT_EQ(t.unparsed, std::vector<std::string>{field});
}

Error error_of(const std::string& sections) {
  auto q = parse_vendor_quote(kHead + sections, "q.yaml", default_catalog());
  if (q) {
    ADD_FAILURE() << "parsed: " << sections;
    return {};
  }
  return q.error();
}

// --- GPU ------------------------------------------------------------------------------------

struct GpuCase {
  std::string wording;
  std::string model;
  std::optional<int> count;
};

TEST(ContractTermsTest, GpuWordingsResolveThroughTheCatalogNames) {
  // The catalog has one 80 GB A100 per form factor (a100-80gb-sxm, a100-80gb-pcie) and the H100s.
  const GpuCase cases[] = {
      {"NVIDIA A100 80GB SXM4 (HGX A100 8-GPU)", "a100-80gb-sxm", 8},  // "HGX" and "SXM4": SXM; "8-GPU": 8
      {"8 × A100 80G SXM", "a100-80gb-sxm", 8},
      {"A100 80GB PCIe ×4", "a100-80gb-pcie", 4},
      {"NVIDIA A100 80GB SXM4", "a100-80gb-sxm", std::nullopt},
      {"H100 80GB SXM5 × 8", "h100-80gb-sxm", 8},
  };
  for (const GpuCase& c : cases) {
    SCOPED_TRACE(c.wording);
    ContractTerms t = contract("gpu", quoted(c.wording));
    expect_read(t, "gpu", c.wording);
    ASSERT_TRUE(t.gpu);
    EXPECT_EQ(t.gpu->model, c.model);
    EXPECT_EQ(t.gpu->count, c.count);
  }
  ContractTerms structured = contract("gpu", "{model: a100-80gb-sxm, count: 8}");
  expect_read(structured, "gpu", "model: a100-80gb-sxm, count: 8");
  EXPECT_EQ(structured.gpu->model, "a100-80gb-sxm");
  EXPECT_EQ(structured.gpu->count, 8);
}

TEST(ContractTermsTest, GpuWordingFittingTwoOrNoCatalogGpusLeavesTheModelEmpty) {
  // "8卡 A100 80G": 80 GB A100, PCIe or SXM not said → two catalog GPUs fit; the count is still read.
  ContractTerms both = contract("gpu", quoted("8卡 A100 80G"));
  expect_unparsed(both, "gpu", "8卡 A100 80G");
  ASSERT_TRUE(both.gpu);
  EXPECT_EQ(both.gpu->model, "");
  EXPECT_EQ(both.gpu->count, 8);
  // No memory size: never a guess between 40 GB and 80 GB.
  ContractTerms no_memory = contract("gpu", quoted("A100 SXM4"));
  expect_unparsed(no_memory, "gpu", "A100 SXM4");
  EXPECT_FALSE(no_memory.gpu);
  // The 40 GB A100 is a catalog GPU: the memory size and the form factor name one.
  ContractTerms forty = contract("gpu", quoted("A100 40GB SXM4"));
  ASSERT_TRUE(forty.gpu);
  EXPECT_EQ(forty.gpu->model, "a100-40gb-sxm");
  // A 32 GB A100 is none.
  ContractTerms none = contract("gpu", quoted("A100 32GB SXM4"));
  expect_unparsed(none, "gpu", "A100 32GB SXM4");
  EXPECT_FALSE(none.gpu);
}

// --- Driver and CUDA ------------------------------------------------------------------------

TEST(ContractTermsTest, DriverWordings) {
  const std::pair<std::string, std::string> cases[] = {{"535.104.05", "535.104.05"},
                                                       {"R535", "535"},
                                                       {"驱动 535.104.05", "535.104.05"},
                                                       {"470", "470"},
                                                       {"NVIDIA 驱动版本 ≥ 525.85.05", "525.85.05"}};
  for (const auto& [wording, version] : cases) {
    SCOPED_TRACE(wording);
    ContractTerms t = contract("driver", quoted(wording));
    expect_read(t, "driver", wording);
    EXPECT_EQ(t.driver, version);
  }
  expect_unparsed(contract("driver", "latest"), "driver", "latest");
  // Two branches: which one is promised is not said.
  ContractTerms two = contract("driver", quoted("535 or 550"));
  expect_unparsed(two, "driver", "535 or 550");
  EXPECT_FALSE(two.driver);
}

TEST(ContractTermsTest, CudaWordings) {
  const std::pair<std::string, std::string> cases[] = {
      {"'12.1'", "12.1"}, {"12.1", "12.1"}, {"CUDA 12.1", "12.1"}, {"CUDA 12", "12"}};
  for (const auto& [yaml, version] : cases) {
    SCOPED_TRACE(yaml);
    ContractTerms t = contract("cuda", yaml);
    ASSERT_TRUE(t.cuda);
    EXPECT_EQ(*t.cuda, version);
    EXPECT_TRUE(t.unparsed.empty());
  }
  expect_unparsed(contract("cuda", "latest"), "cuda", "latest");
}

// --- Rack -----------------------------------------------------------------------------------

TEST(ContractTermsTest, RackWordings) {
  const std::tuple<std::string, double, std::optional<double>> cases[] = {
      {"32 A at 220 V", 32, 220},       {"32A/220V", 32, 220},
      {"32安", 32, std::nullopt},       {"32 安培 220 伏", 32, 220},
      {"单机柜 32A", 32, std::nullopt}, {"8A", 8, std::nullopt},
      {"机柜电力 220V/16A", 16, 220},   {"机柜电流 16A 以上", 16, std::nullopt}};
  for (const auto& [wording, amps, volts] : cases) {
    SCOPED_TRACE(wording);
    ContractTerms t = contract("rack", quoted(wording));
    expect_read(t, "rack", wording);
    ASSERT_TRUE(t.rack);
    EXPECT_EQ(t.rack->current_a, amps);
    EXPECT_EQ(t.rack->voltage_v, volts);
  }
  for (const std::string yaml : {"{current_a: 32, voltage_v: 220}", "{current_a: 32 A, voltage_v: 220 V}"}) {
    ContractTerms t = contract("rack", yaml);
    ASSERT_TRUE(t.rack) << yaml;
    EXPECT_EQ(t.rack->current_a, 32);
    EXPECT_EQ(t.rack->voltage_v, 220);
  }
  EXPECT_EQ(contract("rack", "{current_a: 32, voltage_v: 220}").written.at("rack").text,
            "current_a: 32, voltage_v: 220");
}

TEST(ContractTermsTest, RackPowerAloneOrTwoFeedsStayUnparsed) {
  // 7 kW is no current unless a voltage is guessed; "2 × 16 A" does not say per feed or summed.
  for (const std::string wording : {"7 kW", "单机柜功率 7kW", "2 × 16 A", "high-power rack"}) {
    ContractTerms t = contract("rack", quoted(wording));
    expect_unparsed(t, "rack", wording);
    EXPECT_FALSE(t.rack) << wording;
  }
  // A number too long for a double reads as nothing, not as infinity amperes.
  const std::string huge = "1" + std::string(400, '0') + " A";
  EXPECT_FALSE(contract("rack", quoted(huge)).rack);
  EXPECT_FALSE(contract("internal_network", quoted("99999999999 x 25 GbE")).internal_network->ports);
}

// --- Public bandwidth -----------------------------------------------------------------------

struct BandwidthCase {
  std::string wording;
  std::optional<double> mbps;
  std::optional<Billing> billing;
  std::optional<double> traffic;
};

TEST(ContractTermsTest, PublicBandwidthWordings) {
  const BandwidthCase cases[] = {
      {"100 Mbps fixed + 10 TB/month traffic package", 100, Billing::kFixed, 10},
      {"100M 固定带宽", 100, Billing::kFixed, std::nullopt},
      {"固定带宽 100Mbps + 流量包 10TB", 100, Billing::kFixed, 10},
      {"1 Gbps fixed", 1000, Billing::kFixed, std::nullopt},  // 1 Gbps = 1,000 Mbps
      {"按流量计费", std::nullopt, Billing::kMetered, std::nullopt},
      {"metered", std::nullopt, Billing::kMetered, std::nullopt},
      {"按带宽计费", std::nullopt, Billing::kFixed, std::nullopt},
      {"10TB/月", std::nullopt, std::nullopt, 10},
      {"500 GB/month", std::nullopt, std::nullopt, 0.5},  // decimal: 500 GB = 0.5 TB
      {"独享带宽 100M，按固定带宽计费", 100, Billing::kFixed, std::nullopt},
      {"BGP 100Mbps 独享", 100, std::nullopt, std::nullopt},  // dedicated says nothing of billing
      {"公网按流量计费 0.8元/GB", std::nullopt, Billing::kMetered, std::nullopt},
  };
  for (const BandwidthCase& c : cases) {
    SCOPED_TRACE(c.wording);
    ContractTerms t = contract("public_bandwidth", quoted(c.wording));
    expect_read(t, "public_bandwidth", c.wording);
    ASSERT_TRUE(t.public_bandwidth);
    EXPECT_EQ(t.public_bandwidth->mbps, c.mbps);
    EXPECT_EQ(t.public_bandwidth->billing, c.billing);
    EXPECT_EQ(t.public_bandwidth->traffic_tb_month, c.traffic);
  }
  ContractTerms s = contract("public_bandwidth", "{mbps: 100, billing: fixed, traffic_tb_month: 10}");
  ASSERT_TRUE(s.public_bandwidth);
  EXPECT_EQ(s.public_bandwidth->mbps, 100);
  EXPECT_EQ(s.public_bandwidth->billing, Billing::kFixed);
  EXPECT_EQ(s.public_bandwidth->traffic_tb_month, 10);
  for (const std::string wording : {"95th percentile billing", "按95计费", "as agreed"}) {
    ContractTerms t = contract("public_bandwidth", quoted(wording));
    expect_unparsed(t, "public_bandwidth", wording);
    EXPECT_FALSE(t.public_bandwidth) << wording;
  }
}

// --- Internal network -----------------------------------------------------------------------

struct NetworkCase {
  std::string wording;
  std::optional<NetworkKind> kind;
  double gbps;
  std::optional<int> ports;
};

TEST(ContractTermsTest, InternalNetworkWordings) {
  const NetworkCase cases[] = {
      {"2 × 25 GbE per node", NetworkKind::kEthernet, 25, 2},
      {"2x25G", std::nullopt, 25, 2},  // "25G" alone names no fabric
      {"8 × HDR 200 Gb/s InfiniBand", NetworkKind::kInfiniband, 200, 8},
      {"8 × HDR InfiniBand", NetworkKind::kInfiniband, 200, 8},  // HDR is 200 Gb/s
      {"双口 25G", std::nullopt, 25, 2},
      {"双口万兆", NetworkKind::kEthernet, 10, 2},  // 万兆 = 10 GbE
      {"雙口200Gb/s InfiniBand HDR", NetworkKind::kInfiniband, 200, 2},
      {"8张 200G HDR IB 网卡", NetworkKind::kInfiniband, 200, 8},
      {"RoCE 2×100G", NetworkKind::kEthernet, 100, 2},
  };
  for (const NetworkCase& c : cases) {
    SCOPED_TRACE(c.wording);
    ContractTerms t = contract("internal_network", quoted(c.wording));
    expect_read(t, "internal_network", c.wording);
    ASSERT_TRUE(t.internal_network);
    EXPECT_EQ(t.internal_network->kind, c.kind);
    EXPECT_EQ(t.internal_network->gbps, c.gbps);
    EXPECT_EQ(t.internal_network->ports, c.ports);
  }
  ContractTerms s = contract("internal_network", "{kind: ethernet, gbps: 25, ports: 2}");
  ASSERT_TRUE(s.internal_network);
  EXPECT_EQ(s.internal_network->kind, NetworkKind::kEthernet);
  EXPECT_EQ(s.internal_network->gbps, 25);
  EXPECT_EQ(s.internal_network->ports, 2);
  for (const std::string wording : {"2x25GbE + 8x200G IB", "high-speed network"}) {
    ContractTerms t = contract("internal_network", quoted(wording));
    expect_unparsed(t, "internal_network", wording);
    EXPECT_FALSE(t.internal_network) << wording;
  }
}

// --- Performance ----------------------------------------------------------------------------

TEST(ContractTermsTest, PerformanceWordingsPerGpu) {
  const std::tuple<std::string, std::optional<int>> cases[] = {
      {">= 1,850 images/s per GPU", std::nullopt},
      {"ResNet-50 training, batch 256, >= 1,850 images/s per GPU", 256},
      {"每卡 ≥1850 张/秒", std::nullopt},
      {"单卡 ResNet-50 训练 batch256 不低于 1,850 images/sec", 256},
      {"ResNet-50 训练吞吐 ≥ 1850 images/s/GPU", std::nullopt},
  };
  for (const auto& [wording, batch] : cases) {
    SCOPED_TRACE(wording);
    ContractTerms t = contract("performance", quoted(wording));
    expect_read(t, "performance", wording);
    ASSERT_TRUE(t.performance);
    EXPECT_EQ(t.performance->benchmark, "resnet50-train");
    EXPECT_EQ(t.performance->batch, batch);
    EXPECT_EQ(t.performance->min_images_per_gpu, 1850);
  }
  ContractTerms s = contract("performance", "{benchmark: resnet50-train, batch: 256, min_images_per_gpu: 1850}");
  ASSERT_TRUE(s.performance);
  EXPECT_EQ(s.performance->batch, 256);
  EXPECT_EQ(s.performance->min_images_per_gpu, 1850);
}

TEST(ContractTermsTest, PerformancePerServerIsDividedByTheContractsGpuCount) {
  // 14,800 / 8 GPUs (the contract's gpu term) = 1,850 per GPU.
  for (const std::string wording : {"14,800 images/s per server", "整机 ≥14800 张/秒"}) {
    ContractTerms t = terms_of("contract:\n  gpu: 8 × A100 80G SXM\n  performance: " + quoted(wording) + "\n");
    ASSERT_TRUE(t.performance) << wording;
    EXPECT_EQ(t.performance->min_images_per_gpu, 1850);
    EXPECT_TRUE(t.unparsed.empty());
  }
  // Without a GPU count in the contract the divisor is not said (the quote's `gpus` may span servers).
  ContractTerms alone = contract("performance", quoted("14,800 images/s per server"));
  expect_unparsed(alone, "performance", "14,800 images/s per server");
  EXPECT_FALSE(alone.performance);
}

TEST(ContractTermsTest, PerformanceWordingsThatSayTooLittleStayUnparsed) {
  for (const std::string wording : {"ResNet-50 >= 1850 img/s", "BERT-large >= 1,850 sequences/s per GPU",
                                    "ResNet-50 inference >= 1,850 images/s per GPU", "none"}) {
    ContractTerms t = contract("performance", quoted(wording));
    expect_unparsed(t, "performance", wording);
    EXPECT_FALSE(t.performance) << wording;
  }
}

// --- Reboot SLA and service -----------------------------------------------------------------

TEST(ContractTermsTest, RebootSlaWordingsInMinutes) {
  const std::pair<std::string, double> cases[] = {{quoted("remote power cycle within 15 min, 7×24"), 15},
                                                  {quoted("15分钟内"), 15},
                                                  {quoted("0.5 h"), 30},  // 0.5 × 60
                                                  {"15", 15},
                                                  {"'15'", 15}};
  for (const auto& [yaml, minutes] : cases) {
    ContractTerms t = contract("reboot_sla_min", yaml);
    ASSERT_TRUE(t.reboot_sla_min) << yaml;
    EXPECT_EQ(*t.reboot_sla_min, minutes) << yaml;
    EXPECT_TRUE(t.unparsed.empty()) << yaml;
  }
  expect_unparsed(contract("reboot_sla_min", quoted("as soon as possible")), "reboot_sla_min", "as soon as possible");
}

TEST(ContractTermsTest, ResponseAndMttrInHours) {
  const std::pair<std::string, double> cases[] = {
      {"2", 2}, {quoted("4 h"), 4}, {quoted("4小时"), 4}, {quoted("30 min"), 0.5}, {quoted("≤4小时"), 4}};
  for (const auto& [yaml, hours] : cases) {
    ContractTerms t = service("mttr_h", yaml);
    EXPECT_EQ(t.service.mttr_h, hours) << yaml;
    ContractTerms r = service("response_h", yaml);
    EXPECT_EQ(r.service.response_h, hours) << yaml;
    EXPECT_TRUE(r.unparsed.empty()) << yaml;
  }
  // Never an invented 24: a business day is not a number of hours.
  for (const std::string wording : {"next business day", "次日"}) {
    ContractTerms t = service("mttr_h", quoted(wording));
    expect_unparsed(t, "service.mttr_h", wording);
    EXPECT_FALSE(t.service.mttr_h);
  }
}

TEST(ContractTermsTest, ServiceHoursWordings) {
  const std::pair<std::string, ServiceHours> cases[] = {
      {"7x24", ServiceHours::k7x24}, {"7×24", ServiceHours::k7x24},      {"7*24", ServiceHours::k7x24},
      {"24/7", ServiceHours::k7x24}, {"7天24小时", ServiceHours::k7x24}, {"5x8", ServiceHours::k5x8},
      {"5×8", ServiceHours::k5x8}};
  for (const auto& [wording, hours] : cases) {
    ContractTerms t = service("hours", quoted(wording));
    EXPECT_EQ(t.service.hours, hours) << wording;
    EXPECT_EQ(t.written.at("service.hours").text, wording);
  }
  expect_unparsed(service("hours", quoted("business hours")), "service.hours", "business hours");
}

TEST(ContractTermsTest, PenaltyNoneAmountOrNeither) {
  for (const std::string yaml : {"", "''", "none", "无", "n/a", "'-'", "None"}) {
    ContractTerms t = service("penalty", yaml);
    ASSERT_TRUE(t.service.penalty) << yaml;
    EXPECT_TRUE(t.service.penalty->none) << yaml;
    EXPECT_TRUE(t.has("service.penalty")) << yaml;  // written down, as none: the audit judges it
    EXPECT_EQ(t.written.at("service.penalty").line, 6) << yaml;
    EXPECT_TRUE(t.unparsed.empty());
  }
  for (const std::string wording :
       {"5% of the monthly fee per hour beyond the 4 h repair time", "每超时1小时扣当月费用5%", "¥5,000 per incident",
        "每次赔偿 5000 元", "2万元", "USD 500 per hour late", "1 day's fee credited per hour of downtime",
        "按日租金的2倍赔偿", "可用性低于 99.9% 时，每小时扣减月费 5%"}) {
    ContractTerms t = service("penalty", quoted(wording));
    ASSERT_TRUE(t.service.penalty) << wording;
    EXPECT_FALSE(t.service.penalty->none) << wording;
    EXPECT_TRUE(t.service.penalty->has_amount) << wording;
  }
  for (const std::string wording : {"compensation as agreed", "按合同约定赔偿", "99.9% availability SLA"}) {
    ContractTerms t = service("penalty", quoted(wording));
    ASSERT_TRUE(t.service.penalty) << wording;
    EXPECT_FALSE(t.service.penalty->none) << wording;
    EXPECT_FALSE(t.service.penalty->has_amount) << wording;
  }
}

// --- Review fixes: long terms, phases, feeds, zero penalties, full width, bytes ------------

TEST(ContractTermsTest, ATermOverTheLengthLimitStaysUnparsedAndDoesNotCrash) {
  // 50 kB would overflow the stack inside libstdc++'s recursive std::regex: never read, unparsed.
  const std::string spaces = "1850" + std::string(50000, ' ') + "images/s per GPU";
  ContractTerms t = contract("performance", quoted(spaces));
  expect_unparsed(t, "performance", spaces);
  EXPECT_FALSE(t.performance);
  const std::string digits = std::string(50000, '9') + " A";
  t = contract("rack", quoted(digits));
  expect_unparsed(t, "rack", digits);
  EXPECT_FALSE(t.rack);
  t = contract("reboot_sla_min", std::string(50000, '1'));
  EXPECT_EQ(t.unparsed, std::vector<std::string>{"reboot_sla_min"});
  EXPECT_FALSE(t.reboot_sla_min);
  t = service("penalty", quoted("5% " + std::string(50000, 'x')));
  EXPECT_EQ(t.unparsed, std::vector<std::string>{"service.penalty"});
  EXPECT_FALSE(t.service.penalty);
  // The limit itself is read: "32" + spaces + "A" of exactly kMaxTermBytes (512) bytes is 32 A.
  const std::string at_limit = "32" + std::string(kMaxTermBytes - 3, ' ') + "A";
  ASSERT_EQ(at_limit.size(), 512u);
  ASSERT_TRUE(contract("rack", quoted(at_limit)).rack);
  EXPECT_EQ(contract("rack", quoted(at_limit)).rack->current_a, 32);
  EXPECT_FALSE(contract("rack", quoted(at_limit + " ")).rack);  // 513 bytes
}

TEST(ContractTermsTest, ThreePhaseAndSeveralFeedsStayUnparsed) {
  // Three phases: √3 × 380 × 16 ≈ 10.5 kW, not 16 × 380 = 6,080 W; 380/400/415 V are three-phase
  // line voltages. Several feeds: per feed or summed is not said.
  for (const std::string wording : {"16A/380V three-phase", "16A three phase", "32A 3-phase", "三相 32A", "32A 3φ",
                                    "3Φ 16A 220V", "16A/380V", "16A 400V", "32 A 415 V", "16A x 2路 220V",
                                    "双路16A 220V", "2路16A", "A+B 16A", "16A ×2", "雙路 32A", "dual feed 16A"}) {
    ContractTerms t = contract("rack", quoted(wording));
    expect_unparsed(t, "rack", wording);
    EXPECT_FALSE(t.rack) << wording;
  }
  // A circuit (电路) is one circuit: "路" there counts nothing.
  ContractTerms t = contract("rack", quoted("32A 电路 220V"));
  ASSERT_TRUE(t.rack);
  EXPECT_EQ(t.rack->current_a, 32);
  EXPECT_EQ(t.rack->voltage_v, 220);
}

TEST(ContractTermsTest, ZeroOrExcludedPenaltiesReadAsNone) {
  for (const std::string yaml : {"'0%'", "0元", "'¥0'", "0", "'0.00 元'", "no penalty", "None.", "无违约金",
                                 "不承担违约责任", "免责", "无赔偿", "无。"}) {
    ContractTerms t = service("penalty", yaml);
    ASSERT_TRUE(t.service.penalty) << yaml;
    EXPECT_TRUE(t.service.penalty->none) << yaml;
    EXPECT_FALSE(t.service.penalty->has_amount) << yaml;
  }
  // An exclusion beside an amount is a penalty; "no cap on compensation" does not exclude one.
  ContractTerms t = service("penalty", quoted("不可抗力免责，其余每超时1小时扣月费5%"));
  EXPECT_FALSE(t.service.penalty->none);
  EXPECT_TRUE(t.service.penalty->has_amount);
  t = service("penalty", quoted("无赔偿上限"));
  EXPECT_FALSE(t.service.penalty->none);
  EXPECT_FALSE(t.service.penalty->has_amount);
}

TEST(ContractTermsTest, FullWidthFormsReadAsAscii) {
  ContractTerms t = contract("rack", quoted("３２Ａ　２２０Ｖ"));  // full-width digits, letters, space
  ASSERT_TRUE(t.rack);
  EXPECT_EQ(t.rack->current_a, 32);
  EXPECT_EQ(t.rack->voltage_v, 220);
  t = contract("internal_network", quoted("２ｘ２５ＧｂＥ"));
  ASSERT_TRUE(t.internal_network);
  EXPECT_EQ(t.internal_network->kind, NetworkKind::kEthernet);
  EXPECT_EQ(t.internal_network->gbps, 25);
  EXPECT_EQ(t.internal_network->ports, 2);
  t = contract("public_bandwidth", quoted("１００Ｍｂｐｓ（固定）"));
  ASSERT_TRUE(t.public_bandwidth);
  EXPECT_EQ(t.public_bandwidth->mbps, 100);
  EXPECT_EQ(t.public_bandwidth->billing, Billing::kFixed);
}

TEST(ContractTermsTest, BytesPerSecondAreEightBitsEach) {
  // 12.5 MB/s × 8 = 100 Mbit/s; 25 GB/s × 8 = 200 Gbit/s; a lower-case b is bits.
  const std::pair<std::string, double> public_cases[] = {
      {"12.5 MB/s fixed", 100}, {"12.5 MBps", 100}, {"12.5 Mb/s", 12.5}, {"100 Mbps", 100}, {"1 GB/s", 8000}};
  for (const auto& [wording, mbps] : public_cases) {
    ContractTerms t = contract("public_bandwidth", quoted(wording));
    ASSERT_TRUE(t.public_bandwidth) << wording;
    EXPECT_EQ(t.public_bandwidth->mbps, mbps) << wording;
  }
  const std::pair<std::string, double> internal_cases[] = {
      {"25 GB/s InfiniBand", 200}, {"25GBps IB", 200}, {"200 Gb/s InfiniBand", 200}};
  for (const auto& [wording, gbps] : internal_cases) {
    ContractTerms t = contract("internal_network", quoted(wording));
    ASSERT_TRUE(t.internal_network) << wording;
    EXPECT_EQ(t.internal_network->gbps, gbps) << wording;
  }
}

// --- Old keys, the shipped example, errors --------------------------------------------------

TEST(ContractTermsTest, OldKeysReadAsTheNewFields) {
  ContractTerms t = terms_of(
      "service: {response_time_h: 2}\n"
      "contract:\n  gpu_model: 8 × A100 80G SXM\n  driver_version: R535\n  cuda_version: '12.1'\n"
      "  rack_current: 32 A\n  internal_bandwidth: 2x25G\n  performance_clause: '>= 1,850 images/s per GPU'\n"
      "  reboot_sla: 15 min\n");
  EXPECT_EQ(t.service.response_h, 2);
  EXPECT_EQ(t.gpu->model, "a100-80gb-sxm");
  EXPECT_EQ(t.driver, "535");
  EXPECT_EQ(t.cuda, "12.1");
  EXPECT_EQ(t.rack->current_a, 32);
  EXPECT_EQ(t.internal_network->gbps, 25);
  EXPECT_EQ(t.performance->min_images_per_gpu, 1850);
  EXPECT_EQ(t.reboot_sla_min, 15);
  for (const std::string field :
       {"service.response_h", "gpu", "driver", "cuda", "rack", "internal_network", "performance", "reboot_sla_min"})
    EXPECT_TRUE(t.has(field)) << field;
  EXPECT_EQ(t.written.at("rack").line, 10);
  // A term in block form is written on its key's line.
  ContractTerms block = terms_of("contract:\n  rack:\n    current_a: 32\n    voltage_v: 220\n");
  EXPECT_EQ(block.written.at("rack").line, 6);
  EXPECT_EQ(block.written.at("rack").text, "current_a: 32, voltage_v: 220");
}

TEST(ContractTermsTest, ATermGivenUnderBothNamesIsAnErrorNamingTheLine) {
  Error e = error_of("contract:\n  rack: 32 A\n  rack_current: 32 A\n");
  EXPECT_EQ(e.file, "q.yaml");
  EXPECT_EQ(e.line, 7);
  EXPECT_EQ(e.field, "contract.rack_current");
  EXPECT_EQ(e.message.key, "error.contract.duplicate_term");
  ASSERT_TRUE(gpuplan::testing::fact_in(e.message, "line"));
  EXPECT_EQ(*gpuplan::testing::fact_in(e.message, "line"), "6");
  Error s = error_of("service:\n  response_time_h: 2\n  response_h: 2\n");
  EXPECT_EQ(s.line, 7);
  EXPECT_EQ(s.field, "service.response_h");
}

TEST(ContractTermsTest, WrongStructuredValuesAreErrorsNamingFileLineAndField) {
  struct Case {
    std::string yaml;
    std::string field;
    std::string key;
  };
  const Case cases[] = {
      {"contract:\n  rack: {current_a: -3}\n", "contract.rack.current_a", "error.yaml.negative"},
      {"contract:\n  rack: {current_a: 0}\n", "contract.rack.current_a", "error.contract.not_positive"},
      {"contract:\n  rack: {voltage_v: 220}\n", "contract.rack.current_a", "error.contract.missing_key"},
      {"contract:\n  rack: {current_a: 32, volts: 220}\n", "contract.rack.volts", "error.yaml.unknown_field"},
      {"contract:\n  rack: [32, 220]\n", "contract.rack", "error.contract.not_term"},
      {"contract:\n  public_bandwidth: {billing: monthly}\n", "contract.public_bandwidth.billing", "error.not_one_of"},
      {"contract:\n  public_bandwidth: {}\n", "contract.public_bandwidth", "error.contract.empty_term"},
      {"contract:\n  internal_network: {kind: ethernet}\n", "contract.internal_network.gbps",
       "error.contract.missing_key"},
      {"contract:\n  internal_network: {kind: roce, gbps: 25}\n", "contract.internal_network.kind", "error.not_one_of"},
      {"contract:\n  performance: {benchmark: bert, min_images_per_gpu: 1850}\n", "contract.performance.benchmark",
       "error.not_one_of"},
      {"contract:\n  performance: {min_images_per_gpu: fast}\n", "contract.performance.min_images_per_gpu",
       "error.yaml.not_a_number"},
      {"contract:\n  gpu: {model: a100-80gb-sxn, count: 8}\n", "contract.gpu.model", "error.unknown_id"},
      {"contract:\n  gpu: {model: a100-80gb-sxm, count: 0}\n", "contract.gpu.count", "error.yaml.below_min"},
      {"contract:\n  driver: {version: 535}\n", "contract.driver", "error.yaml.not_text"},
      {"contract:\n  reboot_sla_min: -5\n", "contract.reboot_sla_min", "error.yaml.negative"},
      {"service:\n  mttr_h: -4\n", "service.mttr_h", "error.yaml.negative"},
      {"service:\n  penalty: [5%]\n", "service.penalty", "error.yaml.not_text"},
  };
  for (const Case& c : cases) {
    Error e = error_of(c.yaml);
    EXPECT_EQ(e.file, "q.yaml") << c.yaml;
    EXPECT_EQ(e.line, 6) << c.yaml;
    EXPECT_EQ(e.field, c.field) << c.yaml;
    EXPECT_EQ(e.message.key, c.key) << c.yaml;
  }
}

TEST(ContractTermsTest, CleanExampleReadsToTypedTerms) {
  auto q = read_vendor_quote(source_path("examples/vendor-quote-clean.yaml"), default_catalog());
  ASSERT_TRUE(q) << q.error().str();
  const ContractTerms& t = q->terms;
  EXPECT_TRUE(t.unparsed.empty()) << t.unparsed[0];
  EXPECT_EQ(t.gpu->model, "a100-80gb-sxm");
  EXPECT_EQ(t.gpu->count, 8);
  EXPECT_EQ(t.driver, "535.104.05");
  EXPECT_EQ(t.cuda, "12.1");
  EXPECT_EQ(t.rack->current_a, 40);  // 40 A: HGX A100 peaks at 6,500 W (power_test.cpp)
  EXPECT_EQ(t.rack->voltage_v, 220);
  EXPECT_EQ(t.public_bandwidth->mbps, 100);
  EXPECT_EQ(t.public_bandwidth->billing, Billing::kFixed);
  EXPECT_EQ(t.public_bandwidth->traffic_tb_month, 10);
  EXPECT_EQ(t.internal_network->kind, NetworkKind::kEthernet);
  EXPECT_EQ(t.internal_network->gbps, 25);
  EXPECT_EQ(t.internal_network->ports, 2);
  EXPECT_EQ(t.performance->batch, 256);
  EXPECT_EQ(t.performance->min_images_per_gpu, 1850);
  EXPECT_EQ(t.reboot_sla_min, 15);
  EXPECT_EQ(t.service.response_h, 2);
  EXPECT_EQ(t.service.mttr_h, 4);
  EXPECT_EQ(t.service.hours, ServiceHours::k7x24);
  EXPECT_TRUE(t.service.penalty->has_amount);
  EXPECT_EQ(t.written.size(), 14u);  // 9 contract terms + cooling + response, MTTR, penalty, hours
  EXPECT_EQ(t.cooling, "rack airflow for 7 kW GPU servers (hot/cold aisle); N+1 CRAC with emergency cooling");
}

}  // namespace
}  // namespace gpuplan::plan

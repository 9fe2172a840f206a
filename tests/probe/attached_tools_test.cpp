// The readers of attached tool outputs (probe/attached_tools.h) on real public output of each tool
// (tests/fixtures/tools/README.md names each source) and on our edge cases: an empty file, a
// truncated one, several outputs pasted into one file. Expected values are read off the fixture
// files by eye, not computed by the code under test.
#include "probe/attached_tools.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "test_support.h"

namespace gpuplan::probe {
namespace {

using Forms = std::vector<std::string>;

std::string tool_output(const std::string& name) {
  return gpuplan::testing::read_file(gpuplan::testing::source_path("tests/fixtures/tools/" + name));
}

TEST(AttachedToolsTest, IbstatusEdrPortsReadAsIbstatWords) {
  const IbEvidence ev = read_ib_evidence(tool_output("ibstatus-edr-4port.txt"));
  EXPECT_EQ(ev.forms, Forms{"ibstatus"});
  EXPECT_TRUE(ev.incomplete.empty());
  ASSERT_EQ(ev.ports.size(), 4u);
  const char* cas[] = {"mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3"};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(ev.ports[i].ca, cas[i]);
    EXPECT_EQ(ev.ports[i].port, 1);
    EXPECT_EQ(ev.ports[i].state, "Active");  // "4: ACTIVE"
    EXPECT_EQ(ev.ports[i].physical_state, "LinkUp");
    EXPECT_EQ(ev.ports[i].rate_gbps, 100);  // "100 Gb/sec (4X EDR)"
    EXPECT_EQ(ev.ports[i].sm_lid, 1);       // "0x1"
    EXPECT_EQ(ev.ports[i].link_layer, "InfiniBand");
  }
}

TEST(AttachedToolsTest, IbstatusDownPortKeepsItsState) {
  const IbEvidence ev = read_ib_evidence(tool_output("ibstatus-hdr-one-down.txt"));
  ASSERT_EQ(ev.ports.size(), 2u);
  EXPECT_EQ(ev.ports[0].sm_lid, 1);
  EXPECT_EQ(ev.ports[0].rate_gbps, 200);
  EXPECT_EQ(ev.ports[1].ca, "mlx5_1");
  EXPECT_EQ(ev.ports[1].state, "Down");  // "1: DOWN"
  EXPECT_EQ(ev.ports[1].physical_state, "Disabled");
  EXPECT_EQ(ev.ports[1].sm_lid, 0);
}

TEST(AttachedToolsTest, IbstatAsAttachedAndCutShort) {
  const IbEvidence whole = read_ib_evidence(tool_output("ibstat-hdr.txt"));
  EXPECT_EQ(whole.forms, Forms{"ibstat"});
  ASSERT_FALSE(whole.ports.empty());
  EXPECT_EQ(whole.ports[0].ca, "mlx5_0");
  EXPECT_EQ(whole.ports[0].rate_gbps, 200);
  // The port block stops after "State: Active": no physical state, so nothing from it is kept.
  const IbEvidence cut = read_ib_evidence(tool_output("ibstat-truncated.txt"));
  EXPECT_TRUE(cut.forms.empty());
  EXPECT_EQ(cut.incomplete, Forms{"ibstat"});
  EXPECT_TRUE(cut.ports.empty());
}

TEST(AttachedToolsTest, SminfoMasterAndFailedQuery) {
  const IbEvidence ev = read_ib_evidence(tool_output("sminfo-master.txt"));
  EXPECT_EQ(ev.forms, Forms{"sminfo"});
  ASSERT_TRUE(ev.sminfo);
  EXPECT_TRUE(ev.sminfo->answered);
  EXPECT_EQ(ev.sminfo->lid, 37);
  EXPECT_EQ(ev.sminfo->guid, "0x7cfe90030016aef1");
  EXPECT_EQ(ev.sminfo->priority, 14);
  EXPECT_EQ(ev.sminfo->state, "SMINFO_MASTER");
  const IbEvidence failed = read_ib_evidence(tool_output("sminfo-query-failed.txt"));
  ASSERT_TRUE(failed.sminfo);
  EXPECT_FALSE(failed.sminfo->answered);
  EXPECT_EQ(failed.sminfo->line, "sminfo: iberror: query failed");
}

TEST(AttachedToolsTest, IbdiagnetSummaryWithAdaptiveRouting) {
  const IbEvidence ev = read_ib_evidence(tool_output("ibdiagnet-ar-summary.txt"));
  EXPECT_EQ(ev.forms, Forms{"ibdiagnet"});
  ASSERT_TRUE(ev.ibdiagnet);
  EXPECT_EQ(ev.ibdiagnet->ar_switches, 3);
  EXPECT_EQ(ev.ibdiagnet->switches, 3);
  EXPECT_EQ(ev.ibdiagnet->channel_adapters, 9);
  EXPECT_EQ(ev.ibdiagnet->master_sm, "");
  ASSERT_EQ(ev.ibdiagnet->stages.size(), 3u);
  EXPECT_EQ(ev.ibdiagnet->stages[0].name, "Discovery");
  EXPECT_EQ(ev.ibdiagnet->stages[0].warnings, 3);
  EXPECT_EQ(ev.ibdiagnet->stages[0].errors, 0);
  EXPECT_EQ(ev.ibdiagnet->stages[2].name, "Routing");
}

TEST(AttachedToolsTest, PastedOutputsAreEachRead) {
  // sminfo, then ibdiagnet's summary with a Master SM line and a stage whose name holds spaces.
  const std::string text = tool_output("sminfo-master.txt") +
                           "Master SM: Port=0 LID=1 GUID=0x0abcdefghijkl devid=123456 Priority:14 Node_Type=SW\n"
                           "-I- Stage                     Warnings   Errors     Comment\n"
                           "-I- Speed / Width checks      0          2\n" +
                           tool_output("ibstatus-hdr-one-down.txt");
  const IbEvidence ev = read_ib_evidence(text);
  EXPECT_EQ(ev.forms, (Forms{"ibstatus", "sminfo", "ibdiagnet"}));
  ASSERT_TRUE(ev.ibdiagnet);
  EXPECT_EQ(ev.ibdiagnet->master_sm, "Port=0 LID=1 GUID=0x0abcdefghijkl devid=123456 Priority:14 Node_Type=SW");
  ASSERT_EQ(ev.ibdiagnet->stages.size(), 1u);
  EXPECT_EQ(ev.ibdiagnet->stages[0].name, "Speed / Width checks");
  EXPECT_EQ(ev.ibdiagnet->stages[0].errors, 2);
  EXPECT_FALSE(ev.ibdiagnet->ar_switches);
  EXPECT_EQ(ev.ports.size(), 2u);
}

TEST(AttachedToolsTest, NothingReadFromEmptyOrForeignText) {
  for (const std::string& text :
       {std::string(), tool_output("empty.txt"), std::string("SM: master lid 1, adaptive routing enabled\n"),
        tool_output("ipmitool-mc-info-dell.txt")}) {
    const IbEvidence ev = read_ib_evidence(text);
    EXPECT_TRUE(ev.forms.empty()) << text;
    EXPECT_TRUE(ev.incomplete.empty()) << text;
    EXPECT_TRUE(ev.ports.empty()) << text;
  }
  const FirmwareEvidence fw = read_firmware_evidence(tool_output("ibstatus-edr-4port.txt"));
  EXPECT_TRUE(fw.forms.empty());
}

TEST(AttachedToolsTest, IpmitoolMcInfoBmcRevision) {
  const FirmwareEvidence ev = read_firmware_evidence(tool_output("ipmitool-mc-info-dell.txt"));
  EXPECT_EQ(ev.forms, Forms{"ipmitool mc info"});
  ASSERT_TRUE(ev.bmc);
  EXPECT_EQ(ev.bmc->firmware, "1.54");
  EXPECT_EQ(ev.bmc->manufacturer, "DELL Inc");
  EXPECT_EQ(ev.bmc->product, "Unknown (0x100)");
  EXPECT_FALSE(ev.bios);
}

TEST(AttachedToolsTest, DmidecodeBiosRecordNotItsFirmwareRevision) {
  const FirmwareEvidence ev = read_firmware_evidence(tool_output("dmidecode-bios-coreboot.txt"));
  // "Firmware Revision: 0.0" is indented under BIOS Information: the embedded controller, not a BMC.
  EXPECT_EQ(ev.forms, Forms{"dmidecode -t bios"});
  EXPECT_FALSE(ev.bmc);
  ASSERT_TRUE(ev.bios);
  EXPECT_EQ(ev.bios->vendor, "coreboot");
  EXPECT_EQ(ev.bios->version, "CBET4000 4.21-237-ga4c74578ecd4-dirty");
  EXPECT_EQ(ev.bios->release_date, "09/11/2023");
}

TEST(AttachedToolsTest, NvidiaSmiQueryVbiosPerGpu) {
  const FirmwareEvidence ev = read_firmware_evidence(tool_output("nvidia-smi-q-a100-2gpu.txt"));
  EXPECT_EQ(ev.forms, Forms{"nvidia-smi -q"});
  ASSERT_EQ(ev.gpus.size(), 2u);
  EXPECT_EQ(ev.gpus[0].bus_id, "00000000:2F:00.0");
  EXPECT_EQ(ev.gpus[0].name, "NVIDIA A100-SXM4-40GB");
  EXPECT_EQ(ev.gpus[0].serial, "1323121035405");
  EXPECT_EQ(ev.gpus[0].vbios, "92.00.36.00.04");
  EXPECT_EQ(ev.gpus[1].bus_id, "00000000:35:00.0");
  EXPECT_EQ(ev.gpus[1].vbios, "92.00.36.00.04");
  const FirmwareEvidence mixed = read_firmware_evidence(tool_output("nvidia-smi-q-a100-mixed-vbios.txt"));
  ASSERT_EQ(mixed.gpus.size(), 2u);
  EXPECT_EQ(mixed.gpus[1].vbios, "92.00.45.00.03");
}

TEST(AttachedToolsTest, NvidiaSmiCutBeforeAVbiosKeepsNoGpu) {
  const FirmwareEvidence ev = read_firmware_evidence(tool_output("nvidia-smi-q-truncated.txt"));
  EXPECT_TRUE(ev.forms.empty());
  EXPECT_EQ(ev.incomplete, Forms{"nvidia-smi -q"});
  EXPECT_TRUE(ev.gpus.empty());
}

TEST(AttachedToolsTest, GreppedVbiosLinesAndAllThreeToolsInOneFile) {
  // `nvidia-smi -q | grep VBIOS` leaves no GPU lines: versions without bus ids.
  const FirmwareEvidence grep = read_firmware_evidence(
      "    VBIOS Version                         : 92.00.45.00.05\n"
      "    VBIOS Version                         : 92.00.45.00.05\n");
  ASSERT_EQ(grep.gpus.size(), 2u);
  EXPECT_EQ(grep.gpus[0].bus_id, "");
  EXPECT_EQ(grep.gpus[1].vbios, "92.00.45.00.05");
  const FirmwareEvidence all =
      read_firmware_evidence(tool_output("ipmitool-mc-info-dell.txt") + tool_output("dmidecode-bios-coreboot.txt") +
                             tool_output("nvidia-smi-q-a100-2gpu.txt"));
  EXPECT_EQ(all.forms, (Forms{"ipmitool mc info", "dmidecode -t bios", "nvidia-smi -q"}));
  EXPECT_EQ(all.bmc->firmware, "1.54");
  EXPECT_EQ(all.bios->version, "CBET4000 4.21-237-ga4c74578ecd4-dirty");
  EXPECT_EQ(all.gpus.size(), 2u);
}

}  // namespace
}  // namespace gpuplan::probe

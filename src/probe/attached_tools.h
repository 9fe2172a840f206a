// Readers for the tool outputs a buyer attaches to acceptance (--attach CHECK=FILE) because the
// host cannot show them: the InfiniBand fabric (`ibstat`, `ibstatus`, `sminfo`, the summary of
// `ibdiagnet`) and the firmware outside the GPU driver's view (`ipmitool mc info`,
// `dmidecode -t bios`, `nvidia-smi -q`). An attached file is often several outputs pasted together,
// so each reader looks for its own tool's lines anywhere in the text.
//
// A caller may rely on: `forms` names every tool output that was read completely, in the order of
// kForms; a tool whose lines are there but cut short (a port block without its state, a GPU block
// without its VBIOS line) is not in `forms` and is named in `incomplete` instead, and nothing it
// showed is kept, so a truncated file can never pass for a healthy one. Values are the tool's own
// words ("Active", "LinkUp", "92.00.45.00.03"); ibstatus states ("4: ACTIVE") read as ibstat's
// ("Active").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "probe/inventory.h"
#include "probe/tools.h"

namespace gpuplan::probe {

// The tool outputs read, by the names messages use.
inline constexpr const char* kIbForms[] = {"ibstat", "ibstatus", "sminfo", "ibdiagnet"};
inline constexpr const char* kFirmwareForms[] = {"ipmitool mc info", "dmidecode -t bios", "nvidia-smi -q"};

// `sminfo`: the subnet manager the local port reaches. "sminfo: iberror: … query failed" is read
// as no subnet manager answering.
struct SmInfo {
  bool answered = false;
  int lid = 0;
  std::string guid;  // "0x7cfe90030016aef1"
  int priority = 0;
  std::string state;  // "SMINFO_MASTER"
  std::string line;   // the line as printed
};

// The summary `ibdiagnet` prints at the end of a run.
struct IbdiagnetSummary {
  std::string master_sm;                // the "Master SM:" line, when printed
  std::optional<int> ar_switches;       // "Adaptive Routing is enabled on N switches"
  std::optional<int> switches;          // Fabric Summary: "IB Switches : N"
  std::optional<int> channel_adapters;  // "IB Channel Adapters : N"
  struct Stage {
    std::string name;  // "Discovery"
    int warnings = 0;
    int errors = 0;
  };
  std::vector<Stage> stages;  // the "-I- Stage Warnings Errors" table
};

struct IbEvidence {
  std::vector<std::string> forms;       // read completely: "ibstat", "sminfo", …
  std::vector<std::string> incomplete;  // found but cut short
  std::vector<IbstatPort> ports;        // from ibstat and ibstatus
  std::optional<SmInfo> sminfo;
  std::optional<IbdiagnetSummary> ibdiagnet;
};
IbEvidence read_ib_evidence(std::string_view text);

// `ipmitool mc info`: the BMC. A grep of its "Firmware Revision" line is enough.
struct BmcInfo {
  std::string firmware;      // "3.19"
  std::string manufacturer;  // "Super Micro Computer Inc.", when printed
  std::string product;       // "X10SRi", when printed
};

// `dmidecode -t bios`: the "BIOS Information" record.
struct BiosInfo {
  std::string vendor;
  std::string version;       // "CBET4000 4.21-237-ga4c74578ecd4-dirty"
  std::string release_date;  // "09/11/2023", as printed
};

// `nvidia-smi -q`: one GPU's VBIOS ("VBIOS Version : 92.00.45.00.03"). A grep of the VBIOS lines
// alone leaves bus id and name empty.
struct GpuVbios {
  std::string bus_id;  // "00000000:2F:00.0"
  std::string name;    // "NVIDIA A100-SXM4-40GB"
  std::string serial;
  std::string vbios;
};

struct FirmwareEvidence {
  std::vector<std::string> forms;
  std::vector<std::string> incomplete;
  std::optional<BmcInfo> bmc;
  std::optional<BiosInfo> bios;
  std::vector<GpuVbios> gpus;
};
FirmwareEvidence read_firmware_evidence(std::string_view text);

// What `nvidia-smi -q` (or `-q -d ECC,PAGE_RETIREMENT,ROW_REMAPPER`) says of one GPU's memory
// health: its "ECC Errors" (SRAM and DRAM counts added, volatile and aggregate apart), "Retired
// Pages" and "Remapped Rows" sections. A value nvidia-smi prints as "N/A", or a section it does
// not print, stays nullopt.
struct GpuMemoryHealth {
  std::string bus_id;  // "00000000:10:1C.0", from the block's "GPU ..." line
  std::optional<uint64_t> volatile_uncorrected, aggregate_uncorrected, volatile_corrected, aggregate_corrected;
  std::optional<uint64_t> retired_sbe, retired_dbe;  // "Single Bit ECC", "Double Bit ECC"
  std::optional<bool> retire_pending;               // "Pending Page Blacklist" (older: "Pending")
  std::optional<uint64_t> rows_correctable, rows_uncorrectable;
  std::optional<bool> remap_pending, remap_failed;  // "Pending", "Remapping Failure Occurred"
};
// The GPU blocks of `nvidia-smi -q` output that hold any of those sections; none for other text.
std::vector<GpuMemoryHealth> read_memory_health(std::string_view text);

// `dmidecode -t memory` (or `-t 17`): the populated "Memory Device" records, in the order printed.
// Size "64 GB" (GiB as the firmware counts them), "65536 MB" or "1 TB"; "No Module Installed"
// is an empty slot and left out, as are firmware chips the table also lists (Type Flash or ROM).
// Type "DDR4"; speed the module's rated "Speed" ("3200 MT/s", older dmidecode "3200 MHz"), not
// the "Configured Memory Speed" the board runs it at; locator the "Locator" ("P1-DIMMA1");
// "Unknown", "Not Specified" and "NO DIMM" read as "". An Error (with its line) when the text
// holds no Memory Device record, or a record has no Size line or a size that does not parse, so
// a cut or foreign paste never passes for a server with fewer DIMMs.
Result<std::vector<Dimm>> parse_dmidecode_memory(std::string_view text);

}  // namespace gpuplan::probe

// What every acceptance check shares (detail of accept/, not for other modules): the way a check
// words numbers and times in its phrases, marks itself needs-evidence, caps long evidence, names
// the kernel log and a GPU, and the GPUs the PCI bus shows. The checks' own files use these so
// that one kind of fact reads the same in every check.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "accept/accept.h"

namespace gpuplan::accept::detail {

using catalog::Catalog;
using catalog::Entry;
using probe::PciDevice;
using probe::PciKind;

// Numbers as the report writes them ("1,875", "12.5"), a share as a percent ("2.5%"), a sample's
// time as "2024-05-06 10:00:00".
std::string num(double v, int decimals = 0);
std::string count(int64_t v);
std::string percent(double share);
std::string clock_time(int64_t ms);

Phrase phrase(const char* key);

// Appends the first 20 of `lines` to `evidence`, then "… N more" for the rest.
void add_capped(std::vector<Phrase>& evidence, const std::vector<Phrase>& lines);

// The check cannot run without `what`: needs-evidence, and the note says what would settle it.
void needs(Finding& c, Phrase what);

// The kernel log as its source names it (a file, /dev/kmsg, dmesg); the CLI always sets it.
std::string log_name(const AcceptInputs& in);

// Whether the kernel log can be trusted to show every event: a log in no form gpuplan reads had
// none of its events read (needs-evidence), one with more malformed lines than
// accept.kernel_log.max_malformed_share may hide events in them (warn). Raises `c` and notes why.
void judge_kernel_log(const AcceptInputs& in, const Catalog& cat, Finding& c);

// A raw input line quoted as it is, with its file:line ("accept.ev.line").
Phrase quoted_line(const std::string& file, int64_t line, const std::string& text);

// The GPUs on the PCI bus; none when the host facts were not read.
std::vector<const PciDevice*> pci_gpus(const AcceptInputs& in);

// "GPU 3 (0000:05:00.0)": how NVML facts name a GPU.
std::string nvml_gpu(const nvml::GpuFacts& g);

// A phrase `key` quoting the contract's term `field` as written, with its file:line (facts
// "text", "where").
Phrase contract_term_note(const char* key, const plan::VendorQuote& contract, const std::string& field);

// The file name of a path (after its last '/' or '\'): the name a checksum list and a firmware
// image are matched by.
std::string base_name(std::string_view path);

}  // namespace gpuplan::accept::detail

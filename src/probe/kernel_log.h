// Kernel log: the events acceptance and diagnosis care about, from every form an operator keeps a
// kernel log in. The form is found line by line, so a file may be a concatenation of several:
//   kmsg               raw /dev/kmsg records "4,1234,5678901,-;message" and their " KEY=value"
//                      dictionary lines
//   dmesg              "[   12.345678] message" (also `dmesg -r`'s "<4>[   12.345678] message", and
//                      `dmesg -H`'s "[May 6 10:00] message" / "[  +0.000844] message", which carry
//                      no time since boot)
//   dmesg-ctime        `dmesg -T` / `--ctime`: "[Mon May  6 10:00:01 2024] message"
//   dmesg-iso          `dmesg --time-format=iso`: "2024-05-06T10:00:01,123456+00:00 message"
//   dmesg-notime       `dmesg -t`: the bare message (see "Bare messages" below)
//   syslog             RFC 3164 files (/var/log/kern.log, /var/log/messages) and `journalctl -k`
//                      in `short` and `short-precise`: "May  6 13:02:14[.548779] host kernel: msg",
//                      with or without rsyslog's "[6781741.548779] " uptime after "kernel: "
//   syslog-iso         `journalctl -o short-iso` and rsyslog's high-precision files:
//                      "2024-05-06T13:02:14.548779+08:00 host kernel: msg"
//   rfc5424            "<4>1 2024-05-06T13:02:14.123456+00:00 host kernel - - - msg"
//   journal-monotonic  `journalctl -o short-monotonic`: "[ 6781741.548779] host kernel: msg"
//   journal-json       `journalctl -o json`: one object a line; MESSAGE a string or a byte array
// Journal headers ("-- Journal begins at ...", "-- Logs begin at ...", "-- Boot 0f3c... --",
// "-- No entries --", "-- Reboot --") and the lines of other programs in syslog and journal forms
// (a tag other than "kernel") are ignored: they are neither kernel messages nor malformed.
//
// Bare messages: a line in none of the stamped forms is a `dmesg -t` message only in a log none of
// whose lines has a time prefix (in a stamped log it is malformed: a cut or garbled record). Such a
// log is taken as a kernel log only when it shows it is one: one of its lines is a kernel event
// (Xid, SXid, AER, IOMMU) or the kernel's boot banner ("Linux version ", "Command line: ",
// "Kernel command line: "). Otherwise every line is malformed and the log is in no known form, so a
// random text file never reads as "a kernel log without Xid".
//
// Multi-line NVRM records: the driver prints some messages over several lines, and dmesg and the
// journal indent the lines after the first without a stamp ("               NVRM: (PCI ID: 10de:26b5)
// installed in this system has"). An indented "NVRM: " line after an NVRM message is that
// record's continuation, in a stamped log too: part of the record, not malformed.
//
// Malformed: a line with control characters (binary junk), a last line without its newline (both
// dmesg and /dev/kmsg end every record with one: a cut-off line may carry an incomplete Xid number
// or address), a JSON line that does not parse, a kmsg dictionary line with no record before it,
// and a line in no form in a stamped log. Blank lines are ignored. A log with no kernel message at
// all (empty, only headers, only other programs' lines) is in no known form.
//
// A caller may rely on: every line is an event, ignored, or counted malformed with its line
// number; nothing crashes on any bytes. Events keep the line number, the line's message, and
// (parse_kernel_logs) the name of the log they came from.
//
// One PCIe AER error is one event: the "AER: ... error received" header (newer kernels: "AER:
// ... error message received from"), the "PCIe Bus Error:" line and the indented status lines
// that follow it for the same device are folded into the first of them (their line numbers in
// detail_lines).
//
// Several logs (parse_kernel_logs): the same record kept by two of them (/dev/kmsg and the journal,
// dmesg and kern.log) is counted once, in the first log that has it. Two events are the same record
// when they come from different logs, are of the same kind, name the same device, have the same
// message text and either were stamped at the same microsecond since boot (kmsg, dmesg, rsyslog's
// "[uptime]", the journal's _SOURCE_MONOTONIC_TIMESTAMP) or carry the same wall-clock stamp as
// written (kern.log and /var/log/messages of one host). Events without any stamp (dmesg -t) are never merged: nothing
// tells two equal messages apart from one message kept twice.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

namespace gpuplan::probe {

enum class KernelLogFormat {
  kKmsg,
  kDmesg,
  kDmesgCtime,
  kDmesgIso,
  kDmesgNoTime,
  kSyslog,
  kSyslogIso,
  kRfc5424,
  kJournalMonotonic,
  kJournalJson,
  kUnknown,
};
// "kmsg", "dmesg", "dmesg-ctime", "dmesg-iso", "dmesg-notime", "syslog", "syslog-iso", "rfc5424",
// "journal-monotonic", "journal-json", "unknown".
const char* kernel_log_format_name(KernelLogFormat f);

enum class KernelEventKind {
  kAer,   // "pcieport 0000:00:01.0: AER: Corrected error received: 0000:17:00.0" and its detail lines, "PCIe Bus Error"
  kXid,   // "NVRM: Xid (PCI:0000:17:00): 79, pid=..., GPU has fallen off the bus."
  kSxid,  // "nvidia-nvswitch0: SXid (PCI:0000:c1:00.0): 12028, ..."
  // Only messages the kernel prints once an IOMMU is really on: "DMAR: IOMMU enabled",
  // "DMAR: Intel(R) Virtualization Technology for Directed I/O", "AMD-Vi: Interrupt remapping
  // enabled". Not "iommu: Default domain type: ..." (the IOMMU core prints it on every kernel
  // built with IOMMU support, IOMMU or not) nor "AMD IOMMUv2 loaded and initialized" (the
  // optional iommu_v2 module about itself); see kernel_log.cpp.
  kIommuEnabled,
  // The driver lost the GPU without an Xid line: "NVRM: GPU 0000:06:00.0: GPU has fallen off the
  // bus.", the older "NVRM: GPU at 0000:01:00.0 has fallen off the bus.", and the three-line
  // probe-time record "NVRM: The NVIDIA GPU 0000:b3:00.0" / "(PCI ID: ...) installed in this
  // system has" / "fallen off the bus and is not responding to commands." (open-gpu-kernel-modules
  // osinit.c and osapi.c).
  kGpuLost,
  // APEI GHES (firmware-first) hardware error records: "{1}[Hardware Error]: Hardware error from
  // APEI Generic Hardware Error Source: 0" and the "{1}[Hardware Error]: ..." lines of the same
  // record number after it, folded into one event: `severity` "fatal", "recoverable", "corrected"
  // or "info" (its "event severity:"), `section` "PCIe error" or "memory error" (its first
  // "section_type:"), `device` the PCIe section's "device_id: 0000:17:00.0".
  kGhes,
  // EDAC memory-controller reports: "EDAC MC0: 1 UE memory read error on ..." (`severity` "UE",
  // uncorrected) and "EDAC MC1: 1 CE memory scrubbing error on ..." ("CE", corrected), `count` the
  // number the line gives.
  kEdac,
};

struct KernelEvent {
  KernelEventKind kind;
  int line = 0;                     // 1-based in its log
  std::string source;               // the log it came from (parse_kernel_logs); "" from parse_kernel_log
  std::optional<double> uptime_s;   // seconds since boot, where the line carries them
  std::optional<std::string> wall;  // the wall-clock stamp as written (journal JSON: UTC, ISO 8601)
  std::string device;               // PCI address the event names, normalised "0000:17:00.0"; "" when none
  std::optional<int> code;          // Xid / SXid number
  // AER: "Corrected", "Uncorrected (Non-Fatal)", "Uncorrected (Fatal)", whichever wording the
  // kernel used (newer kernels' "Correctable" and "Uncorrectable (...)" read as these); else "".
  std::string severity;
  std::string text;               // the message without its timestamp, host and tag
  std::string aer_type;           // AER: "Physical Layer", "Data Link Layer", "Transaction Layer"; else ""
  std::vector<int> detail_lines;  // AER, GHES and multi-line NVRM records: the lines folded into this event
  // Xid 45 "... caused by previous Xid 149": the Xid that caused this one (the driver prints it
  // since the R5xx open modules), so a caller can judge the chain by its cause.
  std::optional<int> cause_code;
  std::string section;            // GHES: "PCIe error", "memory error", ... as written; else ""
  std::optional<int> count;       // EDAC: errors the line reports
};

// One log as read: a file, a capture, the live /dev/kmsg or journal.
struct KernelLogPart {
  std::string source;
  KernelLogFormat format = KernelLogFormat::kUnknown;  // the form most of its kernel lines are in
  int lines = 0;
  std::vector<int> malformed_lines;
};

struct KernelLog {
  // The form most kernel lines are in; kUnknown when no line is a kernel message in a known form.
  KernelLogFormat format = KernelLogFormat::kUnknown;
  std::vector<KernelLogFormat> forms;  // every form a kernel line was read in (in the order above)
  std::vector<KernelEvent> events;
  int lines = 0;                     // all parts together
  std::vector<int> malformed_lines;  // all parts' (each number within its own part)
  std::vector<KernelLogPart> parts;  // one per log read (parse_kernel_log: one, source "")
  int duplicates = 0;                // events dropped as records an earlier part already gave
};

KernelLog parse_kernel_log(std::string_view text);

// A kernel log as read, and where from: "/dev/kmsg", "dmesg", "gpuplan/kernel.log", a file.
struct KernelLogText {
  std::string text;
  std::string source;
};

// The logs parsed one by one and merged, records two of them keep counted once (see above).
KernelLog parse_kernel_logs(const std::vector<KernelLogText>& logs);

// A --kernel-log file's text: read whole, and inflated when it is gzip (a rotated
// "kern.log.2.gz"; recognised by its magic bytes, whatever its name). An Error names the file.
Result<std::string> read_kernel_log_file(const std::string& path);

// "0000:17:00" (NVRM's, once its "PCI:" is stripped), "0000:17:00.0", "3b:00.1" → "0000:17:00.0"
// (lower case): the whole of `s` as core/pci_address.h's PciAddress::scan reads an address; ""
// when `s` is no PCI address or has more text after it.
std::string normalise_pci_address(std::string_view s);

}  // namespace gpuplan::probe

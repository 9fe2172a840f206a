#include "report/messages/tables.h"

namespace gpuplan::report::messages {
namespace {

// Acceptance (gpuplan accept): each check's title (with the number of the acceptance action it
// is, S1 §5 #n), then the phrases its notes and evidence use.
// Notes are clauses: no full stop of their own (report/messages joins them into a sentence).

// clang-format off
constexpr FindingWords kChecks[] = {
  {"soak", "72-hour soak under load (action 1)", "", "72 小时满载烤机（第 1 项）", ""},
  {"pcie.topology", "PCIe topology: CPU-direct x16, no shared uplinks (action 2)", "", "PCIe 拓扑：CPU 直连 x16，无共享上行链路（第 2 项）", ""},
  {"pcie.aer", "PCIe/NVMe AER errors (action 3)", "", "PCIe/NVMe AER 错误（第 3 项）", ""},
  {"infiniband", "InfiniBand: ports, subnet manager, adaptive routing (action 4)", "", "InfiniBand：端口、子网管理器、自适应路由（第 4 项）", ""},
  {"versions", "Driver, CUDA and NCCL versions (action 5)", "", "驱动、CUDA 和 NCCL 版本（第 5 项）", ""},
  {"load", "24-hour real-load test: memory growth, PCIe errors, NVMe wear (action 6)", "", "24 小时真实负载测试：显存增长、PCIe 错误、NVMe 磨损（第 6 项）", ""},
  {"pcie.aspm", "PCIe ASPM disabled (action 7)", "", "PCIe ASPM 已关闭（第 7 项）", ""},
  {"iommu", "IOMMU on, each GPU alone in its group (action 8)", "", "IOMMU 已开启，每块 GPU 独占一个 IOMMU 组（第 8 项）", ""},
  {"firmware.versions", "Firmware versions and update path (action 9)", "", "固件版本与升级路径（第 9 项）", ""},
  {"performance", "Performance clause: ResNet-50 images/s per GPU (action 10)", "", "性能条款：每卡 ResNet-50 图片/秒（第 10 项）", ""},
  {"firmware.hashes", "Firmware image hashes against the vendor's checksums (action 11)", "", "固件镜像哈希与厂商校验值比对（第 11 项）", ""},
  {"health.archive", "Health archive: 5-second samples, ECC trend (action 12)", "", "健康档案：5 秒采样、ECC 趋势（第 12 项）", ""},
  {"xid", "Xid / SXid errors in the kernel log", "", "内核日志中的 Xid / SXid 错误", ""},
  {"ecc", "GPU memory ECC health", "", "GPU 显存 ECC 健康状况", ""},
  {"gpu.count", "GPU count: PCI bus, NVML, contract", "", "GPU 数量：PCI 总线、NVML、合同", ""},
};

constexpr Words kWords[] = {
  // The report
  {"accept.report.heading", "Acceptance of {host}: {verdict}", "{host} 验收结论：{verdict}"},
  {"accept.report.counts", "{pass} pass, {warn} warn, {fail} fail, {needs} need evidence",
                           "{pass} 项通过，{warn} 项警告，{fail} 项失败，{needs} 项待补证据"},
  {"accept.report.summary", "{heading} ({counts})", "{heading}（{counts}）"},
  {"accept.report.checks", "Checks", "检查项"},
  {"accept.report.status", "Status", "结论"},
  {"accept.report.check", "Check", "检查"},
  {"accept.report.saw", "What it saw", "检查所见"},
  {"accept.yes", "yes", "是"},
  {"accept.no", "no", "否"},
  {"accept.unknown", "?", "?"},
  {"accept.nvml.off", "NVML not read (--nvml off)", "未读取 NVML（--nvml off）"},
  {"accept.nvml.not_read", "NVML was not read", "未读取 NVML"},
  {"accept.host.not_read", "the host's files were not read", "未读取主机文件"},
  {"accept.nvml.not_in_snapshot", "no NVML facts in the snapshot (gpuplan/nvml.json)", "快照中没有 NVML 数据（gpuplan/nvml.json）"},

  // What would settle a check that could not run
  {"accept.needs.host_facts", "No host facts: {why}. Run on the server or pass --root SNAPSHOT",
                              "没有主机信息：{why}。请在服务器上运行，或传入 --root SNAPSHOT"},
  {"accept.needs.aer_input", "Neither AER counters (sysfs aer_dev_*) nor a kernel log: run on the server, pass --root SNAPSHOT or --kernel-log FILE",
                             "既没有 AER 计数器（sysfs aer_dev_*）也没有内核日志：请在服务器上运行，或传入 --root SNAPSHOT 或 --kernel-log FILE"},
  {"accept.needs.ib_input", "No host facts and no ibstat output: run on the server, pass --root SNAPSHOT or --ibstat FILE",
                            "没有主机信息，也没有 ibstat 输出：请在服务器上运行，或传入 --root SNAPSHOT 或 --ibstat FILE"},
  {"accept.needs.versions", "No driver or CUDA version known: run on the server, pass --root SNAPSHOT with nvml.json, or --cuda 12.2",
                            "不知道驱动或 CUDA 版本：请在服务器上运行，或传入带 nvml.json 的 --root SNAPSHOT，或 --cuda 12.2"},
  {"accept.needs.iommu_input", "No host facts and no kernel log: run on the server or pass --root SNAPSHOT",
                               "没有主机信息，也没有内核日志：请在服务器上运行，或传入 --root SNAPSHOT"},
  {"accept.needs.kernel_log", "No kernel log: run on the server, or pass --kernel-log FILE (dmesg output)",
                              "没有内核日志：请在服务器上运行，或传入 --kernel-log FILE（dmesg 输出）"},
  {"accept.needs.nvml", "NVML not read: {why}. Run on the server with the NVIDIA driver, or pass --root SNAPSHOT with nvml.json",
                        "未读取 NVML：{why}。请在装有 NVIDIA 驱动的服务器上运行，或传入带 nvml.json 的 --root SNAPSHOT"},
  {"accept.needs.gpu_count", "Neither the PCI bus nor NVML was read: run on the server or pass --root SNAPSHOT",
                             "PCI 总线和 NVML 都未读取：请在服务器上运行，或传入 --root SNAPSHOT"},

  // Sample logs (soak, load, health archive)
  {"accept.log.empty", "The log {file} holds no samples", "日志 {file} 中没有任何采样"},
  {"accept.log.no_temperature", "{gpu} has no temperature samples: its temperature cannot be judged", "{gpu} 没有温度采样，无法判断其温度"},
  {"accept.log.no_utilization", "{gpu} has no utilization samples: its utilization cannot be judged", "{gpu} 没有利用率采样，无法判断其利用率"},
  {"accept.log.no_memory", "{gpu} has no memory samples: its memory growth cannot be judged", "{gpu} 没有显存采样，无法判断其显存增长"},
  {"accept.log.skipped", "{file} had {skipped} of {lines} lines skipped as malformed ({share}, allowed {allowed}): samples may be missing",
                         "{file} 的 {lines} 行中有 {skipped} 行格式错误被跳过（{share}，上限 {allowed}）：可能缺失采样"},
  {"accept.shown.nvml", "NVML shows {count}", "NVML 显示 {count} 块"},
  {"accept.shown.pci", "the PCI bus shows {count}", "PCI 总线显示 {count} 块"},
  {"accept.metric.memory", "memory", "显存"},
  {"accept.metric.power", "power", "功耗"},
  {"accept.metric.temperature", "temperature", "温度"},

  // G1 soak
  {"accept.soak.no_log", "No soak log: pass --soak FILE: an nvidia-smi -l 1 CSV or dmon log of the {hours} h run",
                         "没有烤机日志：请用 --soak FILE 传入 {hours} 小时运行期间的 nvidia-smi -l 1 CSV 或 dmon 日志"},
  {"accept.soak.hot", "{gpu} reached {peak} °C at {at} ({samples} samples above {limit} °C)",
                      "{gpu} 在 {at} 达到 {peak} °C（{samples} 个采样高于 {limit} °C）"},
  {"accept.soak.low_utilization", "{gpu} was below {limit}% utilization in {below} of {samples} samples ({share}, allowed {allowed}); lowest {lowest}% at {at}",
                                  "{gpu} 在 {samples} 个采样中有 {below} 个利用率低于 {limit}%（{share}，上限 {allowed}）；最低 {lowest}%，出现在 {at}"},
  {"accept.soak.short", "{gpu} spans {hours} h, not the {needed} h soak (not long enough to accept)",
                        "{gpu} 只覆盖 {hours} 小时，不足 {needed} 小时烤机（时长不够，不能验收）"},
  {"accept.soak.gpus_missing", "the soak log covers {logged} GPU(s) but {shown}: the others were not soaked",
                               "烤机日志只覆盖 {logged} 块 GPU，但 {shown}：其余 GPU 未经烤机"},
  {"accept.soak.ok", "{gpus} GPUs over {hours} h: every sample at or below {max_temp} °C and at most {allowed} of samples below {min_util}% utilization",
                     "{gpus} 块 GPU 共 {hours} 小时：所有采样不高于 {max_temp} °C，利用率低于 {min_util}% 的采样不超过 {allowed}"},

  // G2 PCIe topology
  {"accept.pcie.no_gpu", "No NVIDIA GPU on the PCI bus", "PCI 总线上没有 NVIDIA GPU"},
  {"accept.pcie.link_unknown", "{address}: link speed or width not exposed", "{address}：链路速率或宽度未暴露"},
  {"accept.pcie.below_min", "below Gen{gen} x{width}", "低于 Gen{gen} x{width}"},
  {"accept.pcie.below_max", "below its own max {max}", "低于其自身最大能力 {max}"},
  {"accept.pcie.trained_low", "{address} trained at {link}, {below}", "{address} 链路协商为 {link}，{below}"},
  {"accept.pcie.trained_low_idle", "{address} trained at {link}, {below} while idle (0% utilization): an idle GPU lowers its link speed; re-check under load",
                                   "{address} 链路协商为 {link}，{below}，当时处于空闲（利用率 0%）：GPU 空闲时会降低链路速率，请在负载下复查"},
  {"accept.pcie.slower_hop", "slower hop: {path}", "上游链路更慢：{path}"},
  {"accept.pcie.hop_gpu", "{address} ({link})", "{address}（{link}）"},
  {"accept.pcie.hop", "{address}", "{address}"},
  {"accept.pcie.hop_root", "root {address}", "根端口 {address}"},
  {"accept.pcie.hop_uplink", "{address} uplink {link}", "{address} 上行 {link}"},
  {"accept.pcie.hop_root_uplink", "root {address} uplink {link}", "根端口 {address} 上行 {link}"},
  {"accept.pcie.gpus_alike", "{count} GPUs × {link}", "{count} 块 GPU × {link}"},
  {"accept.pcie.gpus_mixed", "{count} GPUs ({links})", "{count} 块 GPU（{links}）"},
  {"accept.pcie.halves", "halves each GPU's bandwidth", "每块 GPU 的带宽减半"},
  {"accept.pcie.leaves", "leaves each GPU {share} of its bandwidth", "每块 GPU 只剩 {share} 的带宽"},
  {"accept.pcie.shared", "shared: {who} behind one {uplink} uplink {address} ({vendor}:{device}) {effect}",
                         "共享上行：{who} 挂在同一条 {uplink} 上行链路 {address}（{vendor}:{device}）之后，{effect}"},
  {"accept.pcie.designed", "{who} behind {address} ({switch}, uplink {uplink}) is the designed layout of {designed_for} [{id}]",
                           "{who} 挂在 {address}（{switch}，上行 {uplink}）之后，这是 {designed_for}的设计布局 [{id}]"},
  {"accept.pcie.ok", "{gpus} GPUs, each at Gen{gen} x{width} or better and at its own maximum, no slower hop up to its root port, no shared uplink",
                     "{gpus} 块 GPU 均不低于 Gen{gen} x{width} 且达到自身最大能力，到根端口的链路没有更慢的一跳，也没有共享上行"},

  // G3 AER
  {"accept.aer.uncorrected", "{count} uncorrected (fatal or non-fatal) AER report(s)", "{count} 条不可纠正（致命或非致命）AER 报告"},
  {"accept.aer.corrected", "{count} corrected-only AER report(s)", "{count} 条仅可纠正的 AER 报告"},
  {"accept.aer.found", "{counts} in {sources}", "{sources} 中有 {counts}"},
  {"accept.aer.none", "No AER errors in {sources} ({events} kernel-log AER events)", "{sources} 中没有 AER 错误（内核日志 AER 事件 {events} 条）"},
  {"accept.aer.from_both", "sysfs AER counters and {log}", "sysfs AER 计数器和 {log}"},
  {"accept.aer.from_sysfs", "sysfs AER counters (no kernel log)", "sysfs AER 计数器（无内核日志）"},
  {"accept.aer.from_log", "{log} (no sysfs AER counters)", "{log}（无 sysfs AER 计数器）"},
  {"accept.klog.empty", "{log} holds no kernel message ({lines} lines): capture the kernel log on the server (dmesg, journalctl -k or /var/log/kern.log)",
                        "{log} 中没有内核消息（{lines} 行）：请在服务器上采集内核日志（dmesg、journalctl -k 或 /var/log/kern.log）"},
  {"accept.klog.unreadable", "{log} is in no form gpuplan reads ({malformed} of {lines} lines unreadable), so its events could not be read. Read are: raw /dev/kmsg records; `dmesg` with -T/--ctime, -t, -r or --time-format=iso; `journalctl -k` as short, short-iso, short-precise, short-monotonic or -o json; syslog files such as /var/log/kern.log and /var/log/messages (RFC 3164, RFC 5424, rsyslog's high-precision stamps); each may be gzip-compressed. Text without time stamps is read as `dmesg -t` only when it shows a kernel event or the kernel's boot banner",
                             "{log} 的格式 gpuplan 无法识别（{lines} 行中 {malformed} 行无法读取），其中的事件没有读到。可读取的格式有：原始 /dev/kmsg 记录；`dmesg` 的输出（可带 -T/--ctime、-t、-r 或 --time-format=iso）；`journalctl -k` 的 short、short-iso、short-precise、short-monotonic 或 -o json 输出；/var/log/kern.log、/var/log/messages 等 syslog 文件（RFC 3164、RFC 5424、rsyslog 高精度时间戳）；以上均可为 gzip 压缩文件。没有时间戳的文本只有在含有内核事件或内核启动信息时才按 `dmesg -t` 读取"},
  {"accept.klog.malformed", "{log} has {malformed} malformed lines of {lines} ({share}, allowed {allowed}), read as {format}: events may hide in the lines it could not read",
                            "{log} 按 {format} 格式读取，{lines} 行中有 {malformed} 行格式错误（{share}，上限 {allowed}）：事件可能藏在无法读取的行里"},

  // G4 InfiniBand
  {"accept.ib.sysfs_port", "sysfs {device} port {port}: {state}, {phys}, {rate}", "sysfs {device} 端口 {port}：{state}，{phys}，{rate}"},
  {"accept.ib.ibstat_port", "ibstat {ca} port {port}: {state}, {phys}, SM lid {sm}", "ibstat {ca} 端口 {port}：{state}，{phys}，SM lid {sm}"},
  {"accept.ib.sysfs_down", "{port} (not ACTIVE/LinkUp)", "{port}（不是 ACTIVE/LinkUp）"},
  {"accept.ib.ibstat_down", "{port} (not Active/LinkUp)", "{port}（不是 Active/LinkUp）"},
  {"accept.ib.no_subnet_manager", "{port} (no subnet manager answers)", "{port}（没有子网管理器响应）"},
  {"accept.ib.none", "No InfiniBand on this host", "本机没有 InfiniBand"},
  {"accept.ib.needs_attachment", "{ports} InfiniBand port(s) up. Subnet-manager access and adaptive routing cannot be read from the host: attach `sminfo` output (the subnet manager answers and is configurable) and `ibdiagnet` output showing adaptive routing enabled with --attach infiniband=FILE",
                                 "{ports} 个 InfiniBand 端口已连通。子网管理器权限和自适应路由无法从主机读取：请用 --attach infiniband=FILE 附上 `sminfo` 输出（子网管理器有响应且可配置）和显示自适应路由已开启的 `ibdiagnet` 输出"},
  {"accept.ib.ok", "{ports} InfiniBand port(s) active; subnet manager and adaptive routing evidence attached ({file})",
                   "{ports} 个 InfiniBand 端口正常；已附子网管理器和自适应路由的证据（{file}）"},

  // G5 versions
  {"accept.versions.one", "{component} {version}", "{component} {version}"},
  {"accept.versions.ok", "Recorded {seen}; all within the compatibility matrix", "已记录 {seen}；均符合兼容性矩阵"},
  {"accept.versions.recorded", "Recorded {seen}", "已记录 {seen}"},
  // The software matrix's judgements (plan::judge_versions), as clauses: their facts are the findings'.
  {"accept.from.proc_version", "/proc/driver/nvidia/version: {line}", "/proc/driver/nvidia/version：{line}"},
  {"accept.from.nvml_driver", "NVML nvmlSystemGetDriverVersion", "NVML nvmlSystemGetDriverVersion"},
  {"accept.from.nvml_cuda", "NVML nvmlSystemGetCudaDriverVersion (the newest CUDA the driver supports)",
                            "NVML nvmlSystemGetCudaDriverVersion（驱动支持的最高 CUDA 版本）"},
  {"accept.from.declared", "declared (--{flag} {version})", "用户声明（--{flag} {version}）"},

  // G6 load
  {"accept.load.no_log", "No load log: pass --load FILE: an nvidia-smi -l 1 CSV or dmon log of the {hours} h real-load test (e.g. Llama-2-13B, batch 8, seq 2048)",
                         "没有负载日志：请用 --load FILE 传入 {hours} 小时真实负载测试（如 Llama-2-13B，batch 8，seq 2048）的 nvidia-smi -l 1 CSV 或 dmon 日志"},
  {"accept.load.too_few_memory_samples", "{gpu} has too few memory samples to fit a growth (2 or more at different times needed)",
                                         "{gpu} 的显存采样太少，无法拟合增长（至少需要 2 个不同时间的采样）"},
  {"accept.load.memory_growth", "{gpu} memory grew {mb} MB/h, above {limit} MB/h", "{gpu} 显存每小时增长 {mb} MB，超过 {limit} MB/h"},
  {"accept.load.short", "{gpu} spans {hours} h of the load log, not the {needed} h test (not long enough)",
                        "{gpu} 在负载日志中只覆盖 {hours} 小时，不足 {needed} 小时的测试（时长不够）"},
  {"accept.load.nvme_wear", "{device} wear {used} (Percentage Used), above {limit}", "{device} 磨损 {used}（Percentage Used），超过 {limit}"},
  {"accept.load.media_errors", "{device} reports {count} media errors", "{device} 报告 {count} 个介质错误"},
  {"accept.load.replays", "{gpu} shows {count} PCIe replays", "{gpu} 有 {count} 次 PCIe 重传"},
  {"accept.load.ok", "{gpus} GPUs over {hours} h, memory growth at most {limit} MB/h; NVMe wear and PCIe replays within limits",
                     "{gpus} 块 GPU 共 {hours} 小时，显存增长不超过 {limit} MB/h；NVMe 磨损和 PCIe 重传均在限值内"},
  {"accept.load.no_smartctl", "note: no smartctl output given (--smartctl FILE) for NVMe wear", "注意：未提供 smartctl 输出（--smartctl FILE），无法判断 NVMe 磨损"},

  // G7 ASPM
  {"accept.aspm.on", "ASPM on for GPU link(s) {links}: an ASPM link wakes in up to 20 ms", "GPU 链路 {links} 开启了 ASPM：ASPM 链路唤醒最长需要 20 ms"},
  {"accept.aspm.powersave", "ASPM policy is {policy}: an ASPM link wakes in up to 20 ms. Set pcie_aspm=off or the policy to performance",
                            "ASPM 策略为 {policy}：ASPM 链路唤醒最长需要 20 ms。请设置 pcie_aspm=off 或把策略改为 performance"},
  {"accept.aspm.performance", "ASPM policy is performance (links never enter L0s/L1)", "ASPM 策略为 performance（链路不会进入 L0s/L1）"},
  {"accept.aspm.off", "ASPM off on all {gpus} GPU links", "全部 {gpus} 条 GPU 链路的 ASPM 均已关闭"},
  {"accept.aspm.unexposed", "Neither the ASPM policy nor any GPU link state is exposed", "ASPM 策略和 GPU 链路状态均未暴露"},
  {"accept.aspm.bios", "ASPM policy is {policy} and the GPU links' ASPM states are not exposed: the BIOS decides. Set pcie_aspm=off or the policy to performance",
                       "ASPM 策略为 {policy}，且 GPU 链路的 ASPM 状态未暴露：由 BIOS 决定。请设置 pcie_aspm=off 或把策略改为 performance"},
  {"accept.aspm.bios_unknown", "The ASPM policy is unknown and the GPU links' ASPM states are not exposed: the BIOS decides. Set pcie_aspm=off or the policy to performance",
                               "ASPM 策略未知，且 GPU 链路的 ASPM 状态未暴露：由 BIOS 决定。请设置 pcie_aspm=off 或把策略改为 performance"},

  // G8 IOMMU
  {"accept.iommu.off", "IOMMU not enabled: no IOMMU groups, no intel_iommu=on/amd_iommu=on on the kernel command line, no 'IOMMU enabled' in the kernel log. Enable VT-d/AMD-Vi in the BIOS and the kernel",
                       "IOMMU 未开启：没有 IOMMU 组，内核命令行没有 intel_iommu=on/amd_iommu=on，内核日志里也没有“IOMMU enabled”。请在 BIOS 和内核中开启 VT-d/AMD-Vi"},
  {"accept.iommu.asked_not_active", "IOMMU asked for ({flags} on the kernel command line) but not active: no IOMMU groups in /sys/kernel/iommu_groups, no 'IOMMU enabled' in the kernel log. Enable VT-d/AMD-Vi in the BIOS",
                                    "内核命令行要求开启 IOMMU（{flags}）但未生效：/sys/kernel/iommu_groups 中没有 IOMMU 组，内核日志里也没有“IOMMU enabled”。请在 BIOS 中开启 VT-d/AMD-Vi"},
  {"accept.iommu.shared", "{address} shares IOMMU group {group} with {others}", "{address} 与 {others} 共用 IOMMU 组 {group}"},
  {"accept.iommu.not_alone", "a GPU that shares its group cannot be passed through to a VM alone", "与其他设备共用 IOMMU 组的 GPU 无法单独直通给虚拟机"},
  {"accept.iommu.group_unknown", "IOMMU enabled, but the IOMMU group of {gpus} is not exposed", "IOMMU 已开启，但 {gpus} 的 IOMMU 组未暴露"},
  {"accept.iommu.ok", "IOMMU enabled; each of the {gpus} GPUs is alone in its IOMMU group", "IOMMU 已开启；{gpus} 块 GPU 各自独占一个 IOMMU 组"},

  // G9 firmware versions
  {"accept.firmware.vbios_differ", "{model} GPUs carry different VBIOS versions ({versions}): ask the vendor why", "{model} GPU 的 VBIOS 版本不一致（{versions}）：请向厂商问明原因"},
  {"accept.firmware.vbios_recorded", "VBIOS of {gpus} GPU(s) recorded", "已记录 {gpus} 块 GPU 的 VBIOS"},
  {"accept.firmware.vbios_needs_nvml", "VBIOS versions need NVML: {why}", "读取 VBIOS 版本需要 NVML：{why}"},
  {"accept.firmware.needs_attachment", "BMC and ME versions and the update path cannot be read from the host: attach `ipmitool mc info` output (BMC firmware), the ME version (e.g. from the BMC web page or `dmidecode`), and the vendor's documented firmware update path with --attach firmware.versions=FILE",
                                       "BMC、ME 版本和升级路径无法从主机读取：请用 --attach firmware.versions=FILE 附上 `ipmitool mc info` 输出（BMC 固件）、ME 版本（如 BMC 网页或 `dmidecode`）以及厂商书面的固件升级路径"},
  {"accept.firmware.attached", "BMC/ME versions and update path attached ({file})", "已附 BMC/ME 版本和升级路径（{file}）"},

  // G10 performance
  {"accept.performance.no_figure", "No benchmark figure: pass --benchmark FILE with the output of ResNet-50 training at batch 256 (images/s)",
                                   "没有基准测试结果：请用 --benchmark FILE 传入 batch 256 的 ResNet-50 训练输出（图片/秒）"},
  {"accept.performance.no_gpu_count", "Benchmark figure given, but the GPU count is unknown: pass --gpus N", "已有基准测试结果，但 GPU 数量未知：请传入 --gpus N"},
  {"accept.performance.ok", "{images} images/s ÷ {gpus} GPUs = {per_gpu} images/s per GPU, at or above the clause's {min} (ResNet-50 training, batch 256)",
                            "{images} 图片/秒 ÷ {gpus} 块 GPU = 每卡 {per_gpu} 图片/秒，达到条款要求的 {min}（ResNet-50 训练，batch 256）"},
  {"accept.performance.below", "{images} images/s ÷ {gpus} GPUs = {per_gpu} images/s per GPU, below the clause's {min} (ResNet-50 training, batch 256): the vendor replaces or compensates",
                               "{images} 图片/秒 ÷ {gpus} 块 GPU = 每卡 {per_gpu} 图片/秒，低于条款要求的 {min}（ResNet-50 训练，batch 256）：厂商应更换或赔偿"},

  // G11 firmware hashes
  {"accept.hashes.no_images", "No firmware images: pass --firmware FILE (VBIOS, BMC, RAID images) and --checksums FILE (the vendor's sha256 list)",
                              "没有固件镜像：请传入 --firmware FILE（VBIOS、BMC、RAID 镜像）和 --checksums FILE（厂商的 sha256 列表）"},
  {"accept.hashes.no_checksum", "{name} has no vendor checksum", "{name} 没有厂商校验值"},
  {"accept.hashes.not_listed", "{name} has no vendor checksum in {list}", "{list} 中没有 {name} 的厂商校验值"},
  {"accept.hashes.differs", "{name} sha256 {sha256} does not match the vendor's {vendor}", "{name} 的 sha256 {sha256} 与厂商的 {vendor} 不一致"},
  {"accept.hashes.ok", "All {matched} firmware image(s) match the vendor's sha256", "全部 {matched} 个固件镜像与厂商 sha256 一致"},
  {"accept.hashes.matched", "{matched} of {images} matched", "{images} 个中有 {matched} 个一致"},

  // G12 health archive
  {"accept.archive.no_archive", "No health archive: pass --archive FILE (nvidia-smi dmon -s pmue -d 5 output: p power and temperature, m memory, u utilization, e ECC; the article's -s mu records no power, temperature or ECC; or an nvidia-smi CSV log with those columns)",
                                "没有健康档案：请用 --archive FILE 传入 nvidia-smi dmon -s pmue -d 5 的输出（p 功耗和温度，m 显存，u 利用率，e ECC；文章中的 -s mu 不记录功耗、温度和 ECC），或含这些列的 nvidia-smi CSV 日志"},
  {"accept.archive.sparse", "{gpu} sampled every {interval} s on average, not every {max} s", "{gpu} 平均每 {interval} 秒采样一次，而不是每 {max} 秒"},
  {"accept.archive.uncorrected_rose", "{gpu} uncorrected ECC rose from {from} to {to}, first at {at}", "{gpu} 不可纠正 ECC 从 {from} 升到 {to}，首次上升在 {at}"},
  {"accept.archive.corrected_rose", "{gpu} corrected ECC rose from {from} to {to}, first at {at}", "{gpu} 可纠正 ECC 从 {from} 升到 {to}，首次上升在 {at}"},
  {"accept.archive.lacks", "the archive lacks {metrics} samples for some GPUs (the health archive keeps memory, power, temperature and ECC: nvidia-smi dmon -s pmue -d 5)",
                           "档案中部分 GPU 缺少{metrics}采样（健康档案应保存显存、功耗、温度和 ECC：nvidia-smi dmon -s pmue -d 5）"},
  {"accept.archive.no_ecc", "the archive holds no ECC counts (record them: nvidia-smi dmon -s pmue -d 5; -s mu records no power, temperature or ECC)",
                            "档案中没有 ECC 计数（请记录：nvidia-smi dmon -s pmue -d 5；-s mu 不记录功耗、温度和 ECC）"},
  {"accept.archive.ok", "{gpus} GPUs over {hours} h, samples every {max} s or less, ECC counts steady", "{gpus} 块 GPU 共 {hours} 小时，采样间隔不超过 {max} 秒，ECC 计数稳定"},

  // Xid
  {"accept.xid.code", "{label} {code} ({severity})", "{label} {code}（{severity}）"},
  {"accept.xid.severity.info", "info", "提示"},
  {"accept.xid.severity.warn", "warn", "警告"},
  {"accept.xid.severity.fail", "fail", "失败"},
  {"accept.xid.unknown_code", "{label} {code} (unknown code)", "{label} {code}（未知代码）"},
  {"accept.xid.times", "{times} × {what}", "{times} × {what}"},
  {"accept.xid.found", "{counts} in {log}", "{log} 中有 {counts}"},
  {"accept.xid.none", "No Xid or SXid events in {log} ({lines} lines)", "{log} 中没有 Xid 或 SXid 事件（{lines} 行）"},

  // ECC
  {"accept.ecc.uncorrected", "{gpu} has {count} uncorrected ECC errors", "{gpu} 有 {count} 个不可纠正的 ECC 错误"},
  {"accept.ecc.dbe_retired", "{gpu} retired {count} pages for double-bit errors", "{gpu} 因双比特错误退役了 {count} 个页"},
  {"accept.ecc.retire_pending", "{gpu} has page retirement pending (needs a reset)", "{gpu} 有待生效的页退役（需要重置）"},
  {"accept.ecc.remap_failed", "{gpu} failed a row remapping (the memory is out of spare rows)", "{gpu} 行重映射失败（显存备用行已用完）"},
  {"accept.ecc.remap_pending", "{gpu} has a row remapping pending (reset the GPU to apply it)", "{gpu} 有待生效的行重映射（重置 GPU 后生效）"},
  {"accept.ecc.corrected", "{gpu} corrected {count} ECC errors (allowed {allowed})", "{gpu} 纠正了 {count} 个 ECC 错误（上限 {allowed}）"},
  {"accept.ecc.disabled", "{gpu} has ECC disabled", "{gpu} 关闭了 ECC"},
  {"accept.ecc.ok", "{gpus} GPU(s): no uncorrected ECC errors, no retired or pending pages, no failed remapping",
                    "{gpus} 块 GPU：没有不可纠正的 ECC 错误，没有退役或待退役的页，没有失败的重映射"},

  // GPU count
  {"accept.gpus.on_pci", "{count} on the PCI bus", "PCI 总线上 {count} 块"},
  {"accept.gpus.in_nvml", "{count} seen by NVML", "NVML 看到 {count} 块"},
  {"accept.gpus.expected", "{count} expected", "应有 {count} 块"},
  {"accept.gpus.none", "No GPU found", "没有找到 GPU"},
  {"accept.gpus.disagree", "GPU counts disagree: {counts}", "GPU 数量不一致：{counts}"},
  {"accept.gpus.ok", "GPUs: {counts}", "GPU：{counts}"},
  {"accept.gpus.ok_no_contract", "GPUs: {counts}; pass --gpus N to check the count the contract names", "GPU：{counts}；传入 --gpus N 可核对合同约定的数量"},

  // Evidence lines
  {"accept.ev.more", "… {count} more", "… 另有 {count} 条"},
  {"accept.ev.line", "{file}:{line}: {text}", "{file}:{line}: {text}"},
  {"accept.ev.attached", "attached: {file}", "附件：{file}"},
  {"accept.ev.log_summary", "{file}: {samples} samples, {lines} lines, {skipped} skipped", "{file}：{samples} 个采样，{lines} 行，跳过 {skipped} 行"},
  {"accept.ev.skipped_line", "{file}:{line}: skipped: {reason}", "{file}:{line}：已跳过：{reason}"},
  {"accept.ev.gpu_span", "{gpu}: {samples} samples {first} – {last}", "{gpu}：{samples} 个采样 {first} – {last}"},
  {"accept.ev.pcie_map", "{address} {link} → root port {root} → NUMA node {numa} ({path})", "{address} {link} → 根端口 {root} → NUMA 节点 {numa}（{path}）"},
  {"accept.ev.pcie_map_no_root", "{address} {link} → no root port → NUMA node {numa} ({path})", "{address} {link} → 无根端口 → NUMA 节点 {numa}（{path}）"},
  {"accept.ev.aer_counters", "{address} ({kind}): fatal {fatal}, non-fatal {nonfatal}, correctable {correctable} (sysfs aer_dev_*)",
                             "{address}（{kind}）：致命 {fatal}，非致命 {nonfatal}，可纠正 {correctable}（sysfs aer_dev_*）"},
  {"accept.ev.version", "{component} {version} ({from})", "{component} {version}（{from}）"},
  {"accept.ev.memory_growth", "{gpu}: memory grew {mib} MiB/h = {mb} MB/h (least squares; 1 MiB = 1.048576 MB), {first} → {last} MiB",
                              "{gpu}：显存每小时增长 {mib} MiB = {mb} MB（最小二乘；1 MiB = 1.048576 MB），{first} → {last} MiB"},
  {"accept.ev.smart", "{file}: {device} {model} serial {serial} firmware {firmware}: percentage used {used}, media errors {media_errors}",
                      "{file}：{device} {model} 序列号 {serial} 固件 {firmware}：磨损 {used}，介质错误 {media_errors}"},
  {"accept.ev.replays", "{gpu}: PCIe replay counter {count} (NVML)", "{gpu}：PCIe 重传计数 {count}（NVML）"},
  {"accept.ev.aspm_policy", "/sys/module/pcie_aspm/parameters/policy: {policy}", "/sys/module/pcie_aspm/parameters/policy：{policy}"},
  {"accept.ev.aspm_off", "{address} ASPM: off", "{address} ASPM：关闭"},
  {"accept.ev.aspm_on", "{address} ASPM: {states}", "{address} ASPM：{states}"},
  {"accept.ev.iommu_groups", "{count} IOMMU groups in /sys/kernel/iommu_groups", "/sys/kernel/iommu_groups 中有 {count} 个 IOMMU 组"},
  {"accept.ev.iommu_asked", "/proc/cmdline: {flag} (asked for)", "/proc/cmdline：{flag}（仅为请求）"},
  {"accept.ev.iommu_group", "{address}: IOMMU group {group} ({members})", "{address}：IOMMU 组 {group}（{members}）"},
  {"accept.ev.vbios", "{gpu} {name} serial {serial}: VBIOS {vbios}", "{gpu} {name} 序列号 {serial}：VBIOS {vbios}"},
  {"accept.ev.benchmark", "benchmark: {images} images/s", "基准测试：{images} 图片/秒"},
  {"accept.ev.benchmark_from", "{source}: {images} images/s", "{source}：{images} 图片/秒"},
  {"accept.ev.hash_unlisted", "{path} sha256 {sha256} (no vendor checksum)", "{path} sha256 {sha256}（无厂商校验值）"},
  {"accept.ev.hash_differs", "{path} sha256 {sha256}, vendor {vendor} ({list})", "{path} sha256 {sha256}，厂商 {vendor}（{list}）"},
  {"accept.ev.hash_matches", "{path} sha256 {sha256} matches the vendor checksum", "{path} sha256 {sha256} 与厂商校验值一致"},
  {"accept.ev.hash_matches_list", "{path} sha256 {sha256} matches {list}", "{path} sha256 {sha256} 与 {list} 一致"},
  {"accept.ev.xid", "{log}:{line}: {device} {label} {code}: {meaning} → {action}", "{log}:{line}: {device} {label} {code}：{meaning} → {action}"},
  // What to do about an Xid (catalog xid action ids), with the id for lookups
  {"accept.xid.action.none", "no action (none)", "无需处置（none）"},
  {"accept.xid.action.restart-app", "restart the application (restart-app)", "重启应用（restart-app）"},
  {"accept.xid.action.reset-gpu", "reset the GPU (reset-gpu)", "重置 GPU（reset-gpu）"},
  {"accept.xid.action.reboot", "reboot the server (reboot)", "重启服务器（reboot）"},
  {"accept.xid.action.inspect-hardware", "inspect the hardware (inspect-hardware)", "检查硬件（inspect-hardware）"},
  {"accept.xid.action.contact-support", "contact NVIDIA support (contact-support)", "联系 NVIDIA 技术支持（contact-support）"},
  {"accept.ev.xid_unknown", "{log}:{line}: {device} {label} {code}: not in the catalog's Xid list → look the code up in NVIDIA's Xid documentation",
                            "{log}:{line}: {device} {label} {code}：不在目录的 Xid 列表中 → 请在 NVIDIA 的 Xid 文档中查询该代码"},
  {"accept.ev.ecc", "{gpu}: ECC {enabled}; uncorrected volatile {uncorrected_volatile} aggregate {uncorrected_aggregate}; corrected volatile {corrected_volatile} aggregate {corrected_aggregate}; retired pages SBE {sbe} DBE {dbe} pending {retire_pending}; remapped rows correctable {rows_correctable} uncorrectable {rows_uncorrectable} pending {remap_pending} failed {remap_failed}",
                    "{gpu}：ECC {enabled}；不可纠正 易失 {uncorrected_volatile} 累计 {uncorrected_aggregate}；可纠正 易失 {corrected_volatile} 累计 {corrected_aggregate}；退役页 SBE {sbe} DBE {dbe} 待生效 {retire_pending}；重映射行 可纠正 {rows_correctable} 不可纠正 {rows_uncorrectable} 待生效 {remap_pending} 失败 {remap_failed}"},
  {"accept.ev.gpu_counts", "PCI bus: {pci} GPUs; NVML: {nvml} GPUs; expected: {expected}", "PCI 总线：{pci} 块 GPU；NVML：{nvml} 块 GPU；应有：{expected}"},
  {"accept.ev.gpu_counts_no_contract", "PCI bus: {pci} GPUs; NVML: {nvml} GPUs; expected: not given (--gpus)", "PCI 总线：{pci} 块 GPU；NVML：{nvml} 块 GPU；应有：未给出（--gpus）"},
};
// clang-format on

}  // namespace

std::span<const FindingWords> accept_findings() { return kChecks; }
std::span<const Words> accept_words() { return kWords; }

}  // namespace gpuplan::report::messages

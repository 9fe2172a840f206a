#include "report/messages/tables.h"

namespace gpuplan::report::messages {
namespace {

// The command line (src/cli): --help, command-line errors and the notes on standard error.
// Flags, ids, commands and file names stay as they are in both languages. "cli.error" and
// "cli.catalog" live in report.cpp.

// clang-format off
constexpr Words kWords[] = {
  // CLI11's own labels in --help (CLI::Formatter::label), and the type names of the values
  {"cli.label.usage", "Usage", "用法"},
  {"cli.label.options_badge", "OPTIONS", "选项"},
  {"cli.label.options", "Options", "选项"},
  {"cli.label.subcommand", "SUBCOMMAND", "子命令"},
  {"cli.label.subcommands", "SUBCOMMANDS", "子命令"},
  {"cli.label.subcommands_group", "Subcommands", "子命令"},
  {"cli.label.positionals", "Positionals", "位置参数"},
  {"cli.label.required", "REQUIRED", "必填"},
  {"cli.label.needs", "Needs", "需要"},
  {"cli.label.excludes", "Excludes", "不能同时使用"},
  {"cli.label.env", "Env", "环境变量"},
  {"cli.label.examples", "Examples", "示例"},
  {"cli.label.example", "Example", "示例"},
  {"cli.label.checks", "Checks", "检查项"},
  {"cli.type.text", "TEXT", "文本"},
  {"cli.type.int", "INT", "整数"},
  {"cli.type.uint", "UINT", "非负整数"},
  {"cli.type.float", "FLOAT", "数值"},
  {"cli.type.file", "FILE", "文件"},
  {"cli.type.dir", "DIR", "文件夹"},
  {"cli.type.dir_or_snapshot", "DIR|SNAPSHOT", "文件夹|快照"},
  {"cli.type.format", "FORMAT", "格式"},
  {"cli.type.url", "URL", "地址"},
  {"cli.type.cmd", "CMD", "命令"},
  {"cli.type.log", "LOG", "日志"},
  {"cli.type.config_yaml", "CONFIG.yaml", "配置.yaml"},
  {"cli.type.workload_yaml", "WORKLOAD.yaml", "工作负载.yaml"},
  {"cli.type.quote_yaml", "QUOTE.yaml", "报价单.yaml"},
  {"cli.type.scenario_yaml", "SCENARIO.yaml", "场景.yaml"},
  {"cli.type.out_tar_gz", "OUT.tar.gz", "输出.tar.gz"},

  // gpuplan --help
  {"cli.help.app",
   "gpuplan: price, check, recommend and audit NVIDIA GPU servers (A100 80GB first), and decide rent vs buy.\n"
   "Prices come from a dated, sourced catalog (gpuplan catalog list); override it with --catalog DIR.",
   "gpuplan：为 NVIDIA GPU 服务器（以 A100 80GB 为主）报价、检查配置、推荐方案、审核供应商报价，并判断租用还是购买。\n"
   "价格来自注明日期和来源的目录（gpuplan catalog list）；可用 --catalog 指定文件夹覆盖其中的条目。"},
  {"cli.help.help", "Print this help message and exit", "显示本帮助信息并退出"},
  {"cli.help.version", "Display program version information and exit", "显示版本信息并退出"},
  {"cli.help.catalog_dir", "Directory of catalog YAML laid over the default (repeatable)",
                           "存放目录 YAML 的文件夹，叠加在默认目录之上（可重复）"},
  {"cli.help.format", "Output: table, json, md or html (catalog: table, json or md)", "输出格式：table、json、md 或 html（catalog 只支持 table、json 和 md）"},
  {"cli.help.lang", "Language of the output and messages: en or zh (default from LANG)",
                    "输出和提示的语言：en 或 zh（默认取自 LANG）"},
  {"cli.help.no_color", "Never colour the output (NO_COLOR is honoured too)", "输出不使用颜色（也遵循 NO_COLOR 环境变量）"},
  {"cli.help.footer",
   "Exit codes: 0 done, 1 the verdict failed (audit, accept, diagnose; with accept --require-complete, incomplete too), 2 bad input or usage, 3 internal error.\n"
   "Run `gpuplan VERB --help` for a verb's flags and an example.",
   "退出码：0 完成，1 结论为不通过（audit、accept、diagnose；accept 加 --require-complete 时结论为未完成也是 1），2 输入或用法有误，3 内部错误。\n"
   "运行 `gpuplan 子命令 --help` 查看该子命令的参数和示例。"},
  {"cli.help.task", "Task: {tasks}", "任务类型：{tasks}"},
  {"cli.help.output", "Write the report to FILE", "把报告写入指定文件"},
  {"cli.help.output_instead", "Write the report to FILE instead of standard output", "把报告写入指定文件，而不是标准输出"},

  // gpuplan quote
  {"cli.help.quote", "Price a server configuration: bill of materials, buy and rent ranges, per-GPU figures, findings",
                     "为服务器配置报价：物料清单、购买与租用价格区间、每卡价格和检查结果"},
  {"cli.help.quote.config", "Configuration YAML (see examples/)", "配置 YAML 文件（见 examples/）"},
  {"cli.help.quote.gpu", "GPU catalog id, e.g. a100-80gb-sxm", "GPU 的目录 id，例如 a100-80gb-sxm"},
  {"cli.help.quote.gpus", "GPUs per node", "每节点 GPU 数"},
  {"cli.help.quote.nodes", "Number of nodes", "节点数"},
  {"cli.help.quote.rack_amps", "Rack circuit in amps (8, 16, 32 at 220 V)", "机柜供电回路电流，单位 A（220 V 下为 8、16 或 32）"},
  {"cli.help.quote.memory_gb", "Host memory per node in GB", "每节点主机内存，单位 GB"},
  {"cli.help.quote.region", "Region catalog id, e.g. cn-east", "地域的目录 id，例如 cn-east"},

  // gpuplan recommend
  {"cli.help.recommend", "Recommend and price a configuration for a workload", "按工作负载推荐配置并报价"},
  {"cli.help.recommend.workload", "Optional workload YAML with the same fields as the flags",
                                  "可选的工作负载 YAML 文件，字段与命令行参数相同"},
  {"cli.help.recommend.params", "Model size, e.g. 7B, 13B, 175B", "模型参数量，例如 7B、13B、175B"},
  {"cli.help.recommend.concurrency", "Peak concurrent requests", "峰值并发请求数"},
  {"cli.help.recommend.latency_ms", "Latency tolerance in ms (picks the region)", "可容忍的延迟，单位 ms（用于选择地域）"},
  {"cli.help.recommend.dataset_tb", "Training data set size in TB", "训练数据集大小，单位 TB"},
  {"cli.help.recommend.budget", "Budget in CNY: purchase total (buy) or monthly rent (rent)",
                                "预算（人民币）：购买总价（buy）或每月租金（rent）"},
  {"cli.help.recommend.mode", "rent or buy (default buy)", "rent（租用）或 buy（购买），默认 buy"},
  {"cli.help.recommend.gpu", "Force a GPU catalog id", "指定 GPU 的目录 id"},
  {"cli.help.recommend.write", "Write the configuration to FILE for `gpuplan quote`", "把推荐的配置写入指定文件，供 `gpuplan quote` 使用"},

  // gpuplan audit
  {"cli.help.audit", "Audit a vendor's quote or contract terms; exit 1 when a check fails",
                     "审核供应商的报价或合同条款；有检查不通过时退出码为 1"},
  {"cli.help.audit.quote", "Vendor quote YAML (see examples/vendor-quote-*.yaml)", "供应商报价 YAML 文件（见 examples/vendor-quote-*.yaml）"},

  // gpuplan tco
  {"cli.help.tco", "Rent vs buy vs spot vs hybrid over a horizon, from hour-by-hour demand",
                   "根据逐小时需求，比较一段周期内租用、购买、竞价实例与混合方案的成本"},
  {"cli.help.tco.scenario", "Scenario YAML (see examples/tco-*.yaml)", "场景 YAML 文件（见 examples/tco-*.yaml）"},
  {"cli.help.tco.draws", "Monte Carlo draws (default from the scenario, else 10,000)",
                         "蒙特卡洛抽样次数（默认取场景中的设置，否则为 10,000）"},
  {"cli.help.tco.seed", "Monte Carlo seed (default from the scenario, else 1)", "蒙特卡洛随机种子（默认取场景中的设置，否则为 1）"},

  // gpuplan usage
  {"cli.help.usage", "Utilization history → hour-by-day heatmap → rent, buy or hybrid, with costs",
                     "利用率历史 → 按天逐小时的热力图 → 租用、购买或混合方案及其成本"},
  {"cli.help.usage.sources", "nvidia-smi CSV or dmon logs, Prometheus scrape files or directories (.gz read transparently)",
                             "nvidia-smi CSV 或 dmon 日志、Prometheus 抓取文件，或存放它们的文件夹（可直接读取 .gz）"},
  {"cli.help.usage.prometheus", "Ask a Prometheus server (hourly means computed there)", "查询 Prometheus 服务器（每小时均值由服务器计算）"},
  {"cli.help.usage.since", "With --prometheus: how far back (default 90d)", "配合 --prometheus：向前查询的时长（默认 90d）"},
  {"cli.help.usage.from", "With --prometheus: start (2024-05-01, 2024-05-01T12:00:00 UTC, Unix seconds)",
                          "配合 --prometheus：起始时间（2024-05-01、2024-05-01T12:00:00 UTC 或 Unix 秒数）"},
  {"cli.help.usage.to", "With --prometheus: end (default now)", "配合 --prometheus：结束时间（默认为当前时间）"},
  {"cli.help.usage.source_format", "auto, smi-csv, dmon or prom (default auto)", "输入格式：auto、smi-csv、dmon 或 prom（默认 auto）"},
  {"cli.help.usage.dmon_start", "Start time of dmon logs recorded without -o DT", "未用 -o DT 记录的 dmon 日志的起始时间"},
  {"cli.help.usage.dmon_interval", "Their sample interval in seconds (dmon -d; default 1)", "这类日志的采样间隔，单位秒（dmon -d；默认 1）"},
  {"cli.help.usage.busy_threshold", "Hourly utilization % at which a GPU counts as busy (default from the catalog)",
                                    "每小时利用率达到多少（%）时算作 GPU 忙碌（默认取自目录）"},
  {"cli.help.usage.scenario", "A tco scenario whose prices cost the measured profile (default: catalog prices)",
                              "用该 tco 场景中的价格计算实测负载的成本（默认使用目录价格）"},
  {"cli.help.usage.gpu", "GPU model owned when the catalog prices the answer (default a100-80gb-sxm)",
                         "按目录价格计算时自有 GPU 的型号（默认 a100-80gb-sxm）"},
  {"cli.help.usage.write_demand", "Write busy GPUs per hour as CSV for gpuplan tco", "把每小时忙碌的 GPU 数写成 CSV 文件，供 gpuplan tco 使用"},
  {"cli.help.usage.quiet", "No progress bar or notes on standard error", "不在标准错误输出上显示进度条和提示"},

  // gpuplan usage synth
  {"cli.help.synth", "Write synthetic GPU telemetry (for tests and benchmarks)", "生成合成的 GPU 遥测数据（用于测试和基准测试）"},
  {"cli.help.synth.pattern", "idle, steady, nightly-peak or weekly-burst", "负载模式：idle、steady、nightly-peak 或 weekly-burst"},
  {"cli.help.synth.gpus", "GPUs (default 8)", "GPU 数（默认 8）"},
  {"cli.help.synth.days", "Days (default 7), starting Monday 2024-04-29 00:00", "天数（默认 7），从 2024-04-29（星期一）00:00 开始"},
  {"cli.help.synth.interval", "Sample interval (default 1s)", "采样间隔（默认 1s）"},
  {"cli.help.synth.format", "smi-csv, dmon, prom or openmetrics", "输出格式：smi-csv、dmon、prom 或 openmetrics"},
  {"cli.help.synth.seed", "Seed (default 1)", "随机种子（默认 1）"},
  {"cli.help.synth.output", "Write to FILE instead of standard output", "写入指定文件，而不是标准输出"},

  // gpuplan catalog
  {"cli.help.catalog", "List, show and check the price and rule catalog", "列出、查看和检查价格与规则目录"},
  {"cli.help.catalog.list", "List entries, optionally of one kind", "列出条目，可只列出某一类"},
  {"cli.help.catalog.list.kind", "gpu, cpu, platform, cloud_offer, threshold, …", "条目类别：gpu、cpu、platform、cloud_offer、threshold 等"},
  {"cli.help.catalog.show", "Show one entry with every field", "显示一个条目的全部字段"},
  {"cli.help.catalog.show.id", "Entry id", "条目 id"},
  {"cli.help.catalog.check", "Validate the catalog (and DIR laid over it)", "校验目录（以及叠加在其上的文件夹）"},
  {"cli.help.catalog.check.dir", "Directory of override YAML to validate", "要校验的覆盖用 YAML 所在的文件夹"},

  // accept, diagnose and snapshot (cli/host_verbs.cpp)
  {"cli.help.host.root", "Host root: / (live), a directory, or a snapshot .tar.gz (default /)",
                         "主机根目录：/（在线读取本机）、一个文件夹，或快照 .tar.gz（默认 /）"},
  {"cli.help.host.kernel_log",
   "Kernel log file, repeatable, plain or .gz: dmesg (any time format), journalctl -k (short forms or -o json), /dev/kmsg records, /var/log/kern.log or messages; default: the snapshot's, else /dev/kmsg (or dmesg) and the journal",
   "内核日志文件，可多次指定，可为 .gz：dmesg（任一时间格式）、journalctl -k（short 系列或 -o json）、/dev/kmsg 记录、/var/log/kern.log 或 messages；默认取快照中的日志，否则读取 /dev/kmsg（或 dmesg）和 journal"},
  {"cli.help.host.nvml",
   "auto (live on /, else the snapshot's gpuplan/nvml.json), live, snapshot or off; GPUPLAN_NVML_LIBRARY names the library",
   "auto（根目录为 / 时在线读取，否则使用快照中的 gpuplan/nvml.json）、live、snapshot 或 off；用 GPUPLAN_NVML_LIBRARY 指定库文件"},
  {"cli.help.host.host", "Host name in the report (default: the host's own)", "报告中的主机名（默认为主机自身的名称）"},
  {"cli.help.accept",
   "Acceptance of a delivered server: the 12 acceptance actions (S1 §5) with evidence; verdict pass, incomplete (checks need evidence) or fail; exit 1 when a check fails",
   "到货服务器验收：执行 12 项验收操作（S1 §5）并留存证据；结论为通过、未完成（有检查待补证据）或不通过；有检查不通过时退出码为 1"},
  {"cli.help.accept.soak", "S1 §5 #1: the 72 h soak log (nvidia-smi CSV or dmon)", "S1 §5 #1：72 小时烤机日志（nvidia-smi CSV 或 dmon）"},
  {"cli.help.accept.load", "S1 §5 #6: the real-load log (memory growth)", "S1 §5 #6：真实负载日志（看显存增长）"},
  {"cli.help.accept.archive", "S1 §5 #12: the health archive (nvidia-smi dmon -s pmue -d 5, or a CSV log with the ECC columns)",
                              "S1 §5 #12：健康档案（nvidia-smi dmon -s pmue -d 5 的输出，或带 ECC 列的 CSV 日志）"},
  {"cli.help.accept.smartctl", "S1 §5 #6: smartctl --json -a output per NVMe (repeatable)", "S1 §5 #6：每块 NVMe 的 smartctl --json -a 输出（可重复）"},
  {"cli.help.accept.ibstat", "S1 §5 #4: ibstat output", "S1 §5 #4：ibstat 的输出"},
  {"cli.help.accept.topo", "nvidia-smi topo -m output", "nvidia-smi topo -m 的输出"},
  {"cli.help.accept.benchmark", "S1 §5 #10: a ResNet-50 benchmark's output with its images/s", "S1 §5 #10：含 images/s 数值的 ResNet-50 基准测试输出"},
  {"cli.help.accept.benchmark_cmd", "S1 §5 #10: run this command now and read its images/s", "S1 §5 #10：现在运行该命令，并读取其输出的 images/s"},
  {"cli.help.accept.benchmark_scope", "S1 §5 #10: per-gpu or total, when the benchmark's output does not say which its figure is",
                                      "S1 §5 #10：per-gpu 或 total，在基准测试输出没有写明其数值是每卡还是整体时使用"},
  {"cli.help.accept.benchmark_gpus", "S1 §5 #10: the GPUs the benchmark ran on, when its output does not say (a total is divided by it)",
                                     "S1 §5 #10：基准测试实际使用的 GPU 数，在输出没有写明时使用（整体数值除以该数）"},
  {"cli.help.accept.firmware", "S1 §5 #11: a firmware image to hash (VBIOS, BMC, RAID; repeatable)",
                               "S1 §5 #11：要计算哈希的固件镜像（VBIOS、BMC、RAID；可重复）"},
  {"cli.help.accept.checksums", "S1 §5 #11: the vendor's sha256 list (sha256sum format)", "S1 §5 #11：厂商提供的 sha256 列表（sha256sum 格式）"},
  {"cli.help.accept.cuda", "S1 §5 #5: CUDA toolkit version installed, e.g. 12.1", "S1 §5 #5：已安装的 CUDA 工具包版本，例如 12.1"},
  {"cli.help.accept.nccl", "S1 §5 #5: NCCL version installed, e.g. 2.18.3", "S1 §5 #5：已安装的 NCCL 版本，例如 2.18.3"},
  {"cli.help.accept.attach",
   "Evidence a person supplies, CHECK=FILE, repeatable: infiniband reads ibstat, ibstatus, sminfo and ibdiagnet output; firmware.versions reads ipmitool mc info, dmidecode -t bios and nvidia-smi -q; other checks' files are for a person to judge",
   "人工提供的证据，格式为 检查项=文件，可重复：infiniband 读取 ibstat、ibstatus、sminfo 和 ibdiagnet 的输出；firmware.versions 读取 ipmitool mc info、dmidecode -t bios 和 nvidia-smi -q；其他检查项的附件需人工判断"},
  {"cli.help.accept.gpus", "GPUs the contract says the server has", "合同约定的服务器 GPU 数"},
  {"cli.help.accept.require_complete", "Exit 1 when the verdict is incomplete too (checks need evidence), as a procurement pipeline needs",
                                       "结论为未完成（有检查待补证据）时也以退出码 1 结束，供采购流水线使用"},
  {"cli.help.accept.evidence", "Write the evidence bundle to DIR (new or empty)", "把证据包写入指定文件夹（须为新文件夹或空文件夹）"},
  {"cli.help.diagnose",
   "Why is training slow or failing: the troubleshooting checks (S0 §4) from telemetry and host facts; exit 1 on a failure",
   "排查训练变慢或失败的原因：根据遥测数据和主机信息做故障排查（S0 §4）；发现失败项时退出码为 1"},
  {"cli.help.diagnose.logs", "nvidia-smi CSV / dmon logs, dcgm-exporter scrapes, or a captured plain nvidia-smi output", "nvidia-smi CSV、dmon 日志、dcgm-exporter 抓取数据，或采集下来的普通 nvidia-smi 输出"},
  {"cli.help.diagnose.sample", "Live: sample NVML for this many seconds first", "在线模式：先对 NVML 采样这么多秒"},
  {"cli.help.diagnose.interval", "Live sampling interval in seconds (default 1)", "在线采样间隔，单位秒（默认 1）"},
  {"cli.help.snapshot", "Save what `accept --root` needs from this host into a .tar.gz",
                        "把 `accept --root` 所需的本机信息保存为 .tar.gz 快照"},
  {"cli.help.snapshot.out", "Archive to write", "要写入的快照文件"},

  // Command-line errors (CLI11's parse errors, worded here). The flag is the error's field.
  {"cli.parse.see_help", "Run `{command} --help` for its flags.", "运行 `{command} --help` 查看可用参数。"},
  {"cli.parse.unknown_verb", "'{got}' is not a command of {command} (one of {verbs}){hint}",
                             "“{got}”不是 {command} 的子命令（可选：{verbs}）{hint}"},
  {"cli.parse.verb_required", "{command} needs a command: {verbs}", "{command} 需要一个子命令：{verbs}"},
  {"cli.parse.required", "{name} is required", "缺少必需的参数 {name}"},
  {"cli.parse.not_valid", "'{value}' is not a valid value{expected}", "“{value}”不是有效的取值{expected}"},
  {"cli.parse.expected", " (expected {type})", "（应为{type}）"},
  {"cli.parse.missing_value", "needs a value", "缺少取值"},
  {"cli.parse.too_many", "takes at most {max} value(s), got {got}", "最多接受 {max} 个取值，实际给出 {got} 个"},
  {"cli.parse.too_few", "needs at least {min} value(s), got {got}", "至少需要 {min} 个取值，实际给出 {got} 个"},
  {"cli.parse.exactly", "needs exactly {n} value(s), got {got}", "需要正好 {n} 个取值，实际给出 {got} 个"},
  {"cli.parse.takes_no_value", "takes no value", "不接受取值"},
  {"cli.parse.requires", "needs {other} too", "需要同时给出 {other}"},
  {"cli.parse.excludes", "cannot be used with {other}", "不能与 {other} 同时使用"},
  {"cli.parse.unexpected", "unexpected argument(s): {args}", "无法识别的参数：{args}"},
  {"cli.parse.invalid", "invalid value: {why}", "取值无效：{why}"},
  {"cli.parse.failed", "cannot read the command line: {why}", "无法解析命令行：{why}"},

  // Values given on the command line
  {"cli.value.at_least", "must be at least {min} (got {got})", "不能小于 {min}（实际为 {got}）"},
  {"cli.value.above", "must be more than {min} (got {got})", "必须大于 {min}（实际为 {got}）"},
  {"cli.value.not_negative", "must not be negative (got {got})", "不能为负数（实际为 {got}）"},
  {"cli.value.between", "must be between {min} and {max} (got {got})", "必须在 {min} 到 {max} 之间（实际为 {got}）"},
  {"cli.value.between_percent", "must be between {min} and {max} % (got {got})", "必须在 {min}% 到 {max}% 之间（实际为 {got}）"},
  {"cli.value.between_seconds", "must be between {min} and {max} seconds{note} (got {got})",
                                "必须在 {min} 到 {max} 秒之间{note}（实际为 {got}）"},
  {"cli.value.a_week", " (a week)", "（一周）"},
  {"cli.value.required", "required (one of {allowed})", "必须给出（可选：{allowed}）"},
  {"cli.value.params_required", "required (the model size, e.g. 13B)", "必须给出（模型参数量，例如 13B）"},
  {"cli.value.not_a_date", "'{got}' is not a date (2024-05-01, 2024-05-01T12:00:00 UTC, or Unix seconds)",
                           "“{got}”不是日期（可用 2024-05-01、2024-05-01T12:00:00 UTC 或 Unix 秒数）"},
  {"cli.value.not_whole_seconds", "'{got}' is not a whole number of seconds (e.g. 1s, 5s, 1min)",
                                  "“{got}”不是整秒数（例如 1s、5s、1min）"},
  {"cli.value.from_not_before_to", "must be before --to", "必须早于 --to"},

  // What a verb needs
  {"cli.quote.needs_input", "quote needs CONFIG.yaml, or --gpu ID and --gpus N (see gpuplan quote --help)",
                            "quote 需要一个配置文件，或同时给出 --gpu 和 --gpus（见 gpuplan quote --help）"},
  {"cli.usage.needs_input", "usage needs log files or directories, or --prometheus URL (not both); see gpuplan usage --help",
                            "usage 需要日志文件或文件夹，或用 --prometheus 给出服务器地址（二者只能选一）；见 gpuplan usage --help"},
  {"cli.snapshot.needs_out", "snapshot needs the archive to write, e.g. gpuplan snapshot host.tar.gz",
                             "snapshot 需要指定要写入的快照文件，例如 gpuplan snapshot host.tar.gz"},
  {"cli.catalog.problems", "{count} problem(s) in the catalog; run `gpuplan catalog check`",
                           "目录中有 {count} 个问题；请运行 `gpuplan catalog check`"},

  // Files
  {"cli.file.cannot_read", "cannot read the file", "无法读取该文件"},
  {"cli.file.cannot_write", "cannot write the file", "无法写入该文件"},
  {"cli.file.no_such_file", "no such file", "文件不存在"},
  {"cli.file.not_json", "not valid JSON", "不是有效的 JSON"},
  {"cli.root.missing", "no such directory or snapshot", "文件夹或快照不存在"},
  {"cli.root.no_temp_dir", "cannot make a temporary directory to unpack into", "无法创建用于解包的临时文件夹"},

  // Notes on standard error
  {"cli.wrote", "wrote {path}", "已写入 {path}"},
  {"cli.progress", "reading: {percent}% ({done} of {total} GB)", "读取中：{percent}%（{done} / {total} GB）"},
  {"cli.skipped_lines", "skipped {count} malformed line(s){first}", "跳过了 {count} 行格式错误的数据{first}"},
  {"cli.skipped_first", ": {where} {why}", "：{where} {why}"},
  {"cli.skipped_line", "{where}: skipped: {why}", "{where}：已跳过：{why}"},
  {"cli.internal_error", "internal error: {why}", "内部错误：{why}"},
  {"cli.this_host", "this host", "本机"},
  {"cli.none", "none", "无"},

  // gpuplan catalog list and check
  {"cli.catalog.col.id", "id", "编号"},
  {"cli.catalog.col.kind", "kind", "类别"},
  {"cli.catalog.col.name", "name", "名称"},
  {"cli.catalog.col.as_of", "as_of", "日期"},
  {"cli.catalog.col.source", "source", "来源"},
  {"cli.catalog.summary", "{entries} entries, {problems} problem(s)", "共 {entries} 个条目，{problems} 个问题"},

  // gpuplan accept, diagnose, snapshot
  {"cli.accept.capture_not_used", "note: {capture} not used: {why}", "提示：未使用 {capture}：{why}"},
  {"cli.accept.running_benchmark", "running the benchmark: {command}", "正在运行基准测试：{command}"},
  {"cli.accept.benchmark_elsewhere", "runs on this machine, but --root names another host: pass its output with --benchmark FILE",
                                     "该命令会在本机运行，但 --root 指向另一台主机：请用 --benchmark 传入其输出文件"},
  {"cli.accept.benchmark_failed", "the command failed (exit status {status}): {command}", "命令执行失败（退出码 {status}）：{command}"},
  {"cli.accept.no_images_per_s", "no images/s figure in the output (e.g. \"images/sec: 1875.3\")",
                                 "输出中没有 images/s 数值（例如 \"images/sec: 1875.3\"）"},
  {"cli.accept.attach_malformed", "'{spec}': expected CHECK=FILE with CHECK one of {checks}",
                                  "“{spec}”：格式应为 检查项=文件，检查项可选 {checks}"},
  {"cli.accept.wrote_evidence", "wrote {count} files of evidence to {dir} (check them with: cd {dir} && sha256sum -c MANIFEST.sha256)",
                                "已把 {count} 个证据文件写入 {dir}（校验方法：cd {dir} && sha256sum -c MANIFEST.sha256）"},
  {"cli.diagnose.logs_only", "Logs only: this machine's PCIe facts, NVML and tools are left out (the logs may come from another server); add --root / if they are this machine's",
   "仅依据日志：未纳入本机的 PCIe 信息、NVML 和工具输出（日志可能来自其他服务器）；如果日志就是本机的，请加 --root /"},
  {"cli.diagnose.sampling", "sampling NVML: {round}/{rounds}", "正在采样 NVML：{round}/{rounds}"},
  {"cli.snapshot.wrote", "wrote {path} ({entries} entries; kernel log: {kernel_log}; NVML: {nvml})",
                         "已写入 {path}（{entries} 项；内核日志：{kernel_log}；NVML：{nvml}）"},
  {"cli.snapshot.gpus", "{count} GPUs", "{count} 块 GPU"},

  // The evidence bundle (cli/evidence.cpp)
  {"cli.evidence.not_empty", "exists and is not an empty directory; refusing to overwrite evidence",
                             "已存在且不是空文件夹；为免覆盖已有证据，拒绝写入"},
  {"cli.evidence.cannot_create", "cannot create the directory: {why}", "无法创建该文件夹：{why}"},
  {"cli.evidence.outside", "not a path inside the bundle", "不是证据包内的路径"},
  {"cli.evidence.cannot_copy", "cannot copy into the evidence bundle: {why}", "无法复制到证据包：{why}"},
  {"cli.evidence.cannot_write", "cannot write into the evidence bundle", "无法写入证据包"},
  {"cli.evidence.cannot_write_manifest", "cannot write MANIFEST.sha256", "无法写入 MANIFEST.sha256"},
};
// clang-format on

}  // namespace

std::span<const Words> cli_words() {
  return kWords;
}

}  // namespace gpuplan::report::messages

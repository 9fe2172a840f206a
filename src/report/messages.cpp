#include "report/messages.h"

#include <algorithm>
#include <cstdlib>
#include <vector>

namespace gpuplan::report {
namespace {

struct Message {
  std::string_view key;  // finding id, "id/variant", or "ui.<name>"
  std::string_view en_title;
  std::string_view en_detail;
  std::string_view zh_title;
  std::string_view zh_detail;
};

// clang-format off
const std::vector<Message> kMessages = {
  // Quote rules (SPEC A3, B1–B7)
  {"power.rack/over", "Rack circuit overloaded",
   "{servers} server(s) draw {load} at full load ({gpus} GPUs × {gpu_tdp} = {gpu_draw} for the GPUs alone); the {amps} A / {volts} V circuit carries {capacity}. The breaker will trip: ask for a larger circuit.",
   "机柜电路过载",
   "{servers} 台服务器满载功耗 {load}（仅 GPU 就是 {gpus} × {gpu_tdp} = {gpu_draw}），{amps} A / {volts} V 电路只能承载 {capacity}，会跳闸：需要更大电流的机柜。"},
  {"power.rack/near", "Rack circuit above its continuous-load limit",
   "{servers} server(s) draw {load} at full load; the {amps} A / {volts} V circuit carries {capacity}, but only {continuous} ({fraction}) for continuous load.",
   "机柜电路超过持续负载上限",
   "{servers} 台服务器满载功耗 {load}；{amps} A / {volts} V 电路容量 {capacity}，持续负载只能用到 {continuous}（{fraction}）。"},
  {"power.psu/over", "Power supplies too small",
   "One node draws {load} at full load; its power supplies ({psus}) give {total}.",
   "电源功率不足", "单节点满载功耗 {load}，电源（{psus}）合计只有 {total}。"},
  {"power.psu/no_redundancy", "No power-supply redundancy at full load",
   "One node draws {load}; without its {redundant} redundant supply(ies) ({psus}) only {without_redundant} remain, so one failed supply stops the node.",
   "满载时电源无冗余",
   "单节点满载功耗 {load}；去掉 {redundant} 个冗余电源（{psus}）后只剩 {without_redundant}，坏一个电源就会停机。"},
  {"pcie.lanes", "Not enough PCIe lanes",
   "Devices need {needed} lanes (GPUs {gpu_lanes}, NVMe {nvme_lanes}, NICs {nic_lanes}); {sockets} × {cpu} offer {available}.",
   "PCIe 通道不足",
   "设备共需 {needed} 条通道（GPU {gpu_lanes}，NVMe {nvme_lanes}，网卡 {nic_lanes}），{sockets} 颗 {cpu} 只提供 {available} 条。"},
  {"pcie.slot/form_factor", "GPU does not fit the platform",
   "{gpu} is {gpu_form}; {platform} takes {platform_form} GPUs.",
   "GPU 与平台不匹配", "{gpu} 是 {gpu_form} 形态，{platform} 只支持 {platform_form} GPU。"},
  {"pcie.slot/count", "Too many GPUs for the platform",
   "{gpus} GPUs asked for; {platform} holds {max}.",
   "GPU 数量超过平台上限", "要求 {gpus} 块 GPU，{platform} 最多 {max} 块。"},
  {"pcie.slot/switched", "GPUs behind a PCIe switch",
   "{platform} has {direct} CPU-direct x16 slots: {switched} of {gpus} GPUs sit behind a PLX/switch and share an uplink, halving their host bandwidth. Ask for CPU-direct Gen4 x16 slots.",
   "GPU 挂在 PCIe 交换芯片后",
   "{platform} 只有 {direct} 个 CPU 直连 x16 插槽：{gpus} 块 GPU 中有 {switched} 块经 PLX/交换芯片共享上行链路，主机带宽减半。应要求 CPU 直连的 Gen4 x16 插槽。"},
  {"pcie.slot/generation", "Platform slower than the GPU's PCIe generation",
   "{gpu} is PCIe Gen{gpu_gen}; the platform runs Gen{platform_gen}.",
   "平台 PCIe 代数低于 GPU", "{gpu} 支持 PCIe Gen{gpu_gen}，平台只有 Gen{platform_gen}。"},
  {"memory.min", "Host memory below the training minimum",
   "{memory} of host memory; {task} work wants at least {min}, less triggers paging.",
   "内存低于训练下限", "主机内存 {memory}；{task} 任务至少需要 {min}，否则会频繁换页。"},
  {"network.rdma/missing", "Multi-node training without RDMA",
   "{nodes} nodes and no InfiniBand or RoCE adapter: gradient exchange over TCP will dominate step time.",
   "多机训练没有 RDMA", "{nodes} 个节点却没有 InfiniBand/RoCE 网卡：梯度同步走 TCP 会拖慢每一步。"},
  {"network.rdma/no_switch", "InfiniBand adapters without a switch",
   "{nodes} nodes with IB adapters but no IB switch in the quote.",
   "有 IB 网卡但没有交换机", "{nodes} 个节点配了 IB 网卡，报价里却没有 IB 交换机。"},
  {"network.rdma/unneeded", "InfiniBand on a single node",
   "One node does not need InfiniBand; 10/25 GbE is enough. The IB adapters cost {cost}.",
   "单机不需要 InfiniBand", "单机训练不需要 IB，万兆/25G 以太网即可。IB 网卡花费 {cost}。"},
  {"network.nvlink/missing", "Multi-GPU training without NVLink",
   "{gpus} GPUs for {task} on a PCIe-only platform: all-reduce goes over PCIe. Prefer NVLink bridges or an NVSwitch board.",
   "多卡训练没有 NVLink", "{gpus} 块 GPU 做 {task}，平台只有 PCIe：all-reduce 走 PCIe。建议 NVLink 桥或 NVSwitch 主板。"},
  {"network.nvlink/unneeded", "NVLink/NVSwitch not needed here",
   "{interconnect} pays off for multi-GPU training only; this is {gpus} GPU(s) for {task}.",
   "此场景不需要 NVLink/NVSwitch", "{interconnect} 只对多卡训练有价值；当前是 {gpus} 块 GPU 做 {task}。"},
  {"network.public/metered", "Public traffic billed by volume",
   "Downloading tens of GB of model weights on metered traffic costs hundreds of yuan in half an hour. Prefer fixed bandwidth plus a traffic package, even at a higher machine price.",
   "公网按流量计费", "按流量计费时下载几十 GB 模型权重半小时就可能花掉几百元。宁可机器单价贵一点，也优先选固定带宽 + 流量包。"},
  {"cooling.air", "Air cooling in a hot room",
   "Room at {room} (limit {limit}): in the article's test, air-cooled A100s in a 40 °C room ran about {throttle} lower clocks over 72 h. Ask for the inlet temperature or liquid cooling.",
   "高温机房使用风冷",
   "机房温度 {room}（上限 {limit}）：文章测试中 40 °C 机房的风冷 A100 在 72 小时内频率下降约 {throttle}。请确认进风温度或改用液冷。"},
  {"software.matrix/unspecified", "Software versions not specified",
   "Name the driver, CUDA, cuDNN and framework versions in the configuration and the contract, so they can be checked against the dated compatibility matrix (gpuplan catalog list software).",
   "未指定软件版本", "请在配置和合同中写明驱动、CUDA、cuDNN 和框架版本，以便对照兼容性矩阵（gpuplan catalog list software）。"},
  {"software.matrix/below_min", "Version below the matrix minimum",
   "{component} {version} is older than {min} (matrix as of {as_of}).",
   "版本低于兼容性矩阵下限", "{component} {version} 低于 {min}（矩阵日期 {as_of}）。"},
  {"software.matrix/not_listed", "Version not in the matrix",
   "{component} {version}: the matrix lists {allowed} (as of {as_of}).",
   "版本不在兼容性矩阵内", "{component} {version}：矩阵推荐 {allowed}（日期 {as_of}）。"},
  {"software.matrix/cuda_driver", "CUDA 12 needs a 525-series driver",
   "CUDA {cuda} with driver {driver}: CUDA 12.x requires the 525 series or later.",
   "CUDA 12 需要 525 系列驱动", "CUDA {cuda} 搭配驱动 {driver}：CUDA 12.x 需要 525 系列或更新的驱动。"},
  {"band.rent_per_gpu/above", "Rent per GPU above the usual band",
   "{per_gpu} against {band}: look for padded network, storage or service lines.",
   "每卡月租高于常见区间", "{per_gpu}，常见区间 {band}：检查网络、存储、服务项是否被加价。"},
  {"band.rent_per_gpu/below", "Rent per GPU below the usual band",
   "{per_gpu} against {band}: check what the price leaves out.",
   "每卡月租低于常见区间", "{per_gpu}，常见区间 {band}：确认价格是否漏掉了某些项目。"},
  {"band.buy_per_gpu/above", "Purchase per GPU above the article's band",
   "{per_gpu} against {band}. The article's band is below its own card price (SPEC §J), so builds with new cards land above it: judge the lines against the catalog instead.",
   "每卡采购价高于文章区间", "{per_gpu}，文章区间 {band}。该区间低于文章自己给出的单卡价格（SPEC §J），新卡整机必然高于它：请逐项对照目录价格。"},
  {"band.buy_per_gpu/below", "Purchase per GPU below the article's band",
   "{per_gpu} against {band}: ask whether the cards are used, refurbished or engineering samples.",
   "每卡采购价低于文章区间", "{per_gpu}，文章区间 {band}：确认是否为二手、翻新或工程样卡。"},
  {"market.range/above", "Component build-up above the market price",
   "Parts add up to {build_up} per node; whole {market_gpus}-GPU servers sell for {market} (±{tolerance}). The articles' card and server prices disagree (SPEC §J): ask the vendor which parts differ.",
   "部件合计高于整机市场价", "部件合计每节点 {build_up}；{market_gpus} 卡整机市场价 {market}（±{tolerance}）。文章的单卡价与整机价互相矛盾（SPEC §J）：请供应商说明差异部件。"},
  {"market.range/below", "Component build-up below the market price",
   "Parts add up to {build_up} per node; whole {market_gpus}-GPU servers sell for {market} (±{tolerance}): the build may leave parts out.",
   "部件合计低于整机市场价", "部件合计每节点 {build_up}；{market_gpus} 卡整机市场价 {market}（±{tolerance}）：配置可能漏了部件。"},
  {"market.range/unknown", "No market figure for this server",
   "The catalog has no whole-server market range for {gpus} × {gpu}: the rent total leaves out the server itself.",
   "缺少整机市场价", "目录里没有 {gpus} × {gpu} 整机的市场价：租金合计不含服务器本身。"},
  {"future.pcie5", "Platform is not PCIe 5.0-ready",
   "A PCIe 5.0-ready platform costs about {cost} more and takes next-generation GPUs and NICs.",
   "平台不支持 PCIe 5.0", "支持 PCIe 5.0 的平台约多 {cost}，可兼容下一代 GPU 和网卡。"},
  {"future.nvlink", "No NVLink bridge or NVSwitch",
   "Multi-GPU work on this platform is limited by PCIe; NVLink bridges or an NVSwitch board keep the upgrade path open.",
   "没有 NVLink 桥或 NVSwitch", "该平台多卡通信受限于 PCIe；NVLink 桥或 NVSwitch 主板可保留升级空间。"},
  {"future.liquid", "No liquid-cooling interface",
   "The platform cannot take liquid cooling later; denser GPUs and hot rooms may need it.",
   "没有液冷接口", "平台以后无法改液冷；更高功耗的 GPU 或高温机房可能需要液冷。"},
  {"future.tpm", "No TPM 2.0 / UEFI Secure Boot",
   "Regulated industries (finance, health, government) may require TPM 2.0 and UEFI Secure Boot.",
   "没有 TPM 2.0 / 安全启动", "金融、医疗、政府等受监管行业可能要求 TPM 2.0 和 UEFI 安全启动。"},

  // Audit of a vendor quote (SPEC D)
  {"audit.line_range/above", "Line priced above the catalog range",
   "{item}: {unit_price} each against {range} for {part} ({source}).",
   "单项价格高于目录区间", "{item}：单价 {unit_price}，目录 {part} 区间 {range}（{source}）。"},
  {"audit.line_range/below", "Line priced below the catalog range",
   "{item}: {unit_price} each against {range} for {part}: ask what is left out (used parts, lower grade).",
   "单项价格低于目录区间", "{item}：单价 {unit_price}，目录 {part} 区间 {range}：请确认是否二手或降档。"},
  {"audit.unpriced_part", "Line not in the catalog",
   "{item} names no catalog part, so its price of {unit_price} cannot be judged.",
   "无法核对的报价项", "{item} 未对应目录部件，单价 {unit_price} 无法核对。"},
  {"audit.price_from", "\"From\" price",
   "{item} is priced \"from\" {unit_price}: a starting price assumes a minimal baseline. Ask for the price of this exact configuration.",
   "“起”价", "{item} 报价“{unit_price} 起”：起价按最低配置计算，请要求按本配置报价。"},
  {"audit.licence/no_version", "Software licence without a version",
   "{name}: the quote names no release, so what is delivered cannot be checked.",
   "软件授权未写版本", "{name}：报价未写明版本，交付内容无法核对。"},
  {"audit.licence/no_modules", "Software licence without its modules",
   "{name} {version}: the quote lists no modules (e.g. whether TensorRT-LLM is included).",
   "软件授权未列模块", "{name} {version}：报价未列出包含的模块（例如是否含 TensorRT-LLM）。"},
  {"audit.service_terms", "Service terms without numbers",
   "The service terms give no {missing}: write response time, time to repair (MTTR) and the penalty for missing them as numbers.",
   "服务条款缺少量化指标", "服务条款缺少 {missing}：响应时间、修复时间（MTTR）和违约赔偿都应写成数字。"},
  {"audit.hidden_costs", "Hidden costs not covered",
   "The quote does not say who pays for: {missing}.",
   "隐性成本未覆盖", "报价未说明以下费用由谁承担：{missing}。"},
  {"contract.gpu_model", "Contract does not name the GPU model",
   "Write the exact GPU model (e.g. A100 80GB SXM4 vs PCIe) into the contract: the two differ in power, price and NVLink.",
   "合同未写明 GPU 型号", "合同需写明准确的 GPU 型号（如 A100 80GB SXM4 还是 PCIe），两者功耗、价格和 NVLink 都不同。"},
  {"contract.driver_version", "Contract does not name the driver version",
   "Write the NVIDIA driver version that will be installed, so it can be checked against the compatibility matrix.",
   "合同未写明驱动版本", "合同需写明将安装的 NVIDIA 驱动版本，以便对照兼容性矩阵。"},
  {"contract.cuda_version", "Contract does not name the CUDA version",
   "Write the CUDA version that will be installed.",
   "合同未写明 CUDA 版本", "合同需写明将安装的 CUDA 版本。"},
  {"contract.internal_bandwidth", "Contract does not state the internal bandwidth",
   "Write the internal network (e.g. 2×25 GbE or 8×200G HDR InfiniBand) with its bandwidth.",
   "合同未写明内网带宽", "合同需写明内网方案及带宽（如 2×25GbE 或 8×200G HDR IB）。"},
  {"contract.public_bandwidth", "Contract does not state the public bandwidth",
   "Write the public bandwidth (fixed Mbps or metered) and the traffic package: metered egress is the classic trap.",
   "合同未写明公网带宽", "合同需写明公网带宽（固定带宽或按流量）及流量包：按流量计费是常见陷阱。"},
  {"contract.rack_current", "Contract does not state the rack current",
   "Write the rack circuit (amps at 220 V): an 8-GPU server needs more than an 8 A rack.",
   "合同未写明机柜电流", "合同需写明机柜电流（220 V 下的安培数）：八卡服务器需要超过 8 A 的机柜。"},
  {"contract.reboot_sla", "Contract has no reboot SLA",
   "Write how fast a hung server is power-cycled on request.",
   "合同没有重启 SLA", "合同需写明服务器死机后远程重启的响应时间。"},
  {"contract.installation", "Contract does not cover installation work",
   "Write who pays for installation (e.g. liquid-cooling pipes, which can add a five-figure sum if left out).",
   "合同未写明安装工作", "合同需写明安装费用由谁承担（如液冷管路，漏写可能多出数万元）。"},
  {"contract.performance_clause", "Contract has no performance clause",
   "Write a measurable performance clause (e.g. ResNet-50 training images/s per GPU) with replacement or compensation below it.",
   "合同没有性能条款", "合同需写明可测的性能条款（如每卡 ResNet-50 训练图片/秒），不达标则更换或赔偿。"},

  // Recommendation reasons (SPEC C)
  {"recommend.rule", "Workload rule",
   "{task} of a {params}B-parameter model: rule '{rule}' gives {gpus} GPU(s) × {nodes} node(s).",
   "工作负载规则", "{params}B 参数模型的 {task}：规则“{rule}”给出 {gpus} 卡 × {nodes} 节点。"},
  {"recommend.memory_fit", "Model must fit in GPU memory",
   "{params}B parameters × {bytes} bytes = {needed} of GPU memory; {per_gpu} usable per GPU needs {gpus} GPU(s).",
   "模型需装入显存", "{params}B 参数 × {bytes} 字节 = {needed} 显存；每卡可用 {per_gpu}，至少需要 {gpus} 块 GPU。"},
  {"recommend.platform", "Platform",
   "{gpus} GPU(s) per node on {platform}.",
   "平台", "每节点 {gpus} 块 GPU，平台 {platform}。"},
  {"recommend.cpu", "CPU cores",
   "{cores_needed} cores wanted ({reason}); {sockets} × {cpu} give {cores}.",
   "CPU 核数", "需要 {cores_needed} 核（{reason}）；{sockets} 颗 {cpu} 共 {cores} 核。"},
  {"recommend.memory", "Host memory",
   "{memory} GB: at least {min} GB and {ratio} × the GPUs' {gpu_memory} GB.",
   "主机内存", "{memory} GB：不少于 {min} GB，且为 GPU 显存 {gpu_memory} GB 的 {ratio} 倍。"},
  {"recommend.storage", "Data storage",
   "{disks} × {disk} = {capacity} TB of NVMe for a {dataset} TB data set (× {headroom} for checkpoints and staging, at least {min} TB).",
   "数据存储", "{disks} × {disk} = {capacity} TB NVMe，数据集 {dataset} TB（×{headroom} 预留检查点与中转，至少 {min} TB）。"},
  {"recommend.network", "Network",
   "{nodes} nodes: {nics} per node for RDMA, an InfiniBand switch and a cluster manager ({cluster_manager}).",
   "网络", "{nodes} 个节点：每节点 {nics} 用于 RDMA，另配 IB 交换机和集群管理（{cluster_manager}）。"},
  {"recommend.rack", "Rack circuit",
   "The node peaks at {peak}: {rack} carries {continuous} of continuous load.",
   "机柜电路", "单节点峰值 {peak}：{rack} 可持续承载 {continuous}。"},
  {"recommend.region", "Region",
   "Latency tolerance {latency} ms: {region} ({region_latency} ms) is the cheapest region within it. For interactive inference a 5 ms region beats a 20 ms one.",
   "地域", "可接受延迟 {latency} ms：{region}（{region_latency} ms）是满足要求的最便宜地域。交互式推理中 5 ms 机房优于 20 ms 机房。"},
  {"recommend.budget", "Over budget",
   "The {mode} total {total} is above the budget of {budget}.",
   "超出预算", "{mode} 合计 {total}，超过预算 {budget}。"},

  // Troubleshooting from telemetry (SPEC H1–H6, gpuplan diagnose)
  {"diagnose.thermal/airflow", "GPU held above the airflow limit",
   "{gpu} stayed above {limit} for {minutes} min ({ranges}; peak {peak}). Under load {normal} is normal; above {limit} for {sustained} min or more the GPU throttles and runs {slowdown} slower. Check the airflow: blanking panels, fan speed, inlet temperature, cables blocking the path.",
   "GPU 长时间高于散热上限",
   "{gpu} 在 {ranges} 持续高于 {limit}，共 {minutes} 分钟（峰值 {peak}）。负载下 {normal} 属正常；超过 {limit} 持续 {sustained} 分钟以上会降频，速度慢 {slowdown}。请检查风道：盲板、风扇转速、进风温度、线缆是否挡风。"},
  {"diagnose.thermal/throttle", "GPU clocks held back by heat",
   "{gpu} reported {reasons} during {ranges} (peak {peak}). Throttling costs {slowdown} of speed; {normal} is normal under load. Check the airflow and the inlet temperature.",
   "GPU 因过热降频",
   "{gpu} 在 {ranges} 报告 {reasons}（峰值 {peak}）。降频会慢 {slowdown}；负载下 {normal} 属正常。请检查风道和进风温度。"},
  {"diagnose.thermal/throttle_now", "GPU throttling for heat now",
   "{gpu} reports {reasons} at {temperature}. Throttling costs {slowdown} of speed; {normal} is normal under load. Check the airflow and the inlet temperature.",
   "GPU 当前因过热降频",
   "{gpu} 当前报告 {reasons}，温度 {temperature}。降频会慢 {slowdown}；负载下 {normal} 属正常。请检查风道和进风温度。"},
  {"diagnose.pcie_link/downgraded", "PCIe link downgraded",
   "{gpu} runs at {link} (maximum {max}), below {expected}: host-to-GPU copies slow down in proportion. Reseat the card or riser, check the slot's BIOS setting, and ask for a CPU-direct {expected} slot. Read from {where}.",
   "PCIe 链路降级",
   "{gpu} 运行在 {link}（最高 {max}），低于 {expected}：主机与 GPU 间拷贝按比例变慢。请重新插拔显卡或转接卡，检查该插槽的 BIOS 设置，并要求 CPU 直连的 {expected} 插槽。数据来自 {where}。"},
  {"diagnose.pcie_link/below_max", "PCIe link below its maximum",
   "{gpu} runs at {link}, below its own maximum {max}. Reseat the card or riser and check the slot's BIOS setting. Read from {where}.",
   "PCIe 链路低于最大能力",
   "{gpu} 运行在 {link}，低于其最大能力 {max}。请重新插拔显卡或转接卡，并检查插槽 BIOS 设置。数据来自 {where}。"},
  {"diagnose.pcie_link/idle_speed", "Idle GPU at a lower PCIe speed",
   "{gpu} is idle and runs its link at {link} (maximum {max}): idle GPUs lower the link speed to save power. Re-check under load; only a link that stays below {expected} under load is a fault.",
   "空闲 GPU 的 PCIe 速率较低",
   "{gpu} 空闲，链路为 {link}（最高 {max}）：GPU 空闲时会降低链路速率以省电。请在负载下复查；只有负载下仍低于 {expected} 才是故障。"},
  {"diagnose.input_bound/starved", "GPUs waiting for input",
   "All {gpus} GPUs averaged below {limit} utilization ({utilization}) during {range}, while temperature (at most {temperature}) and power (at most {power}) stayed low: the job is bound by data loading or the CPU. Raise the DataLoader's num_workers, set persistent_workers=True and pin_memory=True, and pre-process data ahead of training.",
   "GPU 在等待输入数据",
   "{range} 期间全部 {gpus} 块 GPU 平均利用率低于 {limit}（{utilization}），温度（最高 {temperature}）和功耗（最高 {power}）都偏低：任务受数据加载或 CPU 限制。请增加 DataLoader 的 num_workers，设置 persistent_workers=True 和 pin_memory=True，并提前做好数据预处理。"},
  {"diagnose.input_bound/periodic", "GPU utilization drops periodically",
   "{gpu} dropped below {limit} utilization {drops} times, every {period} ({range}): a regular stall points at data loading that cannot keep up. Raise the DataLoader's num_workers and prefetch_factor, set persistent_workers=True.",
   "GPU 利用率周期性下降",
   "{gpu} 利用率 {drops} 次跌破 {limit}，间隔约 {period}（{range}）：规律性停顿说明数据加载跟不上。请增加 DataLoader 的 num_workers 和 prefetch_factor，设置 persistent_workers=True。"},
  {"diagnose.memory/near_full", "GPU memory near full",
   "{gpu} used {peak} of its memory (above {limit}) during {ranges}: the next allocation can fail with out-of-memory even when the total looks sufficient. Set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True against fragmentation, lower the batch size or use activation checkpointing; for serving, a framework that pages the KV cache (vLLM, TensorRT-LLM).",
   "GPU 显存接近占满",
   "{gpu} 在 {ranges} 显存占用达到 {peak}（超过 {limit}）：即使总量看似够用，下一次分配也可能 OOM。请设置 PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True 缓解碎片，减小 batch 或使用激活重计算；推理服务可用分页管理 KV 缓存的框架（vLLM、TensorRT-LLM）。"},
  {"diagnose.memory/leftover", "Idle GPU holding memory",
   "{gpu} is idle ({utilization} utilization) but {used} of its memory is held (processes: {processes}): a leftover or hung process keeps it. Stop those processes (nvidia-smi shows their PIDs) before the next job.",
   "空闲 GPU 仍占用显存",
   "{gpu} 空闲（利用率 {utilization}），却有 {used} 显存被占用（进程：{processes}）：残留或卡死的进程未释放显存。请在下一个任务前结束这些进程（nvidia-smi 可查看 PID）。"},
  {"diagnose.p2p/pcie_pairs", "GPU pairs talking over PCIe on an NVLink board",
   "{count} GPU pair(s) connect over PCIe instead of NVLink/NVSwitch ({pairs}; from {where}): all-reduce between them runs at PCIe speed. Check that the Fabric Manager service runs (NVSwitch boards), the NVLink bridges are seated, and that peer-to-peer is not disabled (NCCL_P2P_DISABLE, ACS in the BIOS).",
   "NVLink 主板上的 GPU 对走 PCIe",
   "{count} 对 GPU 通过 PCIe 而非 NVLink/NVSwitch 相连（{pairs}；来自 {where}）：它们之间的 all-reduce 只有 PCIe 速度。请确认 Fabric Manager 服务已运行（NVSwitch 主板）、NVLink 桥已插好，且 P2P 未被禁用（NCCL_P2P_DISABLE、BIOS 中的 ACS）。"},
  {"diagnose.used_card/serial_missing", "GPU without a serial number",
   "{gpus}: no serial number. Retail boards carry one; a missing serial is a sign of a used, repaired or engineering-sample card. Ask the vendor for the card's origin and warranty.",
   "GPU 没有序列号",
   "{gpus}：没有序列号。正规零售卡都有序列号；缺失可能是二手、维修过或工程样卡。请向供应商确认来源和保修。"},
  {"diagnose.used_card/serial_duplicate", "GPUs sharing one serial number",
   "{gpus} all report serial {serial}: serials are unique per board, so the boards were reflashed or relabelled. Ask the vendor for the card's origin and warranty.",
   "多块 GPU 序列号相同",
   "{gpus} 的序列号都是 {serial}：序列号每块卡唯一，说明卡被重刷或改标。请向供应商确认来源和保修。"},
  {"diagnose.used_card/engineering_sample", "Engineering-sample marker",
   "{gpu}: {field} is \"{value}\" ({meaning}; marker {marker}). Engineering samples are not sold with warranty; ask the vendor for a retail card.",
   "工程样卡标记",
   "{gpu}：{field} 为“{value}”（{meaning}；标记 {marker}）。工程样卡不享受正规保修，请要求供应商更换零售卡。"},
  {"diagnose.used_card/repaired_memory", "Repaired memory on a card sold as new",
   "{gpu} (serial {serial}) has {retired} retired page(s) and {remapped} remapped row(s): its memory has failed and been patched before. A new card shows none; ask for a replacement or the card's history.",
   "新卡存在显存修复记录",
   "{gpu}（序列号 {serial}）有 {retired} 个退役页、{remapped} 个重映射行：显存曾出错并被修补。新卡应为零，请要求更换或提供该卡的历史记录。"},
};

const std::vector<std::pair<std::string_view, std::pair<std::string_view, std::string_view>>> kUi = {
  {"quote", {"Quote", "报价"}},
  {"usage_per_host", {"Mean utilization per host", "各主机平均利用率"}},
  {"usage_host", {"Host", "主机"}},
  {"usage_gpus", {"GPUs", "GPU 数"}},
  {"config", {"Configuration", "配置"}},
  {"line", {"Line", "项目"}},
  {"qty", {"Qty", "数量"}},
  {"buy", {"Buy", "采购"}},
  {"rent_monthly", {"Rent / month", "月租"}},
  {"source", {"Source", "来源"}},
  {"total", {"Total", "合计"}},
  {"per_gpu", {"Per GPU", "每卡"}},
  {"market", {"Market, whole server", "整机市场价"}},
  {"hidden_costs", {"Hidden costs (not in the totals)", "隐性成本（不含在合计中）"}},
  {"not_included", {"not included", "未包含"}},
  {"per_month", {"/month", "/月"}},
  {"findings", {"Findings", "检查结果"}},
  {"no_findings", {"No findings.", "没有发现问题。"}},
  {"power", {"Peak power per node", "单节点峰值功耗"}},
  {"prices_note", {"Prices in CNY, ranges low–high; catalog figures carry their source and date.",
                   "价格单位人民币，区间为低–高；目录数据均注明来源和日期。"}},
  {"recommendation", {"Recommendation", "推荐"}},
  {"why", {"Why", "依据"}},
  {"audit", {"Audit", "审核"}},
  {"verdict", {"Verdict", "结论"}},
  {"pass", {"pass", "通过"}},
  {"fail", {"fail", "不通过"}},
  {"severity", {"Severity", "级别"}},
  {"id", {"Id", "编号"}},
  {"finding", {"Finding", "问题"}},
  // gpuplan tco (report/tco_render.cpp)
  {"tco_title", {"Rent vs buy", "租用还是购买"}},
  {"tco_months", {"{n} months", "{n} 个月"}},
  {"tco_demand", {"Demand", "需求"}},
  {"tco_used_gpu_hours", {"used GPU-hours", "实际使用 GPU 小时"}},
  {"tco_average_utilization", {"average utilization of the owned GPUs", "自有 GPU 平均利用率"}},
  {"tco_strategies", {"Strategies", "方案对比"}},
  {"tco_strategy", {"Strategy", "方案"}},
  {"tco_strategy_name", {"Name", "名称"}},
  {"tco_per_used_gpu_hour", {"Per used GPU-hour", "每使用 GPU 小时"}},
  {"tco_cheapest", {"cheapest", "最便宜"}},
  {"tco_cost_lines", {"Cost lines", "成本明细"}},
  {"tco_amount", {"Amount", "金额"}},
  {"tco_rule_of_thumb", {"rule of thumb", "经验法则"}},
  {"tco_break_even", {"Break-even: buy against each rent option", "盈亏平衡：购买对比各租用方案"}},
  {"tco_against", {"Against", "对比方案"}},
  {"tco_break_even_month", {"Buy cheaper from month", "购买更划算的起始月份"}},
  {"tco_break_even_utilization", {"Break-even utilization", "盈亏平衡利用率"}},
  {"tco_never_in_horizon", {"never within the horizon", "周期内不会"}},
  {"tco_no_utilization", {"none between 0% and 100%", "0%–100% 之间不存在"}},
  {"tco_hourly_vs_monthly", {"Hourly vs monthly", "按量计费与包月"}},
  {"tco_monthly_above", {"monthly is cheaper above {hours} busy hours a month", "每月忙碌超过 {hours} 小时时包月更便宜"}},
  {"tco_no_boundary", {"not computed (needs both an hourly and a monthly offer)", "未计算（需要同时有按量和包月报价）"}},
  {"tco_hybrid", {"Hybrid: owned baseline + on-demand burst", "混合：自有基线 + 按需弹性"}},
  {"tco_hybrid_optimum", {"optimum: own {b} GPUs, total {total}", "最优：自有 {b} 块 GPU，合计 {total}"}},
  {"tco_owned_gpus", {"Owned GPUs (B)", "自有 GPU 数 (B)"}},
  {"tco_investments", {"Investments", "投资项目"}},
  {"tco_investment", {"Investment", "投资"}},
  {"tco_upfront", {"Upfront", "一次性投入"}},
  {"tco_cost_monthly", {"Cost / month", "月成本"}},
  {"tco_benefit_monthly", {"Benefit / month", "月收益"}},
  {"tco_net", {"Net over the horizon", "周期内净值"}},
  {"tco_payback", {"Payback month", "回本月份"}},
  {"tco_never", {"never", "不回本"}},
  {"tco_basis", {"Basis", "依据"}},
  {"tco_tornado", {"Sensitivity: each input ±20%", "敏感性：各输入 ±20%"}},
  {"tco_margin", {"Margin", "差额"}},
  {"tco_base", {"base", "基准"}},
  {"tco_input", {"Input", "输入"}},
  {"tco_at_low", {"At −20%", "−20% 时"}},
  {"tco_at_high", {"At +20%", "+20% 时"}},
  {"tco_swing", {"Swing", "摆幅"}},
  {"tco_flips", {"flips the decision", "改变结论"}},
  {"tco_more_inputs", {"{n} more in --format json or html", "另有 {n} 项，见 --format json 或 html"}},
  {"tco_monte_carlo", {"Monte Carlo over the catalog ranges", "蒙特卡洛（按目录区间抽样）"}},
  {"tco_draws", {"{draws} draws, seed {seed}", "{draws} 次抽样，随机种子 {seed}"}},
  {"tco_p_buy_beats_rent", {"P(buy beats rent)", "购买优于租用的概率"}},
  {"tco_not_run", {"not run", "未运行"}},
  {"tco_non_financial", {"Non-financial factors", "非财务因素"}},
  {"tco_factor", {"Factor", "因素"}},
  {"tco_note", {"What it means here", "说明"}},
  {"tco_none", {"none", "无"}},
  {"tco_chart_cumulative", {"Cumulative cash by month", "按月累计现金支出"}},
  {"tco_chart_hybrid", {"Hybrid total against owned GPUs", "混合方案总成本随自有 GPU 数变化"}},
  {"tco_chart_tornado", {"Tornado: decision margin with each input at ±20%", "龙卷风图：各输入 ±20% 时的决策差额"}},
  {"tco_month", {"month", "月份"}},
  {"tco_optimum", {"optimum", "最优"}},
  {"tco_buy_equals_rent", {"0: buy = rent", "0：购买 = 租用"}},
  {"tco_s_buy", {"Buy and run", "购买自建"}},
  {"tco_s_rent_monthly", {"Rent by the month", "包月租用"}},
  {"tco_s_rent_hourly", {"Rent on demand", "按需租用"}},
  {"tco_s_spot", {"Spot / preemptible", "竞价实例"}},
  {"tco_s_reserved", {"Reserved / committed", "预留实例"}},
  {"tco_s_hybrid", {"Hybrid: own B, burst to on demand", "混合：自有 B 块 + 按需扩容"}},
  // gpuplan usage (report/usage_render.cpp)
  {"usage_title", {"GPU usage", "GPU 使用情况"}},
  {"usage_summary", {"{hours} hours{period} · {gpus} GPUs · {skipped} lines skipped",
                     "{hours} 小时{period} · {gpus} 块 GPU · 跳过 {skipped} 行"}},
  {"usage_period", {" ({from} – {to})", "（{from} – {to}）"}},
  {"usage_demand_summary", {"busy GPUs per hour: mean {mean}, peak {peak}", "每小时忙碌 GPU：平均 {mean}，峰值 {peak}"}},
  {"usage_by_weekday", {"Weekday × hour: mean utilization", "星期 × 小时：平均利用率"}},
  {"usage_by_day", {"Day × hour: mean utilization", "日期 × 小时：平均利用率"}},
  {"usage_grouped_days", {"{days} days: each row is the mean of {n} days; --format html draws every day",
                          "共 {days} 天：每行为 {n} 天的平均值；--format html 显示每一天"}},
  {"usage_no_data", {"no data", "无数据"}},
  {"usage_hour_of_day", {"hour of day", "小时"}},
  {"usage_bins", {"Share of GPU-hours by utilization", "各利用率区间的 GPU 小时占比"}},
  {"usage_utilization", {"Utilization", "利用率"}},
  {"usage_share", {"Share", "占比"}},
  {"usage_per_gpu", {"Mean utilization per GPU", "每块 GPU 的平均利用率"}},
  {"usage_gpu", {"GPU", "GPU"}},
  {"usage_mean_util", {"Mean utilization", "平均利用率"}},
  {"usage_pattern", {"Pattern (rule of thumb)", "使用模式（经验法则）"}},
  {"usage_v_rent", {"rent", "租用"}},
  {"usage_v_buy", {"buy", "购买"}},
  {"usage_v_hybrid", {"hybrid", "混合"}},
  {"usage_cost", {"Cost-optimal strategy on this profile", "按此负载计算的最优成本方案"}},
  {"usage_own", {"; own {n} GPUs", "；自有 {n} 块 GPU"}},
  {"usage_no_costs", {"not computed: no prices for this profile", "未计算：没有此负载的价格"}},
  {"usage_skipped", {"Skipped lines", "跳过的行"}},
  {"usage_more", {"… {n} more", "… 另有 {n} 行"}},
  {"usage_duplicates", {"{n} duplicate samples ignored", "忽略 {n} 个重复样本"}},
  {"usage_clock_jumps", {"{n} clock jumps (time went backwards)", "{n} 次时钟回跳（时间倒退）"}},
};
// clang-format on

const Message* find_message(std::string_view key) {
  auto it = std::find_if(kMessages.begin(), kMessages.end(), [&](const Message& m) { return m.key == key; });
  return it == kMessages.end() ? nullptr : &*it;
}

}  // namespace

Lang lang_from_env() {
  for (const char* var : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
    const char* v = std::getenv(var);
    if (v && *v) return std::string_view(v).substr(0, 2) == "zh" ? Lang::kZh : Lang::kEn;
  }
  return Lang::kEn;
}

bool parse_lang(std::string_view s, Lang& out) {
  if (s == "en") out = Lang::kEn;
  else if (s == "zh") out = Lang::kZh;
  else return false;
  return true;
}

std::string fill(std::string_view text, const Finding& f) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    size_t open = text.find('{', i);
    size_t close = open == std::string_view::npos ? open : text.find('}', open);
    if (close == std::string_view::npos) {
      out += text.substr(i);
      break;
    }
    out += text.substr(i, open - i);
    std::string name(text.substr(open + 1, close - open - 1));
    const std::string* value = f.find_fact(name);
    out += value ? *value : "{" + name + "}";
    i = close + 1;
  }
  return out;
}

LocalizedFinding localize(const Finding& f, Lang lang) {
  const Message* m = find_message(f.message_key());
  if (!m) m = find_message(f.id);
  if (!m) return {f.id, ""};
  bool zh = lang == Lang::kZh;
  return {fill(zh ? m->zh_title : m->en_title, f), fill(zh ? m->zh_detail : m->en_detail, f)};
}

std::string ui(std::string_view key, Lang lang) {
  for (const auto& [k, words] : kUi)
    if (k == key) return std::string(lang == Lang::kZh ? words.second : words.first);
  return std::string(key);
}

bool has_message(std::string_view key) { return find_message(key) != nullptr; }

}  // namespace gpuplan::report

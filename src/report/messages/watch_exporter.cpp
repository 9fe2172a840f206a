// Words of the exporter (/metrics, web config) and the alerting rules watch writes.
#include "report/messages/tables.h"

namespace gpuplan::report::messages {
namespace {

// clang-format off
constexpr Words kWords[] = {
  {"cli.help.watch.rules", "print Prometheus alerting rules from the catalog thresholds", "根据目录阈值输出 Prometheus 告警规则"},
  // The exporter: --listen and the web-config file.
  {"watch.exporter.bad_listen", "expected host:port (for example 127.0.0.1:9400 or [::1]:9400), got {got}", "应为 主机:端口（例如 127.0.0.1:9400 或 [::1]:9400），实际为 {got}"},
  {"watch.exporter.bad_port", "the port must be a whole number from 0 to 65535, got {got}", "端口须为 0 到 65535 之间的整数，实际为 {got}"},
  {"watch.exporter.bind_failed", "cannot listen on {address}: the port is in use or the address is not one of this host's", "无法在 {address} 上监听：端口已被占用，或该地址不属于本机"},
  {"watch.web_config.unreadable", "cannot read the web-config file: {why}", "无法读取 web 配置文件：{why}"},
  {"watch.web_config.not_yaml", "not valid YAML: {why}", "不是有效的 YAML：{why}"},
  {"watch.web_config.not_map", "must be a mapping of settings", "必须是设置项的映射"},
  {"watch.web_config.not_text", "must be a text value", "必须是文本值"},
  {"watch.web_config.unknown_field", "not a web-config setting gpuplan serves (it reads tls_server_config.cert_file, tls_server_config.key_file and basic_auth_users)", "不是 gpuplan 支持的 web 配置项（支持 tls_server_config.cert_file、tls_server_config.key_file 和 basic_auth_users）"},
  {"watch.web_config.cert_without_key", "cert_file and key_file must be given together", "cert_file 和 key_file 必须同时给出"},
  {"watch.web_config.not_bcrypt", "the password of {user} must be a bcrypt hash ($2y$, $2b$ or $2a$), never the password itself", "用户 {user} 的密码必须是 bcrypt 哈希（$2y$、$2b$ 或 $2a$），不能是明文密码"},
  {"watch.web_config.tls_load", "cannot load the certificate {cert} with the key {key}", "无法用私钥 {key} 加载证书 {cert}"},
  // Alerting rules: {gpu}, {host} and {value} are Prometheus templates filled when the alert fires.
  {"watch.rule.ecc_uncorrected.summary", "Uncorrected ECC errors on GPU {gpu} of {host}", "{host} 的 GPU {gpu} 出现不可纠正 ECC 错误"},
  {"watch.rule.ecc_uncorrected.description", "GPU {gpu} of {host} counts {value} uncorrected (double-bit) ECC errors: drain it and have the vendor check it.", "{host} 的 GPU {gpu} 已累计 {value} 个不可纠正（双比特）ECC 错误：请排空该卡上的任务并让供应商检查。"},
  {"watch.rule.ecc_corrected_rising.summary", "Corrected ECC errors rising on GPU {gpu} of {host}", "{host} 的 GPU {gpu} 已纠正 ECC 错误持续上升"},
  {"watch.rule.ecc_corrected_rising.description", "GPU {gpu} of {host} corrected {value} more ECC errors in {hours} h (allowed {allowed}): a rising count is the early sign of ageing memory.", "{host} 的 GPU {gpu} 在 {hours} 小时内新增 {value} 个已纠正 ECC 错误（允许 {allowed} 个）：计数持续上升是显存老化的早期征兆。"},
  {"watch.rule.too_hot.summary", "GPU {gpu} of {host} above {limit} °C", "{host} 的 GPU {gpu} 温度超过 {limit} °C"},
  {"watch.rule.too_hot.description", "GPU {gpu} of {host} has been at {value} °C for {minutes} min, above the acceptance limit of {limit} °C: check airflow and fans.", "{host} 的 GPU {gpu} 已持续 {minutes} 分钟处于 {value} °C，超过验收上限 {limit} °C：请检查风道和风扇。"},
  {"watch.rule.pcie_below_max.summary", "PCIe link of GPU {gpu} of {host} below its maximum", "{host} 的 GPU {gpu} 的 PCIe 链路低于其最高规格"},
  {"watch.rule.pcie_below_max.description", "The PCIe link of GPU {gpu} of {host} has run narrower than its maximum, or slower under load, for {minutes} min: reseat the card or riser.", "{host} 的 GPU {gpu} 的 PCIe 链路宽度低于最高规格，或在负载下速率偏低，已持续 {minutes} 分钟：请重新插拔显卡或转接卡。"},
  {"watch.rule.xid_fail.summary", "Fail-class Xid on GPU {gpu} of {host}", "{host} 的 GPU {gpu} 出现故障级 Xid"},
  {"watch.rule.xid_fail.description", "The kernel logged an Xid that fails acceptance (codes {codes}) for GPU {gpu} of {host}: catalog/xid.yaml names the action for each code.", "内核为 {host} 的 GPU {gpu} 记录了验收判为失败的 Xid（代码 {codes}）：各代码的处置方法见 catalog/xid.yaml。"},
  {"watch.rule.gpu_lost.summary", "GPU {gpu} of {host} fell off the bus", "{host} 的 GPU {gpu} 已从总线上掉卡"},
  {"watch.rule.gpu_lost.description", "NVML reports GPU {gpu} of {host} lost: the server runs with one GPU fewer until it is reset or the machine rebooted.", "NVML 报告 {host} 的 GPU {gpu} 已丢失：在复位该卡或重启服务器之前，服务器少一块 GPU 运行。"},
};
// clang-format on

}  // namespace

std::span<const Words> watch_exporter_words() { return kWords; }

}  // namespace gpuplan::report::messages

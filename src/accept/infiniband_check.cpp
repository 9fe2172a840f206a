// The infiniband acceptance check (G4): every InfiniBand port that sysfs or ibstat shows is up,
// with a subnet manager; the fabric's own settings (subnet manager, adaptive routing) live
// outside the host, so a pass rests on a file the buyer attaches.
#include <vector>

#include "accept/check_helpers.h"
#include "accept/checks.h"

namespace gpuplan::accept::detail {

// G4 --------------------------------------------------------------------------------------------
void check_infiniband(const AcceptInputs& in, const Catalog&, Finding& c) {
  if (!in.facts && !in.ibstat) return needs(c, phrase("accept.needs.ib_input"));
  std::vector<Phrase> down;
  int ports = 0;
  if (in.facts) {
    for (const auto& p : in.facts->ib_ports) {
      if (!p.link_layer.empty() && p.link_layer != "InfiniBand") continue;
      ++ports;
      Phrase port = phrase("accept.ib.sysfs_port")
                        .fact("device", p.device)
                        .fact("port", std::to_string(p.port))
                        .fact("state", p.state)
                        .fact("phys", p.phys_state)
                        .fact("rate", p.rate);
      c.evidence.push_back(port);
      if (!p.active()) down.push_back(phrase("accept.ib.sysfs_down").fact("port", {port}));
    }
  }
  if (in.ibstat) {
    for (const auto& p : *in.ibstat) {
      if (!p.link_layer.empty() && p.link_layer != "InfiniBand") continue;
      ++ports;
      Phrase port = phrase("accept.ib.ibstat_port")
                        .fact("ca", p.ca)
                        .fact("port", std::to_string(p.port))
                        .fact("state", p.state)
                        .fact("phys", p.physical_state)
                        .fact("sm", p.sm_lid ? std::to_string(*p.sm_lid) : "?");
      c.evidence.push_back(port);
      if (p.state != "Active" || p.physical_state != "LinkUp")
        down.push_back(phrase("accept.ib.ibstat_down").fact("port", {port}));
      else if (p.sm_lid && *p.sm_lid == 0)
        down.push_back(phrase("accept.ib.no_subnet_manager").fact("port", {port}));
    }
  }
  if (ports == 0) {
    c.severity = Severity::kPass;
    c.note(phrase("accept.ib.none"));
    return;
  }
  if (!down.empty()) {
    c.severity = Severity::kFail;
    for (auto& p : down) c.note(std::move(p));
    return;
  }
  // Subnet-manager configuration and adaptive routing live in the fabric, not in host files.
  auto att = in.attached.find("infiniband");
  if (att == in.attached.end())
    return needs(c, phrase("accept.ib.needs_attachment").fact("ports", std::to_string(ports)));
  c.severity = Severity::kPass;
  c.evidence.push_back(phrase("accept.ev.attached").fact("file", att->second));
  c.note(phrase("accept.ib.ok").fact("ports", std::to_string(ports)).fact("file", att->second));
}

}  // namespace gpuplan::accept::detail

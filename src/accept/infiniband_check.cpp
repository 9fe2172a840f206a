// The infiniband acceptance check (G4): every InfiniBand port that sysfs, ibstat or an attached
// file shows is up, with a subnet manager; the fabric's own settings (subnet manager, adaptive
// routing) live outside the host, so a pass rests on a file the buyer attaches, read as ibstat,
// ibstatus, sminfo or ibdiagnet output (probe/attached_tools.h). A file gpuplan cannot read never
// passes: the check then still asks for one.
#include <algorithm>
#include <string>
#include <vector>

#include "accept/attachment_helpers.h"
#include "accept/check_helpers.h"
#include "accept/checks.h"

namespace gpuplan::accept::detail {

namespace {

struct IbJudgement {
  int host_ports = 0;
  std::vector<Phrase> down;                     // fail
  std::vector<const probe::IbstatPort*> rated;  // ibstat-form ports with a rate, for the rate check
  std::vector<const Attachment*> read;          // attachments that gave something to judge
  bool sm_shown = false;                        // a subnet manager answers, in an attachment
  std::vector<std::string> forms;               // what the attachments were read as
  bool unread = false;                          // an attachment gave nothing: the check cannot pass
  int attached_ports = 0;                       // InfiniBand ports the attachments list
  int roce_ports = 0;                           // RDMA ports on Ethernet (RoCE): no subnet manager
};

// One ibstat-form port (from --ibstat or an attachment) against Active/LinkUp and a subnet manager.
void judge_port(const probe::IbstatPort& p, Phrase port, Finding& c, IbJudgement& j) {
  c.evidence.push_back(port);
  if (p.state != "Active" || p.physical_state != "LinkUp")
    j.down.push_back(phrase("accept.ib.ibstat_down").fact("port", {port}));
  else if (p.sm_lid && *p.sm_lid == 0)
    j.down.push_back(phrase("accept.ib.no_subnet_manager").fact("port", {port}));
  if (p.rate_gbps) j.rated.push_back(&p);
}

bool is_ib(const probe::IbstatPort& p) {
  return p.link_layer.empty() || p.link_layer == "InfiniBand";
}

void judge_host(const AcceptInputs& in, Finding& c, IbJudgement& j) {
  if (in.facts) {
    for (const auto& p : in.facts->ib_ports) {
      if (!p.link_layer.empty() && p.link_layer != "InfiniBand") {
        ++j.roce_ports;
        continue;
      }
      ++j.host_ports;
      Phrase port = phrase("accept.ib.sysfs_port")
                        .fact("device", p.device)
                        .fact("port", std::to_string(p.port))
                        .fact("state", p.state)
                        .fact("phys", p.phys_state)
                        .fact("rate", p.rate);
      c.evidence.push_back(port);
      if (!p.active()) j.down.push_back(phrase("accept.ib.sysfs_down").fact("port", {port}));
    }
  }
  if (in.ibstat) {
    for (const auto& p : *in.ibstat) {
      if (!is_ib(p)) {
        ++j.roce_ports;
        continue;
      }
      ++j.host_ports;
      judge_port(p,
                 phrase("accept.ib.ibstat_port")
                     .fact("ca", p.ca)
                     .fact("port", std::to_string(p.port))
                     .fact("state", p.state)
                     .fact("phys", p.physical_state)
                     .fact("sm", p.sm_lid ? std::to_string(*p.sm_lid) : "?"),
                 c, j);
    }
  }
}

// What the subnet manager and adaptive routing evidence in one ibdiagnet summary says.
void judge_ibdiagnet(const Attachment& a, const probe::IbdiagnetSummary& d, Finding& c, IbJudgement& j) {
  if (!d.master_sm.empty()) {
    j.sm_shown = true;
    c.evidence.push_back(phrase("accept.ib.master_sm").fact("sm", d.master_sm).fact("file", a.file));
  }
  if (d.ar_switches && *d.ar_switches > 0)
    c.note(phrase("accept.ib.ar_enabled").fact("switches", std::to_string(*d.ar_switches)).fact("file", a.file));
  else if (d.ar_switches) {
    escalate(c.severity, Severity::kWarn);
    c.note(phrase("accept.ib.ar_none").fact("file", a.file));
  }
  std::vector<std::string> stages;
  int errors = 0;
  for (const auto& s : d.stages)
    if (s.errors > 0) {
      stages.push_back(s.name);
      errors += s.errors;
    }
  if (errors > 0) {
    // The errors may be anywhere in the fabric, not on this host: a warning, with where to read them.
    escalate(c.severity, Severity::kWarn);
    c.note(phrase("accept.ib.stage_errors")
               .fact("file", a.file)
               .fact("errors", std::to_string(errors))
               .fact(list_of("stages", stages)));
  }
}

void judge_attachment(const Attachment& a, Finding& c, IbJudgement& j) {
  static const std::vector<std::string> known(std::begin(probe::kIbForms), std::end(probe::kIbForms));
  const probe::IbEvidence& ev = *a.ib;
  if (!attachment_usable(a, ev.forms, ev.incomplete, known, c)) {
    j.unread = true;
    return;
  }
  j.read.push_back(&a);
  for (const auto& f : ev.forms)
    if (std::find(j.forms.begin(), j.forms.end(), f) == j.forms.end()) j.forms.push_back(f);
  bool ports_name_sm = false;
  for (const auto& p : ev.ports) {
    if (!is_ib(p)) {
      ++j.roce_ports;
      continue;
    }
    ++j.attached_ports;
    ports_name_sm = ports_name_sm || (p.sm_lid && *p.sm_lid > 0);
    judge_port(p,
               phrase("accept.ib.attached_port")
                   .fact("file", a.file)
                   .fact("ca", p.ca)
                   .fact("port", std::to_string(p.port))
                   .fact("state", p.state)
                   .fact("phys", p.physical_state)
                   .fact("rate", p.rate_gbps ? std::to_string(*p.rate_gbps) : "?")
                   .fact("sm", p.sm_lid ? std::to_string(*p.sm_lid) : "?"),
               c, j);
  }
  j.sm_shown = j.sm_shown || ports_name_sm;
  if (ev.sminfo) {
    c.evidence.push_back(phrase("accept.ib.sminfo").fact("line", ev.sminfo->line).fact("file", a.file));
    if (ev.sminfo->answered) {
      j.sm_shown = true;
    } else {
      // The query may have gone out of a port that is down: a warning, not a failure.
      escalate(c.severity, Severity::kWarn);
      c.note(phrase("accept.ib.sminfo_failed").fact("file", a.file).fact("line", ev.sminfo->line));
    }
  }
  if (ev.ibdiagnet) judge_ibdiagnet(a, *ev.ibdiagnet, c, j);
}

// Identical links train to the same rate: one below the others is a cable, a connector or a port
// set down. Ports of different adapters may differ by design, so this warns.
void judge_rates(const IbJudgement& j, Finding& c) {
  int top = 0;
  for (const auto* p : j.rated)
    if (p->state == "Active") top = std::max(top, *p->rate_gbps);
  std::vector<std::string> slow;
  for (const auto* p : j.rated)
    if (p->state == "Active" && *p->rate_gbps < top)
      slow.push_back(p->ca + " port " + std::to_string(p->port) + " " + std::to_string(*p->rate_gbps) + " Gb/s");
  if (slow.empty()) return;
  escalate(c.severity, Severity::kWarn);
  c.note(phrase("accept.ib.slow_ports").fact(list_of("ports", slow)).fact("rate", std::to_string(top)));
}

}  // namespace

// G4 --------------------------------------------------------------------------------------------
void check_infiniband(const AcceptInputs& in, const Catalog&, Finding& c) {
  const auto attached = attachments_for(in, "infiniband");
  if (!in.facts && !in.ibstat && attached.empty()) return needs(c, phrase("accept.needs.ib_input"));
  c.severity = Severity::kPass;
  IbJudgement j;
  judge_host(in, c, j);
  for (const Attachment* a : attached) judge_attachment(*a, c, j);
  const int ports = j.host_ports > 0 ? j.host_ports : std::max(j.attached_ports, static_cast<int>(j.rated.size()));
  if (!j.down.empty()) {
    c.severity = Severity::kFail;
    for (auto& p : j.down) c.note(std::move(p));
    return;
  }
  judge_rates(j, c);
  if (j.unread) escalate(c.severity, Severity::kNeedsEvidence);
  // RoCE ports run over Ethernet: there is no subnet manager to ask and no InfiniBand routing.
  if (ports == 0 && j.roce_ports > 0) {
    c.note(phrase("accept.ib.roce_only").fact("ports", std::to_string(j.roce_ports)));
    return;
  }
  if (ports == 0 && j.read.empty()) {
    if (!in.facts && !in.ibstat) return needs(c, phrase("accept.needs.ib_input"));
    c.note(phrase("accept.ib.none"));
    return;
  }
  // Subnet-manager configuration and adaptive routing live in the fabric, not in host files.
  if (j.read.empty()) return needs(c, phrase("accept.ib.needs_attachment").fact("ports", std::to_string(ports)));
  std::vector<std::string> files;
  for (const Attachment* a : j.read) files.push_back(a->file);
  if (!j.sm_shown) {
    escalate(c.severity, Severity::kNeedsEvidence);
    c.note(phrase("accept.ib.no_sm_shown").fact(list_of("files", files)).fact(list_of("forms", j.forms)));
    return;
  }
  c.note(phrase("accept.ib.ok")
             .fact("ports", std::to_string(ports))
             .fact(list_of("files", files))
             .fact(list_of("forms", j.forms)));
  const bool ar_shown = std::any_of(j.read.begin(), j.read.end(), [](const Attachment* a) {
    return a->ib->ibdiagnet && a->ib->ibdiagnet->ar_switches;
  });
  // Adaptive routing is half of what G4 asks: unseen, it is not accepted.
  if (!ar_shown) {
    escalate(c.severity, Severity::kNeedsEvidence);
    c.note(phrase("accept.ib.ar_not_shown"));
  }
}

}  // namespace gpuplan::accept::detail

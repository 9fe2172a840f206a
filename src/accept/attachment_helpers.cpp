#include "accept/attachment_helpers.h"

#include "accept/check_helpers.h"

namespace gpuplan::accept::detail {

std::vector<const Attachment*> attachments_for(const AcceptInputs& in, std::string_view check) {
  std::vector<const Attachment*> out;
  for (const Attachment& a : in.attachments)
    if (a.check == check) out.push_back(&a);
  return out;
}

std::string attachment_label(const Attachment& a) {
  return a.file + " (sha256 " + a.sha256 + ")";
}

bool attachment_usable(const Attachment& a, const std::vector<std::string>& read,
                       const std::vector<std::string>& incomplete, const std::vector<std::string>& known, Finding& c) {
  if (a.empty) {
    c.note(phrase("accept.attach.empty").fact("file", a.file));
    return false;
  }
  if (!incomplete.empty()) {
    escalate(c.severity, Severity::kWarn);
    c.note(phrase("accept.attach.incomplete").fact("file", a.file).fact(list_of("forms", incomplete)));
  }
  if (read.empty()) {
    c.note(phrase("accept.attach.not_understood").fact("file", a.file).fact(list_of("forms", known)));
    return false;
  }
  c.evidence.push_back(
      phrase("accept.ev.attached_read").fact("file", attachment_label(a)).fact(list_of("forms", read)));
  return true;
}

void note_unread_attachments(const AcceptInputs& in, Finding& c) {
  for (const Attachment* a : attachments_for(in, c.id)) {
    if (a->ib || a->firmware || a->dimms || a->lspci || a->check == "ecc") continue;  // read by its check
    c.evidence.push_back(phrase("accept.ev.attached").fact("file", attachment_label(*a)));
    c.note(phrase(a->empty ? "accept.attach.empty" : "accept.attach.for_a_person").fact("file", a->file));
  }
}

}  // namespace gpuplan::accept::detail

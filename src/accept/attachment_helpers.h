// What the checks that take --attach files share (detail of accept/, not for other modules): the
// attachments given to one check, and the notes an attachment gpuplan could not use leaves. A
// caller may rely on: an empty file, a file in no form the check reads, and a form cut short each
// leave a note naming the file (and the forms read), so no attachment passes unread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "accept/accept.h"

namespace gpuplan::accept::detail {

// The attachments given to `check`, in the order given.
std::vector<const Attachment*> attachments_for(const AcceptInputs& in, std::string_view check);

// "path (sha256 …)": how evidence names an attached file.
std::string attachment_label(const Attachment& a);

// Whether `a` gave anything to judge: false for an empty file or one in none of `known` forms
// (`read` is what was read), each with a note on `c`; forms cut short are noted and warn.
bool attachment_usable(const Attachment& a, const std::vector<std::string>& read,
                       const std::vector<std::string>& incomplete, const std::vector<std::string>& known, Finding& c);

// For the checks whose attachments a person judges (soak, load, performance, versions,
// health.archive): a note per file saying gpuplan did not read it. The verdict stays the check's own.
void note_unread_attachments(const AcceptInputs& in, Finding& c);

}  // namespace gpuplan::accept::detail

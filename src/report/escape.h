// Text from outside gpuplan (file contents, names in YAML, an HTTP error body, paths) made safe to
// show. A caller may rely on: escape_controls leaves newline, tab and every printable character
// (UTF-8 included) as they are and writes each other C0 control, DEL and C1 control (U+0080 to
// U+009F) as a visible escape ("\x1b", "\r", "\u009b"), and each byte that is not part of
// well-formed UTF-8 as "\x9b", so that no input can move the cursor, recolour or retitle a
// terminal, or hide text in a Markdown report.
#pragma once

#include <string>
#include <string_view>

#include "report/document.h"

namespace gpuplan::report {

std::string escape_controls(std::string_view text);

// The same for text the renderer coloured itself (Line::colour, a grid's colour): its SGR colour
// sequences ("\x1b[1;31m") are kept, every other control character escaped.
std::string escape_controls_but_colour(std::string_view text);

// `report` with every text in it passed through escape_controls (the colour variants through
// escape_controls_but_colour), so that the terminal and Markdown writers show no raw control
// character whatever the report quotes.
Report without_controls(Report report);

}  // namespace gpuplan::report

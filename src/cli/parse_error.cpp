#include "cli/parse_error.h"

#include <regex>
#include <sstream>

#include "cli/common.h"
#include "core/text.h"

namespace gpuplan::cli {
namespace {

std::vector<std::string> verbs_of(const CLI::App* app) {
  std::vector<std::string> out;
  for (const CLI::App* sub : app->get_subcommands([](const CLI::App* s) { return !s->get_name().empty(); }))
    out.push_back(sub->get_name());
  return out;
}

// " (expected 整数)": the type name of the option `name`, as --help shows it.
std::vector<Phrase> expected_type(const CLI::App* at, const std::string& name) {
  for (const CLI::App* app = at; app; app = app->get_parent()) {
    const CLI::Option* opt = app->get_option_no_throw(name);
    if (!opt) continue;
    if (opt->get_type_name().empty()) return {};
    return {Phrase("cli.parse.expected").fact("type", app->get_formatter()->get_label(opt->get_type_name()))};
  }
  return {};
}

}  // namespace

const CLI::App* deepest(const CLI::App& app) {
  const CLI::App* at = &app;
  while (!at->get_subcommands().empty()) at = at->get_subcommands().front();
  return at;
}

std::string command_of(const CLI::App* app) {
  std::string out;
  for (; app; app = app->get_parent()) out = app->get_name() + (out.empty() ? "" : " " + out);
  return out;
}

Error parse_error(const CLI::ParseError& e, const CLI::App& app) {
  const CLI::App* at = deepest(app);
  const std::string what = e.what();
  std::smatch m;
  auto matches = [&](const char* pattern) { return std::regex_match(what, m, std::regex(pattern)); };
  if (dynamic_cast<const CLI::RequiredError*>(&e)) {
    if (what == "A subcommand is required" || matches("Requires at least \\d+ subcommands")) {
      const std::vector<std::string> verbs = verbs_of(at);
      for (const std::string& arg : app.remaining(true))
        if (!arg.empty() && arg[0] != '-') {
          Phrase p("cli.parse.unknown_verb");
          p.facts.push_back(did_you_mean(arg, verbs));
          return Error{{}, 0, {}, p.fact("got", arg).fact("command", command_of(at)).fact(list_of("verbs", verbs))};
        }
      return Error{
          {}, 0, {}, Phrase("cli.parse.verb_required").fact("command", command_of(at)).fact(list_of("verbs", verbs))};
    }
    if (matches("(\\S+) is required")) return Error{{}, 0, {}, Phrase("cli.parse.required").fact("name", m[1])};
  } else if (dynamic_cast<const CLI::ConversionError*>(&e)) {
    if (matches("Could not convert: (\\S+) = (.*)") || matches("The value (.*) is not an allowed value for (\\S+)")) {
      const bool convert = what.rfind("Could", 0) == 0;
      const std::string flag = m[convert ? 1 : 2], value = m[convert ? 2 : 1];
      return Error{
          {}, 0, flag, Phrase("cli.parse.not_valid").fact("value", value).fact("expected", expected_type(at, flag))};
    }
    if (matches("(\\S+): too many inputs for a flag")) return Error{{}, 0, m[1], Phrase("cli.parse.takes_no_value")};
  } else if (dynamic_cast<const CLI::ArgumentMismatch*>(&e)) {
    if (matches("(\\S+): \\d+ required .* missing")) return Error{{}, 0, m[1], Phrase("cli.parse.missing_value")};
    if (matches("(\\S+): At Most (\\d+) required but received (\\d+)"))
      return Error{{}, 0, m[1], Phrase("cli.parse.too_many").fact("max", m[2]).fact("got", m[3])};
    if (matches("(\\S+): At least (\\d+) required but received (\\d+)"))
      return Error{{}, 0, m[1], Phrase("cli.parse.too_few").fact("min", m[2]).fact("got", m[3])};
    if (matches("Expected exactly (\\d+) arguments to (\\S+), got (\\d+)"))
      return Error{{}, 0, m[2], Phrase("cli.parse.exactly").fact("n", m[1]).fact("got", m[3])};
    if (matches("Expected at least (\\d+) arguments to (\\S+), got (\\d+)"))
      return Error{{}, 0, m[2], Phrase("cli.parse.too_few").fact("min", m[1]).fact("got", m[3])};
    if (matches("(\\S+) was given a disallowed flag override"))
      return Error{{}, 0, m[1], Phrase("cli.parse.takes_no_value")};
  } else if (dynamic_cast<const CLI::ValidationError*>(&e)) {
    if (matches("(\\S+): (.*) not in \\{(.*)\\}")) {
      std::vector<std::string> allowed;
      std::stringstream choices(m[3]);
      for (std::string choice; std::getline(choices, choice, ',');) allowed.push_back(choice);
      return Error{{}, 0, m[1], not_one_of(m[2], allowed)};
    }
    if (matches("(\\S+): (.*)")) return Error{{}, 0, m[1], Phrase("cli.parse.invalid").fact("why", m[2])};
  } else if (dynamic_cast<const CLI::RequiresError*>(&e)) {
    if (matches("(\\S+) requires (\\S+)")) return Error{{}, 0, m[1], Phrase("cli.parse.requires").fact("other", m[2])};
  } else if (dynamic_cast<const CLI::ExcludesError*>(&e)) {
    if (matches("(\\S+) excludes (\\S+)")) return Error{{}, 0, m[1], Phrase("cli.parse.excludes").fact("other", m[2])};
  } else if (dynamic_cast<const CLI::ExtrasError*>(&e)) {
    if (matches("The following arguments? (?:was|were) not expected: (.*)"))
      return Error{{}, 0, {}, Phrase("cli.parse.unexpected").fact("args", m[1])};
  }
  return Error{{}, 0, {}, Phrase("cli.parse.failed").fact("why", what)};
}

}  // namespace gpuplan::cli

#include "cli/common.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <utility>

#include "cli/catalog_path.h"
#include "core/bounds.h"
#include "core/dates.h"
#include "core/output_file.h"
#include "core/text.h"
#include "plan/config.h"
#include "report/table.h"

namespace gpuplan::cli {

namespace {

report::Lang g_language = report::Lang::kEn;

// The type names the verbs show and CLI11's own (TEXT, INT, UINT, FLOAT), with their words.
constexpr std::pair<std::string_view, std::string_view> kTypeNames[] = {
    {"TEXT", "cli.type.text"},
    {"INT", "cli.type.int"},
    {"UINT", "cli.type.uint"},
    {"FLOAT", "cli.type.float"},
    {"FILE", "cli.type.file"},
    {"DIR", "cli.type.dir"},
    {"DIR|SNAPSHOT", "cli.type.dir_or_snapshot"},
    {"FORMAT", "cli.type.format"},
    {"URL", "cli.type.url"},
    {"CMD", "cli.type.cmd"},
    {"LOG", "cli.type.log"},
    {"CONFIG.yaml", "cli.type.config_yaml"},
    {"WORKLOAD.yaml", "cli.type.workload_yaml"},
    {"QUOTE.yaml", "cli.type.quote_yaml"},
    {"SCENARIO.yaml", "cli.type.scenario_yaml"},
    {"OUT.tar.gz", "cli.type.out_tar_gz"},
};

// CLI11's labels (CLI/Formatter.hpp) and the words for each.
constexpr std::pair<std::string_view, std::string_view> kLabels[] = {
    {"Usage", "cli.label.usage"},
    {"OPTIONS", "cli.label.options_badge"},
    {"SUBCOMMAND", "cli.label.subcommand"},
    {"SUBCOMMANDS", "cli.label.subcommands"},
    {"REQUIRED", "cli.label.required"},
    {"Positionals", "cli.label.positionals"},
    {"Needs", "cli.label.needs"},
    {"Excludes", "cli.label.excludes"},
    {"Env", "cli.label.env"},
};

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  for (size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

// CLI11's help with the labels in the run's language, a heading's colon in that language, and
// the description column aligned by display width (a Chinese character takes two columns).
class HelpFormatter : public CLI::Formatter {
 public:
  HelpFormatter() {
    for (const auto& [label_name, key] : kLabels) label(std::string(label_name), ui(key));
  }

  std::string make_option(const CLI::Option* opt, bool is_positional) const override {
    const std::string name = "  " + make_option_name(opt, is_positional) + make_option_opts(opt);
    const std::string description = make_option_desc(opt);
    std::string out = name;
    if (!description.empty()) {
      const size_t width = report::display_width(name);
      out += width >= column_width_ ? "\n" + std::string(column_width_, ' ') : std::string(column_width_ - width, ' ');
      std::string indented = description;
      replace_all(indented, "\n", "\n" + std::string(column_width_, ' '));
      out += indented;
    }
    return out + "\n";
  }

  std::string make_group(std::string group, bool is_positional, std::vector<const CLI::Option*> opts) const override {
    std::string out = "\n" + group + colon() + "\n";
    for (const CLI::Option* opt : opts) out += make_option(opt, is_positional);
    return out;
  }

  std::string make_usage(const CLI::App* app, std::string name) const override {
    std::string out = Formatter::make_usage(app, std::move(name));
    const std::string usage = get_label("Usage") + ": ";
    if (out.rfind(usage, 0) == 0) out.replace(0, usage.size(), get_label("Usage") + label_end());
    return out;
  }

  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    std::string out = Formatter::make_help(app, std::move(name), mode);
    const std::string subcommands = ui("cli.label.subcommands_group");
    replace_all(out, "\n" + subcommands + ":\n", "\n" + subcommands + colon() + "\n");
    return out;
  }
};

void localize_options(CLI::App& app, CLI::FormatterBase& formatter) {
  const std::string options = ui("cli.label.options");
  for (CLI::Option* opt : app.get_options([](const CLI::Option*) { return true; })) {
    if (opt->get_group() == "Options") opt->group(options);
    // "TEXT:{auto,live}" (a type name and its validator's choices): the type name in words.
    const std::string type = opt->get_type_name();
    const std::string base = type.substr(0, type.find(':'));
    for (const auto& [name, key] : kTypeNames)
      if (base == name) formatter.label(type, ui(key) + type.substr(base.size()));
  }
  for (CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_group() == "Subcommands") sub->group(ui("cli.label.subcommands_group"));
    localize_options(*sub, formatter);
  }
}

}  // namespace

void set_language(report::Lang lang) {
  g_language = lang;
}
report::Lang language() {
  return g_language;
}

report::Lang language_of(int argc, const char* const* argv) {
  std::string_view given;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--") break;  // what follows is positional
    if (arg == "--lang" && i + 1 < argc)
      given = argv[++i];
    else if (arg.rfind("--lang=", 0) == 0)
      given = arg.substr(7);
  }
  return report::parse_lang(given).value_or(report::lang_from_env());
}

std::string ui(std::string_view key) {
  return report::ui(key, g_language);
}
std::string say(const Phrase& p) {
  return report::say(p, g_language);
}
const char* colon() {
  return g_language == report::Lang::kZh ? "：" : ":";
}
const char* label_end() {
  return g_language == report::Lang::kZh ? "：" : ": ";
}

std::string shown(double value) {
  return bounds::shown(value);
}

Error at_least(std::string flag, int min, std::string got) {
  return Error{{},
               0,
               std::move(flag),
               Phrase("cli.value.at_least").fact("min", std::to_string(min)).fact("got", std::move(got))};
}

Error above(std::string flag, double got) {
  return Error{{}, 0, std::move(flag), Phrase("cli.value.above").fact("min", "0").fact("got", shown(got))};
}

Error not_negative(std::string flag, double got) {
  return Error{{}, 0, std::move(flag), Phrase("cli.value.not_negative").fact("got", shown(got))};
}

Error between(std::string key, std::string flag, std::string min, std::string max, std::string got,
              std::vector<Phrase> note) {
  Phrase p(std::move(key));
  p.fact("min", std::move(min)).fact("max", std::move(max)).fact("got", std::move(got)).fact("note", std::move(note));
  return Error{{}, 0, std::move(flag), std::move(p)};
}

int bad_input(const Error& e) {
  std::cerr << "gpuplan: " << report::ui("cli.error", g_language) << label_end() << report::error_text(e, g_language)
            << "\n";
  return kBadInput;
}

int bad_input(const Phrase& message) {
  return bad_input(Error{{}, 0, {}, message});
}

void note(const Phrase& message) {
  std::cerr << "gpuplan: " << say(message) << "\n";
}

std::shared_ptr<CLI::Formatter> help_formatter() {
  return std::make_shared<HelpFormatter>();
}

void localize_help(CLI::App& app) {
  localize_options(app, *app.get_formatter());
}

std::string examples(std::initializer_list<std::string_view> commands) {
  std::string out = ui(commands.size() > 1 ? "cli.label.examples" : "cli.label.example") + colon();
  for (std::string_view command : commands) out += "\n  " + std::string(command);
  return out;
}

bool make_context(const Common& common, Context& ctx, int& exit_code, bool html_ok) {
  const std::optional<report::Format> format = report::parse_format(common.format);
  if (!format || (*format == report::Format::kHtml && !html_ok)) {
    std::vector<std::string> formats{"table", "json", "md"};
    if (html_ok) formats.push_back("html");
    exit_code = bad_input(Error{{}, 0, "--format", not_one_of(common.format, formats)});
    return false;
  }
  ctx.format = *format;
  ctx.style.lang = g_language;
  if (!common.lang.empty()) {
    const std::optional<report::Lang> lang = report::parse_lang(common.lang);
    if (!lang) {
      exit_code = bad_input(Error{{}, 0, "--lang", not_one_of(common.lang, {"en", "zh"})});
      return false;
    }
    ctx.style.lang = *lang;
  }
  if (common.today.empty()) {
    ctx.today = civil_from_seconds(static_cast<int64_t>(std::time(nullptr))).date();
  } else if (common.today.size() != 10 || !parse_catalog_date(common.today)) {
    exit_code = bad_input(Error{{}, 0, "--today", Phrase("error.not_a_date").fact("got", common.today)});
    return false;
  } else {
    ctx.today = common.today;
  }
  const char* no_color = std::getenv("NO_COLOR");
  ctx.style.colour =
      ctx.format == report::Format::kTable && !common.no_color && isatty(STDOUT_FILENO) && !(no_color && *no_color);
  std::vector<Error> problems;
  ctx.catalog = catalog::Catalog::load(catalog_dirs(common.catalogs), problems);
  if (!problems.empty()) {
    for (const auto& p : problems)
      std::cerr << "gpuplan: " << report::ui("cli.catalog", g_language) << label_end()
                << report::error_text(p, g_language) << "\n";
    exit_code = bad_input(Phrase("cli.catalog.problems").fact("count", std::to_string(problems.size())));
    return false;
  }
  return true;
}

int emit(const std::string& text, const std::string& output) {
  if (output.empty()) {
    std::cout << text;
    return kOk;
  }
  if (auto written = write_output_file(output, text, "--output"); !written) return bad_input(written.error());
  note(Phrase("cli.wrote").fact("path", output));
  return kOk;
}

telemetry::Progress progress_bar(bool quiet) {
  if (quiet || !isatty(STDERR_FILENO)) return {};
  return [](int64_t done, int64_t total) {
    if (total > 0) {
      char percent[16], done_gb[32], total_gb[32];
      std::snprintf(percent, sizeof percent, "%3.0f", 100.0 * done / total);
      std::snprintf(done_gb, sizeof done_gb, "%.2f", done / 1e9);
      std::snprintf(total_gb, sizeof total_gb, "%.2f", total / 1e9);
      std::fprintf(
          stderr, "\r%s",
          say(Phrase("cli.progress").fact("percent", percent).fact("done", done_gb).fact("total", total_gb)).c_str());
    }
    if (done >= total) std::fprintf(stderr, "\r%60s\r", "");
  };
}

std::string task_help() {
  return say(Phrase("cli.help.task").fact(list_of("tasks", plan::task_names())));
}

}  // namespace gpuplan::cli

// gpuplan recommend: a workload (flags or a workload file) → the configuration that fits, priced.
#include "plan/recommend.h"

#include <cmath>
#include <iostream>
#include <memory>

#include "cli/verb.h"
#include "core/bounds.h"
#include "core/output_file.h"
#include "core/text.h"
#include "plan/config.h"
#include "plan/workload_file.h"
#include "report/render.h"

namespace gpuplan::cli {
namespace {

struct RecommendArgs {
  std::string file, write;
  plan::WorkloadFields fields;
};

// The fields as a workload, each problem named by its flag.
Result<plan::Workload> workload_of(const plan::WorkloadFields& a) {
  plan::Workload w;
  if (a.task.empty())
    return Error{{}, 0, "--task", Phrase("cli.value.required").fact(list_of("allowed", plan::task_names()))};
  auto task = plan::parse_task(a.task);
  if (!task) return Error{{}, 0, "--task", not_one_of(a.task, plan::task_names())};
  w.task = *task;
  if (a.params.empty()) return Error{{}, 0, "--params", Phrase("cli.value.params_required")};
  auto params = plan::parse_params(a.params);
  if (!params) return params.error();
  w.params_b = *params;
  if (!a.method.empty()) {
    auto method = plan::parse_method(a.method);
    if (!method) return Error{{}, 0, "--method", not_one_of(a.method, plan::method_names())};
    if (*method != plan::Method::kFull && w.task != plan::Task::kFinetune)
      return Error{
          {}, 0, "--method", Phrase("error.recommend.method_task").fact("method", a.method).fact("task", a.task)};
    w.method = *method;
  }
  // The same bounds as the workload file's keys (plan::checked_count).
  if (a.context) {
    auto context = plan::checked_count("--context", *a.context, 1);
    if (!context) return context.error();
    w.context = *context;
  }
  if (a.concurrency) {
    auto concurrency = plan::checked_count("--concurrency", *a.concurrency, 1);
    if (!concurrency) return concurrency.error();
    w.concurrency = *concurrency;
  }
  if (a.latency_ms) {
    auto latency = bounds::flag_positive("--latency-ms", *a.latency_ms);
    if (!latency) return latency.error();
    w.latency_ms = *latency;
  }
  if (a.dataset_tb) {
    auto dataset = bounds::flag_amount("--dataset-tb", *a.dataset_tb);
    if (!dataset) return dataset.error();
    w.dataset_tb = *dataset;
  }
  if (a.budget) {
    auto budget = bounds::flag_positive("--budget", *a.budget);
    if (!budget) return budget.error();
    w.budget = *budget;
  }
  if (!a.mode.empty()) {
    if (a.mode != "rent" && a.mode != "buy") return Error{{}, 0, "--mode", not_one_of(a.mode, {"rent", "buy"})};
    w.mode = a.mode == "rent" ? plan::Mode::kRent : plan::Mode::kBuy;
  }
  w.gpu = a.gpu;
  return w;
}

int run_recommend(const Common& common, const RecommendArgs& args) {
  Context ctx;
  int rc = kOk;
  if (!make_context(common, ctx, rc, /*html_ok=*/true)) return rc;
  plan::WorkloadFields fields = args.fields;
  if (!args.file.empty()) {
    auto merged = plan::read_workload_file(args.file, fields);
    if (!merged) return bad_input(merged.error());
    fields = *merged;
  }
  auto workload = workload_of(fields);
  if (!workload) return bad_input(workload.error());
  auto rec = plan::recommend(*workload, ctx.catalog);
  if (!rec) return bad_input(rec.error());
  plan::date_prices(rec->quote, ctx.today, ctx.catalog);
  if (!args.write.empty()) {
    auto written = write_output_file(args.write, plan::write_config_yaml(rec->config), "--write");
    if (!written) return bad_input(written.error());
  }
  std::cout << report::render_recommendation(*rec, ctx.format, ctx.style);
  return kOk;
}

}  // namespace

Run add_recommend(CLI::App& cmd) {
  auto args = std::make_shared<RecommendArgs>();
  plan::WorkloadFields& f = args->fields;
  cmd.add_option("workload", args->file, ui("cli.help.recommend.workload"))->type_name("WORKLOAD.yaml");
  cmd.add_option("--task", f.task, task_help());
  cmd.add_option("--params", f.params, ui("cli.help.recommend.params"));
  cmd.add_option("--method", f.method, ui("cli.help.recommend.method"));
  cmd.add_option("--concurrency", f.concurrency, ui("cli.help.recommend.concurrency"));
  cmd.add_option("--context", f.context, ui("cli.help.recommend.context"));
  cmd.add_option("--latency-ms", f.latency_ms, ui("cli.help.recommend.latency_ms"));
  cmd.add_option("--dataset-tb", f.dataset_tb, ui("cli.help.recommend.dataset_tb"));
  cmd.add_option("--budget", f.budget, ui("cli.help.recommend.budget"));
  cmd.add_option("--mode", f.mode, ui("cli.help.recommend.mode"));
  cmd.add_option("--gpu", f.gpu, ui("cli.help.recommend.gpu"));
  cmd.add_option("--write", args->write, ui("cli.help.recommend.write"))->type_name("FILE");
  cmd.footer(examples({"gpuplan recommend --task finetune --params 13B --dataset-tb 2 --write my.yaml",
                       "gpuplan recommend --task finetune --params 70B --method qlora",
                       "gpuplan recommend --task inference --params 13B --concurrency 16 --context 4096"}));
  return [args](const Common& common) { return run_recommend(common, *args); };
}

}  // namespace gpuplan::cli

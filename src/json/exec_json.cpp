// The JSON forms of run, profile and sim results (docs/json.md).
#include "smemsim/exec_json.hpp"

namespace smemsim::json {
namespace {

Json dims(const exec::Dim3& d) {
  return Json::array({d.x, d.y, d.z});
}

Json shared_json(const exec::SharedLayout& s, const exec::Launch& l) {
  return {
      {"static", s.static_bytes}, {"dynamic", l.dynamic_shared_bytes}, {"total", s.total_bytes}};
}

}  // namespace

Json ptx_location(const ptx::Module& module, const ptx::Instruction& ins) {
  return location(module.filename, ins.ptx_line);
}

Json cuda_location(const ptx::Module& module, const ptx::Instruction& ins) {
  return cuda_location(module, module.site(ins));
}

Json cuda_location(const ptx::Module& module, const ptx::SourceSite& site) {
  std::uint32_t line = 0;
  const std::string file = exec::cuda_file(module, site, line);
  if (file.empty()) return nullptr;
  return location(file, line);
}

Json to_json(const exec::ExecStats& s) {
  Json j = {{"ctas", s.ctas},
            {"warp_instructions", s.warp_instructions},
            {"thread_instructions", s.thread_instructions},
            {"shared_accesses", s.shared_accesses}};
  if (s.tm.attempts) j["tm"] = to_json(s.tm);
  return j;
}

Json run_json(const exec::Workload& w, const exec::RunSummary& s) {
  Json stats = to_json(s.stats);
  stats["seconds"] = s.seconds;
  Json j = {{"workload", w.name},
            {"description", w.description},
            {"kernel", w.kernel},
            {"kernel_signature", ptx::demangle(w.kernel)},
            {"grid", dims(w.launch.grid)},
            {"block", dims(w.launch.block)},
            {"shared_bytes", shared_json(s.shared, w.launch)},
            {"stats", stats}};
  if (!s.steps.empty()) {  // a pipeline: "kernel"/"grid"/"block" above are its first launch
    Json launches = Json::array();
    for (const exec::RunSummary::Step& st : s.steps)
      launches.push_back({{"kernel", st.kernel},
                          {"kernel_signature", ptx::demangle(st.kernel)},
                          {"grid", dims(st.launch.grid)},
                          {"block", dims(st.launch.block)},
                          {"shared_bytes", shared_json(st.shared, st.launch)},
                          {"stats", to_json(st.stats)}});
    j["launches"] = launches;
  }
  if (w.report) j["report"] = w.report(w.memory);
  if (s.racecheck) {
    Json hs = Json::array();
    for (const exec::RaceHazard& h : s.hazards) {
      const ptx::Kernel* k = nullptr;
      for (const ptx::Kernel& c : w.module.kernels)
        if (c.name == h.kernel) k = &c;
      const auto at = [&](std::uint32_t pc) -> Json {
        if (!k || pc >= k->code.size()) return nullptr;
        const ptx::Instruction& ins = k->code[pc];
        return {{"ptx", ptx_location(w.module, ins)},
                {"cuda", cuda_location(w.module, ins)},
                {"instruction", ptx::to_string(*k, ins)}};
      };
      hs.push_back({{"kind", exec::to_string(h.kind)},
                    {"kernel", h.kernel},
                    {"array", h.array},
                    {"first", at(h.first)},
                    {"second", at(h.second)},
                    {"accesses", h.count},
                    {"blocks", h.blocks},
                    {"first_block", h.first_block}});
    }
    j["racecheck"] = {{"hazards", hs}};
  }
  if (!s.printf_output.empty() || s.printf_dropped)
    j["printf"] = {{"output", s.printf_output}, {"dropped_calls", s.printf_dropped}};
  if (s.checked)
    j["reference"] = {{"matches", s.mismatch.empty()},
                      {"details", s.mismatch},
                      {"tolerance", w.tolerance.empty() ? "bit-exact" : w.tolerance}};
  Json outs = Json::array();
  for (const exec::Output& o : w.outputs) outs.push_back({{"buffer", o.buffer}, {"path", o.path}});
  j["outputs"] = outs;
  return j;
}

Json to_json(const exec::PaddingHint& h) {
  return {{"row_words", h.row_words},
          {"padded_row_words", h.row_words + h.pad},
          {"bank_degree_before", h.before},
          {"bank_degree_after", h.after}};
}

Json to_json(const exec::ProfileRow& r, const ptx::Module& module, const ptx::Kernel& kernel) {
  Json j = to_json(r.totals);
  if (r.index < kernel.code.size()) {
    j["ptx"] = ptx_location(module, kernel.code[r.index]);
    j["cuda"] = cuda_location(module, kernel.code[r.index]);
    // the line that called the inlined function it belongs to
    const ptx::SourceSite caller{module.site(kernel.code[r.index]).call_site, {}, {}};
    j["called_from"] = caller.loc.file ? cuda_location(module, caller) : Json(nullptr);
  } else {
    j["ptx"] = location(module.filename, r.ptx_line);
    j["cuda"] = nullptr;
    j["called_from"] = nullptr;
  }
  j["op"] = op_name(r.op);
  j["instruction"] = r.text;
  j["active_lanes_total"] = r.active_lanes;
  return j;
}

Json tm_sites_json(const exec::ExecStats& s, const ptx::Module& module, const ptx::Kernel& kernel) {
  Json a = Json::array();
  for (const auto& [pc, t] : s.tm_sites) {
    Json j = to_json(t);
    j["ptx"] = ptx_location(module, kernel.code[pc]);
    j["cuda"] = cuda_location(module, kernel.code[pc]);
    a.push_back(std::move(j));
  }
  return a;
}

}  // namespace smemsim::json

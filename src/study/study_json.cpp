// The JSON forms of the study runner (docs/json.md): the study list and a run's summary. The files
// a run writes (config.json, summary.json, run.json) are built in runner.cpp with the same head.
#include "smemsim/json.hpp"
#include "smemsim/study.hpp"

namespace smemsim::study {

nlohmann::json to_json(const StudyInfo& info) {
  nlohmann::json p = nlohmann::json::array();
  for (const ParamSpec& ps : info.params)
    p.push_back({{"key", ps.key}, {"default", ps.full}, {"quick", ps.quick}, {"help", ps.help}});
  return {{"name", info.name}, {"description", info.description},   {"source", info.source},
          {"arch", info.arch}, {"cycle_backend", info.kernel_runs}, {"params", p}};
}

nlohmann::json to_json(const RunSummary& s) {
  nlohmann::json files = {{"points", s.dir + "/points.csv"}, {"config", s.dir + "/config.json"}};
  if (s.finalized) {
    files["report"] = s.dir + "/report.md";
    files["summary"] = s.dir + "/summary.json";
  }
  return {{"dir", s.dir},
          {"points", s.points},
          {"points_reused", s.reused},
          {"points_computed", s.computed},
          {"accesses", s.accesses},
          {"seconds", s.seconds},
          {"figures", s.pngs},
          {"finalized", s.finalized},
          {"files", files},
          {"summary", s.finalized ? s.summary : nlohmann::json(nullptr)}};
}

}  // namespace smemsim::study

// The rules of the Trace Event format (Google's "Trace Event Format" document, the JSON Object
// Format that Perfetto and chrome://tracing import) that smemsim's timeline must keep (issue 29
// item 3), as a checker the tests run on real timelines:
// - the document is an object whose "traceEvents" is an array of objects, each with a string "ph";
// - a complete event ("X") has a string name, integer pid and tid, and numbers ts >= 0, dur >= 0;
// - the complete events of one track (pid, tid) nest: two spans are disjoint, or one holds the
//   other (a span that starts inside another and ends after it is drawn wrongly or dropped);
// - metadata ("M") is process_name / thread_name (args.name a string) or process_sort_index /
//   thread_sort_index (args.sort_index an integer), with a pid, and a tid for the thread ones;
//   a track is named at most once;
// - a counter ("C") has a name, pid, ts and args whose values are all numbers;
// - every track with spans is named (the viewer shows a bare number otherwise).
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace smemsim::test {

// The first `limit` rule violations, each a line naming the event's position.
inline std::vector<std::string> trace_event_errors(const nlohmann::json& doc,
                                                   std::size_t limit = 10) {
  std::vector<std::string> errors;
  const auto fail = [&](std::size_t i, const std::string& what) {
    if (errors.size() < limit) errors.push_back("event " + std::to_string(i) + ": " + what);
  };
  if (!doc.is_object() || !doc.contains("traceEvents") || !doc["traceEvents"].is_array())
    return {"the document is not an object with a traceEvents array"};
  using Track = std::pair<std::int64_t, std::int64_t>;
  std::map<Track, std::vector<std::pair<double, double>>> spans;
  std::set<Track> named;
  std::set<std::int64_t> named_process;
  const auto& events = doc["traceEvents"];
  for (std::size_t i = 0; i < events.size(); ++i) {
    const auto& e = events[i];
    if (!e.is_object() || !e.contains("ph") || !e["ph"].is_string()) {
      fail(i, "no string \"ph\"");
      continue;
    }
    const std::string ph = e["ph"];
    const auto integer = [&](const char* k) { return e.contains(k) && e[k].is_number_integer(); };
    const auto number = [&](const char* k) {
      return e.contains(k) && e[k].is_number() && e[k].get<double>() >= 0;
    };
    const bool named_event = e.contains("name") && e["name"].is_string();
    if (ph == "X") {
      if (!named_event || !integer("pid") || !integer("tid") || !number("ts") || !number("dur")) {
        fail(i, "a complete event needs name, pid, tid, ts >= 0 and dur >= 0");
        continue;
      }
      const double ts = e["ts"];
      spans[Track{e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()}].push_back(
          {ts, ts + e["dur"].get<double>()});
    } else if (ph == "M") {
      const std::string name = named_event ? e["name"].get<std::string>() : "";
      const bool thread = name == "thread_name" || name == "thread_sort_index";
      const bool sort = name.ends_with("_sort_index");
      const auto& args = e.contains("args") ? e["args"] : nlohmann::json();
      if ((name != "process_name" && name != "thread_name" && !sort) || !integer("pid") ||
          (thread && !integer("tid")) || !args.is_object() ||
          (sort ? !(args.contains("sort_index") && args["sort_index"].is_number_integer())
                : !(args.contains("name") && args["name"].is_string()))) {
        fail(i, "metadata needs a known name, pid (and tid), and args.name or args.sort_index");
        continue;
      }
      if (name == "thread_name" &&
          !named.insert(Track{e["pid"].get<std::int64_t>(), e["tid"].get<std::int64_t>()}).second)
        fail(i, "a thread named twice");
      if (name == "process_name" && !named_process.insert(e["pid"].get<std::int64_t>()).second)
        fail(i, "a process named twice");
    } else if (ph == "C") {
      bool ok = named_event && integer("pid") && number("ts") && e.contains("args") &&
                e["args"].is_object();
      if (ok)
        for (const auto& [k, v] : e["args"].items()) ok = ok && v.is_number();
      if (!ok) fail(i, "a counter needs name, pid, ts and numeric args");
    } else {
      fail(i, "phase '" + ph + "' is not one smemsim writes (X, M, C)");
    }
  }
  for (auto& [track, list] : spans) {
    if (!named.count(track))
      errors.push_back("track pid " + std::to_string(track.first) + " tid " +
                       std::to_string(track.second) + " has spans but no thread_name");
    // By start, the longer first: a span must end by the end of every open span it starts in.
    std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    std::vector<double> open;
    for (const auto& [from, to] : list) {
      while (!open.empty() && open.back() <= from) open.pop_back();
      if (!open.empty() && to > open.back()) {
        if (errors.size() < limit)
          errors.push_back("track pid " + std::to_string(track.first) + " tid " +
                           std::to_string(track.second) + ": the span at " + std::to_string(from) +
                           ".." + std::to_string(to) + " overlaps one ending at " +
                           std::to_string(open.back()) + " without nesting");
        continue;
      }
      open.push_back(to);
    }
  }
  return errors;
}

}  // namespace smemsim::test

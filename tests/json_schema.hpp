// A validator for the part of JSON Schema (draft 2020-12) that docs/schema/ uses, written for the
// schema tests (issue 10, item 3): type (a name or a list of names), properties, required,
// additionalProperties (false or a schema), items, enum, const, minimum, anyOf, and $ref to
// "#/$defs/NAME"
// or "FILE.schema.json#/$defs/NAME" in the same folder; title, description, $schema, $id and $defs
// are annotations. Any other keyword is reported as a problem, so that a schema never relies on a
// check this validator would silently skip.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/file.hpp"

namespace smemsim::test {

class SchemaValidator {
 public:
  explicit SchemaValidator(std::string dir) : dir_(std::move(dir)) {}

  // The problems of `doc` against schema file `file` ("analyze-pattern.schema.json"), each as
  // "PATH: what" (PATH like /rows/0/cuda/line); empty when it is valid.
  std::vector<std::string> validate(const nlohmann::json& doc, const std::string& file) {
    std::vector<std::string> out;
    check(doc, load(file), file, "", out);
    return out;
  }

  // Whether a $ref met in schema file `file` names an existing schema.
  bool resolves(const std::string& ref, const std::string& file) {
    return resolve(ref, file).first != nullptr;
  }

  const nlohmann::json& load(const std::string& file) {
    auto it = files_.find(file);
    if (it == files_.end())
      it =
          files_.emplace(file, nlohmann::json::parse(read_file(dir_ + "/" + file, "schema"))).first;
    return it->second;
  }

 private:
  static bool has_type(const nlohmann::json& v, const std::string& t) {
    if (t == "object") return v.is_object();
    if (t == "array") return v.is_array();
    if (t == "string") return v.is_string();
    if (t == "integer") return v.is_number_integer();
    if (t == "number") return v.is_number();
    if (t == "boolean") return v.is_boolean();
    if (t == "null") return v.is_null();
    return false;
  }

  // The schema a $ref names, and the file its own local references resolve in.
  std::pair<const nlohmann::json*, std::string> resolve(const std::string& ref,
                                                        const std::string& file) {
    const auto hash = ref.find('#');
    const std::string target = hash == 0 ? file : ref.substr(0, hash);
    const std::string pointer = hash == std::string::npos ? "" : ref.substr(hash + 1);
    const nlohmann::json& root = load(target);
    const nlohmann::json::json_pointer p(pointer);
    if (!root.contains(p)) return {nullptr, target};
    return {&root.at(p), target};
  }

  void check(const nlohmann::json& v, const nlohmann::json& s, const std::string& file,
             const std::string& path, std::vector<std::string>& out) {
    static const std::set<std::string> kKnown = {
        "$schema",    "$id",      "$defs", "title", "description",          "type",
        "properties", "required", "items", "enum",  "additionalProperties", "const",
        "minimum",    "$ref",     "anyOf"};
    const std::string at = path.empty() ? "/" : path;
    for (const auto& [k, x] : s.items())
      if (!kKnown.count(k)) out.push_back(file + ": keyword '" + k + "' is not supported");
    if (s.contains("$ref")) {
      const auto [target, target_file] = resolve(s["$ref"].get<std::string>(), file);
      if (!target) {
        out.push_back(at + ": unresolved $ref " + s["$ref"].get<std::string>());
        return;
      }
      check(v, *target, target_file, path, out);
    }
    if (s.contains("anyOf")) {  // valid when one alternative is; else the closest one's problems
      std::vector<std::string> best;
      bool first = true;
      for (const auto& alt : s["anyOf"]) {
        std::vector<std::string> mine;
        check(v, alt, file, path, mine);
        if (mine.empty()) {
          best.clear();
          break;
        }
        if (first || mine.size() < best.size()) best = std::move(mine);
        first = false;
      }
      for (auto& p : best) out.push_back(std::move(p));
    }
    if (s.contains("type")) {
      const nlohmann::json& t = s["type"];
      bool ok = false;
      if (t.is_string()) ok = has_type(v, t.get<std::string>());
      for (const auto& x : t.is_array() ? t : nlohmann::json::array()) ok |= has_type(v, x);
      if (!ok) {
        out.push_back(at + ": " + v.dump().substr(0, 60) + " is not of type " + t.dump());
        return;
      }
    }
    if (s.contains("const") && v != s["const"])
      out.push_back(at + ": " + v.dump() + " is not " + s["const"].dump());
    if (s.contains("enum")) {
      bool found = false;
      for (const auto& e : s["enum"]) found |= e == v;
      if (!found) out.push_back(at + ": " + v.dump() + " is not one of " + s["enum"].dump());
    }
    if (s.contains("minimum") && v.is_number() && v.get<double>() < s["minimum"].get<double>())
      out.push_back(at + ": " + v.dump() + " is below " + s["minimum"].dump());
    if (v.is_object()) check_object(v, s, file, path, out);
    if (v.is_array() && s.contains("items"))
      for (std::size_t i = 0; i < v.size(); ++i)
        check(v[i], s["items"], file, path + "/" + std::to_string(i), out);
  }

  void check_object(const nlohmann::json& v, const nlohmann::json& s, const std::string& file,
                    const std::string& path, std::vector<std::string>& out) {
    const std::string at = path.empty() ? "/" : path;
    for (const auto& r : s.value("required", nlohmann::json::array()))
      if (!v.contains(r.get<std::string>()))
        out.push_back(at + ": required field '" + r.get<std::string>() + "' is missing");
    const nlohmann::json props = s.value("properties", nlohmann::json::object());
    for (const auto& [k, x] : v.items()) {
      if (props.contains(k)) {
        check(x, props[k], file, path + "/" + k, out);
      } else if (s.contains("additionalProperties")) {
        const nlohmann::json& extra = s["additionalProperties"];
        if (extra.is_boolean() && !extra.get<bool>())
          out.push_back(at + ": field '" + k + "' is not in the schema");
        else if (extra.is_object())
          check(x, extra, file, path + "/" + k, out);
      }
    }
  }

  std::string dir_;
  std::map<std::string, nlohmann::json> files_;
};

}  // namespace smemsim::test

// The study registry's entries (one function per study, listed explicitly in registry.cpp).
#pragma once

#include "smemsim/images.hpp"
#include "smemsim/study.hpp"
#include "voting.hpp"

namespace smemsim::study {

StudyInfo random_patterns_info();     // random_studies.cpp, seed 001 Fig. 5
StudyInfo random_replication_info();  // random_studies.cpp, seed 001 Fig. 6
StudyInfo random_mapping_info();      // random_studies.cpp, seed 001 Fig. 7
StudyInfo histogram_info();           // histogram.cpp, seed 000 §V.B Fig. 7, seed 001 §4.2
StudyInfo kmeans_info();              // kmeans.cpp, seed 001 §4.1
StudyInfo hough_info();               // hough.cpp, seed 000 §V.C Fig. 8
StudyInfo elastic_info();             // elastic.cpp, seed 004 §5 Table 4, Figs. 8-11
StudyInfo localtm_info();             // localtm.cpp, seed 003 §5, Figs. 3-5
StudyInfo hash002_info();             // hash002.cpp, seed 002 §7, Tables 5-6, Figs. 8-11

// ---- Shared by the voting studies (voting.cpp) ----
// FNV-1a over the images' names, sizes and pixels, as 16 hex digits (Study::input_digest).
std::string images_digest(const std::vector<images::Gray12>& imgs);

// The images of parameter 'images' (files, folders, 'cache', 'cache/FILE' or 'cache/FOLDER',
// 'generated' at gen_w x gen_h), at most 'max_images'; InputError on an unreadable or non-image
// file.
std::vector<images::Gray12> resolve_images(const StudyConfig& cfg, int gen_w, int gen_h);
// Replication factors of parameter 'r' for a vote space: "auto" = powers of two 1..cap that fit the
// shared memory; an explicit list must fit (InputError naming R, `what` and the bytes otherwise).
std::vector<std::uint32_t> replication_list(const StudyConfig& cfg, std::uint64_t space,
                                            std::uint64_t pad, Layout layout, std::uint32_t cap,
                                            const std::string& what);
// The arch with v.hash as bank hash and (when it has locks) lock hash (seed 000 §IV), on all lock
// bits when v.whole_lock (voting.cpp).
Arch with_hash(const Arch& a, const HashVariant& v);
// For each variant's arch, the index of the first with the same bank and lock functions (xor_all
// repeats xor when the arch's reading is already `all`): computed once, copied for the others.
std::vector<std::size_t> variant_aliases(const std::vector<Arch>& archs);
// The arch's reading of which lock bits its lock hash makes, in words, for reports.
std::string lock_reading_label(const Arch& a);

// The command line that reproduces a run of study `name` with this configuration: the parameters
// and arch keys that differ from the defaults as --set.
std::string reproduce_command(const StudyConfig& cfg, const std::string& name);

// Minimum, median and maximum (all 0 when empty): the spread of a speed-up over images.
struct Spread {
  double min = 0, median = 0, max = 0;
};
Spread spread_of(std::vector<double> v);

// A row of a voting study's claims table (docs/studies.md): a claim of the seed with its section,
// the paper's number, ours under the arch's lock-hash reading and under `all`, and the verdict.
struct Claim {
  std::string claim, paper, ours, ours_all, verdict;
};
// Appends the claims table of study `name` (with the command that reproduces this run) to the
// report's markdown and the claims to its summary.
void add_claims(Report& rep, const std::vector<Claim>& rows, const StudyConfig& cfg,
                const std::string& study);
// "matches (within 10 %)", or "lower" / "higher" with ours as a percentage of the paper's.
std::string versus_paper(double ours, double paper);

}  // namespace smemsim::study

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
StudyInfo localtm_info();
StudyInfo hash002_info();  // hash002.cpp, seed 002 §7, Tables 5-6, Figs. 8-11
// FNV-1a over the images' names, sizes and pixels, as 16 hex digits (Study::input_digest).
std::string images_digest(
    const std::vector<images::Gray12>& imgs);  // localtm.cpp, seed 003 §5, Figs. 3-5

// Shared by the image studies (histogram.cpp): the images of parameter 'images' (files, folders,
// 'cache', 'generated'), at most 'max_images'; InputError on an unreadable or non-image file.
std::vector<images::Gray12> resolve_images(const StudyConfig& cfg, int gen_w, int gen_h);
// Replication factors of parameter 'r' for a vote space: "auto" = powers of two 1..cap that fit the
// shared memory; an explicit list must fit (InputError naming R, `what` and the bytes otherwise).
std::vector<std::uint32_t> replication_list(const StudyConfig& cfg, std::uint64_t space,
                                            std::uint64_t pad, Layout layout, std::uint32_t cap,
                                            const std::string& what);
// The arch with `h` as bank hash and (when it has locks) lock hash (seed 000 §IV).
Arch with_hash(const Arch& a, const std::string& h);

}  // namespace smemsim::study

// bench_load's baselines, measured in the same run on the same files as the loader: pread of
// every file (the I/O bound), simdjson's on-demand parser touching every field (the practical
// JSON limit) and line-by-line nlohmann::json::parse (the naive DOM way). Each runs over the
// files on `threads` threads, one file per thread at a time, and returns seconds.
// Threading: each call starts and joins its own threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace syncline::bench {

// Runs fn(file) over the files on `threads` threads; returns seconds.
double forFiles(const std::vector<std::string> &files, int threads,
                const std::function<void(const std::string &)> &fn);
// pread of every file into a 4 MiB buffer.
double preadAll(const std::vector<std::string> &files, int threads);
// simdjson iterate_many over each file, every field of every record touched; `docs` counts
// the records.
double simdjsonRaw(const std::vector<std::string> &files, int threads, std::atomic<uint64_t> &docs);
// nlohmann::json::parse of each line; `lines` counts them.
double nlohmannLines(const std::vector<std::string> &files, int threads,
                     std::atomic<uint64_t> &lines);

} // namespace syncline::bench

// LoadSteps — the steps JobLoader's loads share (load/jobloader.cpp: a full load, a windowed
// one, the split load's correction): the correction options, the clock choice, the config, the
// progress line's stages, and correctFiles — the merge of parsed files into one timeline and
// its clock correction (or the clocks of a plan), the job's caches, the window's cut.
// Threading: plain functions on the caller's data; Progress reports from the calling thread
// (or under the caller's lock).
#pragma once

#include "timeline/load/build/clockcorrector.h"
#include "timeline/load/build/eventkindlookup.h"
#include "timeline/load/jobloader.h"
#include "timeline/load/parse/jobinputs.h"
#include "timeline/load/parse/parsedfile.h"

#include "recorder/timerconfig.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace syncline::load {

// The stages' shares of the whole load, as measured on the realistic shape (docs/scale.md
// "Progress": 128 workers, 12.5 M events, both cores, wall time): parsing 77 %, merging 0.2 %,
// correcting clocks 17 % (pairing the messages about a third of it, the engine the rest),
// indexing 6 % (collectives, writing the correction cache and the link store); a window decoded
// from the event stores: reading the files 86 %, the clocks and arrows 10 %, the cut 4 %. The
// overall fraction is the stage's start plus its share times the progress within it, so one
// bar (and one ETA) covers every stage; a job without messages corrects faster, and the bar
// then jumps ahead rather than sitting at 100 %.
struct Stage
{
    const char *name;
    double begin, share;
};
inline constexpr Stage kParse{"parsing", 0.0, 0.76};
inline constexpr Stage kMerge{"merging", 0.76, 0.005};
inline constexpr Stage kCorrect{"correcting clocks", 0.765, 0.175};
inline constexpr double kPairingShare = 0.35; // of kCorrect
inline constexpr Stage kIndex{"indexing", 0.94, 0.06};
// A windowed load: no parse, no correction.
inline constexpr Stage kWindow{"reading the window", 0.0, 0.86};
inline constexpr Stage kArrows{"clocks and arrows", 0.86, 0.10};
inline constexpr Stage kCut{"cutting to the window", 0.96, 0.04};

// Reports progress as "<stage>: <detail> · NN% · ETA Ns" (the ETA from the elapsed time and the
// overall fraction, once a stage has made some headway).
class Progress
{
public:
    explicit Progress(const LoadOptions &o) : m_o(o), m_t0(std::chrono::steady_clock::now()) {}
    void report(const Stage &s, double within, const std::string &detail = {})
    {
        if (!m_o.progress)
            return;
        const double f = std::clamp(s.begin + s.share * std::clamp(within, 0.0, 1.0), 0.0, 1.0);
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - m_t0).count();
        std::string what = s.name;
        if (!detail.empty())
            what += ": " + detail;
        char tail[64];
        if (f >= 0.02 && f < 1.0 && elapsed > 0.5)
            std::snprintf(tail, sizeof tail, " · %d%% · ETA %.0f s", int(f * 100),
                          elapsed * (1.0 - f) / f);
        else
            std::snprintf(tail, sizeof tail, " · %d%%", int(f * 100));
        m_o.progress(f, what + tail);
    }
    void done()
    {
        if (m_o.progress)
            m_o.progress(1.0, "done");
    }

private:
    const LoadOptions &m_o;
    std::chrono::steady_clock::time_point m_t0;
};

// The correction options of a load: what ClockCorrector runs with and what keys its caches.
ClockCorrector::Options clockOptions(const LoadOptions &o);
// Hands the free pages of every malloc arena back to the system (after a stage's garbage).
void releaseFreeMemory();
bool cancelled(const LoadOptions &o);
std::string formatBytes(int64_t bytes);
std::shared_ptr<const rec::TimerConfig> loadConfig(const std::string &path);
// A split load's config, from the bytes its first step read (what loadConfig gives).
std::shared_ptr<const rec::TimerConfig> configOf(const std::string &path, const std::string &text);
// The window in global ns of its mode, from the whole job's range.
std::pair<int64_t, int64_t> globalWindow(const LoadWindow &w, const TimeRange &job);
// The options with the clock chosen: the caller's, else the config's view_clock, else
// corrected (a config's raw also sets the window's mode to raw).
LoadOptions withClock(const LoadOptions &given,
                      const std::shared_ptr<const rec::TimerConfig> &config);
// One input file of a load: its path, whether it is a Chrome trace, its size in bytes.
struct FileTask
{
    std::string path;
    bool chrome = false;
    int64_t bytes = 0;
};

// Runs item(i), turning an exception it throws into the file's load problem: the loader's
// threads never let one escape (it would end the process, std::terminate), and a file whose
// reading failed is not loaded rather than half-loaded.
template <class F>
void guardedItem(std::vector<ParsedFile> &files, size_t i, const std::string &path, F item)
{
    std::string why;
    try {
        item();
        return;
    } catch (const std::exception &e) {
        why = e.what();
    } catch (...) {
        why = "unknown exception";
    }
    ParsedFile failed;
    failed.path = path;
    LoadProblem p;
    p.kind = LoadProblem::Kind::LoadFailed;
    p.severity = LoadProblem::Severity::Error;
    p.file = path;
    p.message = "not loaded: reading it failed (" + why + ")";
    failed.problems.push_back(std::move(p));
    files[i] = std::move(failed);
}

// One file read (decoded from its event store, else parsed, writing the store when
// o.writeIndex) and prepared: sorted and nested, args still the file's own. `fromStore`: it was
// decoded from its event store alone.
ParsedFile readPrepared(const FileTask &t, const LoadOptions &o, EventKindLookup &kinds,
                        bool &fromStore);

// After the parse: the files merged into one timeline (result.timeline) and its clocks
// corrected, or taken from o.clockPlan; for `inputs.logs` (none: a split load's correction,
// JobLoader::splitClocks) the correction cache and link store written; o.window cut.
// result.fatalError when nothing usable remains.
void correctFiles(std::vector<ParsedFile> files, ArgStore args, JobInputs inputs,
                  const LoadOptions &o, const std::shared_ptr<const rec::TimerConfig> &config,
                  Progress &progress, size_t droppedByName, LoadResult &result);

} // namespace syncline::load

// JobInputs — resolves what the user named (job directories, timer_config.json, log files,
// Chrome traces) into the list of files to parse.
//
// A directory contributes every *.log in it, its timer_config.json (when present; the files its
// log_path template can have produced are found with rec::LogPath::globs(), relative to the
// config's directory) and every other *.json / *.json.gz that looks like a Chrome trace. A .json
// file (or a gzip'd one, whatever its name: GzipInput) is a Chrome trace when TraceSniff says so
// (an array of objects, or "traceEvents" near its start); a named JSON object that is not is
// read as a config; anything else named is refused with what it is (TraceSniff::what). Any other
// file is a syncline log. Files are deduplicated by real path, in a stable
// order. What is not a regular file (a FIFO, socket or device; a dangling or looping symbolic
// link) is never opened: it is skipped with a Warning naming it ("not a regular file (FIFO);
// skipped"), and the rest loads. Only a directory that cannot be listed at all is fatal.
// Threading: stateless apart from the result; any thread.
#pragma once

#include "timeline/model/loadproblem.h"
#include "timeline/model/rankset.h"

#include <string>
#include <vector>

namespace syncline::load {

class JobInputs
{
public:
    std::vector<std::string> logs;
    std::vector<std::string> chromeTraces;
    std::string configPath; // "" when none
    std::vector<LoadProblem> problems;
    std::string fatalError; // set when a named path cannot be used at all

    static JobInputs resolve(const std::vector<std::string> &paths);
    // The existing files a log_path template can have produced (LogPath::globs()), a relative
    // template taken relative to `baseDir`; sorted, without duplicates.
    static std::vector<std::string> expandLogTemplate(const std::string &tmpl,
                                                      const std::string &baseDir);
    static bool looksLikeChromeTrace(const std::string &path);
    // --ranks: drops from `logs` every log whose file name gives a rank outside `ranks`
    // (LogHeader::rankFromFileName), without opening it; a log whose name gives no rank stays
    // (its header decides once parsed). Returns how many were dropped.
    size_t selectRanks(const RankSet &ranks);

private:
    void addDirectory(const std::string &dir);
    void addFile(const std::string &path, bool named);
    // `what`: what TraceSniff found the file to be, said when it is not a usable config.
    void addConfig(const std::string &path, const std::string &what = {});
    std::vector<std::string> m_seen;
};

} // namespace syncline::load

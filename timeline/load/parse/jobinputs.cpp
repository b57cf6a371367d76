#include "timeline/load/parse/jobinputs.h"

#include "timeline/load/parse/chrome/gzipinput.h"
#include "timeline/load/parse/chrome/tracesniff.h"
#include "timeline/load/parse/filereader.h"
#include "timeline/load/parse/log/logheader.h"
#include "recorder/filekind.h"
#include "recorder/globpattern.h"
#include "recorder/logpath.h"
#include "recorder/timerconfig.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <glob.h>
#include <optional>
#include <sys/stat.h>

namespace fs = std::filesystem;

namespace syncline::load {

using Severity = LoadProblem::Severity;

namespace {

bool endsWith(const std::string &s, const std::string &suffix)
{
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Why `path` cannot be read as a log or trace without opening it (stat() never blocks, even on
// a FIFO); nullopt for a regular file (symbolic links followed).
std::optional<std::string> whyNotRegular(const std::string &path)
{
    struct stat st
    {
    };
    if (::stat(path.c_str(), &st) != 0) {
        const int err = errno;
        struct stat link
        {
        };
        if (::lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode))
            return std::string(err == ELOOP ? "symbolic link loop" : "dangling symbolic link") +
                   " (" + std::strerror(err) + "); skipped";
        return std::string("cannot read: ") + std::strerror(err) + "; skipped";
    }
    if (!S_ISREG(st.st_mode))
        return rec::FileKind::notRegular(st.st_mode) + "; skipped";
    return std::nullopt;
}

void globInto(const std::string &pattern, std::vector<std::string> &out)
{
    glob_t g{};
    if (::glob(pattern.c_str(), 0, nullptr, &g) == 0)
        for (size_t i = 0; i < g.gl_pathc; ++i)
            out.emplace_back(g.gl_pathv[i]);
    ::globfree(&g);
}

} // namespace

std::vector<std::string> JobInputs::expandLogTemplate(const std::string &tmpl,
                                                      const std::string &baseDir)
{
    // A relative template is taken relative to baseDir, also when its leading component
    // expands empty (LogPath then gives a pattern starting with '/').
    const bool absolute = !tmpl.empty() && tmpl[0] == '/';
    std::string base; // glob-escaped, ending in '/'
    if (!absolute) {
        base = rec::GlobPattern::escape(baseDir);
        if (base.empty() || base.back() != '/')
            base += '/';
    }
    std::vector<std::string> out;
    for (std::string p : rec::LogPath::globs(tmpl)) {
        if (!absolute)
            p = base + p.erase(0, p.find_first_not_of('/'));
        globInto(p, out);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

bool JobInputs::looksLikeChromeTrace(const std::string &path)
{
    return TraceSniff::of(path).kind == TraceSniff::Kind::Trace;
}

void JobInputs::addFile(const std::string &path, bool named)
{
    std::error_code ec;
    const std::string real = fs::weakly_canonical(path, ec).string();
    const std::string key = ec ? path : real;
    if (std::find(m_seen.begin(), m_seen.end(), key) != m_seen.end())
        return;
    m_seen.push_back(key);
    // A FIFO would block the open() below it (and every later reader) until a writer appears.
    if (const auto why = whyNotRegular(path)) {
        problems.push_back({LoadProblem::Kind::NotRegularFile, Severity::Warning, path, 0, *why});
        return;
    }
    // A trace by name (*.json, *.json.gz) or by content (gzip: a syncline log never is).
    if (endsWith(path, ".json") || endsWith(path, ".gz") || GzipInput::isGzip(path)) {
        const TraceSniff sniff = TraceSniff::of(path);
        using Kind = TraceSniff::Kind;
        if (sniff.kind == Kind::Trace)
            chromeTraces.push_back(path);
        else if (!sniff.gzip && sniff.kind == Kind::JsonObject &&
                 (named || fs::path(path).filename() == "timer_config.json"))
            addConfig(path, sniff.what);
        else if (named)
            problems.push_back(
                {LoadProblem::Kind::NotATrace, Severity::Error, path, 0,
                 sniff.what + ": not a Chrome trace (" +
                     (sniff.gzip ? std::string("a gzip'd input must be a trace: syncline logs "
                                               "and configs are read uncompressed")
                                 : std::string("neither an array of events nor an object with a "
                                               "\"traceEvents\" array")) +
                     "); not loaded"});
        else
            problems.push_back(
                {LoadProblem::Kind::NotATrace, Severity::Info, path, 0, sniff.what + ": not a Chrome trace; ignored"});
        return;
    }
    logs.push_back(path);
}

void JobInputs::addConfig(const std::string &path, const std::string &what)
{
    if (!configPath.empty()) {
        problems.push_back(
            {LoadProblem::Kind::SecondConfig, Severity::Warning, path, 0, "a second config ignored (using " + configPath + ")"});
        return;
    }
    configPath = path;
    try {
        const rec::TimerConfig config = rec::TimerConfig::load(path);
        const std::string dir = fs::path(path).parent_path().string();
        const std::vector<std::string> found =
            expandLogTemplate(config.logPath, dir.empty() ? "." : dir);
        // A .json that is no trace was read as a config: say so when it leads nowhere, so a
        // lone non-trace JSON file is not just "nothing found".
        if (found.empty())
            problems.push_back(
                {LoadProblem::Kind::ConfigMatchesNothing, Severity::Warning, path, 0,
                 std::string(fs::path(path).filename() == "timer_config.json"
                                 ? "timer config"
                                 : "not a Chrome trace (no \"traceEvents\", not an array), so "
                                   "read as a timer config") +
                     ": its log_path \"" + config.logPath + "\" matches no file"});
        for (const std::string &log : found)
            addFile(log, false);
    } catch (const std::exception &e) {
        problems.push_back(
            {LoadProblem::Kind::ConfigUnusable, Severity::Error, path, 0,
             (what.empty() || fs::path(path).filename() == "timer_config.json"
                  ? std::string()
                  : what + ": not a Chrome trace (no \"traceEvents\" array), and as a "
                           "timer_config.json ") +
                 "config not usable: " + e.what()});
    }
}

void JobInputs::addDirectory(const std::string &dir)
{
    // The names that can be inputs (*.log, *.json), whatever they are: addFile() reports those
    // that are not regular files (a FIFO, a dangling or looping link) and the rest still loads.
    // Only the listing's own error is fatal; an entry's stat error must not be taken for one.
    std::vector<std::string> entries;
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    for (; !ec && it != fs::directory_iterator(); it.increment(ec)) {
        const std::string p = it->path().string();
        std::error_code entryEc;
        if (!endsWith(p, ".log") && !TraceSniff::hasTraceName(p))
            continue;
        if (it->is_directory(entryEc))
            continue; // a sub-directory named like an input is not one
        entries.push_back(p);
    }
    if (ec) {
        fatalError = dir + ": cannot list directory: " + ec.message();
        return;
    }
    std::sort(entries.begin(), entries.end());
    for (const std::string &p : entries)
        if (fs::path(p).filename() == "timer_config.json")
            addFile(p, true);
    for (const std::string &p : entries) {
        if (endsWith(p, ".log"))
            addFile(p, false);
        else if (TraceSniff::hasTraceName(p) && fs::path(p).filename() != "timer_config.json")
            addFile(p, false);
    }
}

size_t JobInputs::selectRanks(const RankSet &ranks)
{
    if (ranks.all())
        return 0;
    const size_t before = logs.size();
    std::erase_if(logs, [&](const std::string &log) {
        const std::optional<int> rank = LogHeader::rankFromFileName(log);
        return rank && !ranks.contains(*rank);
    });
    return before - logs.size();
}

JobInputs JobInputs::resolve(const std::vector<std::string> &paths)
{
    JobInputs in;
    for (const std::string &p : paths) {
        std::error_code ec;
        const auto status = fs::status(p, ec);
        if (ec || !fs::exists(status)) {
            in.fatalError = p + ": no such file or directory";
            return in;
        }
        if (fs::is_directory(status))
            in.addDirectory(p);
        else
            in.addFile(p, true);
        if (!in.fatalError.empty())
            return in;
    }
    if (in.logs.empty() && in.chromeTraces.empty()) {
        in.fatalError = "no log files or traces found in the given path(s)";
        // What the inputs were taken for, and why they gave nothing (the first few).
        constexpr size_t kShown = 3;
        for (size_t i = 0; i < std::min(in.problems.size(), kShown); ++i)
            in.fatalError += "; " + in.problems[i].file + ": " + in.problems[i].message;
        if (in.problems.size() > kShown)
            in.fatalError += "; and " + std::to_string(in.problems.size() - kShown) + " more";
    }
    return in;
}

} // namespace syncline::load

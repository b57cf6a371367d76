// ProblemLog — collects the problems of one file, keeping the first few of each kind in full
// and counting the rest ("… and 1234 more malformed lines"), so a file with a million bad lines
// still yields a readable report and no problem is dropped silently.
// Threading: one per file / parser thread.
#pragma once

#include "timeline/model/loadproblem.h"

#include <map>
#include <string>
#include <vector>

namespace syncline::load {

class ProblemLog
{
public:
    static constexpr int kShownPerKind = 5;
    // A longer message (a huge name quoted in it) is cut to this many bytes, saying so.
    static constexpr size_t kMaxMessageBytes = 4096;

    explicit ProblemLog(std::string file = {}) : m_file(std::move(file)) {}
    void setFile(std::string file) { m_file = std::move(file); }
    // `kind` groups repeated problems (malformed lines, ends without a begin, ...); it is also
    // the kind of every problem added under it, and of its "… and N more" summary.
    using Kind = LoadProblem::Kind;
    void add(Kind kind, int64_t line, std::string message,
             LoadProblem::Severity severity = LoadProblem::Severity::Warning);
    // The same, for a problem about one record of thread `tid` at local time `localNs`.
    void addAt(Kind kind, int64_t line, int64_t tid, int64_t localNs, std::string message,
               LoadProblem::Severity severity = LoadProblem::Severity::Warning);
    int64_t count(Kind kind) const;
    // Moves the problems out, followed by one summary line per kind that overflowed.
    std::vector<LoadProblem> take();

private:
    struct Group
    {
        int64_t count = 0;
        LoadProblem::Severity severity = LoadProblem::Severity::Warning;
    };
    std::string m_file;
    std::vector<LoadProblem> m_problems;
    std::map<Kind, Group> m_kinds;
};

} // namespace syncline::load

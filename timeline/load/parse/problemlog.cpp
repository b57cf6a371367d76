#include "timeline/load/parse/problemlog.h"

#include <algorithm>

namespace syncline::load {

void ProblemLog::add(Kind kind, int64_t line, std::string message,
                     LoadProblem::Severity severity)
{
    Group &k = m_kinds[kind];
    if (++k.count > kShownPerKind)
        return;
    if (severity > k.severity || k.count == 1)
        k.severity = severity;
    LoadProblem p;
    p.kind = kind;
    p.severity = severity;
    p.file = m_file;
    p.line = line;
    if (message.size() > kMaxMessageBytes) {
        // A huge name embedded in the text (a 100 MB event name made a 100 MB warning): keep the
        // head, cut on a UTF-8 boundary, say how long it was.
        size_t cut = kMaxMessageBytes;
        while (cut > 0 && (static_cast<unsigned char>(message[cut]) & 0xC0) == 0x80)
            --cut;
        const size_t total = message.size();
        message.resize(cut);
        message += "… (message cut, " + std::to_string(total) + " bytes in all)";
    }
    p.message = std::move(message);
    m_problems.push_back(std::move(p));
}

void ProblemLog::addAt(Kind kind, int64_t line, int64_t tid, int64_t localNs,
                       std::string message, LoadProblem::Severity severity)
{
    const size_t before = m_problems.size();
    add(kind, line, std::move(message), severity);
    if (m_problems.size() > before) {
        m_problems.back().tid = tid;
        m_problems.back().localNs = localNs;
    }
}

int64_t ProblemLog::count(Kind kind) const
{
    auto it = m_kinds.find(kind);
    return it == m_kinds.end() ? 0 : it->second.count;
}

std::vector<LoadProblem> ProblemLog::take()
{
    // The summaries in the order of their labels (what people read, and the order they have
    // always had).
    std::vector<std::pair<std::string, Kind>> over;
    for (const auto &[kind, k] : m_kinds)
        if (k.count > kShownPerKind)
            over.emplace_back(LoadProblem::kindLabel(kind), kind);
    std::sort(over.begin(), over.end());
    for (const auto &[label, kind] : over) {
        const Group &k = m_kinds[kind];
        LoadProblem p;
        p.kind = kind;
        p.severity = k.severity;
        p.file = m_file;
        p.message = "… and " + std::to_string(k.count - kShownPerKind) + " more: " + label + " (" +
                    std::to_string(k.count) + " in all)";
        m_problems.push_back(std::move(p));
    }
    m_kinds.clear();
    return std::move(m_problems);
}

} // namespace syncline::load

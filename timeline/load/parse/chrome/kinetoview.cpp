// KinetoView — see kinetoview.h; also ChromeTraceState's metadata, track names and order.
#include "timeline/load/parse/chrome/kinetoview.h"

#include "timeline/load/parse/chrome/chrometracestate.h"

#include <nlohmann/json.hpp>

#include <limits>

namespace syncline::load {

namespace {

bool allDigits(std::string_view s, size_t maxLen)
{
    if (s.empty() || s.size() > maxLen)
        return false;
    for (const char c : s)
        if (c < '0' || c > '9')
            return false;
    return true;
}

std::string trimmedCopy(const std::string &s)
{
    const size_t a = s.find_first_not_of(" \t\r\n");
    if (a == std::string::npos)
        return {};
    return s.substr(a, s.find_last_not_of(" \t\r\n") - a + 1);
}

std::string unquoted(const std::string &token, const char *prefix)
{
    if (!token.empty() && token[0] == '"')
        return token.substr(1, token.size() - 2);
    return prefix + token;
}

} // namespace

bool KinetoView::foldProfilerStep(std::string_view &name, std::string_view args,
                                  std::string &argsOut)
{
    constexpr std::string_view kStep = "ProfilerStep#";
    if (!name.starts_with(kStep) || !allDigits(name.substr(kStep.size()), 18))
        return false;
    const std::string_view n = name.substr(kStep.size());
    name = name.substr(0, kStep.size() - 1);
    // The members after the object's '{' (args is an object's text, or empty).
    size_t open = args.find_first_not_of(" \t\r\n");
    if (open == std::string_view::npos || args[open] != '{') {
        argsOut = "{\"step\": " + std::string(n) + "}";
        return true;
    }
    if (args.find("\"step\"") != std::string_view::npos) { // keep theirs
        argsOut = std::string(args);
        return true;
    }
    const std::string_view rest = args.substr(open + 1);
    const size_t next = rest.find_first_not_of(" \t\r\n");
    const bool empty = next == std::string_view::npos || rest[next] == '}';
    argsOut = "{\"step\": " + std::string(n) + (empty ? "" : ",") + std::string(rest);
    return true;
}

bool KinetoView::isProfilerSpan(std::string_view name)
{
    constexpr std::string_view kSpan = "PyTorch Profiler (";
    return name.starts_with(kSpan) && name.ends_with(")") &&
           allDigits(name.substr(kSpan.size(), name.size() - kSpan.size() - 1), 9);
}

// M records: process_name, process_labels, thread_name and process_sort_index give the tracks
// their labels and order; others are ignored.
void ChromeTraceState::handleMetadata(const Event &ev)
{
    const bool labels = ev.name == "process_labels", order = ev.name == "process_sort_index";
    if (ev.name != "process_name" && ev.name != "thread_name" && !labels && !order)
        return;
    auto args = nlohmann::json::parse(ev.argsRaw.empty() ? std::string_view("{}") : ev.argsRaw,
                                      nullptr, false);
    const char *key = labels ? "labels" : order ? "sort_index" : "name";
    const std::string pid(ev.pidTok);
    if (!args.is_object() || !args.contains(key))
        return;
    const auto &v = args[key];
    if (order) {
        if (v.is_number_integer())
            m_processOrder[pid] = v.get<int64_t>();
        else
            problems.add(LoadProblem::Kind::BadMetadata, 0,
                         "process_sort_index whose args.sort_index is not an integer (" +
                             v.dump().substr(0, 40) + "); ignored");
        return;
    }
    std::string label;
    if (v.is_string())
        label = trimmedCopy(v.get<std::string>());
    else // e.g. "args":{"name":5}: the label is dropped, the trace is not
        problems.add(LoadProblem::Kind::BadMetadata, 0,
                     std::string(ev.name) + " whose args." + key + " is not a string (" +
                         v.dump().substr(0, 40) + "); label ignored");
    if (labels)
        m_processLabels[pid] = label;
    else if (ev.name == "process_name")
        m_processNames[pid] = label;
    else
        m_threadNames[pid + '\x1f' + std::string(ev.tidTok)] = label;
}

std::string ChromeTraceState::processLabel(const std::string &pidToken) const
{
    for (const auto *names : {&m_processLabels, &m_processNames}) {
        const auto it = names->find(pidToken);
        if (it != names->end() && !it->second.empty())
            return it->second;
    }
    return unquoted(pidToken, "pid ");
}

int64_t ChromeTraceState::processOrder(const std::string &pidToken) const
{
    // A trace that orders its processes puts the ones it does not order last (Kineto's global
    // markers: pid "Traces", pid ""); one that orders none keeps (pid, tid) order.
    if (m_processOrder.empty())
        return 0;
    const auto it = m_processOrder.find(pidToken);
    return it == m_processOrder.end() ? std::numeric_limits<int64_t>::max() : it->second;
}

void ChromeTraceState::nameTracks()
{
    for (size_t i = 0; i < m_tracks.size(); ++i) {
        const TrackState &s = m_tracks[i];
        std::string thread;
        const auto tn = m_threadNames.find(s.pidToken + '\x1f' + s.tidToken);
        if (tn != m_threadNames.end() && !tn->second.empty())
            thread = tn->second;
        else
            thread = unquoted(s.tidToken, "tid ");
        EventTrack &t = m_out.worker.tracks[i];
        t.threadName = processLabel(s.pidToken) + " / " + thread;
        t.order = processOrder(s.pidToken);
    }
}

} // namespace syncline::load

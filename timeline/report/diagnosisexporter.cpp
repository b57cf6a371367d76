#include "timeline/report/diagnosisexporter.h"

#include "timeline/report/textwriter.h"

#include "recorder/utf8.h"

#include <cstdio>
#include <limits>
#include <string>

namespace syncline {

namespace {

// a − b held at the int64 limits (a job with no events has its origin at INT64_MAX).
int64_t minusSat(int64_t a, int64_t b)
{
    int64_t out = 0;
    if (__builtin_sub_overflow(a, b, &out))
        return b < 0 ? std::numeric_limits<int64_t>::max() : std::numeric_limits<int64_t>::min();
    return out;
}

int rankOf(const Timeline &tl, int32_t worker)
{
    return worker >= 0 ? tl.workers[size_t(worker)].info.rank : -1;
}

void shares(TextWriter &w, const std::vector<DiagnosisShare> &list, bool byRank)
{
    w << '[';
    for (size_t i = 0; i < list.size(); ++i) {
        w << (i ? ", " : "") << '{' << (byRank ? "\"rank\": " : "\"name\": ");
        if (byRank)
            w.num(int64_t(list[i].rank));
        else
            w.jsonString(list[i].name);
        w << ", \"ns\": ";
        w.num(list[i].ns) << ", \"share\": ";
        w.numExact(list[i].share) << '}';
    }
    w << ']';
}

std::string ms(int64_t ns)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3f ms", double(ns) / 1e6);
    return buf;
}

} // namespace

void DiagnosisExporter::writeJson(const Timeline &tl, const Diagnosis &d, std::ostream &out)
{
    TextWriter w(out);
    w << "{\"version\": ";
    w.num(int64_t(kFormatVersion))
        << ", \"clock\": \"" << (d.mode == ClockMode::Raw ? "raw" : "corrected") << "\",\n";
    // steps
    w << " \"steps\": {\"name\": ";
    if (d.stepName.empty())
        w << "null";
    else
        w.jsonString(d.stepName);
    int64_t count = 0;
    for (const DiagnosisStep &s : d.steps)
        count += s.endNs > s.beginNs;
    w << ", \"count\": ";
    w.num(count) << ", \"p50_ns\": ";
    w.num(d.stepP50Ns) << ", \"mean_ns\": ";
    w.num(d.stepMeanNs) << ", \"max_ns\": ";
    w.num(d.stepMaxNs) << "},\n \"collectives\": {\"names\": [";
    for (size_t i = 0; i < d.collectiveNames.size(); ++i) {
        w << (i ? ", " : "");
        w.jsonString(tl.names.name(d.collectiveNames[i]));
    }
    w << "], \"instances\": ";
    w.num(d.instances) << ", \"decided\": ";
    w.num(d.decided) << "},\n \"culprits\": [";
    for (size_t i = 0; i < d.culprits.size(); ++i) {
        const DiagnosisRank &r = d.ranks[d.culprits[i]];
        w << (i ? ",\n  " : "\n  ") << "{\"rank\": ";
        w.num(int64_t(r.rank)) << ", \"blame_ns\": ";
        w.num(r.blameNs) << ", \"times_last\": ";
        w.num(r.timesLast) << ", \"instances\": ";
        w.num(r.instances) << ", \"what_if_step_p50_ns\": ";
        if (d.stepName.empty())
            w << "null";
        else
            w.num(r.whatIfStepP50Ns);
        w << ", \"saved_ns_per_step\": ";
        if (d.stepName.empty())
            w << "null";
        else
            w.num(r.savedNsPerStep);
        w << ", \"saved_ns_total\": ";
        w.num(r.savedNsTotal) << '}';
    }
    w << "],\n \"victims\": [";
    for (size_t i = 0; i < d.victims.size(); ++i) {
        const DiagnosisRank &r = d.ranks[d.victims[i]];
        w << (i ? ",\n  " : "\n  ") << "{\"rank\": ";
        w.num(int64_t(r.rank)) << ", \"wait_ns\": ";
        w.num(r.waitNs) << ", \"instances\": ";
        w.num(r.instances) << '}';
    }
    w << "],\n \"ranks\": [";
    for (size_t i = 0; i < d.ranks.size(); ++i) {
        const DiagnosisRank &r = d.ranks[i];
        w << (i ? ",\n  " : "\n  ") << "{\"rank\": ";
        w.num(int64_t(r.rank)) << ", \"blame_ns\": ";
        w.num(r.blameNs) << ", \"times_last\": ";
        w.num(r.timesLast) << ", \"wait_ns\": ";
        w.num(r.waitNs) << ", \"instances\": ";
        w.num(r.instances) << ", \"critical_ns\": ";
        w.num(r.criticalNs) << ", \"culprit\": " << (r.culprit ? "true" : "false") << '}';
    }
    w << "],\n \"unclosed\": [";
    for (size_t i = 0; i < d.unclosed.size(); ++i) {
        const WorkerInfo &info = tl.workers[d.unclosed[i].first].info;
        w << (i ? ", " : "") << "{\"rank\": ";
        w.num(int64_t(info.rank)) << ", \"restart\": ";
        w.num(int64_t(info.restart)) << ", \"last_ns\": ";
        w.num(minusSat(d.unclosed[i].second, tl.originNs(d.mode))) << '}';
    }
    w << "],\n \"critical_path\": {\"total_ns\": ";
    w.num(d.criticalTotalNs) << ", \"by_rank\": ";
    shares(w, d.criticalByRank, true);
    w << ", \"by_name\": ";
    shares(w, d.criticalByName, false);
    w << "},\n \"undecided\": {\"count\": ";
    w.num(d.undecidedCount) << ", \"instances\": [";
    for (size_t i = 0; i < d.undecided.size(); ++i) {
        const DiagnosisInstance &u = d.undecided[i];
        w << (i ? ",\n  " : "\n  ") << "{\"name\": ";
        w.jsonString(tl.names.name(u.nameId)) << ", \"generation\": ";
        w.num(u.sequence >> 40) << ", \"index\": ";
        w.num(u.sequence & ((int64_t(1) << 40) - 1)) << ", \"last_rank\": ";
        w.num(int64_t(rankOf(tl, u.lastWorker))) << ", \"second_rank\": ";
        w.num(int64_t(rankOf(tl, u.secondWorker))) << ", \"lead_ns\": ";
        w.num(u.lastArrivalNs - u.secondArrivalNs) << ", \"bound_ns\": ";
        w.num(u.boundNs) << '}';
    }
    w << "]}}\n";
}

void DiagnosisExporter::writeText(const Timeline &tl, const Diagnosis &d, std::ostream &out)
{
    TextWriter w(out);
    if (d.stepName.empty())
        w << "steps: none found (no outermost event repeats on every rank; --step NAME names "
             "one)\n";
    else {
        int64_t count = 0;
        for (const DiagnosisStep &s : d.steps)
            count += s.endNs > s.beginNs;
        w << "steps: " << utf8::terminalSafe(d.stepName) << ", " << std::to_string(count)
          << " (first rank's start to last rank's end): p50 " << ms(d.stepP50Ns) << ", mean "
          << ms(d.stepMeanNs) << ", max " << ms(d.stepMaxNs) << '\n';
    }
    w << "collectives: " << std::to_string(d.instances) << " instances";
    if (d.instances)
        w << " (" << std::to_string(d.undecidedCount)
          << " undecided: the last two arrivals closer than their clock bounds)";
    w << "\n\n";
    if (d.culprits.empty())
        w << "culprits: none (no rank's blame stands out, or fixing it would save < 1% of the "
             "step time)\n";
    else {
        w << "culprits (the last to arrive at collectives; blame = the others' wait it alone "
             "caused):\n";
        char line[256];
        std::snprintf(line, sizeof line, "  %-6s %14s %10s %10s %18s %16s\n", "rank", "blame",
                      "times_last", "instances", "what-if step p50", "saved per step");
        w << line;
        for (size_t i : d.culprits) {
            const DiagnosisRank &r = d.ranks[i];
            std::snprintf(line, sizeof line, "  %-6d %14s %10lld %10lld %18s %16s\n", r.rank,
                          ms(r.blameNs).c_str(), (long long)r.timesLast, (long long)r.instances,
                          d.stepName.empty() ? "-" : ms(r.whatIfStepP50Ns).c_str(),
                          d.stepName.empty() ? "-" : ms(r.savedNsPerStep).c_str());
            w << line;
        }
        const DiagnosisRank &top = d.ranks[d.culprits.front()];
        if (!d.stepName.empty() && d.stepP50Ns > 0)
            w << "  what fixing rank " << std::to_string(top.rank) << " would buy: step p50 "
              << ms(d.stepP50Ns) << " -> " << ms(top.whatIfStepP50Ns) << ", "
              << ms(top.savedNsTotal) << " over the run\n";
    }
    if (!d.victims.empty()) {
        w << "\nvictims (waiting at collectives; not stragglers): ";
        for (size_t i = 0; i < d.victims.size() && i < 8; ++i) {
            const DiagnosisRank &r = d.ranks[d.victims[i]];
            w << (i ? ", " : "") << "rank " << std::to_string(r.rank) << " " << ms(r.waitNs);
        }
        if (d.victims.size() > 8)
            w << ", ... (" << std::to_string(d.victims.size() - 8) << " more)";
        w << '\n';
    }
    for (const auto &[wi, last] : d.unclosed) {
        const WorkerInfo &info = tl.workers[wi].info;
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3f s", double(minusSat(last, tl.originNs(d.mode))) / 1e9);
        w << "\nwarning: rank " << std::to_string(info.rank) << " (restart "
          << std::to_string(info.restart)
          << ") has no close record: crashed, killed or still running; its last record at " << buf
          << '\n';
    }
    if (d.criticalTotalNs > 0) {
        auto line = [&](const char *what, const std::vector<DiagnosisShare> &list) {
            w << what;
            for (size_t i = 0; i < list.size() && i < 6 && list[i].share >= 0.0005; ++i) {
                char pct[32];
                std::snprintf(pct, sizeof pct, " %.1f%%", 100.0 * list[i].share);
                w << (i ? ", " : " ") << utf8::terminalSafe(list[i].name) << pct;
            }
            w << '\n';
        };
        w << "\ncritical path (per step, through each collective's last arriver):\n";
        line("  by rank:", d.criticalByRank);
        line("  by name:", d.criticalByName);
    }
}

} // namespace syncline

#include "timeline/report/htmlreport.h"

#include "recorder/utf8.h"
#include "timeline/report/rankoutliers.h"
#include "timeline/report/textwriter.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

namespace syncline {

namespace {

std::string ms(int64_t ns)
{
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.3f", double(ns) / 1e6);
    return buf;
}

// A duration for people: "812 ns", "12.3 µs", "4.56 ms", "2.35 s".
std::string human(int64_t ns)
{
    char buf[40];
    const double a = double(ns < 0 ? -ns : ns);
    if (a < 1e3)
        std::snprintf(buf, sizeof buf, "%lld ns", (long long)ns);
    else if (a < 1e6)
        std::snprintf(buf, sizeof buf, "%.1f µs", double(ns) / 1e3);
    else if (a < 1e9)
        std::snprintf(buf, sizeof buf, "%.2f ms", double(ns) / 1e6);
    else
        std::snprintf(buf, sizeof buf, "%.2f s", double(ns) / 1e9);
    return buf;
}

// An offset that may be an epoch (the time server's wall clock): exact seconds with six decimals,
// "1764436714.650123 s", "-0.000250 s".
std::string offsetSeconds(int64_t ns)
{
    const bool neg = ns < 0;
    const uint64_t a = neg ? 0 - uint64_t(ns) : uint64_t(ns);
    char buf[48];
    std::snprintf(buf, sizeof buf, "%s%llu.%06llu s", neg ? "-" : "",
                  (unsigned long long)(a / 1000000000u),
                  (unsigned long long)(a % 1000000000u / 1000u));
    return buf;
}

std::string percent(double share)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", share * 100.0);
    return buf;
}

std::string num(int64_t v)
{
    // 1234567 → "1,234,567" (built from the right: no insert into the middle)
    const std::string digits = std::to_string(v);
    const size_t sign = v < 0 ? 1 : 0;
    std::string out;
    for (size_t i = digits.size(), k = 0; i > sign; --i, ++k) {
        if (k && k % 3 == 0)
            out += ',';
        out += digits[i - 1];
    }
    if (sign)
        out += '-';
    return std::string(out.rbegin(), out.rend());
}

class Table
{
public:
    Table(std::string &out, std::initializer_list<const char *> header, const char *cls = "")
        : m_out(out)
    {
        m_out += std::string("<table class=\"") + cls + "\"><thead><tr>";
        for (const char *h : header)
            m_out += std::string("<th>") + h + "</th>";
        m_out += "</tr></thead><tbody>\n";
    }
    ~Table() { m_out += "</tbody></table>\n"; }
    // Cells are HTML already (escape what came from a file before).
    void row(std::initializer_list<std::string> cells, const char *cls = "")
    {
        m_out += *cls ? std::string("<tr class=\"") + cls + "\">" : std::string("<tr>");
        for (const std::string &c : cells)
            m_out += "<td>" + c + "</td>";
        m_out += "</tr>\n";
    }

private:
    std::string &m_out;
};

std::string name(const Timeline &tl, uint32_t id)
{
    return HtmlReport::escape(tl.names.name(id));
}

void workersSection(const Timeline &tl, std::string &o)
{
    o += "<h2 id=\"workers\">Workers and clocks</h2>\n";
    o += "<p class=\"note\">offset: global − local time at the worker's first event; drift: the "
         "clock's rate error; bound: the largest guaranteed error of the corrected time (0: none "
         "known).</p>\n";
    Table t(o, {"rank", "restart", "world", "host", "pid", "events", "clock", "offset", "drift (ppm)",
                "bound", "dropped", "closed"},
            "num");
    for (const Worker &w : tl.workers) {
        char drift[32];
        std::snprintf(drift, sizeof drift, "%.3f", w.clock.driftPpm);
        t.row({std::to_string(w.info.rank), std::to_string(w.info.restart),
               std::to_string(w.info.worldSize), HtmlReport::escape(w.info.host),
               std::to_string(w.info.pid), num(int64_t(w.eventCount())),
               sync::methodName(w.clock.method), offsetSeconds(w.clock.offsetNs), drift,
               w.clock.boundNs > 0 ? human(w.clock.boundNs) : std::string("—"),
               num(w.info.droppedEvents), w.info.closedCleanly ? "yes" : "<b>no</b>"},
              w.info.closedCleanly ? "" : "warn");
    }
}

void statsSection(const Timeline &tl, const HtmlReportInput &in, std::string &o)
{
    o += "<h2 id=\"stats\">Statistics</h2>\n";
    if (!in.stats) {
        o += "<p>not computed</p>\n";
        return;
    }
    std::vector<const StatsRow *> all;
    for (const StatsRow &r : *in.stats)
        if (!r.rank)
            all.push_back(&r);
    std::stable_sort(all.begin(), all.end(),
                     [](auto *a, auto *b) { return a->totalNs > b->totalNs; });
    o += "<p class=\"note\">Complete events of every rank, by total time; durations in ms "
         "(nearest-rank percentiles).</p>\n";
    {
        Table t(o, {"event", "count", "total", "mean", "p50", "p95", "p99", "max"}, "num");
        for (size_t i = 0; i < all.size() && i < in.statsRows; ++i) {
            const StatsRow &r = *all[i];
            t.row({name(tl, r.nameId), num(r.count), ms(r.totalNs), ms(r.meanNs), ms(r.p50Ns),
                   ms(r.p95Ns), ms(r.p99Ns), ms(r.maxNs)});
        }
    }
    if (all.size() > in.statsRows)
        o += "<p class=\"note\">" + num(int64_t(all.size() - in.statsRows)) +
             " more names (<code>syncline stats --json</code> lists all, per rank).</p>\n";
    const auto stragglers = RankOutliers::compute(*in.stats, &tl);
    if (stragglers.empty())
        return;
    o += "<h3>Stragglers (compute)</h3>\n<p class=\"note\">Ranks whose mean is beyond the "
         "median of the ranks' means + max(3·MAD, 50 µs, 10 %).</p>\n";
    Table t(o, {"event", "ranks", "median (ms)", "limit (ms)", "slow ranks (mean ms)"}, "num");
    for (size_t i = 0; i < stragglers.size() && i < 10; ++i) {
        const RankStragglers &s = stragglers[i];
        std::string slow;
        for (const auto &[rank, mean] : s.slow)
            slow += (slow.empty() ? "" : ", ") + std::to_string(rank) + " (" + ms(mean) + ")";
        t.row({name(tl, s.nameId), std::to_string(s.ranks), ms(s.medianNs), ms(s.thresholdNs),
               slow});
    }
}

void sharesTable(std::string &o, const char *what, const std::vector<DiagnosisShare> &shares,
                 bool byRank)
{
    Table t(o, {what, "time on the path", "share"}, "num");
    for (size_t i = 0; i < shares.size() && i < 8; ++i)
        t.row({byRank ? std::to_string(shares[i].rank) : HtmlReport::escape(shares[i].name),
               human(shares[i].ns), percent(shares[i].share)});
}

void diagnosisSection(const Timeline &tl, const HtmlReportInput &in, std::string &o)
{
    o += "<h2 id=\"diagnosis\">Diagnosis</h2>\n";
    if (!in.diagnosis) {
        o += "<p>" + HtmlReport::escape(in.diagnosisNote.empty() ? "not judged" : in.diagnosisNote) +
             "</p>\n";
        return;
    }
    const Diagnosis &d = *in.diagnosis;
    o += "<ul class=\"facts\">";
    if (d.stepName.empty())
        o += "<li>steps: none found (no outermost event repeats on the workers)</li>";
    else
        o += "<li>steps: <b>" + HtmlReport::escape(d.stepName) + "</b> × " +
             num(int64_t(d.steps.size())) + " — p50 " + human(d.stepP50Ns) + ", mean " +
             human(d.stepMeanNs) + ", max " + human(d.stepMaxNs) + "</li>";
    o += "<li>collective instances: " + num(d.instances) + ", decided " + num(d.decided) +
         ", undecided (arrivals within the clock bounds) " + num(d.undecidedCount) + "</li>";
    o += "</ul>\n";
    if (d.culprits.empty()) {
        o += "<p class=\"verdict ok\">No culprit: no rank's blame stands out, or fixing it would "
             "save less than 1 % of the step time.</p>\n";
    } else {
        const DiagnosisRank &top = d.ranks[d.culprits.front()];
        o += "<p class=\"verdict bad\">Rank <b>" + std::to_string(top.rank) +
             "</b> holds the job back: last at " + num(top.timesLast) + " of " +
             num(top.instances) + " collectives";
        if (top.hasWhatIf && top.savedNsPerStep > 0)
            o += "; with its work at the median of the others', a step would take " +
                 human(top.whatIfStepP50Ns) + " (p50) instead of " + human(d.stepP50Ns) + ", " +
                 human(top.savedNsPerStep) + " saved per step";
        o += ".</p>\n<h3>Culprits</h3>\n";
        Table t(o, {"rank", "blame", "times last", "instances", "own wait", "what-if step p50",
                    "saved / step", "saved in all"},
                "num");
        for (size_t i : d.culprits) {
            const DiagnosisRank &r = d.ranks[i];
            t.row({std::to_string(r.rank), human(r.blameNs), num(r.timesLast), num(r.instances),
                   human(r.waitNs), r.hasWhatIf ? human(r.whatIfStepP50Ns) : "—",
                   r.hasWhatIf ? human(r.savedNsPerStep) : "—",
                   r.hasWhatIf ? human(r.savedNsTotal) : "—"},
                  "bad");
        }
    }
    if (!d.victims.empty()) {
        o += "<h3>Waits (victims)</h3>\n<p class=\"note\">The ranks that waited longest at "
             "collectives for the last arriver; waiting is not the cause.</p>\n";
        Table t(o, {"rank", "waited", "blame"}, "num");
        for (size_t i = 0; i < d.victims.size() && i < 8; ++i) {
            const DiagnosisRank &r = d.ranks[d.victims[i]];
            t.row({std::to_string(r.rank), human(r.waitNs), human(r.blameNs)});
        }
        if (d.victims.size() > 8)
            o += "<p class=\"note\">" + num(int64_t(d.victims.size() - 8)) +
                 " more ranks waited.</p>\n";
    }
    if (d.criticalTotalNs > 0) {
        o += "<h3>Critical path</h3>\n<p class=\"note\">Per step, back from the last rank's end "
             "through each collective's last arriver: " +
             human(d.criticalTotalNs) + " in all.</p>\n<div class=\"pair\"><div>";
        sharesTable(o, "rank", d.criticalByRank, true);
        o += "</div><div>";
        sharesTable(o, "event", d.criticalByName, false);
        o += "</div></div>\n";
    }
    if (!d.unclosed.empty()) {
        o += "<p class=\"warn\">" + num(int64_t(d.unclosed.size())) +
             " worker(s) have no close record (crashed, killed or still running): ";
        for (size_t i = 0; i < d.unclosed.size() && i < 16; ++i)
            o += (i ? ", " : "") + HtmlReport::escape(tl.workers[d.unclosed[i].first].label());
        o += "</p>\n";
    }
}

void problemsSection(const Timeline &tl, const HtmlReportInput &in, std::string &o)
{
    o += "<h2 id=\"problems\">Problems</h2>\n";
    int count[3] = {0, 0, 0};
    for (const LoadProblem &p : tl.problems)
        ++count[int(p.severity)];
    if (tl.problems.empty()) {
        o += "<p>None: every file loaded cleanly.</p>\n";
        return;
    }
    o += "<p>" + num(count[2]) + " error(s), " + num(count[1]) + " warning(s), " + num(count[0]) +
         " note(s) while loading.</p>\n";
    Table t(o, {"severity", "where", "message"}, "problems");
    // Errors first, then warnings, then notes; in load order within each.
    size_t listed = 0;
    for (int s = 2; s >= 0; --s)
        for (const LoadProblem &p : tl.problems) {
            if (int(p.severity) != s || listed >= in.problemRows)
                continue;
            ++listed;
            std::string where = p.file;
            if (p.line > 0)
                where += ":" + std::to_string(p.line);
            t.row({LoadProblem::severityName(p.severity), HtmlReport::escape(where),
                   HtmlReport::escape(p.message)},
                  s == 2 ? "bad" : s == 1 ? "warn" : "");
        }
    if (tl.problems.size() > listed)
        o += "<tr><td colspan=\"3\">" + num(int64_t(tl.problems.size() - listed)) +
             " more (<code>syncline check</code> lists all)</td></tr>\n";
}

} // namespace

std::string HtmlReport::escape(std::string_view text)
{
    const std::string safe = utf8::terminalSafe(text);
    std::string out;
    out.reserve(safe.size() + 16);
    for (char c : safe) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return out;
}

std::string HtmlReport::base64(std::string_view bytes)
{
    static const char kAlphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string out;
    out.reserve((bytes.size() + 2) / 3 * 4);
    size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const uint32_t v = uint32_t(uint8_t(bytes[i])) << 16 | uint32_t(uint8_t(bytes[i + 1])) << 8 |
                           uint8_t(bytes[i + 2]);
        out += kAlphabet[v >> 18];
        out += kAlphabet[(v >> 12) & 63];
        out += kAlphabet[(v >> 6) & 63];
        out += kAlphabet[v & 63];
    }
    if (const size_t rest = bytes.size() - i) {
        const uint32_t v = uint32_t(uint8_t(bytes[i])) << 16 |
                           (rest == 2 ? uint32_t(uint8_t(bytes[i + 1])) << 8 : 0u);
        out += kAlphabet[v >> 18];
        out += kAlphabet[(v >> 12) & 63];
        out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
        out += '=';
    }
    return out;
}

std::string HtmlReport::style()
{
    return R"(<style>
.syncline{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:#1d2330;max-width:1400px;margin:0 auto;padding:0 16px 40px}
.syncline h1{font-size:22px;margin:18px 0 4px}
.syncline h2{font-size:18px;margin:28px 0 8px;padding-bottom:4px;border-bottom:1px solid #d8dde6}
.syncline h3{font-size:15px;margin:18px 0 6px}
.syncline .note{color:#5b6475;font-size:12.5px;margin:4px 0 8px}
.syncline code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f1f3f7;padding:1px 4px;border-radius:3px}
.syncline table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}
.syncline th,.syncline td{padding:3px 10px;border-bottom:1px solid #e6e9ef;text-align:left;vertical-align:top}
.syncline th{background:#f4f6fa;font-weight:600;white-space:nowrap}
.syncline table.num td{font-variant-numeric:tabular-nums}
.syncline table.num td:not(:first-child){text-align:right}
.syncline table.problems td{font-size:12.5px}
.syncline tr.bad td{background:#fdecec}
.syncline tr.warn td{background:#fff6e0}
.syncline .cards{display:flex;flex-wrap:wrap;gap:8px;margin:10px 0}
.syncline .card{border:1px solid #d8dde6;border-radius:6px;padding:6px 12px;background:#fafbfd;min-width:90px}
.syncline .card b{display:block;font-size:18px}
.syncline .card span{color:#5b6475;font-size:12px}
.syncline .verdict{padding:8px 12px;border-radius:6px;margin:10px 0}
.syncline .verdict.bad{background:#fdecec;border:1px solid #f3b4b4}
.syncline .verdict.ok{background:#e9f7ee;border:1px solid #a9dcb9}
.syncline p.warn{background:#fff6e0;padding:6px 10px;border-radius:6px}
.syncline .pair{display:flex;flex-wrap:wrap;gap:24px}
.syncline img.timeline{width:100%;height:auto;border:1px solid #d8dde6;border-radius:4px}
.syncline figure{margin:8px 0 18px}
.syncline figcaption{color:#5b6475;font-size:12.5px;margin-top:2px}
.syncline nav a{margin-right:14px;color:#2c5db8;text-decoration:none}
.syncline ul.facts{margin:4px 0 8px;padding-left:20px}
</style>
)";
}

std::string HtmlReport::summary(const Timeline &tl, ClockMode mode)
{
    std::set<int> ranks;
    std::set<std::string> hosts;
    std::map<std::string, int> methods;
    int restarts = 0;
    int64_t maxBound = 0;
    for (const Worker &w : tl.workers) {
        ranks.insert(w.info.rank);
        hosts.insert(w.info.host);
        restarts = std::max(restarts, w.info.restart);
        ++methods[sync::methodName(w.clock.method)];
        maxBound = std::max(maxBound, w.clock.boundNs);
    }
    const TimeRange &r = tl.range(mode);
    std::string o = "<div class=\"cards\">";
    auto card = [&](const std::string &value, const char *label) {
        o += "<div class=\"card\"><b>" + value + "</b><span>" + label + "</span></div>";
    };
    card(num(int64_t(tl.workers.size())), "workers");
    card(num(int64_t(ranks.size())), "ranks");
    card(num(int64_t(hosts.size())), "hosts");
    card(num(restarts), "restarts");
    card(num(int64_t(tl.eventCount())), "events");
    card(tl.workers.empty() || r.end < r.begin ? std::string("—") : human(r.duration()), "span");
    card(maxBound > 0 ? human(maxBound) : std::string("—"), "largest clock bound");
    o += "</div>\n<p class=\"note\">hosts: ";
    size_t i = 0;
    for (const std::string &h : hosts) {
        if (i == 12) {
            o += ", … (" + num(int64_t(hosts.size() - 12)) + " more)";
            break;
        }
        o += (i++ ? ", " : "") + escape(h);
    }
    o += " · clocks: ";
    i = 0;
    for (const auto &[m, n] : methods)
        o += (i++ ? ", " : "") + std::string(m) + " × " + std::to_string(n);
    o += std::string(" · times on the ") + (mode == ClockMode::Raw ? "raw" : "corrected") +
         " clocks</p>\n";
    return o;
}

void HtmlReport::write(const Timeline &tl, const HtmlReportInput &in, std::ostream &out)
{
    std::string o;
    std::string title = "syncline report";
    if (!in.paths.empty())
        title += ": " + in.paths.front() + (in.paths.size() > 1 ? " …" : "");
    o += "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta "
         "name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         escape(title) + "</title>\n" + style() + "</head>\n<body><div class=\"syncline\">\n";
    o += "<h1>syncline report</h1>\n<p class=\"note\">";
    for (size_t i = 0; i < in.paths.size(); ++i)
        o += (i ? " " : "") + std::string("<code>") + escape(in.paths[i]) + "</code>";
    o += " · written by syncline " + escape(in.version) + "</p>\n";
    o += "<nav><a href=\"#timeline\">Timeline</a><a href=\"#diagnosis\">Diagnosis</a><a "
         "href=\"#stats\">Statistics</a><a href=\"#workers\">Workers</a><a "
         "href=\"#problems\">Problems</a></nav>\n";
    o += summary(tl, in.mode);
    for (const std::string &n : tl.clockNotes)
        o += "<p class=\"note\">clock note: " + escape(n) + "</p>\n";
    if (tl.causality.violationsBefore > 0)
        o += "<p class=\"note\">causality: " + num(tl.causality.violationsBefore) +
             " message(s) received before they were sent on the synced clocks, " +
             num(tl.causality.violationsAfter) + " after the repair</p>\n";
    o += "<h2 id=\"timeline\">Timeline</h2>\n";
    for (const HtmlPicture &p : in.pictures)
        o += "<figure><img class=\"timeline\" alt=\"" + escape(p.caption) +
             "\" src=\"data:image/png;base64," + base64(p.png) + "\"><figcaption>" +
             escape(p.caption) + "</figcaption></figure>\n";
    if (in.pictures.empty())
        o += "<p>" + escape(in.pictureNote.empty() ? "no picture" : in.pictureNote) + "</p>\n";
    diagnosisSection(tl, in, o);
    statsSection(tl, in, o);
    workersSection(tl, o);
    problemsSection(tl, in, o);
    o += "</div></body></html>\n";
    out << o;
}

bool HtmlReport::writeFile(const Timeline &tl, const HtmlReportInput &in, const std::string &path,
                           std::string *error)
{
    return TextWriter::toFile(path, error, [&](std::ostream &out) { write(tl, in, out); });
}

std::string HtmlReport::stepMap(const Timeline &tl, const Diagnosis &d, size_t columns)
{
    const size_t steps = d.steps.size(), workers = d.workerCount;
    if (steps == 0 || workers == 0 || d.cellDurationNs.size() != steps * workers ||
        d.stepP50Ns <= 0 || columns == 0)
        return {};
    const size_t bins = std::min(steps, columns);
    const int cellW = int(std::clamp<size_t>(600 / bins, 3, 24));
    const int cellH = workers > 64 ? 2 : workers > 16 ? 5 : 12;
    const int labelW = cellH >= 12 ? 118 : 0;
    const int w = labelW + int(bins) * cellW, h = int(workers) * cellH;
    std::string o = "<svg width=\"" + std::to_string(w) +
                    "\" height=\"" + std::to_string(h + 14) + "\" viewBox=\"0 0 " +
                    std::to_string(w) + " " + std::to_string(h + 14) +
                    "\" font-family=\"sans-serif\" font-size=\"9\">";
    o += "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>";
    const double p50 = double(d.stepP50Ns);
    for (size_t wk = 0; wk < workers; ++wk) {
        const int y = int(wk) * cellH;
        if (labelW)
            o += "<text x=\"2\" y=\"" + std::to_string(y + cellH - 3) + "\" fill=\"#5b6475\">" +
                 "rank " + std::to_string(tl.workers[wk].info.rank) + " · restart " +
                 std::to_string(tl.workers[wk].info.restart) + "</text>";
        for (size_t b = 0; b < bins; ++b) {
            float worst = std::numeric_limits<float>::quiet_NaN();
            for (size_t s = b * steps / bins; s < (b + 1) * steps / bins; ++s) {
                const float v = d.cellDuration(s, wk);
                if (!std::isnan(v) && (std::isnan(worst) || v > worst))
                    worst = v;
            }
            std::string fill = "#eef0f3";
            if (!std::isnan(worst)) {
                // 0 at or under p50, 1 at 1.5 × p50 and over: pale blue to dark red.
                const double t = std::clamp((double(worst) / p50 - 1.0) / 0.5, 0.0, 1.0);
                char c[8];
                std::snprintf(c, sizeof c, "#%02x%02x%02x", int(222 - 30 * t), int(235 - 190 * t),
                              int(247 - 200 * t));
                fill = c;
            }
            o += "<rect x=\"" + std::to_string(labelW + int(b) * cellW) + "\" y=\"" +
                 std::to_string(y) + "\" width=\"" + std::to_string(cellW - (cellW > 4)) +
                 "\" height=\"" + std::to_string(cellH - (cellH > 4)) + "\" fill=\"" + fill +
                 "\"/>";
        }
    }
    o += "<text x=\"" + std::to_string(labelW) + "\" y=\"" + std::to_string(h + 11) +
         "\" fill=\"#5b6475\">" + escape(d.stepName) + " 1…" + std::to_string(steps) +
         " per worker: pale ≤ p50 " + escape(human(d.stepP50Ns)) +
         ", red ≥ 1.5 × p50</text></svg>";
    return o;
}

std::string HtmlReport::notebook(const Timeline &tl, ClockMode mode, const Diagnosis &d)
{
    std::string o = style() + "<div class=\"syncline\" style=\"max-width:none;padding:0\">";
    o += "<b>syncline.Timeline</b>" + summary(tl, mode);
    if (!d.culprits.empty()) {
        const DiagnosisRank &top = d.ranks[d.culprits.front()];
        o += "<p class=\"verdict bad\">Rank <b>" + std::to_string(top.rank) +
             "</b> holds the job back (last at " + num(top.timesLast) + " of " +
             num(top.instances) + " collectives";
        if (top.hasWhatIf && top.savedNsPerStep > 0)
            o += "; fixing it: " + human(top.savedNsPerStep) + " saved per step";
        o += "). <code>tl.diagnose()</code> for more.</p>";
    } else if (!d.stepName.empty()) {
        o += "<p class=\"note\">" + num(int64_t(d.steps.size())) + " steps of <b>" +
             escape(d.stepName) + "</b>, p50 " + human(d.stepP50Ns) + "; no culprit.</p>";
    }
    o += stepMap(tl, d);
    int problems = 0;
    for (const LoadProblem &p : tl.problems)
        problems += p.severity != LoadProblem::Severity::Info;
    if (problems)
        o += "<p class=\"note\">" + num(problems) +
             " load problem(s): <code>tl.problems</code></p>";
    o += "</div>";
    return o;
}

} // namespace syncline

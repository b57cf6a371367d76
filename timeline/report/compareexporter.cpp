#include "timeline/report/compareexporter.h"

#include "timeline/report/textwriter.h"

namespace syncline {

namespace {

void ratio(TextWriter &w, int64_t a, int64_t b, const char *absent)
{
    if (a == 0)
        w << absent;
    else
        w.num(CompareRow::ratio(a, b));
}

void sideJson(TextWriter &w, const CompareSide &s)
{
    w << "{\"count\": ";
    w.num(s.count) << ", \"total_ns\": ";
    w.num(s.totalNs) << ", \"mean_ns\": ";
    w.num(s.meanNs) << ", \"p50_ns\": ";
    w.num(s.p50Ns) << ", \"p99_ns\": ";
    w.num(s.p99Ns) << '}';
}

void intList(TextWriter &w, const std::vector<int> &v)
{
    w << '[';
    for (size_t i = 0; i < v.size(); ++i) {
        if (i)
            w << ", ";
        w.num(int64_t(v[i]));
    }
    w << ']';
}

void runJson(TextWriter &w, const CompareRunInfo &run, const std::vector<std::string> &paths,
             const std::vector<int> &ranks, int64_t span)
{
    w << "{\"paths\": [";
    for (size_t i = 0; i < paths.size(); ++i) {
        if (i)
            w << ", ";
        w.jsonString(paths[i]);
    }
    w << "], \"workers\": ";
    w.num(int64_t(run.workers)) << ", \"events\": ";
    w.num(int64_t(run.events)) << ", \"ranks\": ";
    intList(w, ranks);
    w << ", \"span_ns\": ";
    w.num(span) << '}';
}

} // namespace

void CompareExporter::writeJson(const CompareResult &r, const CompareInfo &info, std::ostream &out,
                                const std::vector<GateOutcome> *gate)
{
    TextWriter w(out);
    w << "{\"format\": \"" << kFormat << "\", \"clock_mode\": \""
      << (info.mode == ClockMode::Raw ? "raw" : "corrected") << "\",\n \"a\": ";
    runJson(w, info.a, info.pathsA, r.ranksA, r.spanANs);
    w << ",\n \"b\": ";
    runJson(w, info.b, info.pathsB, r.ranksB, r.spanBNs);
    w << ",\n \"ranks\": {\"only_a\": ";
    intList(w, r.onlyA);
    w << ", \"only_b\": ";
    intList(w, r.onlyB);
    w << "},\n \"anchor\": {\"spec\": ";
    w.jsonString(info.anchor.text()) << ", \"name\": ";
    if (info.anchor.byStart())
        w << "null, \"k\": null";
    else {
        w.jsonString(info.anchor.name) << ", \"k\": ";
        w.num(int64_t(info.anchor.k));
    }
    w << ", \"a_ns\": ";
    w.num(info.anchorANs - info.a.originNs) << ", \"b_ns\": ";
    w.num(info.anchorBNs - info.b.originNs) << ", \"shift_ns\": ";
    w.num(info.anchorANs - info.anchorBNs) << "},\n \"summary\": {\"step\": ";
    const CompareRow *step = r.stepRow();
    if (step) {
        w.jsonString(r.stepName) << ", \"a_mean_ns\": ";
        w.num(step->a.meanNs) << ", \"b_mean_ns\": ";
        w.num(step->b.meanNs) << ", \"delta_mean_ns\": ";
        w.num(step->deltaMeanNs()) << ", \"ratio_mean\": ";
        ratio(w, step->a.meanNs, step->b.meanNs, "null");
    } else {
        w << "null, \"a_mean_ns\": null, \"b_mean_ns\": null, \"delta_mean_ns\": null, "
             "\"ratio_mean\": null";
    }
    w << ", \"a_span_ns\": ";
    w.num(r.spanANs) << ", \"b_span_ns\": ";
    w.num(r.spanBNs) << ", \"delta_span_ns\": ";
    w.num(r.spanBNs - r.spanANs) << ", \"ratio_span\": ";
    ratio(w, r.spanANs, r.spanBNs, "null");
    w << "},\n \"deltas\": [";
    for (size_t i = 0; i < r.rows.size(); ++i) {
        const CompareRow &row = r.rows[i];
        w << (i ? ",\n  " : "\n  ") << "{\"name\": ";
        w.jsonString(row.name) << ", \"rank\": ";
        if (row.rank)
            w.num(int64_t(*row.rank));
        else
            w << "null";
        w << ", \"in\": \"" << Compare::inName(row.in) << "\", \"a\": ";
        if (row.in == CompareRow::In::OnlyB)
            w << "null";
        else
            sideJson(w, row.a);
        w << ", \"b\": ";
        if (row.in == CompareRow::In::OnlyA)
            w << "null";
        else
            sideJson(w, row.b);
        w << ", \"delta\": ";
        sideJson(w, {row.deltaCount(), row.deltaTotalNs(), row.deltaMeanNs(), row.deltaP50Ns(),
                     row.deltaP99Ns()});
        w << ", \"ratio\": {\"count\": ";
        ratio(w, row.a.count, row.b.count, "null");
        w << ", \"total\": ";
        ratio(w, row.a.totalNs, row.b.totalNs, "null");
        w << ", \"mean\": ";
        ratio(w, row.a.meanNs, row.b.meanNs, "null");
        w << ", \"p50\": ";
        ratio(w, row.a.p50Ns, row.b.p50Ns, "null");
        w << ", \"p99\": ";
        ratio(w, row.a.p99Ns, row.b.p99Ns, "null");
        w << "}, \"impact_ns\": ";
        w.num(row.impactNs()) << '}';
    }
    w << "]";
    if (gate) {
        bool failed = false;
        for (const GateOutcome &o : *gate)
            failed = failed || o.holds;
        w << ",\n \"gate\": {\"failed\": " << (failed ? "true" : "false") << ", \"conditions\": [";
        for (size_t i = 0; i < gate->size(); ++i) {
            const GateOutcome &o = (*gate)[i];
            w << (i ? ",\n  " : "\n  ") << "{\"spec\": ";
            w.jsonString(o.condition.spec) << ", \"name\": ";
            w.jsonString(o.condition.name) << ", \"stat\": \"" << CompareGate::statName(o.condition.stat)
                                           << "\", \"threshold\": {";
            if (o.condition.relative) {
                w << "\"percent\": ";
                w.num(o.condition.percent);
            } else {
                w << "\"ns\": ";
                w.num(o.condition.ns);
            }
            w << "}, \"holds\": " << (o.holds ? "true" : "false") << ", \"matched\": [";
            for (size_t j = 0; j < o.matched.size(); ++j) {
                const GateMatch &m = o.matched[j];
                w << (j ? ", " : "") << "{\"name\": ";
                w.jsonString(m.name) << ", \"a_ns\": ";
                w.num(m.aNs) << ", \"b_ns\": ";
                w.num(m.bNs) << ", \"delta_ns\": ";
                w.num(m.bNs - m.aNs) << ", \"ratio\": ";
                ratio(w, m.aNs, m.bNs, "null");
                w << ", \"holds\": " << (m.holds ? "true" : "false") << '}';
            }
            w << "]}";
        }
        w << "]}";
    }
    w << "}\n";
}

void CompareExporter::writeCsv(const CompareResult &r, std::ostream &out)
{
    TextWriter w(out);
    w << kCsvHeader << '\n';
    for (const CompareRow &row : r.rows) {
        w.csvField(row.name) << ',';
        if (row.rank)
            w.num(int64_t(*row.rank));
        w << ',' << Compare::inName(row.in);
        const int64_t values[][2] = {{row.a.count, row.b.count},
                                     {row.a.totalNs, row.b.totalNs},
                                     {row.a.meanNs, row.b.meanNs},
                                     {row.a.p50Ns, row.b.p50Ns},
                                     {row.a.p99Ns, row.b.p99Ns}};
        for (const auto &v : values) {
            w << ',';
            w.num(v[0]) << ',';
            w.num(v[1]) << ',';
            w.num(v[1] - v[0]) << ',';
            ratio(w, v[0], v[1], "");
        }
        w << '\n';
    }
}

bool CompareExporter::writeCsvFile(const CompareResult &r, const std::string &path,
                                   std::string *error)
{
    return TextWriter::toFile(path, error, [&](std::ostream &out) { writeCsv(r, out); });
}

} // namespace syncline

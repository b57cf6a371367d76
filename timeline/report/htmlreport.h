// HtmlReport — one self-contained HTML page about a job (`syncline report --html`), to mail or
// attach to a ticket: the job (workers, hosts, restarts, each worker's clock method, offset,
// drift and bound), the timeline picture, the statistics (all ranks, by total time) and the
// compute stragglers (RankOutliers), the diagnosis (Diagnoser: steps, culprits with their
// what-if, victims' waits, critical-path shares, undecided instances) and the load problems.
//
// Self-contained: no script, no external style sheet, font or image; the style is inline CSS
// with the reader's own system fonts, and the picture is embedded as a data: URI. The picture is
// made by the caller (the viewer's renderer, ui/imageexport.h: report/ draws nothing) and passed
// in as encoded PNG bytes.
// Escaping: every text that comes from the job's files (names, hosts, paths, problems) goes
// through escape(): control characters and invalid UTF-8 made visible as \xNN
// (utf8::terminalSafe, the CLI's rule), then & < > " ' as character references, so a log can
// neither inject markup nor break the page.
// The numbers are the same computations as `syncline stats` and `syncline diagnose` (the caller
// passes their results); durations are shown in ms with three decimals.
// Threading: pure; reads the Timeline only; one stream per call.
#pragma once

#include "timeline/report/diagnosis.h"
#include "timeline/report/stats.h"

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace syncline {

struct HtmlPicture
{
    std::string png;     // encoded PNG
    std::string caption; // plain text (escaped when written)
};

struct HtmlReportInput
{
    std::vector<std::string> paths; // what was loaded (shown in the header)
    ClockMode mode = ClockMode::Corrected;
    std::string version;   // the syncline version that wrote it
    std::vector<HtmlPicture> pictures; // the timeline pictures, in order (whole job first)
    std::string pictureNote;           // why there is none (shown instead)
    const std::vector<StatsRow> *stats = nullptr; // Stats::compute over the job (perRank)
    const Diagnosis *diagnosis = nullptr;        // nullptr: not judged (say why in diagnosisNote)
    std::string diagnosisNote;
    size_t statsRows = 40;    // the stats table's rows (names by total), at most
    size_t problemRows = 100; // problems listed, at most (all are counted)
};

class HtmlReport
{
public:
    static void write(const Timeline &timeline, const HtmlReportInput &input, std::ostream &out);
    // Creates/truncates `path`; false with *error ("<path>: cannot write: ...") on failure.
    static bool writeFile(const Timeline &timeline, const HtmlReportInput &input,
                          const std::string &path, std::string *error);

    // The page's style (one <style> element), shared with the compact summaries of Python's
    // _repr_html_.
    static std::string style();
    // A compact summary of the job (a <div>): workers, ranks, hosts, restarts, events, span,
    // the clock methods and the largest bound. Used by the report's header and by notebooks.
    static std::string summary(const Timeline &timeline, ClockMode mode);
    // A small picture of the job's steps for notebooks (inline SVG, no script): one row per
    // worker, one cell per step (steps binned to at most `columns` cells, a bin showing its
    // slowest step), coloured by the worker's step duration against the job's step p50 (pale
    // at or under it, darkest red at 1.5× and over; grey where the worker has no such step). The
    // diagnosis must have been run with DiagnoseQuery::cells. "" when there are no steps.
    static std::string stepMap(const Timeline &timeline, const Diagnosis &diagnosis,
                               size_t columns = 120);
    // Python's Timeline._repr_html_: style, summary(), the verdict of the diagnosis and stepMap().
    static std::string notebook(const Timeline &timeline, ClockMode mode,
                                const Diagnosis &diagnosis);
    // Text for HTML (element content and quoted attribute values), see the header.
    static std::string escape(std::string_view text);
    // RFC 4648 base64 (with padding), for data: URIs.
    static std::string base64(std::string_view bytes);
};

} // namespace syncline

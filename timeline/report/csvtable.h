// CsvTable — what the per-worker CSV exports (events: CsvExporter; counters: CounterCsvExporter)
// share: the header line, the time origin, the worker walk with each worker's clock map, and
// the columns every row begins and ends with.
// Rows begin with rank,restart,host (WorkerInfo). In a comparison of two runs (a
// CompareTimeline: WorkerInfo::run "A" / "B" on its workers) the header gains a last column
// `run` and every row ends with its worker's run — the versioned header of such a file (see
// docs/cli.md, "CSV headers"); a timeline of one job keeps the header as it is.
// Threading: reads the Timeline only; one table per stream.
#pragma once

#include "timeline/model/timeline.h"
#include "timeline/report/textwriter.h"

#include <cstdint>
#include <ostream>

namespace syncline {

class CsvTable
{
public:
    // Writes `header` (+ ",run" for a comparison) and a line end.
    CsvTable(const Timeline &timeline, ClockMode mode, std::ostream &out, const char *header);
    // Rows only, no header line, times from `originNs` instead of the timeline's: a part of a
    // split export (one log's rows with the whole job's origin; syncline.dask).
    CsvTable(const Timeline &timeline, ClockMode mode, std::ostream &out, int64_t originNs);

    // Whether `timeline` is a comparison (a worker with a run): its CSVs have the run column.
    static bool hasRuns(const Timeline &timeline);

    // f(worker, its clock map in the mode) for every worker, in the Timeline's order.
    template <typename F> void forEachWorker(F &&f)
    {
        for (size_t wi = 0; wi < m_timeline.workers.size(); ++wi)
            f(m_timeline.workers[wi], m_timeline.map(wi, m_mode));
    }
    // Writes "rank,restart,host," of `worker`; the caller writes its own columns after it.
    TextWriter &beginRow(const Worker &worker);
    // Ends the row: ",run" (a comparison), the line end; counts it.
    void endRow(const Worker &worker);

    TextWriter &writer() { return m_writer; }
    int64_t originNs() const { return m_origin; } // the files' zero: Timeline::originNs(mode)
    int64_t rows() const { return m_rows; }

private:
    const Timeline &m_timeline;
    ClockMode m_mode;
    TextWriter m_writer;
    bool m_runs;
    int64_t m_origin;
    int64_t m_rows = 0;
};

} // namespace syncline

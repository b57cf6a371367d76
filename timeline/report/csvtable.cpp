// CsvTable — see csvtable.h.
#include "timeline/report/csvtable.h"

namespace syncline {

CsvTable::CsvTable(const Timeline &timeline, ClockMode mode, std::ostream &out, const char *header)
    : m_timeline(timeline), m_mode(mode), m_writer(out), m_runs(hasRuns(timeline)),
      m_origin(timeline.originNs(mode))
{
    m_writer << header;
    if (m_runs)
        m_writer << ",run";
    m_writer << '\n';
}

CsvTable::CsvTable(const Timeline &timeline, ClockMode mode, std::ostream &out, int64_t originNs)
    : m_timeline(timeline), m_mode(mode), m_writer(out), m_runs(hasRuns(timeline)),
      m_origin(originNs)
{
}

bool CsvTable::hasRuns(const Timeline &timeline)
{
    for (const Worker &w : timeline.workers)
        if (!w.info.run.empty())
            return true;
    return false;
}

TextWriter &CsvTable::beginRow(const Worker &worker)
{
    m_writer.num(int64_t(worker.info.rank)) << ',';
    m_writer.num(int64_t(worker.info.restart)) << ',';
    m_writer.csvField(worker.info.host) << ',';
    return m_writer;
}

void CsvTable::endRow(const Worker &worker)
{
    if (m_runs) {
        m_writer << ',';
        m_writer.csvField(worker.info.run);
    }
    m_writer << '\n';
    ++m_rows;
}

} // namespace syncline

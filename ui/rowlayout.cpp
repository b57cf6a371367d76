#include "rowlayout.h"

#include "trackmodel.h"

#include <algorithm>

namespace syncline::ui {

void RowLayout::build(const std::vector<TrackModel> &models, size_t workerCount,
                      const std::vector<bool> &visible, const std::vector<bool> &collapsed,
                      const RowMetrics &metrics, const std::vector<size_t> &counterWorker,
                      const std::vector<bool> &modelShown, const std::vector<bool> &pinned)
{
    m_rows.clear();
    m_metrics = metrics;
    m_headers = m_eventRows = m_tracks = m_counters = 0;
    // Per worker: its models [first, last) and counters [first, last).
    std::vector<std::pair<size_t, size_t>> modelSpan(workerCount), counterSpan(workerCount);
    size_t m = 0, c = 0;
    for (size_t w = 0; w < workerCount; ++w) {
        const size_t firstModel = m, firstCounter = c;
        while (m < models.size() && models[m].worker() == w)
            ++m;
        while (c < counterWorker.size() && counterWorker[c] == w)
            ++c;
        modelSpan[w] = {firstModel, m};
        counterSpan[w] = {firstCounter, c};
    }
    double y = 0;
    auto place = [&](size_t w) {
        const auto [firstModel, lastModel] = modelSpan[w];
        const bool isCollapsed = w < collapsed.size() && collapsed[w];
        LayoutRow header;
        header.kind = LayoutRow::GroupHeader;
        header.worker = int(w);
        header.model = firstModel < lastModel ? int(firstModel) : -1;
        header.y = y;
        header.height = metrics.headerHeight;
        header.collapsed = isCollapsed;
        m_rows.push_back(header);
        ++m_headers;
        y += metrics.headerHeight;
        if (isCollapsed)
            return;
        for (size_t t = firstModel; t < lastModel; ++t) {
            if (t < modelShown.size() && !modelShown[t])
                continue;
            const int depths = std::max(1, models[t].depthCount());
            for (int d = 0; d < depths; ++d) {
                LayoutRow row;
                row.worker = int(w);
                row.model = int(t);
                row.depth = d;
                row.y = y;
                row.height = metrics.rowHeight;
                row.firstOfTrack = d == 0;
                m_rows.push_back(row);
                ++m_eventRows;
                y += metrics.rowHeight;
            }
            ++m_tracks;
            y += metrics.trackGap;
        }
        for (size_t k = counterSpan[w].first; k < counterSpan[w].second; ++k) {
            LayoutRow row;
            row.kind = LayoutRow::CounterRow;
            row.worker = int(w);
            row.counter = int(k);
            row.y = y;
            row.height = metrics.counterHeight;
            m_rows.push_back(row);
            ++m_counters;
            y += metrics.counterHeight + metrics.trackGap;
        }
    };
    auto shown = [&](size_t w) { return w >= visible.size() || visible[w]; };
    auto isPinned = [&](size_t w) { return w < pinned.size() && pinned[w]; };
    for (size_t w = 0; w < workerCount; ++w)
        if (shown(w) && isPinned(w))
            place(w);
    m_pinnedHeight = y;
    for (size_t w = 0; w < workerCount; ++w)
        if (shown(w) && !isPinned(w))
            place(w);
    m_total = y;
}

double RowLayout::heightWith(const RowMetrics &m) const
{
    return double(m_headers) * m.headerHeight + double(m_eventRows) * m.rowHeight +
           double(m_tracks) * m.trackGap + double(m_counters) * (m.counterHeight + m.trackGap);
}

int RowLayout::rowAt(double y) const
{
    auto it = std::upper_bound(m_rows.begin(), m_rows.end(), y,
                               [](double v, const LayoutRow &r) { return v < r.y; });
    if (it == m_rows.begin())
        return -1;
    --it;
    if (y >= it->y + it->height)
        return -1;
    return int(it - m_rows.begin());
}

std::pair<size_t, size_t> RowLayout::rowsIn(double y0, double y1) const
{
    auto first = std::partition_point(m_rows.begin(), m_rows.end(),
                                      [&](const LayoutRow &r) { return r.y + r.height <= y0; });
    auto last =
        std::partition_point(first, m_rows.end(), [&](const LayoutRow &r) { return r.y < y1; });
    return {size_t(first - m_rows.begin()), size_t(last - m_rows.begin())};
}

int RowLayout::rowOf(int model, int depth) const
{
    for (size_t i = 0; i < m_rows.size(); ++i) {
        const LayoutRow &r = m_rows[i];
        if (r.kind == LayoutRow::EventRow && r.model == model && r.depth == depth)
            return int(i);
    }
    return -1;
}

int RowLayout::headerOf(int worker) const
{
    for (size_t i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].kind == LayoutRow::GroupHeader && m_rows[i].worker == worker)
            return int(i);
    }
    return -1;
}

} // namespace syncline::ui

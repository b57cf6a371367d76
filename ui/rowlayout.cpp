#include "rowlayout.h"

#include "trackmodel.h"

#include <algorithm>

namespace syncline::ui {

void RowLayout::build(const std::vector<TrackModel> &models, size_t workerCount,
                      const std::vector<bool> &visible, const std::vector<bool> &collapsed,
                      const RowMetrics &metrics, const std::vector<size_t> &counterWorker,
                      const std::vector<bool> &modelShown, const std::vector<bool> &pinned,
                      const std::vector<bool> &pinnedModel)
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
    auto shown = [&](size_t w) { return w >= visible.size() || visible[w]; };
    auto isPinned = [&](size_t w) { return w < pinned.size() && pinned[w]; };
    auto trackShown = [&](size_t t) { return t >= modelShown.size() || modelShown[t]; };
    // Thread t sits in the pinned band apart from its worker's group.
    auto pinnedApart = [&](size_t t) {
        return t < pinnedModel.size() && pinnedModel[t] && trackShown(t) &&
               !isPinned(models[t].worker());
    };
    // A worker's group; with threadsApart, only its pinned threads (under their own header).
    auto place = [&](size_t w, bool threadsApart) {
        const auto [firstModel, lastModel] = modelSpan[w];
        const bool isCollapsed = !threadsApart && w < collapsed.size() && collapsed[w];
        LayoutRow header;
        header.kind = LayoutRow::GroupHeader;
        header.worker = int(w);
        header.model = firstModel < lastModel ? int(firstModel) : -1;
        header.y = y;
        header.height = metrics.headerHeight;
        header.collapsed = isCollapsed;
        header.pinnedThreads = threadsApart;
        m_rows.push_back(header);
        ++m_headers;
        y += metrics.headerHeight;
        if (isCollapsed)
            return;
        for (size_t t = firstModel; t < lastModel; ++t) {
            if (!trackShown(t) || pinnedApart(t) != threadsApart)
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
        if (threadsApart)
            return; // counters stay with the group
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
    for (size_t w = 0; w < workerCount; ++w) {
        if (!shown(w))
            continue;
        if (isPinned(w)) {
            place(w, false);
            continue;
        }
        const auto [firstModel, lastModel] = modelSpan[w];
        for (size_t t = firstModel; t < lastModel; ++t)
            if (pinnedApart(t)) {
                place(w, true);
                break;
            }
    }
    m_pinnedHeight = y;
    for (size_t w = 0; w < workerCount; ++w)
        if (shown(w) && !isPinned(w))
            place(w, false);
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
        if (m_rows[i].kind == LayoutRow::GroupHeader && m_rows[i].worker == worker &&
            !m_rows[i].pinnedThreads)
            return int(i);
    }
    return -1;
}

} // namespace syncline::ui

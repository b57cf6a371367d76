#include "timelinescene.h"

#include <algorithm>
#include <limits>
#include <tuple>

namespace syncline::ui {

TimelineScene::TimelineScene(std::shared_ptr<const Timeline> timeline)
    : m_timeline(std::move(timeline))
{
    const Timeline &t = *m_timeline;
    m_mode = t.mode();
    for (size_t w = 0; w < t.workers.size(); ++w) {
        for (size_t k = 0; k < t.workers[w].tracks.size(); ++k) {
            m_models.emplace_back(m_timeline.get(), w, k);
            m_models.back().setClockMode(m_mode);
        }
    }
    std::vector<std::string_view> names;
    names.reserve(t.names.size());
    m_displayNames.reserve(t.names.size());
    for (size_t i = 0; i < t.names.size(); ++i) {
        names.push_back(t.names.name(uint32_t(i)));
        m_displayNames.push_back(
            QString::fromUtf8(names.back().data(), qsizetype(names.back().size())));
    }
    m_colours.assign(names);
    m_collapsed.assign(t.workers.size(), false);
    m_visible.assign(t.workers.size(), true);
    recomputeBounds();
    rebuildLayout();
}

void TimelineScene::recomputeBounds()
{
    int64_t begin = std::numeric_limits<int64_t>::max();
    int64_t end = std::numeric_limits<int64_t>::min();
    for (const TrackModel &m : m_models) {
        if (m.count() == 0)
            continue;
        begin = std::min(begin, m.globalBegin());
        end = std::max(end, m.globalEnd());
    }
    if (begin > end) {
        begin = 0;
        end = 0;
    }
    m_begin = begin;
    m_end = end;
}

void TimelineScene::rebuildLayout()
{
    m_layout.build(m_models, m_timeline->workers.size(), m_visible, m_collapsed, m_metrics);
    ++m_revision;
}

void TimelineScene::setClockMode(ClockMode mode)
{
    if (mode == m_mode)
        return;
    m_mode = mode;
    for (TrackModel &m : m_models)
        m.setClockMode(mode);
    recomputeBounds();
    ++m_revision;
}

bool TimelineScene::wallClock(int64_t globalT, int64_t *wallNs) const
{
    for (const Worker &w : m_timeline->workers) {
        if (w.info.anchorWallNs == 0)
            continue;
        const sync::ClockMap &map = m_mode == ClockMode::Raw ? w.raw : w.corrected;
        *wallNs = w.info.anchorWallNs + (map.toLocal(globalT) - w.info.anchorMonoNs);
        return true;
    }
    return false;
}

void TimelineScene::setRowMetrics(const RowMetrics &metrics)
{
    m_metrics = metrics;
    rebuildLayout();
}

void TimelineScene::setCollapsed(int worker, bool collapsed)
{
    if (worker < 0 || size_t(worker) >= m_collapsed.size() ||
        m_collapsed[size_t(worker)] == collapsed)
        return;
    m_collapsed[size_t(worker)] = collapsed;
    rebuildLayout();
}

void TimelineScene::setAllCollapsed(bool collapsed)
{
    std::fill(m_collapsed.begin(), m_collapsed.end(), collapsed);
    rebuildLayout();
}

void TimelineScene::setRankFilter(int minRank, int maxRank)
{
    for (size_t w = 0; w < m_visible.size(); ++w) {
        const int r = m_timeline->workers[w].info.rank;
        m_visible[w] = r >= minRank && r <= maxRank;
    }
    rebuildLayout();
}

void TimelineScene::setNameFilter(const QString &text)
{
    m_nameVisible.clear();
    if (!text.isEmpty()) {
        const StringTable &names = m_timeline->names;
        m_nameVisible.resize(names.size());
        for (size_t i = 0; i < names.size(); ++i) {
            const std::string_view n = names.name(uint32_t(i));
            const QString s = QString::fromUtf8(n.data(), qsizetype(n.size()));
            m_nameVisible[i] = s.contains(text, Qt::CaseInsensitive);
        }
    }
    ++m_revision;
}

bool TimelineScene::setSearch(const QString &pattern, bool regex)
{
    m_match.clear();
    m_matchingNames = 0;
    ++m_revision;
    if (pattern.isEmpty())
        return true;
    QRegularExpression re;
    if (regex) {
        re = QRegularExpression(pattern, QRegularExpression::CaseInsensitiveOption);
        if (!re.isValid())
            return false;
    }
    const StringTable &names = m_timeline->names;
    m_match.resize(names.size());
    for (size_t i = 0; i < names.size(); ++i) {
        const std::string_view n = names.name(uint32_t(i));
        const QString s = QString::fromUtf8(n.data(), qsizetype(n.size()));
        const bool hit = regex ? re.match(s).hasMatch() : s.contains(pattern, Qt::CaseInsensitive);
        m_match[i] = hit;
        m_matchingNames += hit;
    }
    return true;
}

bool TimelineScene::eventVisible(int model, int index) const
{
    const TrackModel &m = m_models[size_t(model)];
    return m_visible[m.worker()] && nameVisible(m.nameId(index));
}

EventRef TimelineScene::nextMatch(const EventRef &from, bool forward) const
{
    // Order key: (start, model, index). Per model, scan from the position of `from`'s start
    // to the first matching event past it; keep the best over models.
    const int64_t t0 = from.valid() ? m_models[size_t(from.model)].startTime(from.index)
                                    : (forward ? std::numeric_limits<int64_t>::min()
                                               : std::numeric_limits<int64_t>::max());
    auto key = [&](int m, int i) { return std::tuple(m_models[size_t(m)].startTime(i), m, i); };
    const auto fromKey =
        from.valid() ? key(from.model, from.index) : std::tuple(t0, forward ? -1 : INT32_MAX, -1);
    EventRef best;
    std::tuple<int64_t, int, int> bestKey;
    for (int m = 0; m < int(m_models.size()); ++m) {
        const TrackModel &tm = m_models[size_t(m)];
        if (tm.count() == 0 || !m_visible[tm.worker()])
            continue;
        int i = forward ? std::max(0, tm.lastIndex(t0))
                        : std::min(tm.count() - 1, tm.lastIndex(t0) + 1);
        for (; i >= 0 && i < tm.count(); i += forward ? 1 : -1) {
            if (!m_match.empty() && !m_match[tm.nameId(i)])
                continue;
            if (!eventVisible(m, i))
                continue;
            const auto k = key(m, i);
            if (forward ? k <= fromKey : k >= fromKey)
                continue;
            if (!best.valid() || (forward ? k < bestKey : k > bestKey)) {
                best = {m, i};
                bestKey = k;
            }
            break;
        }
    }
    return best;
}

void TimelineScene::setSelected(const EventRef &ref)
{
    if (ref == m_selected)
        return;
    m_selected = ref;
    ++m_revision;
}

} // namespace syncline::ui

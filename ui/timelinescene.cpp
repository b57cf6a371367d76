#include "timelinescene.h"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

namespace syncline::ui {

TimelineScene::TimelineScene(std::shared_ptr<const Timeline> timeline)
    : m_timeline(std::move(timeline)), m_links(std::make_shared<LinkIndex>(m_timeline.get()))
{
    const Timeline &t = *m_timeline;
    for (size_t w = 0; w < t.workers.size(); ++w) {
        m_firstModel.push_back(m_models.size());
        m_workerFile.push_back(t.workers[w].info.sourceFile);
        for (size_t k = 0; k < t.workers[w].tracks.size(); ++k) {
            m_modelKey.emplace_back(t.workers[w].tracks[k].pid, t.workers[w].tracks[k].tid);
            m_models.emplace_back(m_timeline.get(), w, k);
            m_indexed += uint64_t(m_models.back().count());
        }
    }
    // Each name's total time: the most time-consuming names get distinct colours first.
    m_nameWeight.assign(t.names.size(), 0);
    for (const Worker &w : t.workers)
        for (const EventTrack &tr : w.tracks)
            for (size_t i = 0; i < tr.count(); ++i)
                if (tr.nameId[i] < m_nameWeight.size())
                    m_nameWeight[tr.nameId[i]] +=
                        std::max<int64_t>(0, tr.localEnd[i] - tr.localStart[i]);
    addNames();
    m_collapsed.assign(t.workers.size(), false);
    buildCounterModels();
    updateVisibility();
}

void TimelineScene::buildCounterModels()
{
    m_counterModels.clear();
    m_counterWorker.clear();
    m_counterSlot.clear();
    std::map<std::string, int> slotOfLabel;
    for (size_t w = 0; w < m_timeline->workers.size(); ++w)
        for (size_t k = 0; k < m_timeline->workers[w].counters.size(); ++k) {
            m_counterModels.emplace_back(m_timeline.get(), w, k);
            m_counterWorker.push_back(w);
            const std::string label = m_timeline->workers[w].counters[k].label();
            m_counterSlot.push_back(
                slotOfLabel.emplace(label, int(slotOfLabel.size())).first->second);
        }
}

// Names interned since the last call: display names, colours, filter and search flags.
void TimelineScene::addNames()
{
    const StringTable &table = m_timeline->names;
    const size_t first = m_displayNames.size();
    std::vector<std::string_view> names;
    names.reserve(table.size());
    for (size_t i = 0; i < table.size(); ++i)
        names.push_back(table.name(uint32_t(i)));
    for (size_t i = first; i < names.size(); ++i) {
        const QString s = QString::fromUtf8(names[i].data(), qsizetype(names[i].size()));
        m_displayNames.push_back(s);
        if (!m_nameFilter.isEmpty())
            m_nameVisible.push_back(nameFilterHit(s));
    }
    m_colours.extend(names, m_timeline->kinds, m_nameWeight);
    if (!m_search.isEmpty())
        for (size_t i = m_match.size(); i < m_displayNames.size(); ++i) {
            const bool hit = searchHit(uint32_t(i));
            m_match.push_back(hit);
            m_matchingNames += hit;
        }
}

void TimelineScene::setColourByCategory(bool on)
{
    if (on == m_colours.byCategory())
        return;
    m_colours.setByCategory(on);
    std::vector<std::string_view> names;
    for (size_t i = 0; i < m_timeline->names.size(); ++i)
        names.push_back(m_timeline->names.name(uint32_t(i)));
    m_colours.assign(names, m_timeline->kinds, m_nameWeight);
    ++m_revision;
}

QString TimelineScene::legendLabel(uint32_t nameId) const
{
    const std::string &c = m_colours.categoryOf(nameId);
    return c.empty() ? m_displayNames[nameId] : QString::fromStdString(c);
}

std::vector<uint32_t> TimelineScene::legendEntries(const std::vector<uint32_t> &nameIds) const
{
    std::vector<uint32_t> out;
    std::vector<std::string> seen;
    for (uint32_t id : nameIds) {
        const std::string &c = m_colours.categoryOf(id);
        if (!c.empty()) {
            if (std::find(seen.begin(), seen.end(), c) != seen.end())
                continue;
            seen.push_back(c);
        }
        out.push_back(id);
    }
    return out;
}

bool TimelineScene::nameFilterHit(const QString &name) const
{
    return name.contains(m_nameFilter, Qt::CaseInsensitive);
}

bool TimelineScene::searchHit(uint32_t nameId) const
{
    if (m_searchIsRegex)
        return m_searchRe.match(m_displayNames[nameId]).hasMatch();
    const NameKind *k = m_timeline->kindOf(nameId);
    return m_query->matchesName(m_timeline->names.name(nameId),
                                k ? std::string_view(k->category) : std::string_view());
}

// Per model: 0 fails the query's track terms; 1 passes, its names judged by m_match; 2 passes,
// an async track with its own category: its names are judged per event (cat: sees the track's).
void TimelineScene::buildQueryModels()
{
    m_queryModel.assign(m_models.size(), 1);
    if (!m_query)
        return;
    for (size_t m = 0; m < m_models.size(); ++m) {
        const TrackModel &tm = m_models[m];
        if (!m_query->matchesTrack(tm.workerData().info, tm.track()))
            m_queryModel[m] = 0;
        else if (m_query->hasNameTerms() && !tm.track().category.empty())
            m_queryModel[m] = 2;
    }
}

bool TimelineScene::queryEventHit(const TrackModel &tm, int i) const
{
    const EventQuery &q = *m_query;
    const bool complete = !(tm.flags(i) & (EventOpen | EventInstant));
    if (!q.matchesDuration(complete ? tm.duration(i, m_mode) : -1))
        return false;
    if (!q.hasArgTerms())
        return true;
    const int64_t id = tm.track().argsId(uint32_t(i));
    if (id < 0)
        return q.matchesArgs({});
    if (m_argMatch.size() <= size_t(id))
        m_argMatch.resize(std::max<size_t>(m_timeline->args.size(), size_t(id) + 1), -1);
    int8_t &v = m_argMatch[size_t(id)];
    if (v < 0)
        v = q.matchesArgs(m_timeline->args.text(uint32_t(id))) ? 1 : 0;
    return v == 1;
}

bool TimelineScene::eventMatches(int model, int index) const
{
    if (m_match.empty())
        return true; // no search
    const TrackModel &tm = m_models[size_t(model)];
    const uint32_t name = tm.nameId(index);
    if (m_query) {
        const uint8_t qm = size_t(model) < m_queryModel.size() ? m_queryModel[size_t(model)] : 1;
        if (qm == 0)
            return false;
        if (qm == 2 ? !m_query->matchesName(m_timeline->names.name(name),
                                            EventQuery::categoryOf(*m_timeline, tm.track(), name))
                    : !m_match[name])
            return false;
        if (m_query->hasEventTerms() && !queryEventHit(tm, index))
            return false;
    } else if (!m_match[name]) {
        return false;
    }
    return !m_durationFilter || inDurationFilter(tm, index);
}

int64_t TimelineScene::matchIndex(const EventRef &ref) const
{
    if (!ref.valid() || !searchActive() || !eventMatches(ref.model, ref.index) ||
        !eventVisible(ref.model, ref.index))
        return 0;
    const int64_t t0 = m_models[size_t(ref.model)].startTime(ref.index, m_mode);
    int64_t before = 0;
    for (size_t m = 0; m < m_matchPos.size() && m < m_models.size(); ++m) {
        if (!m_modelShown[m])
            continue;
        const TrackModel &tm = m_models[m];
        for (int d = 0; d < int(m_matchPos[m].size()); ++d) {
            const std::vector<uint32_t> &pos = m_matchPos[m][size_t(d)];
            const std::vector<uint32_t> &row = tm.depthRow(d);
            auto it = std::partition_point(pos.begin(), pos.end(), [&](uint32_t p) {
                return tm.startTime(int(row[p]), m_mode) < t0;
            });
            before += int64_t(it - pos.begin());
            for (; it != pos.end() && tm.startTime(int(row[*it]), m_mode) == t0; ++it)
                before += std::pair(int(m), int(row[*it])) < std::pair(ref.model, ref.index);
        }
    }
    return before + 1;
}

// Workers or tracks were inserted: give every (worker, track) its model, moving existing models
// (identity: the worker's file, the track's pid and tid) and building new ones. O(tracks) plus
// the new tracks' events.
void TimelineScene::remapModels()
{
    using Key = std::tuple<std::string, int64_t, int64_t>;
    const Timeline &t = *m_timeline;
    std::map<Key, size_t> oldModel;
    for (size_t m = 0; m < m_models.size(); ++m)
        oldModel.emplace(
            Key(m_workerFile[m_models[m].worker()], m_modelKey[m].first, m_modelKey[m].second), m);
    std::map<std::string, bool> collapsed;
    for (size_t w = 0; w < m_workerFile.size(); ++w)
        collapsed[m_workerFile[w]] = m_collapsed[w];
    std::vector<TrackModel> old = std::move(m_models);
    std::vector<int> newIndex(old.size(), -1);
    m_models.clear();
    m_modelKey.clear();
    m_firstModel.clear();
    m_workerFile.clear();
    m_collapsed.assign(t.workers.size(), false);
    for (size_t w = 0; w < t.workers.size(); ++w) {
        const Worker &wk = t.workers[w];
        m_workerFile.push_back(wk.info.sourceFile);
        m_firstModel.push_back(m_models.size());
        m_collapsed[w] = collapsed.count(wk.info.sourceFile) && collapsed[wk.info.sourceFile];
        for (size_t k = 0; k < wk.tracks.size(); ++k) {
            const EventTrack &tr = wk.tracks[k];
            const auto it = oldModel.find(Key(wk.info.sourceFile, tr.pid, tr.tid));
            if (it != oldModel.end()) {
                newIndex[it->second] = int(m_models.size());
                m_models.push_back(std::move(old[it->second]));
                m_models.back().setPosition(w, k);
            } else {
                m_models.emplace_back(m_timeline.get(), w, k);
                m_indexed += uint64_t(m_models.back().count());
            }
            m_modelKey.emplace_back(tr.pid, tr.tid);
        }
    }
    if (m_selected.valid())
        m_selected = {newIndex[size_t(m_selected.model)],
                      newIndex[size_t(m_selected.model)] < 0 ? -1 : m_selected.index};
    updateVisibility();
}

void TimelineScene::applyLive(const LiveUpdate &u)
{
    bool relayout = false;
    m_highlighted.clear(); // a collective instance's refs may now name other events
    if (u.structureChanged || u.countersChanged) {
        // Counter models are rebuilt whole (their pyramid is O(samples), a few ms per million).
        buildCounterModels();
        relayout = relayout || u.structureChanged || u.newCounters;
    }
    if (u.structureChanged) {
        m_statuses.clear();
        m_culpritMarks = {};
        remapModels();
        relayout = true;
    }
    if (u.newNames || m_displayNames.size() != m_timeline->names.size())
        addNames(); // before the match positions: new names need their match flags
    for (const LiveTrackChange &c : u.changedTracks) {
        if (c.worker >= m_firstModel.size())
            continue;
        const size_t m = m_firstModel[c.worker] + c.track;
        TrackModel &model = m_models[m];
        const int depths = model.depthCount();
        m_indexed += model.extendFrom(c.from);
        relayout = relayout || model.depthCount() != depths;
        if (searchActive() && !u.structureChanged)
            extendMatches(m, c.from);
        if (m_selected.model == int(m) && m_selected.index >= int(c.from))
            m_selected = {}; // its index may now name another event
    }
    if (u.structureChanged && searchActive()) {
        buildQueryModels(); // models moved
        rebuildMatches();
    }
    // The arrows were rebuilt, or the clocks moved (the index keeps per-pair bounds in global
    // ns): index them again (O(links)).
    if (u.linksChanged || u.clockChanged || u.structureChanged)
        m_links = std::make_shared<LinkIndex>(m_timeline.get());
    if (relayout)
        rebuildLayout();
    else
        ++m_revision;
}

void TimelineScene::rebuildLayout()
{
    m_layout.build(m_models, m_timeline->workers.size(), m_visible, m_collapsed, m_metrics,
                   m_counterWorker, m_modelShown, m_pinned, m_modelPinned);
    ++m_revision;
}

void TimelineScene::setClockMode(ClockMode mode)
{
    if (mode == m_mode)
        return;
    m_mode = mode;
    if ((m_durationFilter || (m_query && m_query->hasEventTerms())) && searchActive())
        rebuildMatches(); // durations differ between the modes
    ++m_revision;
}

bool TimelineScene::wallClock(int64_t globalT, int64_t *wallNs) const
{
    for (const Worker &w : m_timeline->workers) {
        if (w.info.anchorWallNs == 0)
            continue;
        const sync::ClockMap &map = w.map(m_mode);
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
    m_minRank = minRank;
    m_maxRank = maxRank;
    updateVisibility();
}

void TimelineScene::setNameFilter(const QString &text)
{
    m_nameFilter = text;
    m_nameVisible.clear();
    if (!text.isEmpty()) {
        m_nameVisible.reserve(m_displayNames.size());
        for (const QString &s : m_displayNames)
            m_nameVisible.push_back(nameFilterHit(s));
    }
    if (searchActive())
        rebuildMatches();
    ++m_revision;
}

bool TimelineScene::setSearch(const QString &pattern, bool regex)
{
    m_durationFilter.reset();
    m_match.clear();
    m_matchPos.clear();
    m_matchingNames = 0;
    m_search.clear();
    m_query.reset();
    m_queryModel.clear();
    m_argMatch.clear();
    m_searchError.clear();
    ++m_revision;
    if (pattern.trimmed().isEmpty())
        return true;
    if (regex) {
        m_searchRe = QRegularExpression(pattern, QRegularExpression::CaseInsensitiveOption);
        if (!m_searchRe.isValid()) {
            m_searchError = QStringLiteral("invalid regex");
            return false;
        }
    } else {
        std::string error;
        std::optional<EventQuery> q = EventQuery::parse(pattern.toStdString(), &error);
        if (!q) {
            m_searchError = QString::fromStdString(error);
            return false;
        }
        if (q->empty())
            return true;
        m_query = std::move(q);
    }
    m_search = pattern;
    m_searchIsRegex = regex;
    m_match.reserve(m_displayNames.size());
    for (size_t i = 0; i < m_displayNames.size(); ++i) {
        const bool hit = searchHit(uint32_t(i));
        m_match.push_back(hit);
        m_matchingNames += hit;
    }
    buildQueryModels();
    rebuildMatches();
    return true;
}

void TimelineScene::rebuildMatches()
{
    m_matchPos.assign(m_models.size(), {});
    for (size_t m = 0; m < m_models.size(); ++m)
        extendMatches(m, 0);
}

// Depth rows are sorted by event index, so the events from index `from` on are a tail of each
// row: cut the positions that pointed into it and scan the tail again.
void TimelineScene::extendMatches(size_t model, size_t from)
{
    if (m_matchPos.size() < m_models.size())
        m_matchPos.resize(m_models.size());
    const TrackModel &tm = m_models[model];
    auto &rows = m_matchPos[model];
    rows.resize(size_t(tm.depthCount()));
    const std::vector<uint32_t> &names = tm.track().nameId;
    for (int d = 0; d < tm.depthCount(); ++d) {
        const std::vector<uint32_t> &row = tm.depthRow(d);
        const size_t tail =
            size_t(std::lower_bound(row.begin(), row.end(), uint32_t(from)) - row.begin());
        std::vector<uint32_t> &pos = rows[size_t(d)];
        pos.erase(std::lower_bound(pos.begin(), pos.end(), uint32_t(tail)), pos.end());
        for (size_t p = tail; p < row.size(); ++p)
            if (nameVisible(names[row[p]]) && eventMatches(int(model), int(row[p])))
                pos.push_back(uint32_t(p));
    }
}

const std::vector<uint32_t> &TimelineScene::matchPositions(int model, int depth) const
{
    static const std::vector<uint32_t> none;
    if (size_t(model) >= m_matchPos.size() || size_t(depth) >= m_matchPos[size_t(model)].size())
        return none;
    return m_matchPos[size_t(model)][size_t(depth)];
}

bool TimelineScene::matchIn(int model, int depth, size_t from, size_t to) const
{
    const std::vector<uint32_t> &pos = matchPositions(model, depth);
    const auto it = std::lower_bound(pos.begin(), pos.end(), uint32_t(from));
    return it != pos.end() && *it < to;
}

int64_t TimelineScene::matchingEventCount() const
{
    int64_t n = 0;
    for (size_t m = 0; m < m_matchPos.size() && m < m_models.size(); ++m) {
        if (!m_modelShown[m])
            continue;
        for (const auto &pos : m_matchPos[m])
            n += int64_t(pos.size());
    }
    return n;
}

std::pair<int, int> TimelineScene::modelsOf(int worker) const
{
    if (worker < 0 || size_t(worker) >= m_firstModel.size())
        return {0, 0};
    const size_t first = m_firstModel[size_t(worker)];
    const size_t last = size_t(worker) + 1 < m_firstModel.size() ? m_firstModel[size_t(worker) + 1]
                                                                 : m_models.size();
    return {int(first), int(last)};
}

bool TimelineScene::eventVisible(int model, int index) const
{
    const TrackModel &m = m_models[size_t(model)];
    return m_modelShown[size_t(model)] && nameVisible(m.nameId(index));
}

EventRef TimelineScene::nextMatch(const EventRef &from, bool forward) const
{
    // Order key: (start, model, index). Per model, scan from the position of `from`'s start
    // to the first matching event past it; keep the best over models.
    const int64_t t0 = from.valid() ? m_models[size_t(from.model)].startTime(from.index, m_mode)
                                    : (forward ? std::numeric_limits<int64_t>::min()
                                               : std::numeric_limits<int64_t>::max());
    auto key = [&](int m, int i) {
        return std::tuple(m_models[size_t(m)].startTime(i, m_mode), m, i);
    };
    const auto fromKey =
        from.valid() ? key(from.model, from.index) : std::tuple(t0, forward ? -1 : INT32_MAX, -1);
    EventRef best;
    std::tuple<int64_t, int, int> bestKey;
    for (int m = 0; m < int(m_models.size()); ++m) {
        const TrackModel &tm = m_models[size_t(m)];
        if (tm.count() == 0 || !m_modelShown[size_t(m)])
            continue;
        // Without `from`, start at the first (last) event: no search with the int64 sentinels,
        // which no clock map can take (UBSan: overflow in ClockMap::toLocal).
        int i = !from.valid() ? (forward ? 0 : tm.count() - 1)
                : forward     ? std::max(0, tm.lastIndex(t0, m_mode))
                              : std::min(tm.count() - 1, tm.lastIndex(t0, m_mode) + 1);
        for (; i >= 0 && i < tm.count(); i += forward ? 1 : -1) {
            if (!m_match.empty() && !eventMatches(m, i))
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

bool TimelineScene::inDurationFilter(const TrackModel &tm, int i) const
{
    const DurationFilter &f = *m_durationFilter;
    if (tm.flags(i) & (EventOpen | EventInstant))
        return false; // like the stats: complete intervals only
    if (f.rank >= 0 && tm.workerData().info.rank != f.rank)
        return false;
    const int64_t d = tm.duration(i, m_mode);
    return d >= f.minNs && d < f.maxNs;
}

void TimelineScene::setDurationFilter(const std::optional<DurationFilter> &filter)
{
    m_durationFilter = filter;
    if (searchActive())
        rebuildMatches();
    ++m_revision;
}

void TimelineScene::setLinksVisible(bool on)
{
    if (on == m_linksVisible)
        return;
    m_linksVisible = on;
    ++m_revision;
}

void TimelineScene::setHighlighted(std::vector<EventRef> refs)
{
    m_highlighted = std::move(refs);
    ++m_revision;
}

void TimelineScene::setWorkerStatuses(std::vector<WorkerStatus> statuses)
{
    m_statuses = std::move(statuses);
    ++m_revision;
}

void TimelineScene::setCulpritMarks(CulpritMarks marks)
{
    m_culpritMarks = std::move(marks);
    ++m_revision;
}

} // namespace syncline::ui

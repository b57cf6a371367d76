// TimelineScene: track control — identities of workers and threads, hidden workers and threads,
// pinned workers and threads and the thread-name filter (see timelinescene.h), and the visibility they give.
#include "timelinescene.h"

namespace syncline::ui {

std::string TimelineScene::workerKey(int worker) const
{
    const WorkerInfo &i = m_timeline->workers[size_t(worker)].info;
    return i.run + '|' + i.sourceFile + '|' + std::to_string(i.rank) + '|' +
           std::to_string(i.restart) + '|' + std::to_string(i.pid);
}

std::string TimelineScene::trackKey(int model) const
{
    const TrackModel &m = m_models[size_t(model)];
    return workerKey(int(m.worker())) + '|' + std::to_string(m.track().pid) + '|' +
           std::to_string(m.track().tid);
}

QString TimelineScene::threadLabel(int model) const
{
    const EventTrack &t = m_models[size_t(model)].track();
    const QString name = QString::fromStdString(t.threadName);
    return name.isEmpty() ? QStringLiteral("tid %1").arg(t.tid)
                          : QStringLiteral("%1 (%2)").arg(name).arg(t.tid);
}

void TimelineScene::updateVisibility()
{
    const size_t nw = m_timeline->workers.size();
    m_visible.assign(nw, true);
    m_pinned.assign(nw, false);
    for (size_t w = 0; w < nw; ++w) {
        const int r = m_timeline->workers[w].info.rank;
        const std::string key = workerKey(int(w));
        m_visible[w] = r >= m_minRank && r <= m_maxRank && !m_hiddenWorkerKeys.count(key);
        m_pinned[w] = m_pinnedKeys.count(key) > 0;
    }
    m_modelShown.assign(m_models.size(), true);
    m_modelPinned.assign(m_models.size(), false);
    for (size_t m = 0; m < m_models.size(); ++m) {
        if (!m_pinnedTrackKeys.empty())
            m_modelPinned[m] = m_pinnedTrackKeys.count(trackKey(int(m))) > 0;
        bool shown = m_visible[m_models[m].worker()];
        if (shown && !m_hiddenTrackKeys.empty())
            shown = !m_hiddenTrackKeys.count(trackKey(int(m)));
        if (shown && !m_threadFilter.isEmpty())
            shown = threadLabel(int(m)).contains(m_threadFilter, Qt::CaseInsensitive);
        m_modelShown[m] = shown;
    }
    rebuildLayout();
}

void TimelineScene::setWorkerHidden(int worker, bool hidden)
{
    if (worker < 0 || size_t(worker) >= m_timeline->workers.size())
        return;
    if (hidden)
        m_hiddenWorkerKeys.insert(workerKey(worker));
    else
        m_hiddenWorkerKeys.erase(workerKey(worker));
    updateVisibility();
}

bool TimelineScene::isWorkerHidden(int worker) const
{
    return m_hiddenWorkerKeys.count(workerKey(worker)) > 0;
}

void TimelineScene::setTrackHidden(int model, bool hidden)
{
    if (model < 0 || size_t(model) >= m_models.size())
        return;
    if (hidden)
        m_hiddenTrackKeys.insert(trackKey(model));
    else
        m_hiddenTrackKeys.erase(trackKey(model));
    updateVisibility();
}

bool TimelineScene::isTrackHidden(int model) const
{
    return m_hiddenTrackKeys.count(trackKey(model)) > 0;
}

void TimelineScene::showOnlyWorker(int worker)
{
    for (size_t w = 0; w < m_timeline->workers.size(); ++w)
        if (int(w) == worker)
            m_hiddenWorkerKeys.erase(workerKey(int(w)));
        else
            m_hiddenWorkerKeys.insert(workerKey(int(w)));
    updateVisibility();
}

void TimelineScene::showAllHidden()
{
    m_hiddenWorkerKeys.clear();
    m_hiddenTrackKeys.clear();
    updateVisibility();
}

std::vector<int> TimelineScene::hiddenWorkers() const
{
    std::vector<int> out;
    for (size_t w = 0; w < m_timeline->workers.size(); ++w)
        if (isWorkerHidden(int(w)))
            out.push_back(int(w));
    return out;
}

std::vector<int> TimelineScene::hiddenTracks() const
{
    std::vector<int> out;
    if (!m_hiddenTrackKeys.empty())
        for (size_t m = 0; m < m_models.size(); ++m)
            if (isTrackHidden(int(m)))
                out.push_back(int(m));
    return out;
}

void TimelineScene::setPinned(int worker, bool pinned)
{
    if (worker < 0 || size_t(worker) >= m_timeline->workers.size())
        return;
    if (pinned)
        m_pinnedKeys.insert(workerKey(worker));
    else
        m_pinnedKeys.erase(workerKey(worker));
    updateVisibility();
}

bool TimelineScene::isPinned(int worker) const
{
    return size_t(worker) < m_pinned.size() && m_pinned[size_t(worker)];
}

void TimelineScene::setTrackPinned(int model, bool pinned)
{
    if (model < 0 || size_t(model) >= m_models.size())
        return;
    if (pinned)
        m_pinnedTrackKeys.insert(trackKey(model));
    else
        m_pinnedTrackKeys.erase(trackKey(model));
    updateVisibility();
}

bool TimelineScene::isTrackPinned(int model) const
{
    return size_t(model) < m_modelPinned.size() && m_modelPinned[size_t(model)];
}

std::vector<int> TimelineScene::pinnedTracks() const
{
    std::vector<int> out;
    for (size_t m = 0; m < m_modelPinned.size(); ++m)
        if (m_modelPinned[m])
            out.push_back(int(m));
    return out;
}

void TimelineScene::setThreadFilter(const QString &text)
{
    m_threadFilter = text;
    updateVisibility();
}

} // namespace syncline::ui

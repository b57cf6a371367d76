#include "findcontroller.h"

#include "findbar.h"
#include "timeformat.h"
#include "timelineview.h"

#include <QLineEdit>
#include <QRegularExpression>

#include <algorithm>

namespace syncline::ui {

FindController::FindController(FindBar *bar, TimelineView *view, std::function<void()> changed,
                               QObject *parent)
    : QObject(parent), m_bar(bar), m_view(view), m_changed(std::move(changed))
{
    connect(m_bar, &FindBar::searchChanged, this, &FindController::search);
    connect(m_bar, &FindBar::stepRequested, this, &FindController::step);
    connect(m_bar, &FindBar::nameFilterChanged, this, [this](const QString &text) {
        if (m_scene) {
            m_scene->setNameFilter(text);
            refreshStatus();
            m_changed();
        }
    });
    connect(m_bar, &FindBar::threadFilterChanged, this, [this](const QString &text) {
        if (m_scene) {
            m_scene->setThreadFilter(text);
            refreshStatus();
            m_changed();
        }
    });
    connect(m_bar, &FindBar::rankRangeChanged, this, [this](int lo, int hi) {
        if (m_scene) {
            m_scene->setRankFilter(lo, hi);
            refreshStatus();
            m_changed();
        }
    });
}

void FindController::setScene(std::shared_ptr<TimelineScene> scene, bool newJob)
{
    m_scene = std::move(scene);
    if (newJob)
        m_rankLimits = {1, 0};
    updateRankLimits();
    // The filters typed in the bar apply to the new scene as well (a reload keeps them).
    if (m_scene && !m_bar->nameFilterEdit()->text().isEmpty())
        m_scene->setNameFilter(m_bar->nameFilterEdit()->text());
    if (m_scene && !m_bar->threadFilterEdit()->text().isEmpty())
        m_scene->setThreadFilter(m_bar->threadFilterEdit()->text());
    search(m_bar->pattern(), m_bar->isRegex());
}

void FindController::updateRankLimits()
{
    if (!m_scene)
        return;
    const Timeline &t = m_scene->timeline();
    int minRank = 0, maxRank = 0;
    for (size_t i = 0; i < t.workers.size(); ++i) {
        const int r = t.workers[i].info.rank;
        minRank = i == 0 ? r : std::min(minRank, r);
        maxRank = i == 0 ? r : std::max(maxRank, r);
    }
    if (minRank != m_rankLimits.first || maxRank != m_rankLimits.second) {
        m_rankLimits = {minRank, maxRank};
        m_bar->setRankLimits(minRank, maxRank); // resets the rank filter to all ranks
        m_scene->setRankFilter(minRank, maxRank);
    }
}

void FindController::search(const QString &pattern, bool regex)
{
    if (!m_scene)
        return;
    if (!m_scene->setSearch(pattern, regex))
        m_bar->setStatus(m_scene->searchError(), true);
    else if (pattern.isEmpty())
        m_bar->setStatus(QString(), false);
    else
        m_bar->setStatus(matchStatus(), m_scene->matchingEventCount() == 0);
    m_changed();
}

QString FindController::matchStatus() const
{
    const int64_t events = m_scene->matchingEventCount();
    const int names = m_scene->matchingNameCount();
    // "3 / 958 events" while a match is selected (Enter / Shift+Enter step in time order).
    const int64_t at = m_scene->matchIndex(m_scene->selected());
    QString s = (at > 0 ? tr("%L1 / ").arg(at) : QString()) +
                (events == 1 ? tr("1 event") : tr("%L1 events").arg(events)) +
                QStringLiteral(" · ") + (names == 1 ? tr("1 name") : tr("%1 names").arg(names));
    if (const auto &f = m_scene->durationFilter()) {
        s += QStringLiteral(" · %1 – %2").arg(formatDuration(f->minNs), formatDuration(f->maxNs));
        if (f->rank >= 0)
            s += tr(" · rank %1").arg(f->rank);
    }
    return s;
}

void FindController::findDurations(uint32_t nameId, int64_t minNs, int64_t maxNs, int rank)
{
    if (!m_scene)
        return;
    const QString name = m_scene->displayName(nameId);
    m_bar->setRegex(true);
    const QString pattern = QLatin1Char('^') + QRegularExpression::escape(name) + QLatin1Char('$');
    if (m_bar->findEdit()->text() == pattern)
        search(pattern, true); // the text did not change: clear the previous filter ourselves
    else
        m_bar->findEdit()->setText(pattern); // searches (and clears any duration filter)
    m_scene->setDurationFilter(TimelineScene::DurationFilter{minNs, maxNs, rank});
    refreshStatus();
    m_changed();
    m_view->selectEvent({}, false);
    step(true);
}

void FindController::findName(const QString &name)
{
    m_bar->setRegex(true);
    m_bar->findEdit()->setText(QLatin1Char('^') + QRegularExpression::escape(name) +
                               QLatin1Char('$'));
    m_bar->focusFind();
}

void FindController::refreshStatus()
{
    if (m_scene && m_scene->searchActive())
        m_bar->setStatus(matchStatus(), m_scene->matchingEventCount() == 0);
}

void FindController::step(bool forward)
{
    if (!m_scene || !m_scene->searchActive())
        return;
    const EventRef next = m_scene->nextMatch(m_scene->selected(), forward);
    if (next.valid()) {
        m_view->selectEvent(next, true);
        refreshStatus();
    } else
        m_bar->setStatus(forward ? tr("no more matches after this") : tr("no matches before this"),
                         false);
}

} // namespace syncline::ui

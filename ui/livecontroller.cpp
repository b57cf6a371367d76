#include "livecontroller.h"

#include "timeline/live/dirwatcher.h"
#include "timeline/live/livejob.h"

#include <QSocketNotifier>
#include <QtConcurrent>

#include <algorithm>

namespace syncline::ui {

using SteadyClock = FollowSchedule::Clock;

LiveController::LiveController(const LiveOptions &options, const FollowOptions &follow,
                               QObject *parent)
    : QObject(parent), m_job(std::make_unique<LiveJob>(options)),
      m_watcher(std::make_unique<DirWatcher>(follow.mode, follow.pollIntervalMs)),
      m_schedule(follow.schedule)
{
    qRegisterMetaType<syncline::LiveUpdate>("syncline::LiveUpdate");
    if (!m_job->fatalError().empty())
        return;
    watchNewDirectories();
    m_coalesce.setSingleShot(true);
    connect(&m_coalesce, &QTimer::timeout, this, [this] {
        if (!m_busy)
            startIngest();
    });
    connect(&m_future, &QFutureWatcher<int64_t>::finished, this, &LiveController::ingestDone);
    connect(&m_tick, &QTimer::timeout, this, &LiveController::tick);
    m_tick.start(m_schedule.intervals().tickMs);
    if (m_watcher->mode() == WatchMode::Inotify) {
        m_notifier = new QSocketNotifier(m_watcher->fd(), QSocketNotifier::Read, this);
        connect(m_notifier, &QSocketNotifier::activated, this, [this] {
            if (m_watcher->drain().entriesChanged)
                m_schedule.namesChanged();
            request();
        });
    } else {
        connect(&m_poll, &QTimer::timeout, this, [this] { request(); });
        m_poll.start(m_watcher->pollIntervalMs());
    }
    request();
}

LiveController::~LiveController()
{
    m_future.waitForFinished();
}

QString LiveController::error() const
{
    return QString::fromStdString(m_job->fatalError());
}

std::shared_ptr<Timeline> LiveController::timeline() const
{
    return m_job->timeline();
}

int64_t LiveController::nowNs() const
{
    return m_job->nowNs();
}

WatchMode LiveController::watchMode() const
{
    return m_watcher->mode();
}

void LiveController::watchNewDirectories()
{
    for (const std::string &d : m_job->directories())
        m_watcher->addDirectory(d);
}

void LiveController::request()
{
    if (m_busy) {
        m_again = true;
        return;
    }
    // Compare the time points before subtracting: earliestRead() is time_point::min() before
    // the first read, and min() - now overflows (UBSan).
    const auto earliest = m_schedule.earliestRead();
    const auto now = SteadyClock::now();
    if (earliest > now) {
        const auto wait = earliest - now;
        if (!m_coalesce.isActive())
            m_coalesce.start(int(std::max<int64_t>(
                1, std::chrono::ceil<std::chrono::milliseconds>(wait).count())));
        return;
    }
    startIngest();
}

void LiveController::startIngest()
{
    const bool rescan = m_schedule.beginRead(SteadyClock::now());
    m_busy = true;
    LiveJob *job = m_job.get();
    m_future.setFuture(QtConcurrent::run([job, rescan] { return job->ingest(rescan); }));
}

void LiveController::publish(const LiveUpdate &u)
{
    m_workers = m_job->status();
    emit updated(u);
}

void LiveController::ingestDone()
{
    const LiveUpdate u = m_job->commit();
    m_busy = false;
    watchNewDirectories();
    publish(u);
    if (m_again) {
        m_again = false;
        request();
    }
}

void LiveController::tick()
{
    if (m_busy)
        return;
    if (m_schedule.rescanDue(SteadyClock::now())) {
        request(); // the periodic rescan also commits (ingestDone)
        return;
    }
    const LiveUpdate u = m_job->commit(); // states and open-event growth without new bytes
    m_workers = m_job->status();
    if (u.changed())
        emit updated(u);
}

} // namespace syncline::ui

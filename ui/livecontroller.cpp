#include "livecontroller.h"

#include <QDateTime>
#include <QSocketNotifier>
#include <QtConcurrent>

namespace syncline::ui {

namespace {

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

} // namespace

LiveController::LiveController(const LiveOptions &options, const LiveFollower::Options &follow,
                               QObject *parent)
    : QObject(parent), m_job(std::make_unique<LiveJob>(options)),
      m_watcher(std::make_unique<DirWatcher>(follow.mode, follow.pollIntervalMs))
{
    qRegisterMetaType<syncline::LiveUpdate>("syncline::LiveUpdate");
    if (!m_job->fatalError().empty())
        return;
    watchNewDirectories();
    connect(&m_future, &QFutureWatcher<int64_t>::finished, this, &LiveController::ingestDone);
    connect(&m_tick, &QTimer::timeout, this, &LiveController::tick);
    m_tick.start(follow.tickMs);
    if (m_watcher->mode() == DirWatcher::Mode::Inotify) {
        m_notifier = new QSocketNotifier(m_watcher->fd(), QSocketNotifier::Read, this);
        connect(m_notifier, &QSocketNotifier::activated, this, [this] {
            const DirChanges c = m_watcher->drain();
            request(c.entriesChanged);
        });
    } else {
        connect(&m_poll, &QTimer::timeout, this, [this] { request(false); });
        m_poll.start(m_watcher->pollIntervalMs());
    }
    request(true);
}

LiveController::~LiveController()
{
    m_future.waitForFinished();
}

void LiveController::watchNewDirectories()
{
    for (const std::string &d : m_job->directories())
        m_watcher->addDirectory(d);
}

void LiveController::request(bool rescan)
{
    m_rescan = m_rescan || rescan;
    if (m_busy) {
        m_again = true;
        return;
    }
    const qint64 wait = m_lastStartMs + kMinIntervalMs - nowMs();
    if (wait > 0) {
        if (!m_again) {
            m_again = true;
            QTimer::singleShot(int(wait), this, [this] {
                m_again = false;
                if (!m_busy)
                    startIngest();
            });
        }
        return;
    }
    startIngest();
}

void LiveController::startIngest()
{
    // Names can appear without an inotify event for them (a new subdirectory, polling): rescan
    // every 2 s anyway.
    const bool rescan = m_rescan || nowMs() - m_lastRescanMs > 2000;
    m_rescan = false;
    if (rescan)
        m_lastRescanMs = nowMs();
    m_busy = true;
    m_lastStartMs = nowMs();
    LiveJob *job = m_job.get();
    m_future.setFuture(QtConcurrent::run([job, rescan] { return job->ingest(rescan); }));
}

void LiveController::ingestDone()
{
    const LiveUpdate u = m_job->commit();
    m_busy = false;
    watchNewDirectories();
    emit updated(u);
    if (m_again) {
        m_again = false;
        request(false);
    }
}

void LiveController::tick()
{
    if (m_busy)
        return;
    const LiveUpdate u = m_job->commit(); // states and open-event growth without new bytes
    if (u.changed())
        emit updated(u);
}

} // namespace syncline::ui

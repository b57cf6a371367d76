#include "loadcontroller.h"

namespace syncline::ui {

LoadController::LoadController(QObject *parent) : QObject(parent) {}

LoadController::~LoadController()
{
    if (m_cancel)
        m_cancel->store(true);
    for (std::thread &t : m_threads)
        t.join();
}

uint64_t LoadController::start(const QStringList &paths, const QString &alignOn, bool correct,
                               const LoadWindow &window)
{
    if (m_cancel)
        m_cancel->store(true); // the previous job's result will be stale anyway
    const uint64_t id = ++m_job;
    m_running = true;
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    m_cancel = cancel;
    LoadOptions options;
    for (const QString &p : paths)
        options.paths.push_back(p.toStdString());
    options.alignOn = alignOn.toStdString();
    options.correctClocks = correct;
    options.window = window;
    options.progress = [this, id](double fraction, const std::string &what) {
        const QString text = QString::fromStdString(what);
        QMetaObject::invokeMethod(
            this,
            [this, id, fraction, text] {
                if (m_job == id)
                    emit progress(fraction, text);
            },
            Qt::QueuedConnection);
    };
    // The loader has its own pool; this thread only waits for it and posts the result back.
    // Posted calls to a deleted controller are discarded by Qt, and the destructor joins.
    m_threads.emplace_back([this, id, options, cancel]() mutable {
        options.cancel = cancel.get();
        LoadResult result = JobLoader::load(options);
        auto timeline = result.timeline;
        const bool cancelled = result.cancelled || cancel->load();
        const QString fatal = QString::fromStdString(result.fatalError);
        QMetaObject::invokeMethod(
            this,
            [this, id, timeline, cancelled, fatal] {
                if (m_job != id)
                    return; // stale: a newer load started
                m_running = false;
                emit finished(cancelled ? nullptr : timeline, cancelled, fatal);
            },
            Qt::QueuedConnection);
    });
    return id;
}

void LoadController::cancel()
{
    if (!m_running)
        return;
    if (m_cancel)
        m_cancel->store(true);
}

} // namespace syncline::ui

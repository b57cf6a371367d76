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
                               const LoadWindow &window, bool align)
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
    options.alignCollectives = align;
    options.clock = m_clock;
    options.window = window;
    options.ranks = m_ranks;
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

uint64_t LoadController::startCompare(const QStringList &pathsA, const QStringList &pathsB,
                                      const QString &alignOn, bool correct,
                                      std::shared_ptr<const Timeline> loadedA, bool align)
{
    if (m_cancel)
        m_cancel->store(true);
    const uint64_t id = ++m_job;
    m_running = true;
    auto cancel = std::make_shared<std::atomic<bool>>(false);
    m_cancel = cancel;
    auto options = [&](const QStringList &paths, double from, double span, const QString &run) {
        LoadOptions o;
        for (const QString &p : paths)
            o.paths.push_back(p.toStdString());
        o.alignOn = alignOn.toStdString();
        o.correctClocks = correct;
        o.alignCollectives = align;
        o.ranks = m_ranks;
        o.clock = m_clock;
        o.progress = [this, id, from, span, run](double fraction, const std::string &what) {
            const QString text = run + QString::fromStdString(what);
            const double f = from + span * fraction;
            QMetaObject::invokeMethod(
                this,
                [this, id, f, text] {
                    if (m_job == id)
                        emit progress(f, text);
                },
                Qt::QueuedConnection);
        };
        return o;
    };
    LoadOptions oa = options(pathsA, 0, 0.5, QStringLiteral("A: "));
    LoadOptions ob = options(pathsB, loadedA ? 0 : 0.5, loadedA ? 1 : 0.5, QStringLiteral("B: "));
    m_threads.emplace_back([this, id, oa, ob, cancel, loadedA]() mutable {
        std::shared_ptr<const Timeline> a = loadedA, b;
        QString fatal;
        bool cancelled = false;
        if (!a) {
            oa.cancel = cancel.get();
            LoadResult r = JobLoader::load(oa);
            cancelled = r.cancelled;
            a = r.timeline;
            if (!a && !cancelled)
                fatal = QStringLiteral("A: ") + QString::fromStdString(r.fatalError);
        }
        if (a && !cancelled && !cancel->load()) {
            ob.cancel = cancel.get();
            LoadResult r = JobLoader::load(ob);
            cancelled = r.cancelled;
            b = r.timeline;
            if (!b && !cancelled)
                fatal = QStringLiteral("B: ") + QString::fromStdString(r.fatalError);
        }
        cancelled = cancelled || cancel->load();
        if (cancelled || !b)
            a.reset(), b.reset();
        QMetaObject::invokeMethod(
            this,
            [this, id, a, b, cancelled, fatal] {
                if (m_job != id)
                    return;
                m_running = false;
                emit compareLoaded(a, b, cancelled, fatal);
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

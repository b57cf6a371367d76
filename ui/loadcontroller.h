// LoadController — runs JobLoader::load off the GUI thread as a cancellable job with an id.
// Progress is posted back to the GUI thread; when a newer load starts (or Cancel is pressed),
// the older job is told to stop and its result, if it still arrives, is dropped (hotspot's
// pattern: the id of the latest job is the only one accepted).
// Threading: create and call on the GUI thread; signals arrive on the GUI thread. The
// destructor cancels and joins every load thread, so no callback outlives the controller.
#pragma once

#include "timeline/load/jobloader.h"

#include <QObject>
#include <QStringList>

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

namespace syncline::ui {

class LoadController : public QObject
{
    Q_OBJECT
public:
    explicit LoadController(QObject *parent = nullptr);
    ~LoadController() override;
    // Returns the job id. alignOn / correct / align: LoadOptions::alignOn / correctClocks /
    // alignCollectives (false: --no-align). window: LoadOptions::window (File ▸ Open window…).
    uint64_t start(const QStringList &paths, const QString &alignOn = {}, bool correct = true,
                   const LoadWindow &window = {}, bool align = true);
    // Compare two runs: loads A (unless `loadedA` is given: the run already shown) and then B,
    // with the same options; progress runs over both (A to 50 %). Ends with compareLoaded.
    uint64_t startCompare(const QStringList &pathsA, const QStringList &pathsB,
                          const QString &alignOn = {}, bool correct = true,
                          std::shared_ptr<const syncline::Timeline> loadedA = nullptr,
                          bool align = true);
    // `open --clock`: the clock every later load asks for (LoadOptions::clock; unset = the
    // config's view_clock).
    void setClock(std::optional<syncline::ClockChoice> clock) { m_clock = clock; }
    void cancel();
    // `open --ranks`: the loads that start from now on read only these workers' logs
    // (LoadOptions::ranks); RankSet() again for every worker.
    void setRanks(const syncline::RankSet &ranks) { m_ranks = ranks; }
    const syncline::RankSet &ranks() const { return m_ranks; }
    bool isRunning() const { return m_running; }
    uint64_t currentJob() const { return m_job; }

signals:
    void progress(double fraction, const QString &what);
    // Exactly one of: timeline set, cancelled, or fatalError non-empty.
    void finished(std::shared_ptr<syncline::Timeline> timeline, bool cancelled,
                  const QString &fatalError);
    // startCompare's end: both timelines set, or cancelled, or fatalError ("B: reason").
    void compareLoaded(std::shared_ptr<const syncline::Timeline> a,
                       std::shared_ptr<const syncline::Timeline> b, bool cancelled,
                       const QString &fatalError);

private:
    syncline::RankSet m_ranks;
    uint64_t m_job = 0;
    bool m_running = false;
    std::optional<syncline::ClockChoice> m_clock;
    std::shared_ptr<std::atomic<bool>> m_cancel;
    std::vector<std::thread> m_threads; // joined in the destructor (after cancelling)
};

} // namespace syncline::ui

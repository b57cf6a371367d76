// LiveFile (what attach and the viewer's live mode read with) on a line that stays unterminated
// while it grows — a torn line being written, or a huge one: the reading cost grows linearly with
// the bytes read, as a full load's does (tests/common/scaling.h: 2N within 2.5× N, CPU time,
// least of 3, same run); and once its '\n' arrives the line is read like any other.
#include "tests/common/scaling.h"
#include "tests/timeline/testlogs.h"

#include "timeline/live/livefile.h"

#include <QtTest>

#include <fcntl.h>
#include <unistd.h>

using namespace syncline;

namespace {

void appendAll(int fd, const std::string &text)
{
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        QVERIFY(n > 0);
        done += size_t(n);
    }
}

} // namespace

class TstLiveScaling : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase() { scaling::keepFreedMemory(); }
    void growingUnterminatedLineIsLinear();
};

// A B record whose name grows by 128 KiB between reads to k × 6 MiB before its line ends: each
// read used to copy (and search) the whole line begun so far again.
void TstLiveScaling::growingUnterminatedLineIsLinear()
{
    SCALING_SKIP_IF_SANITIZED();
    QTemporaryDir dir;
    constexpr size_t kStep = 128 << 10;
    constexpr size_t kLine = 6 << 20; // 2N stays below the allocator's mmap threshold (32 MiB)
    const std::string piece(kStep, 'x');
    size_t nameBytes = 0;
    int64_t events = -1;
    bool closed = false;
    const scaling::Result r = scaling::measure([&](int k) {
        const std::string path =
            dir.path().toStdString() + "/timer_events." + std::to_string(k) + ".log";
        ::unlink(path.c_str());
        const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
        appendAll(fd, testlogs::header(0) + "{\"t\":\"B\",\"ts\":2000,\"tid\":1,\"name\":\"");
        LiveFile file(path);
        std::vector<char> scratch;
        double cpu = 0;
        auto ingest = [&] {
            const double t0 = scaling::threadCpuSeconds();
            while (file.ingest(scratch, kStep) > 0) {
            }
            cpu += scaling::threadCpuSeconds() - t0;
        };
        ingest();
        for (size_t written = 0; written < size_t(k) * kLine; written += kStep) {
            appendAll(fd, piece);
            ingest();
        }
        appendAll(fd, "\"}\n{\"t\":\"E\",\"ts\":3000,\"tid\":1}\n");
        ingest();
        ::close(fd);
        const load::ParsedFile &parsed = file.parsed();
        events = parsed.worker.tracks.empty() ? -1 : int64_t(parsed.worker.tracks[0].count());
        nameBytes = events > 0 ? parsed.names.name(parsed.worker.tracks[0].nameId[0]).size() : 0;
        closed = events > 0 && !(parsed.worker.tracks[0].flags[0] & EventOpen) &&
                 parsed.worker.tracks[0].localEnd[0] == 3000;
        return cpu;
    });
    // The long line was read as the B record it is, its E closes it.
    QCOMPARE(events, int64_t(1));
    QCOMPARE(nameBytes, 2 * kLine);
    QVERIFY(closed);
    qInfo("%s", r.describe().c_str());
    QVERIFY2(r.ratio() < scaling::kMaxRatio, r.describe().c_str());
}

QTEST_APPLESS_MAIN(TstLiveScaling)
#include "tst_livescaling.moc"

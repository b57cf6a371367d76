// `syncline query`'s database cache beside the job's index, with the real executable: a second
// query reuses the file (same inode and mtime, same answer); a changed log rebuilds it (the
// answer sees the new event); a planted garbage file, a truncated or extended database, another job's
// database and a link at the cache's name are rebuilt, never trusted or written through; a
// linked `.syncline-index` is refused (the answer still comes, through the user's cache).
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <sys/stat.h>

namespace {

std::string header(int rank)
{
    return R"({"t":"header","format":"syncline","version":1,"rank":)" + std::to_string(rank) +
           R"(,"restart":0,"host":"h","boot_id":"b","pid":7,"clock":"monotonic_raw","anchor":{"mono_ns":0,"wall_ns":1700000000000000000,"spread_ns":1},"config":null,"start_ns":0})" +
           "\n";
}

std::string interval(int64_t ts, const std::string &name)
{
    return R"({"t":"B","ts":)" + std::to_string(ts) + R"(,"tid":1,"name":")" + name + "\"}\n" +
           R"({"t":"E","ts":)" + std::to_string(ts + 1000) + R"(,"tid":1,"name":")" + name +
           "\"}\n";
}

// A job of two ranks with `n` "work" events each.
void makeJob(const QString &dir, int n)
{
    QDir().mkpath(dir);
    for (int rank : {0, 1}) {
        std::string log = header(rank);
        for (int i = 0; i < n; ++i)
            log += interval(10000 + 5000 * i, "work");
        std::ofstream(QStringLiteral("%1/timer_events.%2.log").arg(dir).arg(rank).toStdString(),
                      std::ios::binary)
            << log;
    }
}

struct FileId
{
    ino_t inode = 0;
    int64_t mtimeNs = 0;
    bool operator==(const FileId &) const = default;
};

FileId idOf(const QString &path)
{
    struct stat st
    {
    };
    if (::lstat(path.toLocal8Bit().constData(), &st) != 0)
        return {};
    return {st.st_ino, int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

} // namespace

class TstQueryCache : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void reusedThenRebuiltOnChange();
    void garbageIsRebuilt();
    void truncatedOrExtendedIsRebuilt();
    void foreignDatabaseIsRebuilt();
    void linkAtTheNameIsReplaced();
    void linkedIndexDirIsRefused();

private:
    // `syncline query -q JOB "SELECT rank, count(*) ..." --csv`: the CSV, "" on failure.
    QString countsOf(const QString &job);
    QString cacheFile(const QString &job);

    QTemporaryDir m_dir;
    QString m_xdg;
};

void TstQueryCache::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_xdg = m_dir.filePath(QStringLiteral("xdg-cache"));
}

QString TstQueryCache::countsOf(const QString &job)
{
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("XDG_CACHE_HOME"), m_xdg); // the fallback place, inside the test
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(SYNCLINE_BINARY_DIR "/bin/syncline"),
            {"query", "-q", job,
             "SELECT rank, count(*) AS n FROM events WHERE name = 'work' GROUP BY rank ORDER BY rank",
             "--csv"});
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) {
        qWarning("query failed: %s", p.readAllStandardError().constData());
        return {};
    }
    return QString::fromUtf8(p.readAllStandardOutput());
}

// The one query-*.db in the job's .syncline-index ("" when there is none or several).
QString TstQueryCache::cacheFile(const QString &job)
{
    const QStringList dbs = QDir(job + QStringLiteral("/.syncline-index"))
                                .entryList({QStringLiteral("query-*.db")}, QDir::Files | QDir::System);
    return dbs.size() == 1 ? job + QStringLiteral("/.syncline-index/") + dbs.front() : QString();
}

void TstQueryCache::reusedThenRebuiltOnChange()
{
    const QString job = m_dir.filePath(QStringLiteral("reuse"));
    makeJob(job, 3);
    QCOMPARE(countsOf(job), QStringLiteral("rank,n\n0,3\n1,3\n"));
    const QString db = cacheFile(job);
    QVERIFY(!db.isEmpty());
    const FileId first = idOf(db);
    QVERIFY(first.inode != 0);
    // Unchanged job: the same file answers (neither rewritten nor replaced).
    QCOMPARE(countsOf(job), QStringLiteral("rank,n\n0,3\n1,3\n"));
    QVERIFY(idOf(db) == first);
    // A log grows by one event: the stamp no longer matches, the database is rebuilt in place.
    {
        std::ofstream(job.toStdString() + "/timer_events.1.log", std::ios::app | std::ios::binary)
            << interval(100000, "work");
    }
    QCOMPARE(countsOf(job), QStringLiteral("rank,n\n0,3\n1,4\n"));
    QCOMPARE(cacheFile(job), db); // the same name, replaced (no second file left behind)
    QVERIFY(!(idOf(db) == first));
    const FileId second = idOf(db);
    QCOMPARE(countsOf(job), QStringLiteral("rank,n\n0,3\n1,4\n"));
    QVERIFY(idOf(db) == second);
    // No temporary file is left beside it.
    QCOMPARE(QDir(job + QStringLiteral("/.syncline-index")).entryList({QStringLiteral("*.tmp*")}, QDir::Files),
             QStringList());
}

void TstQueryCache::garbageIsRebuilt()
{
    const QString job = m_dir.filePath(QStringLiteral("garbage"));
    makeJob(job, 2);
    QCOMPARE(countsOf(job), QStringLiteral("rank,n\n0,2\n1,2\n"));
    const QString db = cacheFile(job);
    QFile f(db);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(QByteArray(5000, 'x'));
    f.close();
    QCOMPARE(countsOf(job), QStringLiteral("rank,n\n0,2\n1,2\n"));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QVERIFY(f.read(16).startsWith("SQLite format 3"));
}

void TstQueryCache::truncatedOrExtendedIsRebuilt()
{
    const QString job = m_dir.filePath(QStringLiteral("truncated"));
    makeJob(job, 2);
    QCOMPARE(countsOf(job), QStringLiteral("rank,n\n0,2\n1,2\n"));
    const QString db = cacheFile(job);
    const qint64 size = QFileInfo(db).size();
    QVERIFY(QFile::resize(db, size / 2));
    const FileId cut = idOf(db);
    QCOMPARE(countsOf(job), QStringLiteral("rank,n\n0,2\n1,2\n"));
    QVERIFY(!(idOf(db) == cut));
    QCOMPARE(QFileInfo(db).size(), size);
    // Extended: pages appended after the database's own (SQLite would not notice).
    {
        QFile f(db);
        QVERIFY(f.open(QIODevice::Append));
        f.write(QByteArray(8192, 'x'));
    }
    const FileId grown = idOf(db);
    QCOMPARE(countsOf(job), QStringLiteral("rank,n\n0,2\n1,2\n"));
    QVERIFY(!(idOf(db) == grown));
    QCOMPARE(QFileInfo(db).size(), size);
}

// Another job's valid database planted under this job's name: its key does not match.
void TstQueryCache::foreignDatabaseIsRebuilt()
{
    const QString a = m_dir.filePath(QStringLiteral("foreignA"));
    const QString b = m_dir.filePath(QStringLiteral("foreignB"));
    makeJob(a, 2);
    makeJob(b, 5);
    QCOMPARE(countsOf(a), QStringLiteral("rank,n\n0,2\n1,2\n"));
    QCOMPARE(countsOf(b), QStringLiteral("rank,n\n0,5\n1,5\n"));
    const QString dbA = cacheFile(a);
    QVERIFY(QFile::remove(dbA));
    QVERIFY(QFile::copy(cacheFile(b), dbA));
    QCOMPARE(countsOf(a), QStringLiteral("rank,n\n0,2\n1,2\n"));
}

// A symbolic link planted at the cache's name: never read as the cache, never written through;
// the rebuilt database replaces the link itself.
void TstQueryCache::linkAtTheNameIsReplaced()
{
    const QString job = m_dir.filePath(QStringLiteral("link"));
    const QString other = m_dir.filePath(QStringLiteral("linkOther"));
    makeJob(job, 2);
    makeJob(other, 7);
    QCOMPARE(countsOf(job), QStringLiteral("rank,n\n0,2\n1,2\n"));
    QCOMPARE(countsOf(other), QStringLiteral("rank,n\n0,7\n1,7\n"));
    const QString db = cacheFile(job);
    // The link points at this job's own valid database: followed, it would be trusted as is.
    const QString target = m_dir.filePath(QStringLiteral("target.db"));
    QVERIFY(QFile::rename(db, target));
    QVERIFY(QFile::link(target, db));
    const QByteArray before = [&] {
        QFile t(target);
        return t.open(QIODevice::ReadOnly) ? t.readAll() : QByteArray();
    }();
    QCOMPARE(countsOf(job), QStringLiteral("rank,n\n0,2\n1,2\n"));
    QVERIFY(!QFileInfo(db).isSymLink());
    QVERIFY(QFileInfo(db).isFile());
    QFile t(target);
    QVERIFY(t.open(QIODevice::ReadOnly));
    QCOMPARE(t.readAll(), before); // untouched
}

// `.syncline-index` a link to a directory elsewhere: not used at all (nothing written there);
// the database goes to the user's cache instead.
void TstQueryCache::linkedIndexDirIsRefused()
{
    const QString job = m_dir.filePath(QStringLiteral("linkeddir"));
    const QString elsewhere = m_dir.filePath(QStringLiteral("elsewhere"));
    makeJob(job, 2);
    QVERIFY(QDir().mkpath(elsewhere));
    QVERIFY(QFile::link(elsewhere, job + QStringLiteral("/.syncline-index")));
    QCOMPARE(countsOf(job), QStringLiteral("rank,n\n0,2\n1,2\n"));
    QCOMPARE(QDir(elsewhere).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System),
             QStringList());
    QDirIterator it(m_xdg, {QStringLiteral("query-*.db")}, QDir::Files, QDirIterator::Subdirectories);
    QVERIFY(it.hasNext());
}

QTEST_GUILESS_MAIN(TstQueryCache)
#include "tst_querycache.moc"

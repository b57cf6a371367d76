// `syncline report --html` as a real process: on a simulated 8-worker job with one slowed rank
// (syncline-sim) the page is self-contained (no script, no external reference: every src is a
// data: URI, every link an anchor on the page), names every worker's rank and clock, and names
// the top culprit `syncline diagnose --json` names; the embedded picture is a real PNG of the
// requested size; names, hosts and problems from a log are HTML-escaped (a log cannot inject
// markup); usage errors exit 2; and headless Chromium opens the page (its DOM holds the verdict)
// and screenshots it — skipped, saying so, when no chromium is installed.
#include "tests/common/synclinerun.h"

#include <QDir>
#include <QImage>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include <nlohmann/json.hpp>

namespace {

using synclinerun::Run;
using synclinerun::slurp;
using synclinerun::syncline;
using synclinerun::write;

constexpr int kSlowRank = 3;

} // namespace

class TstReportCommand : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase();
    void selfContained();
    void jobAndCulprit();
    void picture();
    void escapesLogText();
    void usageErrors();
    void opensInChromium();

private:
    QTemporaryDir m_dir;
    QString m_job, m_html;
    std::string m_page;
};

void TstReportCommand::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_job = m_dir.filePath(QStringLiteral("job"));
    QProcess sim;
    sim.start(QStringLiteral(SYNCLINE_BINARY_DIR "/bin/syncline-sim"),
              {"--seed", "21", "--workers", "8", "--per-host", "4", "--duration-s", "4",
               "--slow-rank", QString::number(kSlowRank), "--slow-factor", "1.3", "--out", m_job});
    QVERIFY(sim.waitForFinished(100000));
    QCOMPARE(sim.exitCode(), 0);
    m_html = m_dir.filePath(QStringLiteral("report.html"));
    const Run r = syncline({"report", "-q", m_job, "--html", m_html, "--width", "1200"});
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    QCOMPARE(r.out, std::string()); // the page goes to the file only
    m_page = slurp(m_html);
    QVERIFY(m_page.size() > 10000);
}

// Nothing the browser would fetch: no script, style sheet, font, frame or object; every src
// a data: URI and every href an anchor; no URL at all in the page.
void TstReportCommand::selfContained()
{
    const QString page = QString::fromStdString(m_page);
    QVERIFY(page.startsWith(QStringLiteral("<!DOCTYPE html>")));
    for (const char *bad : {"http:", "https:", "ftp:", "file:", "<script", "<link", "<iframe",
                            "<object", "<embed", "@import", "url(", "@font-face", "srcset"})
        QVERIFY2(!page.contains(QLatin1String(bad), Qt::CaseInsensitive), bad);
    int srcs = 0;
    const QRegularExpression attr(QStringLiteral("\\b(src|href)\\s*=\\s*\"([^\"]*)\""));
    for (auto it = attr.globalMatch(page); it.hasNext();) {
        const auto m = it.next();
        if (m.captured(1) == QLatin1String("src")) {
            ++srcs;
            QVERIFY2(m.captured(2).startsWith(QStringLiteral("data:image/png;base64,")),
                     qPrintable(m.captured(2).left(60)));
        } else {
            QVERIFY2(m.captured(2).startsWith(QLatin1Char('#')), qPrintable(m.captured(2)));
        }
    }
    QCOMPARE(srcs, 2); // the whole job, and five steps up close
    // Unquoted or single-quoted attributes would slip past the pattern above: there are none.
    QVERIFY(!page.contains(QRegularExpression(QStringLiteral("\\b(src|href)\\s*=\\s*[^\"\\s]"))));
}

// Every worker has its row (rank, restart, world, host, ..., clock method), and the verdict and
// the culprits table name the rank `syncline diagnose` names first.
void TstReportCommand::jobAndCulprit()
{
    const Run d = syncline({"diagnose", "-q", "--json", m_job});
    QCOMPARE(d.exitCode, 0);
    const auto j = nlohmann::json::parse(d.out);
    QVERIFY(!j["culprits"].empty());
    const int top = j["culprits"][0]["rank"].get<int>();
    QCOMPARE(top, kSlowRank);
    for (int rank = 0; rank < 8; ++rank) {
        const std::string row = "<tr><td>" + std::to_string(rank) + "</td><td>0</td><td>8</td><td>node-0" +
                                std::to_string(rank / 4) + "</td>";
        QVERIFY2(m_page.find(row) != std::string::npos, row.c_str());
    }
    QVERIFY(m_page.find("<b>8</b><span>workers</span>") != std::string::npos);
    QVERIFY(m_page.find("<b>2</b><span>hosts</span>") != std::string::npos);
    QVERIFY(m_page.find("<td>sync</td>") != std::string::npos); // the clock method
    QVERIFY(m_page.find("Rank <b>" + std::to_string(top) + "</b> holds the job back") !=
            std::string::npos);
    QVERIFY(m_page.find("<tr class=\"bad\"><td>" + std::to_string(top) + "</td>") !=
            std::string::npos);
    // The steps and the stats table: the step name and its count over all ranks.
    const int steps = j["steps"]["count"].get<int>();
    QVERIFY(m_page.find("<b>step</b> × " + std::to_string(steps)) != std::string::npos);
    QVERIFY(m_page.find("<tr><td>step</td><td>" + std::to_string(steps * 8) + "</td>") !=
            std::string::npos);
    QVERIFY(m_page.find("None: every file loaded cleanly.") != std::string::npos);
}

void TstReportCommand::picture()
{
    const std::string key = "src=\"data:image/png;base64,";
    const size_t at = m_page.find(key);
    QVERIFY(at != std::string::npos);
    const size_t end = m_page.find('"', at + key.size());
    const QByteArray b64 = QByteArray::fromStdString(m_page.substr(at + key.size(), end - at - key.size()));
    const QByteArray png = QByteArray::fromBase64(b64, QByteArray::AbortOnBase64DecodingErrors);
    QVERIFY(!png.isEmpty());
    const QImage img = QImage::fromData(png, "PNG");
    QCOMPARE(img.width(), 1200);
    QVERIFY(img.height() >= 240 && img.height() <= 900);
    QVERIFY(m_page.find("<figcaption>the whole job</figcaption>") != std::string::npos);
    QVERIFY(m_page.find("<figcaption>5 steps up close: step ") != std::string::npos);
}

// A log whose event name, host and a bad line carry markup: the page shows them as text.
void TstReportCommand::escapesLogText()
{
    const QString dir = m_dir.filePath(QStringLiteral("evil"));
    QDir().mkpath(dir);
    const std::string host = R"(h\"><img src=x onerror=alert(1)>)";
    std::string log =
        R"({"t":"header","format":"syncline","version":1,"rank":0,"restart":0,"host":")" + host +
        R"(","boot_id":"b","pid":7,"clock":"monotonic_raw","anchor":{"mono_ns":0,"wall_ns":1700000000000000000,"spread_ns":1},"config":null,"start_ns":0})"
        "\n";
    log += R"({"t":"B","ts":1000,"tid":1,"name":"<script>alert('x')</script> & co"})"
           "\n";
    log += R"({"t":"E","ts":5000,"tid":1,"name":"<script>alert('x')</script> & co"})"
           "\n";
    log += "<b>not json</b>\n";
    write(dir + QStringLiteral("/timer_events.0.log"), log);
    const QString html = m_dir.filePath(QStringLiteral("evil.html"));
    const Run r = syncline({"report", "-q", dir, "--html", html});
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    const std::string page = slurp(html);
    QVERIFY(page.find("<script") == std::string::npos);
    QVERIFY(page.find("<img src=x") == std::string::npos);
    QVERIFY(page.find("<b>not json") == std::string::npos);
    QVERIFY(page.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; co") != std::string::npos);
    QVERIFY(page.find("h&quot;&gt;&lt;img src=x onerror=alert(1)&gt;") != std::string::npos);
    QVERIFY(page.find("timer_events.0.log:4") != std::string::npos); // the bad line's problem
}

void TstReportCommand::usageErrors()
{
    Run r = syncline({"report", m_job});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.find("--html") != std::string::npos);
    r = syncline({"report", m_job, "--html", m_dir.filePath(QStringLiteral("x.html")), "--width", "5"});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.err.find("--width") != std::string::npos);
    r = syncline({"report", m_dir.filePath(QStringLiteral("nope")), "--html",
                  m_dir.filePath(QStringLiteral("y.html"))});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(!QFileInfo::exists(m_dir.filePath(QStringLiteral("y.html"))));
}

// A real browser: Chromium, headless, parses the page (its DOM has the verdict and the
// picture) and renders it to a PNG of the window's size.
void TstReportCommand::opensInChromium()
{
    QString chromium;
    for (const char *name : {"chromium", "chromium-browser", "google-chrome"})
        if (chromium.isEmpty())
            chromium = QStandardPaths::findExecutable(QString::fromLatin1(name));
    if (chromium.isEmpty())
        QSKIP("no chromium installed (Debian: apt-get install chromium; scripts/setup.sh does)");
    const QString profile = m_dir.filePath(QStringLiteral("chromium-profile"));
    const QStringList common = {"--headless",        "--no-sandbox", "--disable-gpu",
                                "--hide-scrollbars", "--no-first-run",
                                "--user-data-dir=" + profile};
    const QString url = QStringLiteral("file://") + m_html;
    QProcess dom;
    dom.start(chromium, common + QStringList{"--dump-dom", url});
    QVERIFY(dom.waitForFinished(120000));
    const QString tree = QString::fromUtf8(dom.readAllStandardOutput());
    QVERIFY2(tree.contains(QStringLiteral("holds the job back")), qPrintable(tree.left(300)));
    QVERIFY(tree.contains(QStringLiteral("<img class=\"timeline\"")));
    const QString shot = m_dir.filePath(QStringLiteral("shot.png"));
    QProcess p;
    p.start(chromium, common + QStringList{"--window-size=1280,1600", "--screenshot=" + shot, url});
    QVERIFY(p.waitForFinished(120000));
    const QImage img(shot);
    QCOMPARE(img.size(), QSize(1280, 1600));
    // Not a blank page: the picture and the tables put many colours on it.
    QSet<QRgb> colours;
    for (int y = 0; y < img.height(); y += 7)
        for (int x = 0; x < img.width(); x += 7)
            colours.insert(img.pixel(x, y));
    QVERIFY2(colours.size() > 50, qPrintable(QString::number(colours.size())));
}

QTEST_GUILESS_MAIN(TstReportCommand)
#include "tst_reportcommand.moc"

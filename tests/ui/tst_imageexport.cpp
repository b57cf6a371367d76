// Tests exportImage (the `syncline export --png/--svg` renderer): size, fonts, text pixels,
// SVG output, ranges and errors. QTEST_APPLESS_MAIN on purpose: exportImage must create its
// own QGuiApplication like the CLI does.
#include "testjob.h"

#include "ui/imageexport.h"
#include "ui/timelinepainter.h"
#include "ui/viewstyle.h"

#include <QFile>
#include <QFontMetrics>
#include <QGuiApplication>
#include <QImage>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

using namespace syncline;
using namespace syncline::ui;

class TstImageExport : public QObject
{
    Q_OBJECT
private slots:
    void noRuntimeDirWarning(); // first: before exportImage creates the QGuiApplication
    void pngHasRequestedSizeAndText();
    void svgAndRange();
    void errors();

private:
    QTemporaryDir m_dir;
};

namespace {

// Pixels in `r` whose colour differs clearly from `background`.
int differing(const QImage &img, const QRect &r, QColor background)
{
    int n = 0;
    for (int y = r.top(); y <= r.bottom(); ++y) {
        for (int x = r.left(); x <= r.right(); ++x) {
            const QColor c = img.pixelColor(x, y);
            if (std::abs(c.red() - background.red()) + std::abs(c.green() - background.green()) +
                    std::abs(c.blue() - background.blue()) >
                60)
                ++n;
        }
    }
    return n;
}

} // namespace

namespace {
QStringList g_messages;
void collect(QtMsgType, const QMessageLogContext &, const QString &msg)
{
    g_messages << msg;
}
} // namespace

// The headless CLI (export --png, attach --png) runs where XDG_RUNTIME_DIR is often unset; Qt
// would print "QStandardPaths: XDG_RUNTIME_DIR not set" — exportImage points it to a private
// directory first.
void TstImageExport::noRuntimeDirWarning()
{
    QVERIFY(!QCoreApplication::instance());
    qunsetenv("XDG_RUNTIME_DIR");
    QVERIFY(m_dir.isValid());
    qputenv("TMPDIR", m_dir.path().toUtf8()); // where the private directory is made
    g_messages.clear();
    const QtMessageHandler old = qInstallMessageHandler(collect);
    auto job = testjob::makeSmallJob();
    ImageExportRequest req;
    req.pngPath = m_dir.filePath(QStringLiteral("first.png")).toStdString();
    std::string error;
    const bool ok = exportImage(*job, req, &error);
    QStandardPaths::writableLocation(QStandardPaths::RuntimeLocation); // what warned
    qInstallMessageHandler(old);
    qunsetenv("TMPDIR");
    QVERIFY2(ok, error.c_str());
    for (const QString &m : g_messages)
        QVERIFY2(!m.contains(QStringLiteral("XDG_RUNTIME_DIR")), qPrintable(m));
    const QByteArray dir = qgetenv("XDG_RUNTIME_DIR");
    QCOMPARE(QString::fromUtf8(dir),
             m_dir.filePath(QStringLiteral("syncline-runtime-%1").arg(::getuid())));
    struct stat st;
    QCOMPARE(::lstat(dir.constData(), &st), 0);
    QCOMPARE(int(st.st_mode & 0777), 0700);
    QCOMPARE(st.st_uid, ::getuid());
    QCOMPARE(ensureRuntimeDir(), dir.toStdString()); // set: left alone
}

void TstImageExport::pngHasRequestedSizeAndText()
{
    QVERIFY(m_dir.isValid());
    auto job = testjob::makeSmallJob();
    ImageExportRequest req;
    req.pngPath = m_dir.filePath(QStringLiteral("job.png")).toStdString();
    req.width = 1200;
    req.height = 500;
    std::string error;
    QVERIFY2(exportImage(*job, req, &error), error.c_str());
    QVERIFY(qobject_cast<QGuiApplication *>(QCoreApplication::instance()));
    QVERIFY2(QFontMetrics(QFont()).inFontUcs4('H'), "no usable font: text would be empty boxes");
    const QImage img(QString::fromStdString(req.pngPath));
    QCOMPARE(img.size(), QSize(1200, 500));
    const ViewStyle style = ViewStyle::light();
    // Layout as exportImage draws it: ruler 26 px, gutter 20 % of the width = 240 px.
    const int gutter = 240, ruler = 26;
    // The first group header's label ("▾ rank 0 · host-a · restart 0") in the gutter.
    const int labelInk = differing(img, QRect(6, ruler + 4, gutter - 20, 14), style.headerBand);
    QVERIFY2(labelInk > 40, qPrintable(QStringLiteral("gutter label ink: %1 px").arg(labelInk)));
    // Ruler tick labels.
    const int rulerInk = differing(img, QRect(gutter + 4, 3, 900, 12), style.ruler);
    QVERIFY2(rulerInk > 40, qPrintable(QStringLiteral("ruler ink: %1 px").arg(rulerInk)));
    // The "step" event of worker 0 spans most of its first depth row and carries its label:
    // its row is y = 26 + 22 + 1 .. +16; x from 240 + (1000-500)/19500·960 ≈ 265.
    const QColor stepFill = img.pixelColor(gutter + 300, ruler + 22 + 3);
    const int stepInk = differing(img, QRect(gutter + 30, ruler + 22 + 3, 60, 12), stepFill);
    QVERIFY2(stepInk > 15, qPrintable(QStringLiteral("event label ink: %1 px").arg(stepInk)));
}

void TstImageExport::svgAndRange()
{
    auto job = testjob::makeSmallJob();
    ImageExportRequest req;
    req.svgPath = m_dir.filePath(QStringLiteral("job.svg")).toStdString();
    req.pngPath = m_dir.filePath(QStringLiteral("range.png")).toStdString();
    req.width = 800;
    req.height = 400;
    req.rangeStartNs = 1000;
    req.rangeEndNs = 3000;
    req.mode = ClockMode::Raw;
    std::string error;
    QVERIFY2(exportImage(*job, req, &error), error.c_str());
    QFile svg(QString::fromStdString(req.svgPath));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    const QByteArray text = svg.readAll();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains("matmul")); // labels are real text in the SVG
    QVERIFY(text.contains("rank 1"));
    QCOMPARE(QImage(QString::fromStdString(req.pngPath)).size(), QSize(800, 400));
}

void TstImageExport::errors()
{
    auto job = testjob::makeSmallJob();
    ImageExportRequest req;
    std::string error;
    QVERIFY(!exportImage(*job, req, &error));
    QVERIFY(error.find("no output") != std::string::npos);
    req.pngPath = "/nonexistent-dir/x.png";
    QVERIFY(!exportImage(*job, req, &error));
    QVERIFY2(error.find("/nonexistent-dir/x.png") != std::string::npos, error.c_str());
    req.pngPath = m_dir.filePath(QStringLiteral("bad.png")).toStdString();
    req.rangeStartNs = 5000;
    req.rangeEndNs = 5000;
    QVERIFY(!exportImage(*job, req, &error));
    QVERIFY(error.find("empty time range") != std::string::npos);
    req.rangeEndNs.reset();
    QVERIFY(!exportImage(*job, req, &error));
    req.rangeStartNs.reset();
    req.width = 10;
    QVERIFY(!exportImage(*job, req, &error));
    QVERIFY(error.find("size") != std::string::npos);
}

QTEST_APPLESS_MAIN(TstImageExport)
#include "tst_imageexport.moc"

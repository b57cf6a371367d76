#include "timeformat.h"

#include <QDateTime>

#include <cmath>
#include <cstdlib>

namespace syncline::ui {

namespace {

struct Unit
{
    double scale;
    const char *name;
};

Unit unitFor(int64_t magnitudeNs)
{
    if (magnitudeNs < 1000)
        return {1.0, "ns"};
    if (magnitudeNs < 1000000)
        return {1e3, "µs"};
    if (magnitudeNs < 1000000000)
        return {1e6, "ms"};
    return {1e9, "s"};
}

} // namespace

QString formatDuration(int64_t ns, int digits)
{
    const int64_t mag = std::llabs(ns);
    if (mag >= 3600LL * 1000000000LL) {
        const int64_t hours = mag / 3600000000000LL;
        const int64_t minutes = (mag % 3600000000000LL) / 60000000000LL;
        const QString sign = ns < 0 ? QStringLiteral("-") : QString();
        if (hours >= 48)
            return QStringLiteral("%1%2 d %3 h").arg(sign).arg(hours / 24).arg(hours % 24);
        return QStringLiteral("%1%2 h %3 min")
            .arg(sign)
            .arg(hours)
            .arg(minutes, 2, 10, QLatin1Char('0'));
    }
    if (mag >= 100LL * 1000000000LL) {
        const int64_t minutes = mag / 60000000000LL;
        const double seconds = double(mag % 60000000000LL) / 1e9;
        return QStringLiteral("%1%2 min %3 s")
            .arg(ns < 0 ? QStringLiteral("-") : QString())
            .arg(minutes)
            .arg(seconds, 4, 'f', 1, QLatin1Char('0'));
    }
    const Unit u = unitFor(mag);
    if (u.scale == 1.0)
        return QStringLiteral("%1 ns").arg(ns);
    const double v = double(ns) / u.scale;
    const double av = std::fabs(v);
    const int intDigits = av >= 100 ? 3 : av >= 10 ? 2 : 1;
    const int decimals = std::max(0, digits - intDigits);
    return QStringLiteral("%1 %2").arg(v, 0, 'f', decimals).arg(QString::fromUtf8(u.name));
}

QString formatTick(int64_t ns, int64_t stepNs)
{
    const Unit u = unitFor(std::max<int64_t>(std::llabs(ns), stepNs));
    // Decimals needed so that one step is visible in the label's unit.
    int decimals = 0;
    double stepInUnit = double(stepNs) / u.scale;
    while (stepInUnit < 0.999 && decimals < 9) {
        stepInUnit *= 10;
        ++decimals;
    }
    if (u.scale == 1.0)
        return QStringLiteral("%1 ns").arg(ns);
    return QStringLiteral("%1 %2")
        .arg(double(ns) / u.scale, 0, 'f', decimals)
        .arg(QString::fromUtf8(u.name));
}

QString formatWallClock(int64_t wallNs, int64_t stepNs)
{
    const int64_t ms = wallNs / 1000000;
    const QDateTime dt = QDateTime::fromMSecsSinceEpoch(ms);
    QString text = dt.toString(QStringLiteral("HH:mm:ss.zzz"));
    if (stepNs < 1000000) {
        const int64_t subMs = ((wallNs % 1000000) + 1000000) % 1000000;
        const int extra = stepNs < 1000 ? 6 : 3;
        QString frac = QStringLiteral("%1").arg(subMs, 6, 10, QLatin1Char('0'));
        text += frac.left(extra);
    }
    return text;
}

int64_t niceStep(double minStepNs)
{
    if (!(minStepNs > 1.0))
        return 1;
    double base = std::pow(10.0, std::floor(std::log10(minStepNs)));
    for (;;) {
        for (double m : {1.0, 2.0, 5.0}) {
            if (base * m >= minStepNs - 1e-9)
                return int64_t(std::llround(base * m));
        }
        base *= 10.0;
    }
}

} // namespace syncline::ui

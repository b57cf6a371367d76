// RankBarChart — one event name's duration per rank as vertical bars (mean duration per rank),
// stragglers in red: ranks beyond median + 3·MAD (median absolute deviation) of the per-rank
// values, with the threshold drawn as a dashed line.
// Example: per-rank means {10, 11, 10, 12, 30} ms → median 11, MAD 1 → threshold 14 → rank 4.
// Threading: GUI thread only; stragglers() is a pure function.
#pragma once

#include <QString>
#include <QWidget>

#include <cstdint>
#include <vector>

namespace syncline::ui {

class RankBarChart : public QWidget
{
    Q_OBJECT
public:
    struct Bar
    {
        int rank = 0;
        int64_t valueNs = 0;
    };

    explicit RankBarChart(QWidget *parent = nullptr);
    void setData(const QString &title, std::vector<Bar> bars);
    const std::vector<bool> &stragglerFlags() const { return m_flags; }
    int64_t thresholdNs() const { return m_threshold; }

    // Flags values > median + 3·MAD (none when MAD is 0 and all equal); *threshold gets the
    // limit (the lower median is used for even counts, all in int64 ns).
    static std::vector<bool> stragglers(const std::vector<int64_t> &values, int64_t *threshold);
    QSize sizeHint() const override { return QSize(400, 160); }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QString m_title;
    std::vector<Bar> m_bars;
    std::vector<bool> m_flags;
    int64_t m_threshold = 0;
};

} // namespace syncline::ui

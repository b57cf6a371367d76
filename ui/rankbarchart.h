// RankBarChart — one event name's duration per rank as vertical bars (mean duration per rank),
// stragglers in red by syncline's one straggler rule, RankOutliers (timeline/report/
// rankoutliers.h: ranks whose mean is beyond median + max(3·MAD, 50 µs, 10 % of the median) of
// the per-rank means — `syncline stats` prints the same), with the threshold drawn as a dashed
// line. The title names the rule.
// Threading: GUI thread only.
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
    const std::vector<Bar> &bars() const { return m_bars; }
    QString title() const { return m_title; }
    int64_t thresholdNs() const { return m_threshold; }

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

// RankBarChart — one event name per rank as vertical bars, in one of two rules:
//  - compute (setData): each rank's MEAN duration of the name, stragglers in red by syncline's
//    straggler rule, RankOutliers (timeline/report/rankoutliers.h: ranks whose mean is beyond
//    median + max(3·MAD, 50 µs, 10 % of the median) of the per-rank means — `syncline stats`
//    prints the same), the threshold drawn as a dashed line;
//  - wait (setBlame, for collectives, RankOutliers::isWait): each rank's BLAME from the
//    diagnosis (Diagnoser: the wait it caused by arriving last), culprits in red. The ranks with
//    the longest waits are the ones that waited for the culprit: a mean would paint them red.
// The title names the rule.
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
    // Blame per rank (ns) with the diagnosis's culprits flagged (same order as bars).
    void setBlame(const QString &title, std::vector<Bar> bars, std::vector<bool> culprits);
    bool showsBlame() const { return m_blame; }
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
    bool m_blame = false;
};

} // namespace syncline::ui

// HistogramChart — one name's duration histogram (DurationHistogram: log-scale bins, per rank):
// a bar per bin for all ranks on top, and below it one strip per rank whose cells are shaded by
// that rank's count in the bin (a heat map: a rank whose durations sit in other bins than the
// others' stands out). Clicking a bar selects that bin over all ranks, clicking a cell the bin on
// that rank: binClicked(low, high, rank or -1) — the Statistics panel turns it into find marks.
// Threading: GUI thread only.
#pragma once

#include "timeline/report/stats.h"

#include <QRectF>
#include <QString>
#include <QWidget>

namespace syncline::ui {

class HistogramChart : public QWidget
{
    Q_OBJECT
public:
    explicit HistogramChart(QWidget *parent = nullptr);
    void setHistogram(const QString &title, DurationHistogram histogram);
    const DurationHistogram &histogram() const { return m_h; }
    // Where bin b's bar (rankPos < 0) or rank strip cell is drawn (widget px), for tests.
    QRectF cellRect(int bin, int rankPos) const;
    QSize sizeHint() const override { return QSize(400, 200); }

signals:
    void binClicked(qint64 lowNs, qint64 highNs, int rank); // rank -1: all ranks

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;

private:
    QRectF plotRect() const;
    double stripHeight() const;
    QString m_title;
    DurationHistogram m_h;
    int m_selectedBin = -1;
    int m_selectedRank = -2; // -2 none, -1 all
};

} // namespace syncline::ui

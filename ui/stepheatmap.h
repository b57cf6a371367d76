// StepHeatMap — ranks × steps: one row per worker (label "rank · restart"), one column per step,
// each cell coloured by one of:
//  - Compute (the default): the worker's compute in the step — its own duration minus its wait
//    in collectives — relative to the step's median compute over the workers;
//  - Duration: its own duration of the step relative to the step's median duration;
//  - Wait: its wait inside the step relative to the step's median duration.
// Compute is the default because a step that ends in a collective lasts as long on every rank
// as on the slowest: durations are alike, and only compute tells the slow rank (one hot row);
// Wait shows the others, who waited for it. Hover tells the cell; a click zooms the timeline to
// the step and reveals the worker (cellActivated).
//
// Binning (binHeatMap, a plain function tested without a widget): the image has
// min(steps, plot px wide) columns and min(workers, plot px tall) rows; step k goes to column
// ⌊k·cols/steps⌋ and the worker in display row r to row ⌊r·rows/workers⌋; a bin keeps the MAX of
// its cells' relative values (a slow rank is never averaged away with its neighbours), NaN when
// none of its cells exists. Example: 1,024 workers on 256 px → 4 a pixel row; rank 37's row bin
// (36..39) shows 1.3 when rank 37 takes 1.3 × the median and the others 1.0.
// The image is built when the diagnosis, the mode or the plot size changes — never per paint —
// in O(steps × workers); paintEvent draws it scaled to the plot (up only, never down). While
// the widget is being resized the previous image is drawn stretched and the new one is built
// once the size has rested for kRebuildDelayMs.
// Colour: relative value v (1 = the median) → white within 5 % of the median (noise of a few
// per cent, made worse by taking a bin's max, stays white), then red up to 1.25 and beyond, blue
// down to 0.75; Wait: white at 0, purple towards 0.5 of the median step. A rank 20 % slower
// than the others is deep red. Left of the map, a row summary: each row's mean over its
// columns, in the same colours — steadier than any one step, so a slow rank's row reads at a
// glance.
// Threading: GUI thread only (binHeatMap is pure).
#pragma once

#include "stepseries.h"

#include <QImage>
#include <QString>
#include <QTimer>
#include <QWidget>

#include <memory>
#include <vector>

class QComboBox;

namespace syncline::ui {

enum class HeatMode
{
    Compute,
    Duration,
    Wait
};

struct HeatBins
{
    int cols = 0, rows = 0;
    std::vector<float> values;   // [row][col], max of the bin's relative values; NaN: empty
    std::vector<float> rowMeans; // per row, the mean of its non-empty bins (NaN: none)
    float at(int row, int col) const { return values[size_t(row) * size_t(cols) + size_t(col)]; }
};

// The relative value of one cell (NaN when the worker has no such step or the median is 0).
float heatValue(const Diagnosis &d, const StepSeries &s, HeatMode mode, size_t step, size_t worker);
// rowWorkers: the workers in display order (one row each).
HeatBins binHeatMap(const Diagnosis &d, const StepSeries &s, HeatMode mode,
                    const std::vector<size_t> &rowWorkers, int maxCols, int maxRows);
QRgb heatColour(float value, HeatMode mode);
constexpr float kHeatDeadBand = 0.05f;  // within 5 % of the median: white
constexpr float kHeatFullScale = 0.25f; // 25 % from the median: the full colour

class StepHeatMap : public QWidget
{
    Q_OBJECT
public:
    static constexpr int kRebuildDelayMs = 120;
    static constexpr int kSummaryPx = 10; // the row summary's width

    explicit StepHeatMap(QWidget *parent = nullptr);
    // labels: per worker (Diagnosis worker index) its row label; culprit: per worker, whether
    // its rank is a culprit (its label is drawn in red).
    void setDiagnosis(std::shared_ptr<const Diagnosis> diagnosis,
                      std::shared_ptr<const StepSeries> series, std::vector<QString> labels,
                      std::vector<uint8_t> culprit);
    void setMode(HeatMode mode);
    HeatMode mode() const { return m_mode; }
    void setLeftMargin(int px); // label column, so the columns line up with the step graph's
    QRectF plotRect() const;
    // The bins on screen (built for the current size and mode).
    const HeatBins &bins();
    // The display row (worker) of the hottest bin row: the row that stands out. -1 when none.
    int hottestWorker();
    // The cell under pos (plot px): step and worker of the hottest cell in that bin.
    bool cellAt(QPointF pos, size_t *step, size_t *worker);
    QString tooltipAt(QPointF pos);
    QSize sizeHint() const override { return QSize(800, 220); }

signals:
    void cellActivated(int step, int worker);

protected:
    void paintEvent(QPaintEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    bool event(QEvent *event) override;

private:
    void rebuild();

    std::shared_ptr<const Diagnosis> m_diagnosis;
    std::shared_ptr<const StepSeries> m_series;
    std::vector<QString> m_labels;
    std::vector<uint8_t> m_culprit;
    std::vector<size_t> m_rowWorkers;
    HeatMode m_mode = HeatMode::Compute;
    HeatBins m_bins;
    QImage m_image;
    QSize m_builtFor;
    bool m_valid = false;
    int m_leftMargin = 120;
    QTimer m_rebuildTimer;
};

} // namespace syncline::ui

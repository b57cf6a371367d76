// DetailsPanel — the selected event: its fields, the clock correction, its parent chain and its
// children; parents and children are links that select that event.
// Threading: GUI thread only.
#pragma once

#include "timelinescene.h"

#include <QTextBrowser>

namespace syncline::ui {

class DetailsPanel : public QTextBrowser
{
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget *parent = nullptr);
    void showEvent(const TimelineScene *scene, const EventRef &ref);

signals:
    void eventActivated(syncline::ui::EventRef ref);
};

} // namespace syncline::ui

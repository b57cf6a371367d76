// DetailsPanel — the selected event: its fields, the clock correction, its parent chain and its
// children; parents and children are links that select that event. Below them its links
// (messages and flows in and out: clicking one jumps to its other end) and, for a collective
// instance, the spread of that instance across ranks (LinkText).
// Threading: GUI thread only.
#pragma once

#include "collectivespread.h"
#include "timelinescene.h"

#include <QTextBrowser>

#include <optional>

namespace syncline::ui {

class DetailsPanel : public QTextBrowser
{
    Q_OBJECT
public:
    explicit DetailsPanel(QWidget *parent = nullptr);
    void showEvent(const TimelineScene *scene, const EventRef &ref,
                   const std::optional<CollectiveSpread> &spread = std::nullopt);

signals:
    void eventActivated(syncline::ui::EventRef ref);
    // A link's other end where no event is: its track (model) and global time.
    void pointActivated(int model, qint64 globalNs);

private:
    void activateLink(size_t link, bool toEnd);
    const TimelineScene *m_scene = nullptr;
};

} // namespace syncline::ui

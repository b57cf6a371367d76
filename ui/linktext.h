// LinkText — the Details panel's sections about an event's links and its collective instance:
// the links leaving and arriving at it (LinkPainter::linksOf), each an anchor
// "link:<index>:<from|to>" that jumps to the other end, and, for a collective instance
// (CollectiveSpread), its spread and every rank's instance as "event:<model>:<index>" anchors.
// Threading: pure functions over const data; GUI thread.
#pragma once

#include "collectivespread.h"
#include "timelinescene.h"

#include <QString>

#include <optional>

namespace syncline::ui {

QString linkDetailsHtml(const TimelineScene &scene, const EventRef &ref, int maxLinks = 50);
QString spreadHtml(const TimelineScene &scene, const CollectiveSpread &spread);

} // namespace syncline::ui

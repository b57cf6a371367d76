// EventText — human-readable text about one event for the hover tooltip and the details panel
// (name, worker, thread, start relative to the display origin, duration, depth, args, the clock
// correction applied and its bound). Rich text (HTML) with escaping of every user string.
// Threading: pure functions over const data; GUI thread in practice.
#pragma once

#include "timelinescene.h"

#include <QString>

namespace syncline::ui {

QString eventTooltipHtml(const TimelineScene &scene, const EventRef &ref);
// Details + parent chain + children as HTML with links "event:<model>:<index>".
QString eventDetailsHtml(const TimelineScene &scene, const EventRef &ref, int maxChildren = 200);
QString flagsText(uint16_t flags);
QString clockText(const EventDetails &d); // "−500 ns applied (±2.1 µs bound, band 300 ns)"

} // namespace syncline::ui

#include "shortcuts.h"

#include <QObject>

namespace syncline::ui {

std::vector<std::pair<QString, QString>> shortcutList()
{
    return {
        {QStringLiteral("Mouse wheel, Ctrl+wheel"), QObject::tr("Zoom in/out at the mouse cursor (gliding)")},
        {QStringLiteral("Horizontal wheel / touchpad swipe"), QObject::tr("Pan in time")},
        {QStringLiteral("Shift+wheel, wheel over labels"),
         QObject::tr("Scroll workers vertically")},
        {QStringLiteral("View ▸ Wheel scrolls, Ctrl+wheel zooms"),
         QObject::tr("Perfetto's wheel: the wheel scrolls, Shift+wheel pans, Ctrl+wheel zooms")},
        {QStringLiteral("Drag"), QObject::tr("Pan in time and scroll vertically")},
        {QStringLiteral("W / S"),
         QObject::tr("Zoom in / out at the cursor, else the centre (held: faster and faster "
                     "until released)")},
        {QStringLiteral("A / D"), QObject::tr("Pan left / right (held: accelerating)")},
        {QStringLiteral("F, Home"), QObject::tr("Fit the whole job")},
        {QStringLiteral("Click"), QObject::tr("Select an event (details panel)")},
        {QStringLiteral("Double-click"), QObject::tr("Zoom to the event")},
        {QStringLiteral("Drag on the ruler"),
         QObject::tr("Measure: select a time range (its length and the events begun in it; "
                     "Statistics switches to it)")},
        {QStringLiteral("Shift+drag in the timeline"),
         QObject::tr("Box-select tracks × a time range (Statistics: Box selection)")},
        {QStringLiteral("Esc"), QObject::tr("Clear the range, box and event selection")},
        {QStringLiteral("W/S/A/D, F, Home, Esc, End in a dock"),
         QObject::tr("The same, except while typing in a text box")},
        {QStringLiteral("Click a group header"), QObject::tr("Collapse / expand that worker")},
        {QStringLiteral("Right-click a header, thread label or event"),
         QObject::tr("Pin a worker or one thread to the top, hide, show only this worker, zoom "
                     "to, find all, show in statistics, copy name / args / time; the hidden "
                     "ones, restorable")},
        {QStringLiteral("Click/drag the overview"), QObject::tr("Move the view there")},
        {QStringLiteral("Drag the label column's edge"), QObject::tr("Resize the label column")},
        {QStringLiteral("Double-click a Problems entry"),
         QObject::tr("Jump to the event (or worker) it is about")},
        {QStringLiteral("Ctrl+F"),
         QObject::tr("Find events: names, or a query — name: cat: host: thread: rank: restart: "
                     "(rank:2-5, rank>3), dur>1ms, args.KEY=V, /regex/, -term")},
        {QStringLiteral("Enter / Shift+Enter"),
         QObject::tr("Next / previous match in time order (3 / 958), zoomed in until it is "
                     "drawn on its own")},
        {QStringLiteral("Ctrl+O"), QObject::tr("Open files (logs, config, Chrome traces)")},
        {QStringLiteral("Ctrl+Shift+O"), QObject::tr("Open a job directory")},
        {QStringLiteral("Ctrl+E"), QObject::tr("Export an image (PNG/SVG) of the visible range")},
        {QStringLiteral("Ctrl+R"), QObject::tr("Toggle raw / corrected clocks")},
        {QStringLiteral("Ctrl+T"), QObject::tr("Toggle wall-clock time on the ruler")},
        {QStringLiteral("Ctrl+L"),
         QObject::tr("Toggle the message and flow arrows (View ▸ Links)")},
        {QStringLiteral("End"), QObject::tr("Attached to a running job: follow mode again")},
        {QStringLiteral("Ctrl+Q"), QObject::tr("Quit")},
        {QStringLiteral("F1"), QObject::tr("This list")},
    };
}

QString shortcutsHtml()
{
    QString html = QStringLiteral("<table cellspacing='4'>");
    for (const auto &[keys, what] : shortcutList())
        html += QStringLiteral("<tr><td><b>%1</b></td><td>%2</td></tr>")
                    .arg(keys.toHtmlEscaped(), what.toHtmlEscaped());
    return html + QStringLiteral("</table>");
}

} // namespace syncline::ui

// ViewStyle — colours and fonts of the timeline drawing for a light or a dark palette.
// Plain value type; build it on the GUI thread (fonts need a QGuiApplication).
#pragma once

#include <QColor>
#include <QFont>
#include <QPalette>

namespace syncline::ui {

struct ViewStyle
{
    bool dark = false;
    QColor background;
    QColor rowBand;    // alternate thread band
    QColor headerBand; // group header row
    QColor gutter;
    QColor text;
    QColor mutedText;
    QColor grid;
    QColor ruler;
    QColor fold;
    QColor selection;
    QColor match; // find matches marked where they are folded (view and overview)
    QColor wait;  // the wait share drawn inside folds (TimelineGeometry::waitRects)
    QColor selectionRange;
    QColor cursor;
    QColor overdue;
    QColor separator;
    QFont font;
    QFont smallFont;
    QFont boldFont;
    QFont eventFont; // labels inside event rows (smallFont unless rows are fitted below it)
    QFont trackFont; // thread names in the gutter (font unless rows are fitted below it)

    static ViewStyle light();
    static ViewStyle darkStyle();
    static QPalette darkPalette(); // the application palette of the dark theme
    static ViewStyle fromPalette(const QPalette &palette); // dark when the window colour is dark
    // This style for rows `rowHeight` px tall: when they are below the text's height (many
    // workers fitted into a short window or image), eventFont and trackFont get a smaller pixel
    // size, down to 7 px, so labels shrink rather than vanish or get cut through the middle.
    // The one rule for the viewer and the image export.
    ViewStyle fittedToRows(double rowHeight) const;
};

} // namespace syncline::ui

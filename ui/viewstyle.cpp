#include "viewstyle.h"

#include <QFontMetricsF>
#include <QGuiApplication>

#include <algorithm>

namespace syncline::ui {

namespace {

void setFonts(ViewStyle &s)
{
    s.font = QGuiApplication::font();
    s.font.setPointSizeF(9);
    s.smallFont = s.font;
    s.smallFont.setPointSizeF(8);
    s.boldFont = s.font;
    s.boldFont.setBold(true);
    s.eventFont = s.smallFont;
    s.trackFont = s.font;
}

} // namespace

ViewStyle ViewStyle::light()
{
    ViewStyle s;
    s.dark = false;
    s.background = QColor(0xffffff);
    s.rowBand = QColor(0xf6f7f9);
    s.headerBand = QColor(0xe8ebf0);
    s.gutter = QColor(0xf1f3f6);
    s.text = QColor(0x1f2329);
    s.mutedText = QColor(0x6a7280);
    s.grid = QColor(0xe3e6ea);
    s.ruler = QColor(0xf8f9fb);
    s.fold = QColor(0x9aa3ae);
    s.selection = QColor(0x1a73e8);
    s.match = QColor(0xff00ff); // saturated magenta: no palette colour (ColourScheme) is near it
    s.wait = QColor(0x7b1fa2);
    s.selectionRange = QColor(26, 115, 232, 40);
    s.cursor = QColor(0xd93025);
    s.overdue = QColor(0xd50000);
    s.separator = QColor(0xc9ced6);
    setFonts(s);
    return s;
}

ViewStyle ViewStyle::darkStyle()
{
    ViewStyle s;
    s.dark = true;
    s.background = QColor(0x1e1f22);
    s.rowBand = QColor(0x232428);
    s.headerBand = QColor(0x2d2f34);
    s.gutter = QColor(0x26272b);
    s.text = QColor(0xe6e7ea);
    s.mutedText = QColor(0x9aa0a8);
    s.grid = QColor(0x34363b);
    s.ruler = QColor(0x28292d);
    s.fold = QColor(0x6b727c);
    s.selection = QColor(0x8ab4f8);
    s.match = QColor(0xff00ff);
    s.wait = QColor(0xce93d8);
    s.selectionRange = QColor(138, 180, 248, 50);
    s.cursor = QColor(0xff6e6e);
    s.overdue = QColor(0xff5252);
    s.separator = QColor(0x3c3f45);
    setFonts(s);
    return s;
}

ViewStyle ViewStyle::fromPalette(const QPalette &palette)
{
    return palette.color(QPalette::Window).lightness() < 128 ? darkStyle() : light();
}

QPalette ViewStyle::darkPalette()
{
    QPalette p;
    p.setColor(QPalette::Window, QColor(0x2b2d31));
    p.setColor(QPalette::WindowText, QColor(0xe6e7ea));
    p.setColor(QPalette::Base, QColor(0x1e1f22));
    p.setColor(QPalette::AlternateBase, QColor(0x26272b));
    p.setColor(QPalette::Text, QColor(0xe6e7ea));
    p.setColor(QPalette::Button, QColor(0x34363b));
    p.setColor(QPalette::ButtonText, QColor(0xe6e7ea));
    p.setColor(QPalette::Highlight, QColor(0x3d6fd6));
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::ToolTipBase, QColor(0x2b2d31));
    p.setColor(QPalette::ToolTipText, QColor(0xe6e7ea));
    p.setColor(QPalette::Link, QColor(0x8ab4f8));
    p.setColor(QPalette::PlaceholderText, QColor(0x9aa0a8));
    return p;
}

ViewStyle ViewStyle::fittedToRows(double rowHeight) const
{
    ViewStyle s = *this;
    const auto fit = [rowHeight](QFont &f) {
        if (QFontMetricsF(f).height() <= rowHeight)
            return;
        f.setPixelSize(std::max(7, int(rowHeight / 1.25)));
    };
    fit(s.eventFont);
    fit(s.trackFont);
    return s;
}

} // namespace syncline::ui

#include "colourscheme.h"

namespace syncline::ui {

namespace {

// A qualitative palette with even lightness so labels stay readable in black on light and in
// near-white on dark (hues spread around the wheel, moderate saturation, as Perfetto does).
const QRgb kPalette[] = {
    0x4e79a7, 0xf28e2b, 0x59a14f, 0xe15759, 0x76b7b2, 0xedc948, 0xb07aa1, 0xff9da7,
    0x9c755f, 0x8cd17d, 0x499894, 0xf1ce63, 0x86bcb6, 0xd37295, 0xa0cbe8, 0xffbe7d,
    0xbab0ac, 0x79706e, 0xd4a6c8, 0x6b9ac4,
};
constexpr int kPaletteSize = int(sizeof(kPalette) / sizeof(kPalette[0]));

} // namespace

int ColourScheme::paletteSize()
{
    return kPaletteSize;
}

int ColourScheme::hashIndex(std::string_view name)
{
    uint32_t h = 2166136261u;
    for (unsigned char c : name) {
        h ^= c;
        h *= 16777619u;
    }
    return int(h % uint32_t(kPaletteSize));
}

void ColourScheme::assign(const std::vector<std::string_view> &names)
{
    m_index.resize(names.size());
    for (size_t i = 0; i < names.size(); ++i) {
        int idx = hashIndex(names[i]);
        const QString name = QString::fromUtf8(names[i].data(), qsizetype(names[i].size()));
        for (const auto &cat : m_categories) {
            if (name.startsWith(cat.first)) {
                idx = cat.second;
                break;
            }
        }
        m_index[i] = idx;
    }
}

void ColourScheme::setCategory(const QString &prefix, int index)
{
    m_categories.emplace_back(prefix, ((index % kPaletteSize) + kPaletteSize) % kPaletteSize);
}

QColor ColourScheme::colour(int index, bool dark) const
{
    QColor c = QColor::fromRgb(kPalette[((index % kPaletteSize) + kPaletteSize) % kPaletteSize]);
    return dark ? c.darker(125) : c;
}

} // namespace syncline::ui

#include "colourscheme.h"

#include <algorithm>
#include <string>

namespace syncline::ui {

namespace {

// A qualitative palette with even lightness so labels stay readable in black on light and in
// near-white on dark (hues spread around the wheel, moderate saturation, as Perfetto does).
const QRgb kPalette[] = {
    0x4e79a7, 0xf28e2b, 0xe15759, 0x59a14f, 0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f,
    0x76b7b2, 0x8cd17d, 0xd37295, 0xa0cbe8, 0xffbe7d, 0xbab0ac, 0x7f6fd0, 0x3fa7d6,
    0xc9753d, 0x5c8a3a, 0x17becf, 0xbcbd22, 0xe377c2, 0x6b4c9a, 0xa6761d, 0x1b9e77,
    0x666f7a, 0xb2df8a, 0xcab2d6, 0x8dd3c7, 0xf4a582, 0x92c5de,
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

void ColourScheme::assign(const std::vector<std::string_view> &names,
                          const std::vector<NameKind> &kinds, const std::vector<int64_t> &weights)
{
    // Names in byte order each take their hash slot, or the next free one while free slots
    // remain: a job's few names get distinct colours, and the same set of names always gets the
    // same colours (load order does not matter). Category prefixes win over both.
    m_index.clear();
    m_categoryOf.clear();
    m_custom.clear();
    m_categorySlot.clear();
    extend(names, kinds, weights);
}

int ColourScheme::customIndex(uint32_t rgb)
{
    const QRgb c = 0xff000000u | rgb;
    const auto it = std::find(m_custom.begin(), m_custom.end(), c);
    if (it != m_custom.end())
        return kPaletteSize + int(it - m_custom.begin());
    m_custom.push_back(c);
    return kPaletteSize + int(m_custom.size()) - 1;
}

const std::string &ColourScheme::categoryOf(uint32_t nameId) const
{
    static const std::string none;
    return nameId < m_categoryOf.size() ? m_categoryOf[nameId] : none;
}

void ColourScheme::extend(const std::vector<std::string_view> &names,
                          const std::vector<NameKind> &kinds, const std::vector<int64_t> &weights)
{
    const size_t first = m_index.size();
    if (names.size() <= first)
        return;
    std::vector<bool> taken(size_t(kPaletteSize), false);
    int free = kPaletteSize;
    for (int idx : m_index) {
        if (idx < kPaletteSize && !taken[size_t(idx)]) {
            taken[size_t(idx)] = true;
            --free;
        }
    }
    m_index.resize(names.size(), 0);
    m_categoryOf.resize(names.size());
    std::vector<size_t> order(names.size() - first);
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = first + i;
    // The most time-consuming names claim free slots first (ties and unweighted names in byte
    // order), so the names that dominate the view never share a colour.
    auto weight = [&](size_t i) { return i < weights.size() ? weights[i] : int64_t(0); };
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return weight(a) != weight(b) ? weight(a) > weight(b) : names[a] < names[b];
    });
    if (m_byCategory) {
        // Categories first, in byte order, each its hash slot or the next free one: every
        // category its own colour, the same for the same set of categories.
        std::vector<std::string> cats;
        for (size_t i : order)
            if (i < kinds.size() && !kinds[i].category.empty() &&
                !m_categorySlot.count(kinds[i].category))
                cats.push_back(kinds[i].category);
        std::sort(cats.begin(), cats.end());
        cats.erase(std::unique(cats.begin(), cats.end()), cats.end());
        for (const std::string &c : cats) {
            int idx = hashIndex(c);
            while (free > 0 && taken[size_t(idx)])
                idx = (idx + 1) % kPaletteSize;
            if (!taken[size_t(idx)]) {
                taken[size_t(idx)] = true;
                --free;
            }
            m_categorySlot[c] = idx;
        }
    }
    for (size_t i : order) {
        const NameKind *kind = i < kinds.size() ? &kinds[i] : nullptr;
        if (m_byCategory && kind && !kind->category.empty()) {
            // Category mode groups: the category's colour even over a kind's own colour.
            m_index[i] = m_categorySlot[kind->category];
            m_categoryOf[i] = kind->category;
            continue;
        }
        if (kind && kind->hasColour) {
            m_index[i] = customIndex(kind->rgb);
            continue;
        }
        const QString name = QString::fromUtf8(names[i].data(), qsizetype(names[i].size()));
        int idx = -1;
        for (const auto &cat : m_categories) {
            if (name.startsWith(cat.first)) {
                idx = cat.second;
                break;
            }
        }
        if (idx < 0) {
            idx = hashIndex(names[i]);
            while (free > 0 && taken[size_t(idx)])
                idx = (idx + 1) % kPaletteSize;
        }
        if (!taken[size_t(idx)]) {
            taken[size_t(idx)] = true;
            --free;
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
    QColor c =
        index >= kPaletteSize && index - kPaletteSize < int(m_custom.size())
            ? QColor::fromRgb(m_custom[size_t(index - kPaletteSize)])
            : QColor::fromRgb(kPalette[((index % kPaletteSize) + kPaletteSize) % kPaletteSize]);
    return dark ? c.darker(125) : c;
}

} // namespace syncline::ui

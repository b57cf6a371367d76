#include "timeline/model/loadproblem.h"

#include <iterator>

namespace syncline {

namespace {

struct KindNames
{
    const char *key;
    const char *label;
};

constexpr KindNames kKindNames[] = {
#define SYNCLINE_KIND_NAMES(e, key, label) {key, label},
    SYNCLINE_LOAD_PROBLEM_KINDS(SYNCLINE_KIND_NAMES)
#undef SYNCLINE_KIND_NAMES
};
static_assert(std::size(kKindNames) == size_t(LoadProblem::Kind::Count));

} // namespace

std::string LoadProblem::toString() const
{
    std::string out = file;
    if (line > 0)
        out += ":" + std::to_string(line);
    out += ": ";
    out += message;
    return out;
}

const char *LoadProblem::severityName(Severity s)
{
    switch (s) {
    case Severity::Info:
        return "info";
    case Severity::Warning:
        return "warning";
    case Severity::Error:
        return "error";
    }
    return "";
}

const char *LoadProblem::kindKey(Kind k)
{
    return uint32_t(k) < uint32_t(Kind::Count) ? kKindNames[uint32_t(k)].key : "";
}

const char *LoadProblem::kindLabel(Kind k)
{
    return uint32_t(k) < uint32_t(Kind::Count) ? kKindNames[uint32_t(k)].label : "";
}

std::optional<LoadProblem::Kind> LoadProblem::kindFromKey(std::string_view key)
{
    for (uint32_t i = 0; i < uint32_t(Kind::Count); ++i)
        if (key == kKindNames[i].key)
            return Kind(i);
    return std::nullopt;
}

} // namespace syncline

#include "timeline/model/collectivenames.h"

#include <array>
#include <string>

namespace syncline {

CollectiveNames::Kind CollectiveNames::classify(std::string_view name)
{
    // Fold: lower-case letters and digits only. Names are short; a long one (a mangled kernel
    // signature) is only looked at up to its first 256 characters.
    std::string folded;
    folded.reserve(std::min<size_t>(name.size(), 256));
    for (size_t i = 0; i < name.size() && i < 256; ++i) {
        const char c = name[i];
        if (c >= 'A' && c <= 'Z')
            folded.push_back(char(c - 'A' + 'a'));
        else if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            folded.push_back(c);
    }
    if (folded.rfind("ncclkernel", 0) == 0 || folded.rfind("nccldevkernel", 0) == 0)
        return Kind::Kernel;
    static constexpr std::array<std::string_view, 6> kWords = {
        "allreduce", "allgather", "reducescatter", "broadcast", "barrier", "alltoall"};
    for (std::string_view w : kWords)
        if (folded.find(w) != std::string::npos)
            return Kind::Operation;
    return Kind::None;
}

} // namespace syncline

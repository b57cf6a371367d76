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
    if (folded.rfind("ncclkernel", 0) == 0 || folded.rfind("nccldevkernel", 0) == 0) {
        // Point-to-point kernels (SendRecv, Send, Recv) pair two ranks, not the group.
        const std::string_view op =
            std::string_view(folded).substr(folded[4] == 'k' ? 10 : 13); // after the prefix
        if (op.rfind("sendrecv", 0) == 0 || op.rfind("send", 0) == 0 || op.rfind("recv", 0) == 0)
            return Kind::None;
        return Kind::Kernel;
    }
    // ATen tensor ops (aten::broadcast_tensors) are not communication; c10d's dispatcher ops
    // (c10d::allreduce_) only launch the work and return, the blocking part is recorded by the
    // backend (gloo:all_reduce) or by the caller (all_reduce, with its wait).
    if (name.rfind("aten::", 0) == 0 || name.rfind("c10d::", 0) == 0)
        return Kind::None;
    static constexpr std::array<std::string_view, 6> kWords = {
        "allreduce", "allgather", "reducescatter", "broadcast", "barrier", "alltoall"};
    for (std::string_view w : kWords)
        if (folded.find(w) != std::string::npos)
            return Kind::Operation;
    return Kind::None;
}

} // namespace syncline

#include "timeline/model/worker.h"

namespace syncline {

size_t Worker::eventCount() const
{
    size_t n = 0;
    for (const auto &t : tracks)
        n += t.count();
    return n;
}

std::string Worker::label() const
{
    std::string out = "rank " + std::to_string(info.rank);
    if (!info.host.empty())
        out += " · " + info.host;
    out += " · restart " + std::to_string(info.restart);
    return out;
}

} // namespace syncline

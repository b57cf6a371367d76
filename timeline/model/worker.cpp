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
    std::string out =
        (info.run.empty() ? std::string() : info.run + " · ") + "rank " + std::to_string(info.rank);
    if (!info.host.empty())
        out += " · " + info.host;
    if (info.kind != SourceKind::ChromeTrace) // a trace knows no incarnation: never "restart 0"
        out += " · restart " + std::to_string(info.restart);
    if (info.sharesRankRestart)
        out += " · world " + std::to_string(info.worldSize);
    if (info.labelPid)
        out += " · pid " + std::to_string(info.pid);
    return out;
}

} // namespace syncline

// LogParser's one-line record check (recordTypeOf).
#include "timeline/load/parse/log/logparser.h"

namespace syncline::load {

std::optional<RecordType> LogParser::recordTypeOf(std::string_view line)
{
    LineScanner scanner;
    LogRecord r;
    if (!scanner.scan(line, r))
        return std::nullopt;
    return r.type;
}

} // namespace syncline::load

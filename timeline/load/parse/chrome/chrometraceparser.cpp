// ChromeTraceParser — see chrometraceparser.h.
#include "timeline/load/parse/chrome/chrometraceparser.h"

#include "timeline/load/parse/chrome/chrometracestate.h"
#include "timeline/load/parse/filereader.h"

#include <simdjson.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace syncline::load {

using Severity = LoadProblem::Severity;
namespace od = simdjson::ondemand;

bool ChromeTraceParser::microsToNs(std::string_view text, int64_t &ns)
{
    text = ChromeTraceState::trimmed(text);
    if (text.empty())
        return false;
    size_t i = 0;
    const bool neg = text[0] == '-';
    if (neg)
        ++i;
    int64_t whole = 0;
    size_t digits = 0;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++digits) {
        if (whole > (INT64_MAX / 1000 - 9) / 10)
            return false;
        whole = whole * 10 + (text[i] - '0');
    }
    if (digits == 0)
        return false;
    int64_t frac = 0;
    int fracDigits = 0;
    bool roundUp = false;
    if (i < text.size() && text[i] == '.') {
        for (++i; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i, ++fracDigits) {
            if (fracDigits < 3)
                frac = frac * 10 + (text[i] - '0');
            else if (fracDigits == 3)
                roundUp = text[i] >= '5'; // the first dropped digit rounds to the nearest ns
        }
    }
    for (int d = fracDigits; d < 3; ++d)
        frac *= 10;
    if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        const double d = std::strtod(std::string(text).c_str(), nullptr) * 1000.0;
        if (!std::isfinite(d) || std::fabs(d) > double(kMaxTimeNs))
            return false;
        ns = int64_t(std::llround(d));
        return true;
    }
    if (i != text.size())
        return false;
    const int64_t v = whole * 1000 + frac + (roundUp ? 1 : 0);
    if (v > kMaxTimeNs)
        return false; // past the timeline's range (parsedfile.h)
    ns = neg ? -v : v;
    return true;
}

std::string ChromeTraceParser::closeTruncated(std::string_view text)
{
    std::vector<char> stack;
    size_t good = 0, goodDepth = 0;
    bool inString = false;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inString) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inString = false;
            continue;
        }
        if (c == '"') {
            inString = true;
        } else if (c == '[' || c == '{') {
            stack.push_back(c == '[' ? ']' : '}');
        } else if (c == ']' || c == '}') {
            if (stack.empty() || stack.back() != c)
                return {};
            stack.pop_back();
            good = i + 1;
            goodDepth = stack.size();
        }
    }
    if (good == 0)
        return {};
    std::string out(text.substr(0, good));
    for (size_t d = goodDepth; d-- > 0;)
        out += stack[d];
    return out;
}

namespace {

// The whole file into simdjson's padded buffer, opened like every loader input
// (FileReader::openRegular: never blocks on a FIFO, refuses what is not a regular file).
bool readPadded(const std::string &path, simdjson::padded_string &text, std::string *error)
{
    const int fd = FileReader::openRegular(path, error);
    if (fd < 0)
        return false;
    struct stat st
    {
    };
    ::fstat(fd, &st);
    const size_t size = st.st_size > 0 ? size_t(st.st_size) : 0;
    simdjson::padded_string buffer(size);
    size_t got = 0;
    while (got < size) {
        const ssize_t n = ::read(fd, buffer.data() + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            *error = "read error: " + std::string(std::strerror(errno));
            ::close(fd);
            return false;
        }
        if (n == 0)
            break; // shrank meanwhile: read what is there
        got += size_t(n);
    }
    ::close(fd);
    text = got == size ? std::move(buffer) : simdjson::padded_string(buffer.data(), got);
    return true;
}

} // namespace

ParsedFile ChromeTraceParser::parseFile(const std::string &path, const std::atomic<bool> *cancel)
{
    simdjson::padded_string text;
    std::string error;
    if (!readPadded(path, text, &error)) {
        ParsedFile out;
        out.path = path;
        out.problems.push_back({Severity::Error, path, 0, error});
        return out;
    }
    od::parser parser;
    std::string firstError;
    for (int attempt = 0; attempt < 2; ++attempt) {
        ChromeTraceState state(path);
        try {
            od::document doc = parser.iterate(text);
            state.parse(doc);
            if (attempt == 1)
                state.problems.add("truncated JSON", 0,
                                   "JSON not closed (" + firstError +
                                       "); read up to the last complete event",
                                   Severity::Info);
        } catch (const std::exception &e) {
            if (attempt == 0) {
                firstError = e.what();
                std::string closed = closeTruncated(std::string_view(text.data(), text.size()));
                if (!closed.empty() && closed.size() != text.size()) {
                    text = simdjson::padded_string(closed);
                    continue;
                }
            }
            ParsedFile out;
            out.path = path;
            out.problems.push_back({Severity::Error, path, 0,
                                    "not a readable Chrome trace: " + std::string(e.what())});
            return out;
        }
        ParsedFile out = state.finish();
        out.bytes = int64_t(text.size());
        if (state.rank) {
            out.worker.info.rank = *state.rank;
        } else {
            out.rankKnown = false; // the loader takes it from the file name or numbers the worker
        }
        out.usable = true;
        (void)cancel;
        return out;
    }
    return {};
}

} // namespace syncline::load

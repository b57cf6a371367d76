// ChromeTraceParser — see chrometraceparser.h.
#include "timeline/load/parse/chrome/chrometraceparser.h"

#include "timeline/load/parse/chrome/chrometracestate.h"
#include "timeline/load/parse/chrome/gzipinput.h"
#include "timeline/load/parse/filereader.h"

#include <simdjson.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sys/stat.h>
#include <unistd.h>

namespace syncline::load {

using Severity = LoadProblem::Severity;
using Kind = LoadProblem::Kind;
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

ChromeTraceParser::IdToken ChromeTraceParser::parseId(std::string_view text, int64_t &id,
                                                     bool asUnsigned)
{
    text = ChromeTraceState::trimmed(text);
    if (text.empty() || text[0] == '"' || text[0] == '{')
        return IdToken::Text; // a string, or an id2 object ({"local": ...}): a name
    size_t i = 0;
    const bool neg = text[0] == '-';
    if (neg)
        ++i;
    const size_t first = i;
    uint64_t v = 0;
    bool over = false;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
        const uint64_t d = uint64_t(text[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            over = true;
        else
            v = v * 10 + d;
    }
    if (i == first)
        return IdToken::NotInteger;
    if (i < text.size() && text[i] == '.') {
        ++i;
        const size_t fracFirst = i;
        while (i < text.size() && text[i] == '0')
            ++i;
        if (i == fracFirst)
            return IdToken::NotInteger;
    }
    if (i != text.size())
        return IdToken::NotInteger; // a non-zero fraction, an exponent, anything else
    if (over)
        return IdToken::OutOfRange;
    if (neg) {
        if (v > uint64_t(INT64_MAX) + 1)
            return IdToken::OutOfRange;
        id = v == uint64_t(INT64_MAX) + 1 ? INT64_MIN : -int64_t(v);
        return IdToken::Integer;
    }
    if (v > uint64_t(INT64_MAX) && !asUnsigned)
        return IdToken::OutOfRange;
    id = int64_t(v); // past INT64_MAX (asUnsigned): the same 64 bits, well defined since C++20
    return IdToken::Integer;
}

const char *ChromeTraceParser::idProblem(IdToken t)
{
    switch (t) {
    case IdToken::NotInteger:
        return "is not an integer";
    case IdToken::OutOfRange:
        return "is past the 64-bit integers";
    case IdToken::Integer:
    case IdToken::Text:
        break;
    }
    return "";
}

std::string ChromeTraceParser::closeTruncated(std::string_view text, bool cutAtMismatch)
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
            if (stack.empty() || stack.back() != c) {
                if (!cutAtMismatch)
                    return {};
                break; // damaged text from here on: close what came before
            }
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

// The whole file into `text` (a BigBuffer: huge pages, padding after it), opened like every
// loader input (FileReader::openRegular: never blocks on a FIFO, refuses what is not a regular
// file). *length: the bytes read.
bool readWhole(const std::string &path, BigBuffer &text, size_t *length, std::string *error)
{
    const int fd = FileReader::openRegular(path, error);
    if (fd < 0)
        return false;
    struct stat st
    {
    };
    ::fstat(fd, &st);
    const size_t size = st.st_size > 0 ? size_t(st.st_size) : 0;
    if (!text.reserve(size)) {
        *error = "cannot hold the file: out of memory";
        ::close(fd);
        return false;
    }
    size_t got = 0;
    while (got < size) {
        const ssize_t n = ::read(fd, text.data() + got, size - got);
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
    std::memset(text.data() + got, 0, BigBuffer::kPadding);
    *length = got;
    return true;
}

} // namespace

static_assert(BigBuffer::kPadding >= simdjson::SIMDJSON_PADDING);

ParsedFile ChromeTraceParser::parseFile(const std::string &path, const std::atomic<bool> *cancel)
{
    BigBuffer text;
    std::string error;
    // A gzip'd trace is inflated into `text`; its first `length` bytes are the JSON.
    size_t length = 0;
    std::string gzipStopped;
    int64_t fileBytes = -1;
    if (GzipInput::isGzip(path)) {
        GzipInput::Result g = GzipInput::inflate(path, text, cancel);
        if (!g.ok) {
            ParsedFile out;
            out.path = path;
            out.problems.push_back({Kind::UnreadableTrace, Severity::Error, path, 0, g.error});
            return out;
        }
        length = g.length;
        gzipStopped = std::move(g.stopped);
        fileBytes = g.compressed;
    } else if (!readWhole(path, text, &length, &error)) {
        ParsedFile out;
        out.path = path;
        out.problems.push_back({Kind::ReadError, Severity::Error, path, 0, error});
        return out;
    }
    od::parser parser;
    std::string firstError;
    // A damaged gzip stream may inflate garbage before zlib notices: the text is cut at the
    // first byte JSON never holds raw (a control character), then stepped back 64 KiB at a
    // time until what precedes the cut parses (a bounded number of tries).
    const bool damaged = !gzipStopped.empty();
    const int attempts = damaged ? 8 : 2;
    std::string_view whole(text.data(), length);
    size_t cut = length;
    if (damaged)
        for (size_t i = 0; i < length; ++i) {
            const auto c = static_cast<unsigned char>(whole[i]);
            if (c < 0x20 && c != '\n' && c != '\r' && c != '\t') {
                cut = i;
                break;
            }
        }
    simdjson::padded_string repaired;
    std::string_view current = whole;
    for (int attempt = 0; attempt < attempts; ++attempt) {
        ChromeTraceState state(path);
        if (damaged)
            state.problems.add(Kind::TruncatedGzip, 0,
                               "gzip stream not read to its end: " + gzipStopped +
                                   "; loaded what those bytes hold",
                               Severity::Warning);
        try {
            od::document doc = parser.iterate(simdjson::padded_string_view(
                current.data(), current.size(), current.size() + simdjson::SIMDJSON_PADDING));
            state.parse(doc);
            if (attempt > 0)
                state.problems.add(Kind::TruncatedJson, 0,
                                   "JSON not closed (" + firstError +
                                       "); read up to the last complete event",
                                   Severity::Info);
        } catch (const std::exception &e) {
            if (attempt == 0)
                firstError = e.what();
            std::string closed;
            while (attempt + 1 < attempts && closed.empty() && cut > 0) {
                closed = closeTruncated(whole.substr(0, cut), damaged);
                if (closed.size() == current.size() && attempt > 0)
                    closed.clear(); // the same text again
                if (closed.empty() || closed.size() == length) {
                    closed.clear();
                    if (!damaged)
                        break;
                }
                cut = cut > (size_t(1) << 16) ? cut - (size_t(1) << 16) : 0;
            }
            if (!closed.empty()) {
                repaired = simdjson::padded_string(closed);
                current = std::string_view(repaired.data(), repaired.size());
                continue;
            }
            ParsedFile out;
            out.path = path;
            out.problems.push_back({Kind::UnreadableTrace, Severity::Error, path, 0,
                                    "not a readable Chrome trace: " + std::string(e.what())});
            if (damaged)
                out.problems.push_back({Kind::TruncatedGzip, Severity::Error, path, 0,
                                        "gzip stream not read to its end: " + gzipStopped});
            return out;
        }
        ParsedFile out = state.finish();
        out.bytes = fileBytes >= 0 ? fileBytes : int64_t(length);
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

// TimerConfig — see timerconfig.h; the key reference is docs/config.md.
#include "recorder/timerconfig.h"

#include "recorder/globpattern.h"
#include "recorder/logpath.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>

namespace syncline::rec {

using nlohmann::json;

namespace {

std::string typeName(const json &v)
{
    if (v.is_null())
        return "null";
    if (v.is_boolean())
        return v.get<bool>() ? "true" : "false";
    if (v.is_number_integer())
        return v.dump();
    if (v.is_number())
        return v.dump();
    if (v.is_string())
        return v.dump();
    if (v.is_array())
        return "an array";
    return "an object";
}

// Walks one JSON document and turns every violation into a ConfigError naming file and key.
class Checker
{
public:
    explicit Checker(std::string source) : m_source(std::move(source)) {}

    [[noreturn]] void fail(const std::string &key, const std::string &expected,
                           const json &got) const
    {
        throw ConfigError(m_source + ": " + key + ": expected " + expected + ", got " +
                          typeName(got));
    }

    void onlyKeys(const json &obj, const std::string &where,
                  std::initializer_list<const char *> allowed) const
    {
        for (auto it = obj.begin(); it != obj.end(); ++it) {
            bool ok = false;
            std::string list;
            for (const char *a : allowed) {
                ok = ok || it.key() == a;
                list += list.empty() ? a : std::string(", ") + a;
            }
            if (!ok)
                throw ConfigError(m_source + ": " + where + (where.empty() ? "" : ".") + it.key() +
                                  ": unknown key (expected one of: " + list + ")");
        }
    }

    bool boolean(const json &v, const std::string &key) const
    {
        if (!v.is_boolean())
            fail(key, "true or false", v);
        return v.get<bool>();
    }

    std::string string(const json &v, const std::string &key) const
    {
        if (!v.is_string())
            fail(key, "a string", v);
        return v.get<std::string>();
    }

    int64_t integer(const json &v, const std::string &key, int64_t lo, int64_t hi) const
    {
        const std::string range = "an integer in " + std::to_string(lo) + ".." + std::to_string(hi);
        if (!v.is_number_integer())
            fail(key, range, v);
        if (v.is_number_unsigned() && v.get<uint64_t>() > uint64_t(INT64_MAX))
            fail(key, range, v);
        const int64_t x = v.get<int64_t>();
        if (x < lo || x > hi)
            fail(key, range, v);
        return x;
    }

    double number(const json &v, const std::string &key, double lo, double hi,
                  bool loOpen = false) const
    {
        std::ostringstream range;
        range << "a number in " << (loOpen ? "(" : "[") << lo << ", " << hi << "]";
        if (!v.is_number())
            fail(key, range.str(), v);
        const double x = v.get<double>();
        if (!std::isfinite(x) || x < lo || (loOpen && x == lo) || x > hi)
            fail(key, range.str(), v);
        return x;
    }

    const std::string &source() const { return m_source; }

private:
    std::string m_source;
};

EventKind parseKind(const Checker &c, const json &v, const std::string &key)
{
    if (!v.is_object())
        c.fail(key, "an object", v);
    c.onlyKeys(v, key, {"name", "glob", "category", "color", "expected_max_ms"});
    EventKind k;
    const bool hasName = v.contains("name"), hasGlob = v.contains("glob");
    if (hasName == hasGlob)
        throw ConfigError(c.source() + ": " + key +
                          ": expected exactly one of \"name\" (exact) or \"glob\" (pattern)");
    if (hasName) {
        k.pattern = c.string(v["name"], key + ".name");
        if (k.pattern.empty())
            c.fail(key + ".name", "a non-empty string", v["name"]);
    } else {
        k.glob = true;
        k.pattern = c.string(v["glob"], key + ".glob");
        if (k.pattern.empty())
            c.fail(key + ".glob", "a non-empty glob pattern", v["glob"]);
        if (auto why = GlobPattern::validate(k.pattern))
            c.fail(key + ".glob", "a valid glob pattern (" + *why + ")", v["glob"]);
    }
    if (v.contains("category"))
        k.category = c.string(v["category"], key + ".category");
    if (v.contains("color")) {
        k.color = c.string(v["color"], key + ".color");
        bool ok = k.color.size() == 7 && k.color[0] == '#';
        for (size_t i = 1; ok && i < 7; ++i)
            ok = std::isxdigit(static_cast<unsigned char>(k.color[i])) != 0;
        if (!ok)
            c.fail(key + ".color", "a colour \"#rrggbb\"", v["color"]);
    }
    if (v.contains("expected_max_ms") && !v["expected_max_ms"].is_null()) {
        const double ms = c.number(v["expected_max_ms"], key + ".expected_max_ms", 0.0, 1e9);
        k.expectedMaxNs = std::llround(ms * 1e6);
    }
    return k;
}

void parseSync(const Checker &c, const json &v, SyncSettings &s)
{
    if (!v.is_object())
        c.fail("sync", "an object", v);
    c.onlyKeys(
        v, "sync",
        {"enabled", "server", "host_server", "burst_size", "interval_s", "timeout_ms", "token"});
    if (v.contains("enabled"))
        s.enabled = c.boolean(v["enabled"], "sync.enabled");
    if (v.contains("server") && !v["server"].is_null()) {
        const std::string srv = c.string(v["server"], "sync.server");
        const auto colon = srv.rfind(':');
        const std::string port = colon == std::string::npos ? "" : srv.substr(colon + 1);
        char *end = nullptr;
        const long p = port.empty() ? 0 : std::strtol(port.c_str(), &end, 10);
        if (colon == 0 || port.empty() || *end != '\0' || p < 1 || p > 65535)
            c.fail("sync.server", "\"host:port\" with a port in 1..65535, or null", v["server"]);
        s.server = srv;
    }
    if (v.contains("host_server"))
        s.hostServer = c.boolean(v["host_server"], "sync.host_server");
    if (v.contains("burst_size"))
        s.burstSize = int(c.integer(v["burst_size"], "sync.burst_size", 1, 1000));
    if (v.contains("interval_s"))
        s.intervalS = c.number(v["interval_s"], "sync.interval_s", 0.0, 3600.0, true);
    if (v.contains("timeout_ms"))
        s.timeoutMs = int(c.integer(v["timeout_ms"], "sync.timeout_ms", 1, 60000));
    if (v.contains("token"))
        s.token = c.string(v["token"], "sync.token");
}

OverflowPolicy parseOverflow(const Checker &c, const json &v)
{
    const std::string p = c.string(v, "overflow");
    if (p == "drop_newest")
        return OverflowPolicy::DropNewest;
    if (p == "grow")
        return OverflowPolicy::Grow;
    c.fail("overflow", "one of \"drop_newest\", \"grow\"", v);
}

void parseTestClock(const Checker &c, const json &v, TestClockSettings &t)
{
    if (!v.is_object())
        c.fail("test_clock", "an object", v);
    c.onlyKeys(v, "test_clock", {"offset_ns", "drift_ppm", "wall_offset_ns"});
    if (v.contains("offset_ns"))
        t.offsetNs = c.integer(v["offset_ns"], "test_clock.offset_ns", -(int64_t(1) << 62),
                               int64_t(1) << 62);
    if (v.contains("drift_ppm"))
        t.driftPpm = c.number(v["drift_ppm"], "test_clock.drift_ppm", -1000.0, 1000.0);
    if (v.contains("wall_offset_ns"))
        t.wallOffsetNs = c.integer(v["wall_offset_ns"], "test_clock.wall_offset_ns",
                                   -(int64_t(1) << 62), int64_t(1) << 62);
}

std::string parseErrorWhere(std::string_view text, size_t byte)
{
    size_t line = 1, col = 1;
    for (size_t i = 0; i < byte && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            col = 1;
        } else {
            ++col;
        }
    }
    return std::to_string(line) + ":" + std::to_string(col);
}

} // namespace

TimerConfig TimerConfig::defaults()
{
    TimerConfig c;
    c.buildIndex();
    return c;
}

TimerConfig TimerConfig::load(const std::string &path)
{
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw ConfigError(path + ": cannot read config file");
    std::stringstream ss;
    ss << in.rdbuf();
    std::error_code ec;
    const auto abs = std::filesystem::absolute(path, ec);
    TimerConfig c = parse(ss.str(), path);
    c.sourcePath = ec ? path : abs.lexically_normal().string();
    return c;
}

TimerConfig TimerConfig::loadOrDefaults(const std::string &path)
{
    std::error_code ec;
    if (path.empty() || !std::filesystem::exists(path, ec))
        return defaults();
    return load(path);
}

TimerConfig TimerConfig::parse(std::string_view text, const std::string &source)
{
    json doc;
    try {
        doc = json::parse(text.begin(), text.end());
    } catch (const json::parse_error &e) {
        const size_t at = e.byte > 0 ? e.byte - 1 : 0;
        throw ConfigError(source + ":" + parseErrorWhere(text, at) + ": invalid JSON (" + e.what() +
                          ")");
    } catch (const json::exception &e) {
        // out_of_range: a number past double's range (1e999); found by fuzz_timerconfig, it
        // escaped as a non-ConfigError exception out of the FileTimerClient constructor.
        throw ConfigError(source + ": invalid JSON (" + e.what() + ")");
    }
    const Checker c(source);
    if (!doc.is_object())
        c.fail("(top level)", "an object", doc);
    c.onlyKeys(doc, "",
               {"event_kinds", "clock", "flush_interval_ms", "heartbeat_interval_ms", "log_path",
                "buffer_events", "overflow", "test_clock", "sync", "silent_after_s",
                "view_clock", "event_store"});
    TimerConfig cfg;
    cfg.loadedFromFile = true;
    cfg.sourcePath = source;
    if (doc.contains("clock")) {
        const auto src = Clock::sourceFromName(c.string(doc["clock"], "clock"));
        if (!src)
            c.fail("clock", "one of \"monotonic_raw\", \"monotonic\", \"tsc\"", doc["clock"]);
        cfg.clock = *src;
    }
    if (doc.contains("flush_interval_ms"))
        cfg.flushIntervalMs = int(c.integer(doc["flush_interval_ms"], "flush_interval_ms", 1, 100));
    if (doc.contains("heartbeat_interval_ms"))
        cfg.heartbeatIntervalMs =
            int(c.integer(doc["heartbeat_interval_ms"], "heartbeat_interval_ms", 10, 600000));
    if (doc.contains("log_path")) {
        cfg.logPath = c.string(doc["log_path"], "log_path");
        if (auto why = LogPath::validate(cfg.logPath))
            c.fail("log_path", "a path template (" + *why + ")", doc["log_path"]);
    }
    if (doc.contains("buffer_events"))
        cfg.bufferEvents = int(c.integer(doc["buffer_events"], "buffer_events", 64, 1 << 24));
    if (doc.contains("overflow"))
        cfg.overflow = parseOverflow(c, doc["overflow"]);
    if (doc.contains("test_clock"))
        parseTestClock(c, doc["test_clock"], cfg.testClock);
    if (doc.contains("sync"))
        parseSync(c, doc["sync"], cfg.sync);
    if (doc.contains("silent_after_s"))
        cfg.silentAfterS = c.number(doc["silent_after_s"], "silent_after_s", 0.0, 86400.0, true);
    if (doc.contains("view_clock")) {
        cfg.viewClock = c.string(doc["view_clock"], "view_clock");
        if (cfg.viewClock != "corrected" && cfg.viewClock != "wall" && cfg.viewClock != "raw")
            c.fail("view_clock", "one of \"corrected\", \"wall\", \"raw\"", doc["view_clock"]);
    }
    if (doc.contains("event_store"))
        cfg.eventStore = c.boolean(doc["event_store"], "event_store");
    if (doc.contains("event_kinds")) {
        const json &kinds = doc["event_kinds"];
        if (!kinds.is_array())
            c.fail("event_kinds", "an array", kinds);
        for (size_t i = 0; i < kinds.size(); ++i)
            cfg.eventKinds.push_back(
                parseKind(c, kinds[i], "event_kinds[" + std::to_string(i) + "]"));
    }
    cfg.buildIndex();
    return cfg;
}

void TimerConfig::applyEnvironment(const GetEnv &getEnv)
{
    if (const char *srv = getEnv("SYNCLINE_TIME_SERVER"); srv && *srv)
        sync.server = srv;
    auto envFail = [](const char *var, const char *val, const char *expected) {
        throw ConfigError(std::string("environment ") + var + ": expected " + expected +
                          ", got \"" + val + "\"");
    };
    if (const char *v = getEnv("SYNCLINE_TEST_CLOCK_OFFSET_NS"); v && *v) {
        char *end = nullptr;
        errno = 0;
        const long long x = std::strtoll(v, &end, 10);
        if (*end != '\0' || errno == ERANGE)
            envFail("SYNCLINE_TEST_CLOCK_OFFSET_NS", v, "an integer (ns)");
        testClock.offsetNs = x;
    }
    if (const char *v = getEnv("SYNCLINE_TEST_CLOCK_DRIFT_PPM"); v && *v) {
        char *end = nullptr;
        const double x = std::strtod(v, &end);
        if (*end != '\0' || !std::isfinite(x) || x < -1000.0 || x > 1000.0)
            envFail("SYNCLINE_TEST_CLOCK_DRIFT_PPM", v, "a number in [-1000, 1000]");
        testClock.driftPpm = x;
    }
    if (const char *v = getEnv("SYNCLINE_TEST_WALL_OFFSET_NS"); v && *v) {
        char *end = nullptr;
        errno = 0;
        const long long x = std::strtoll(v, &end, 10);
        if (*end != '\0' || errno == ERANGE)
            envFail("SYNCLINE_TEST_WALL_OFFSET_NS", v, "an integer (ns)");
        testClock.wallOffsetNs = x;
    }
    applyTorchrunServer(getEnv);
}

void TimerConfig::applyTorchrunServer(const GetEnv &getEnv)
{
    if (!sync.enabled || sync.server)
        return; // a named server wins; sync off stays off
    const char *runId = getEnv("TORCHELASTIC_RUN_ID");
    const char *addr = getEnv("MASTER_ADDR");
    const char *port = getEnv("MASTER_PORT");
    if (!runId || !addr || !*addr || !port || !*port)
        return; // not under torchrun: nothing changes
    char *end = nullptr;
    errno = 0;
    const long p = std::strtol(port, &end, 10);
    if (*end != '\0' || errno == ERANGE || p < 1 || p > 65535)
        return; // torch itself refuses such a port; no server is derived from it
    const std::string host(addr);
    const bool v6 = host.find(':') != std::string::npos && host.front() != '[';
    sync.server = (v6 ? "[" + host + "]" : host) + ":" + std::to_string(p);
    sync.hostServer = true;
    sync.fromTorchrun = true;
    if (sync.token.empty())
        sync.token = std::string("torchrun:") + runId;
}

const EventKind *TimerConfig::matchKind(std::string_view name) const
{
    if (auto it = m_exact.find(std::string(name)); it != m_exact.end())
        return &eventKinds[it->second];
    for (const EventKind &k : eventKinds)
        if (k.glob && GlobPattern::match(k.pattern, name))
            return &k;
    return nullptr;
}

const char *TimerConfig::overflowName(OverflowPolicy policy)
{
    return policy == OverflowPolicy::Grow ? "grow" : "drop_newest";
}

void TimerConfig::buildIndex()
{
    m_exact.clear();
    for (size_t i = 0; i < eventKinds.size(); ++i)
        if (!eventKinds[i].glob)
            m_exact.emplace(eventKinds[i].pattern, i); // first entry for a name wins
}

} // namespace syncline::rec

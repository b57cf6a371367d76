// Tests for TimerConfig: defaults, a full valid file, every config error with its exact
// message, kind matching order, env overrides, and GlobPattern.
#include "recorder/globpattern.h"
#include "recorder/timerconfig.h"

#include <QTemporaryDir>
#include <QtTest>

#include <fstream>
#include <map>

using namespace syncline::rec;

class TstTimerConfig : public QObject
{
    Q_OBJECT
private slots:
    void defaults();
    void fullFile();
    void errors_data();
    void errors();
    void loadMissingAndFile();
    void matchKindOrder();
    void environment();
    void torchrunServer_data();
    void torchrunServer();
    void environmentErrors_data();
    void environmentErrors();
    void glob_data();
    void glob();
    void globValidate();
};

void TstTimerConfig::defaults()
{
    const TimerConfig c = TimerConfig::defaults();
    QCOMPARE(c.loadedFromFile, false);
    QCOMPARE(c.sourcePath, std::string());
    QVERIFY(c.clock == ClockSource::MonotonicRaw);
    QCOMPARE(c.flushIntervalMs, 50);
    QCOMPARE(c.heartbeatIntervalMs, 1000);
    QCOMPARE(c.logPath, std::string("timer_events.log"));
    QCOMPARE(c.bufferEvents, 65536);
    QVERIFY(c.overflow == OverflowPolicy::DropNewest);
    QCOMPARE(c.sync.enabled, true);
    QVERIFY(!c.sync.server.has_value());
    QCOMPARE(c.sync.hostServer, false);
    QCOMPARE(c.sync.burstSize, 8);
    QCOMPARE(c.sync.intervalS, 1.0);
    QCOMPARE(c.sync.timeoutMs, 100);
    QCOMPARE(c.sync.token, std::string());
    QCOMPARE(c.silentAfterS, 10.0);
    QVERIFY(!c.testClock.active());
    QVERIFY(c.eventKinds.empty());
    QVERIFY(c.matchKind("forward") == nullptr);
}

void TstTimerConfig::fullFile()
{
    const char *text = R"({
      "event_kinds": [
        {"name": "forward", "category": "compute", "color": "#1f77b4", "expected_max_ms": 250},
        {"glob": "layer[0-9]*", "category": "layer", "expected_max_ms": 12.5},
        {"glob": "*reduce*", "category": "comm", "color": "#FF7F0E", "expected_max_ms": null}
      ],
      "clock": "monotonic",
      "flush_interval_ms": 20,
      "heartbeat_interval_ms": 500,
      "log_path": "logs/{run_id}/rank{rank}.log",
      "buffer_events": 4096,
      "overflow": "grow",
      "test_clock": {"offset_ns": -5000, "drift_ppm": 12.5},
      "sync": {"enabled": false, "server": "node-a:29400", "host_server": true, "burst_size": 4,
               "interval_s": 0.5, "timeout_ms": 20, "token": "s3cret"},
      "silent_after_s": 3,
      "event_store": true
    })";
    const TimerConfig c = TimerConfig::parse(text, "cfg.json");
    QCOMPARE(c.loadedFromFile, true);
    QVERIFY(c.clock == ClockSource::Monotonic);
    QCOMPARE(c.flushIntervalMs, 20);
    QCOMPARE(c.heartbeatIntervalMs, 500);
    QCOMPARE(c.logPath, std::string("logs/{run_id}/rank{rank}.log"));
    QCOMPARE(c.bufferEvents, 4096);
    QVERIFY(c.overflow == OverflowPolicy::Grow);
    QCOMPARE(c.testClock.offsetNs, int64_t(-5000));
    QCOMPARE(c.testClock.driftPpm, 12.5);
    QCOMPARE(c.sync.enabled, false);
    QCOMPARE(*c.sync.server, std::string("node-a:29400"));
    QCOMPARE(c.sync.hostServer, true);
    QCOMPARE(c.sync.burstSize, 4);
    QCOMPARE(c.sync.intervalS, 0.5);
    QCOMPARE(c.sync.timeoutMs, 20);
    QCOMPARE(c.sync.token, std::string("s3cret"));
    QCOMPARE(c.silentAfterS, 3.0);
    QCOMPARE(c.eventStore, true);
    QCOMPARE(TimerConfig::defaults().eventStore, false);
    QCOMPARE(c.eventKinds.size(), size_t(3));
    QCOMPARE(c.eventKinds[0].expectedMaxNs, int64_t(250000000));
    QCOMPARE(c.eventKinds[1].expectedMaxNs, int64_t(12500000));
    QCOMPARE(c.eventKinds[2].expectedMaxNs, int64_t(-1));
    QCOMPARE(c.eventKinds[2].color, std::string("#FF7F0E"));
    QCOMPARE(c.eventKinds[1].glob, true);
    QCOMPARE(c.eventKinds[0].glob, false);
}

void TstTimerConfig::errors_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("message");
    auto row = [](const char *tag, const char *json, const char *msg) {
        QTest::newRow(tag) << QString::fromUtf8(json) << QString::fromUtf8(msg);
    };
    row("not json", "{\n  \"clock\": ,\n}", "cfg.json:2:12: invalid JSON (");
    // A number past double's range threw nlohmann's out_of_range, not ConfigError, out of the
    // FileTimerClient constructor (found by fuzz_timerconfig).
    row("number past double", R"({"silent_after_s": 0.055e555})", "cfg.json: invalid JSON (");
    row("top not object", "[1]", "cfg.json: (top level): expected an object, got an array");
    row("unknown key", R"({"flush_ms": 5})",
        "cfg.json: flush_ms: unknown key (expected one of: event_kinds, clock, flush_interval_ms, "
        "heartbeat_interval_ms, log_path, buffer_events, overflow, test_clock, sync, "
        "silent_after_s, view_clock, event_store)");
    row("event store type", R"({"event_store": "yes"})",
        "cfg.json: event_store: expected true or false, got \"yes\"");
    row("unknown sync key", R"({"sync": {"port": 1}})",
        "cfg.json: sync.port: unknown key (expected one of: enabled, server, host_server, "
        "burst_size, interval_s, timeout_ms, token)");
    row("unknown kind key",
        R"({"event_kinds": [{"name": "a"}, {"name": "b", "colour": "#000000"}]})",
        "cfg.json: event_kinds[1].colour: unknown key (expected one of: name, glob, category, "
        "color, expected_max_ms)");
    row("bad clock enum", R"({"clock": "realtime"})",
        "cfg.json: clock: expected one of \"monotonic_raw\", \"monotonic\", \"tsc\", got "
        "\"realtime\"");
    row("clock type", R"({"clock": 1})", "cfg.json: clock: expected a string, got 1");
    row("bad overflow enum", R"({"overflow": "block"})",
        "cfg.json: overflow: expected one of \"drop_newest\", \"grow\", got \"block\"");
    row("flush too big", R"({"flush_interval_ms": 250})",
        "cfg.json: flush_interval_ms: expected an integer in 1..100, got 250");
    row("flush negative", R"({"flush_interval_ms": -5})",
        "cfg.json: flush_interval_ms: expected an integer in 1..100, got -5");
    row("flush fraction", R"({"flush_interval_ms": 2.5})",
        "cfg.json: flush_interval_ms: expected an integer in 1..100, got 2.5");
    row("heartbeat string", R"({"heartbeat_interval_ms": "1000"})",
        "cfg.json: heartbeat_interval_ms: expected an integer in 10..600000, got \"1000\"");
    row("buffer small", R"({"buffer_events": 8})",
        "cfg.json: buffer_events: expected an integer in 64..16777216, got 8");
    row("log path type", R"({"log_path": null})",
        "cfg.json: log_path: expected a string, got null");
    row("log path placeholder", R"({"log_path": "x{node}.log"})",
        "cfg.json: log_path: expected a path template (unknown placeholder {node}; known: {rank} "
        "{local_rank} {restart} {pid} {host} {run_id} {role}), got \"x{node}.log\"");
    row("log path empty", R"({"log_path": ""})",
        "cfg.json: log_path: expected a path template (empty path), got \"\"");
    row("kinds not array", R"({"event_kinds": {}})",
        "cfg.json: event_kinds: expected an array, got an object");
    row("kind not object", R"({"event_kinds": ["forward"]})",
        "cfg.json: event_kinds[0]: expected an object, got \"forward\"");
    row("kind both", R"({"event_kinds": [{"name": "a", "glob": "a*"}]})",
        "cfg.json: event_kinds[0]: expected exactly one of \"name\" (exact) or \"glob\" (pattern)");
    row("kind neither", R"({"event_kinds": [{"category": "x"}]})",
        "cfg.json: event_kinds[0]: expected exactly one of \"name\" (exact) or \"glob\" (pattern)");
    row("bad glob", R"({"event_kinds": [{"glob": "layer[0-9"}]})",
        "cfg.json: event_kinds[0].glob: expected a valid glob pattern (unterminated '[' at offset "
        "5), got \"layer[0-9\"");
    row("bad colour", R"({"event_kinds": [{"name": "a", "color": "red"}]})",
        "cfg.json: event_kinds[0].color: expected a colour \"#rrggbb\", got \"red\"");
    row("negative expected max",
        R"({"event_kinds": [{"name": "a"}, {"name": "b"}, {"name": "c", "expected_max_ms": -1}]})",
        "cfg.json: event_kinds[2].expected_max_ms: expected a number in [0, 1e+09], got -1");
    row("empty name", R"({"event_kinds": [{"name": ""}]})",
        "cfg.json: event_kinds[0].name: expected a non-empty string, got \"\"");
    row("sync enabled type", R"({"sync": {"enabled": "yes"}})",
        "cfg.json: sync.enabled: expected true or false, got \"yes\"");
    row("sync server no port", R"({"sync": {"server": "node-a"}})",
        "cfg.json: sync.server: expected \"host:port\" with a port in 1..65535, or null, got "
        "\"node-a\"");
    row("sync server bad port", R"({"sync": {"server": "node-a:99999"}})",
        "cfg.json: sync.server: expected \"host:port\" with a port in 1..65535, or null, got "
        "\"node-a:99999\"");
    row("sync burst zero", R"({"sync": {"burst_size": 0}})",
        "cfg.json: sync.burst_size: expected an integer in 1..1000, got 0");
    row("sync interval zero", R"({"sync": {"interval_s": 0}})",
        "cfg.json: sync.interval_s: expected a number in (0, 3600], got 0");
    row("sync timeout negative", R"({"sync": {"timeout_ms": -100}})",
        "cfg.json: sync.timeout_ms: expected an integer in 1..60000, got -100");
    row("sync token type", R"({"sync": {"token": 5}})",
        "cfg.json: sync.token: expected a string, got 5");
    row("sync not object", R"({"sync": true})", "cfg.json: sync: expected an object, got true");
    row("test clock drift", R"({"test_clock": {"drift_ppm": 5000}})",
        "cfg.json: test_clock.drift_ppm: expected a number in [-1000, 1000], got 5000");
    row("test clock offset type", R"({"test_clock": {"offset_ns": 1.5}})",
        "cfg.json: test_clock.offset_ns: expected an integer in -4611686018427387904.."
        "4611686018427387904, got 1.5");
    row("test clock unknown", R"({"test_clock": {"skew": 1}})",
        "cfg.json: test_clock.skew: unknown key (expected one of: offset_ns, drift_ppm, "
        "wall_offset_ns)");
    row("test clock wall offset type", R"({"test_clock": {"wall_offset_ns": "3ms"}})",
        "cfg.json: test_clock.wall_offset_ns: expected an integer in -4611686018427387904.."
        "4611686018427387904, got \"3ms\"");
    row("view clock enum", R"({"view_clock": "ptp"})",
        "cfg.json: view_clock: expected one of \"corrected\", \"wall\", \"raw\", got \"ptp\"");
    row("view clock type", R"({"view_clock": 1})",
        "cfg.json: view_clock: expected a string, got 1");
    row("silent negative", R"({"silent_after_s": -1})",
        "cfg.json: silent_after_s: expected a number in (0, 86400], got -1");
}

void TstTimerConfig::errors()
{
    QFETCH(QString, json);
    QFETCH(QString, message);
    const std::string text = json.toStdString();
    try {
        TimerConfig::parse(text, "cfg.json");
        QFAIL("no ConfigError thrown");
    } catch (const ConfigError &e) {
        const QString got = QString::fromUtf8(e.what());
        if (message.endsWith('('))
            QVERIFY2(got.startsWith(message), qPrintable(got));
        else
            QCOMPARE(got, message);
    }
}

void TstTimerConfig::loadMissingAndFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string missing = dir.filePath("nope.json").toStdString();
    const TimerConfig d = TimerConfig::loadOrDefaults(missing);
    QCOMPARE(d.loadedFromFile, false);
    QCOMPARE(TimerConfig::loadOrDefaults("").loadedFromFile, false);
    try {
        TimerConfig::load(missing);
        QFAIL("no ConfigError for a missing file");
    } catch (const ConfigError &e) {
        QCOMPARE(std::string(e.what()), missing + ": cannot read config file");
    }
    const std::string path = dir.filePath("timer_config.json").toStdString();
    {
        std::ofstream(path) << R"({"flush_interval_ms": 7, "sync": {"burst_size": 3}})";
    }
    const TimerConfig c = TimerConfig::loadOrDefaults(path);
    QCOMPARE(c.loadedFromFile, true);
    QCOMPARE(c.sourcePath, path);
    QCOMPARE(c.flushIntervalMs, 7);
    QCOMPARE(c.sync.burstSize, 3);
    {
        std::ofstream(path) << R"({"sync": {"burst_size": "3"}})";
    }
    try {
        TimerConfig::loadOrDefaults(path);
        QFAIL("no ConfigError for a bad file");
    } catch (const ConfigError &e) {
        QCOMPARE(std::string(e.what()),
                 path + ": sync.burst_size: expected an integer in 1..1000, got \"3\"");
    }
}

void TstTimerConfig::matchKindOrder()
{
    const TimerConfig c = TimerConfig::parse(R"({"event_kinds": [
        {"glob": "*", "category": "any"},
        {"glob": "layer*", "category": "layer"},
        {"name": "layer3", "category": "exact"},
        {"name": "layer3", "category": "second exact"}]})",
                                             "cfg.json");
    QCOMPARE(c.matchKind("layer3")->category, std::string("exact"));
    QCOMPARE(c.matchKind("layer4")->category, std::string("any"));
    QCOMPARE(c.matchKind("")->category, std::string("any"));
    const TimerConfig d = TimerConfig::parse(
        R"({"event_kinds": [{"glob": "layer?"}, {"glob": "layer*", "category": "L"}]})", "c");
    QCOMPARE(d.matchKind("layer12")->category, std::string("L"));
    QCOMPARE(d.matchKind("layer1")->category, std::string());
    QVERIFY(d.matchKind("forward") == nullptr);
}

void TstTimerConfig::environment()
{
    std::map<std::string, std::string> env = {{"SYNCLINE_TIME_SERVER", "10.0.0.1:29400"},
                                              {"SYNCLINE_TEST_CLOCK_OFFSET_NS", "-123456789"},
                                              {"SYNCLINE_TEST_CLOCK_DRIFT_PPM", "-25.5"},
                                              {"SYNCLINE_TEST_WALL_OFFSET_NS", "3000000"}};
    TimerConfig c = TimerConfig::parse(R"({"sync": {"server": "a:1"}})", "c");
    c.applyEnvironment([&](const char *k) -> const char * {
        auto it = env.find(k);
        return it == env.end() ? nullptr : it->second.c_str();
    });
    QCOMPARE(*c.sync.server, std::string("10.0.0.1:29400"));
    QCOMPARE(c.testClock.offsetNs, int64_t(-123456789));
    QCOMPARE(c.testClock.driftPpm, -25.5);
    QCOMPARE(c.testClock.wallOffsetNs.value_or(-1), int64_t(3'000'000));
    QVERIFY(c.testClock.active());
    // Unset, the wall offset is the monotonic one (rec::Clock); the config can set it, 0 too.
    QVERIFY(!TimerConfig::parse(R"({"test_clock": {"offset_ns": 5}})", "c").testClock.wallOffsetNs);
    const TimerConfig w = TimerConfig::parse(
        R"({"test_clock": {"offset_ns": 5, "wall_offset_ns": 0}, "view_clock": "wall"})", "c");
    QCOMPARE(w.testClock.wallOffsetNs.value_or(-1), int64_t(0));
    QCOMPARE(w.viewClock, std::string("wall"));
    QCOMPARE(TimerConfig::parse("{}", "c").viewClock, std::string());
}

void TstTimerConfig::torchrunServer_data()
{
    // env as "K=V;K=V", the config file's text, then what must come out ("" = no server).
    QTest::addColumn<QString>("env");
    QTest::addColumn<QString>("config");
    QTest::addColumn<QString>("server");
    QTest::addColumn<bool>("host");
    QTest::addColumn<QString>("token");
    const QString torchrun =
        "TORCHELASTIC_RUN_ID=job7;MASTER_ADDR=node-a.example;MASTER_PORT=41234";
    QTest::newRow("torchrun, nothing named") << torchrun << "{}"
                                             << "node-a.example:41234" << true << "torchrun:job7";
    QTest::newRow("own token kept") << torchrun << R"({"sync": {"token": "t"}})"
                                    << "node-a.example:41234" << true << "t";
    QTest::newRow("IPv6 master") << "TORCHELASTIC_RUN_ID=none;MASTER_ADDR=fd00::1;MASTER_PORT=29500"
                                 << "{}"
                                 << "[fd00::1]:29500" << true << "torchrun:none";
    QTest::newRow("config names a server") << torchrun << R"({"sync": {"server": "head:29400"}})"
                                           << "head:29400" << false << "";
    QTest::newRow("env names a server") << torchrun + ";SYNCLINE_TIME_SERVER=head:1"
                                        << "{}"
                                        << "head:1" << false << "";
    QTest::newRow("sync disabled") << torchrun << R"({"sync": {"enabled": false}})"
                                   << "" << false << "";
    QTest::newRow("not torchrun (no run id)") << "MASTER_ADDR=a;MASTER_PORT=41234"
                                              << "{}"
                                              << "" << false << "";
    QTest::newRow("bad port") << "TORCHELASTIC_RUN_ID=j;MASTER_ADDR=a;MASTER_PORT=70000"
                              << "{}"
                              << "" << false << "";
}

void TstTimerConfig::torchrunServer()
{
    QFETCH(QString, env);
    QFETCH(QString, config);
    QFETCH(QString, server);
    QFETCH(bool, host);
    QFETCH(QString, token);
    std::map<std::string, std::string> vars;
    for (const QString &kv : env.split(';')) {
        const int eq = kv.indexOf('=');
        vars[kv.left(eq).toStdString()] = kv.mid(eq + 1).toStdString();
    }
    TimerConfig c = TimerConfig::parse(config.toStdString(), "c");
    c.applyEnvironment([&](const char *k) -> const char * {
        auto it = vars.find(k);
        return it == vars.end() ? nullptr : it->second.c_str();
    });
    QCOMPARE(QString::fromStdString(c.sync.server.value_or("")), server);
    QCOMPARE(c.sync.hostServer, host);
    QCOMPARE(c.sync.fromTorchrun, host);
    QCOMPARE(QString::fromStdString(c.sync.token), token);
}

void TstTimerConfig::environmentErrors_data()
{
    QTest::addColumn<QString>("var");
    QTest::addColumn<QString>("value");
    QTest::addColumn<QString>("message");
    QTest::newRow("offset") << "SYNCLINE_TEST_CLOCK_OFFSET_NS"
                            << "12x"
                            << "environment SYNCLINE_TEST_CLOCK_OFFSET_NS: expected an integer "
                               "(ns), got \"12x\"";
    QTest::newRow("drift") << "SYNCLINE_TEST_CLOCK_DRIFT_PPM"
                           << "5000"
                           << "environment SYNCLINE_TEST_CLOCK_DRIFT_PPM: expected a number in "
                              "[-1000, 1000], got \"5000\"";
    QTest::newRow("wall") << "SYNCLINE_TEST_WALL_OFFSET_NS"
                          << "3ms"
                          << "environment SYNCLINE_TEST_WALL_OFFSET_NS: expected an integer "
                             "(ns), got \"3ms\"";
}

void TstTimerConfig::environmentErrors()
{
    QFETCH(QString, var);
    QFETCH(QString, value);
    QFETCH(QString, message);
    const std::string v = var.toStdString(), val = value.toStdString();
    TimerConfig c = TimerConfig::defaults();
    try {
        c.applyEnvironment([&](const char *k) { return v == k ? val.c_str() : nullptr; });
        QFAIL("no ConfigError");
    } catch (const ConfigError &e) {
        QCOMPARE(QString::fromUtf8(e.what()), message);
    }
}

void TstTimerConfig::glob_data()
{
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<QString>("name");
    QTest::addColumn<bool>("match");
    QTest::newRow("star all") << "*"
                              << "anything" << true;
    QTest::newRow("star empty") << "*"
                                << "" << true;
    QTest::newRow("prefix") << "layer*"
                            << "layer12" << true;
    QTest::newRow("prefix no") << "layer*"
                               << "xlayer" << false;
    QTest::newRow("middle") << "*reduce*"
                            << "all_reduce_grad" << true;
    QTest::newRow("question") << "step?"
                              << "step1" << true;
    QTest::newRow("question short") << "step?"
                                    << "step" << false;
    QTest::newRow("set range") << "gpu[0-3]"
                               << "gpu2" << true;
    QTest::newRow("set range out") << "gpu[0-3]"
                                   << "gpu7" << false;
    QTest::newRow("negated") << "gpu[!0-3]"
                             << "gpu7" << true;
    QTest::newRow("negated caret") << "gpu[^0-3]"
                                   << "gpu1" << false;
    QTest::newRow("escape") << "a\\*b"
                            << "a*b" << true;
    QTest::newRow("escape literal") << "a\\*b"
                                    << "axb" << false;
    QTest::newRow("backtrack") << "*a*b*c"
                               << "xaybzcbc" << true;
    QTest::newRow("backtrack fail") << "*a*b*c"
                                    << "xaybzcb" << false;
    QTest::newRow("whole name") << "forward"
                                << "forward_pass" << false;
    QTest::newRow("bracket close first") << "[]a]x"
                                         << "]x" << true;
}

void TstTimerConfig::glob()
{
    QFETCH(QString, pattern);
    QFETCH(QString, name);
    QFETCH(bool, match);
    QCOMPARE(GlobPattern::match(pattern.toStdString(), name.toStdString()), match);
}

void TstTimerConfig::globValidate()
{
    QVERIFY(!GlobPattern::validate("layer[0-9]*").has_value());
    QCOMPARE(*GlobPattern::validate("a[bc"), std::string("unterminated '[' at offset 1"));
    QCOMPARE(*GlobPattern::validate("ab\\"), std::string("trailing '\\' at offset 2"));
    QVERIFY(GlobPattern::hasWildcards("a*"));
    QVERIFY(!GlobPattern::hasWildcards("a\\*"));
}

QTEST_APPLESS_MAIN(TstTimerConfig)
#include "tst_timerconfig.moc"

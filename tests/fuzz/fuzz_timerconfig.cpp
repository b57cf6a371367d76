// fuzz_timerconfig — TimerConfig::parse (timer_config.json: nlohmann DOM, every key validated,
// event-kind globs) on the input; a config it accepts must keep its documented ranges, and the
// kind matcher (exact names, then globs) runs on names cut from the input.
#include "recorder/timerconfig.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

using syncline::rec::ConfigError;
using syncline::rec::TimerConfig;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const std::string_view text(reinterpret_cast<const char *>(data), size);
    TimerConfig config;
    try {
        config = TimerConfig::parse(text, "fuzz.json");
    } catch (const ConfigError &) {
        return 0; // refused with a message: the expected outcome for most inputs
    }
    if (config.flushIntervalMs < 1 || config.flushIntervalMs > 100 ||
        config.heartbeatIntervalMs < 10 || config.heartbeatIntervalMs > 600000 ||
        config.bufferEvents < 1) {
        std::fprintf(stderr, "fuzz_timerconfig: accepted a value outside its range\n");
        std::abort();
    }
    // Names to match: the kinds' own names and slices of the input.
    for (const auto &k : config.eventKinds)
        (void)config.matchKind(k.pattern);
    for (size_t i = 0; i + 1 < text.size() && i < 256; i += 16)
        (void)config.matchKind(text.substr(i, 24));
    return 0;
}

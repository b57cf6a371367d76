// consumer — docs/cpp.md's example, built by tests/install against an installed syncline: every
// public header, RAII scope, macros, args, an interval, a second thread. It writes
// timer_events.log in the working directory; scripts/test-install.sh checks it with the
// installed `syncline check` and prints what it recorded.
#include "recorder/filetimerclient.h"
#include "recorder/scopedevent.h"
#include "recorder/timermacros.h"

#include <cstdio>
#include <thread>

using syncline::rec::FileTimerClient;

int main()
{
    FileTimerClient timer("timer_config.json", "timer_events.log"); // callbacks optional

    timer.startEvent("forward", {{"step", 12}, {"phase", "train"}});
    timer.endEvent("forward");
    {
        syncline::rec::ScopedEvent step(timer, "step"); // RAII: ends at the brace
        SYNCLINE_SCOPE(timer, bwd, "backward");         // the same, as a macro
        timer.instant("loss_ready", {{"loss", 0.25}});
    }
    const int64_t t0 = timer.nowNs();
    timer.recordInterval("kernel", t0, timer.nowNs(), {{"stream", 0}});

    std::thread loader([&] {
        timer.setThreadName("dataloader"); // its own track and nesting stack
        SYNCLINE_SCOPE(timer, load, "load_batch");
    });
    loader.join();
    timer.close();
    const auto stats = timer.stats();
    std::printf("consumer: %s: %llu events written, %llu dropped, ok=%d\n", timer.logPath().c_str(),
                static_cast<unsigned long long>(stats.written),
                static_cast<unsigned long long>(stats.dropped), timer.ok() ? 1 : 0);
    return timer.ok() && stats.dropped == 0 ? 0 : 1;
}

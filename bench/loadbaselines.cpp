// bench_load's baselines — see loadbaselines.h.
#include "bench/loadbaselines.h"

#include <nlohmann/json.hpp>
#include <simdjson.h>

#include <chrono>
#include <cstdio>
#include <fcntl.h>
#include <fstream>
#include <thread>
#include <unistd.h>

namespace syncline::bench {

namespace {

uint64_t touch(simdjson::ondemand::value v);

uint64_t touchObject(simdjson::ondemand::object o)
{
    uint64_t h = 0;
    for (auto field : o) {
        h += field.unescaped_key().value().size();
        h += touch(field.value());
    }
    return h;
}

uint64_t touch(simdjson::ondemand::value v)
{
    switch (v.type().value()) {
    case simdjson::ondemand::json_type::object:
        return touchObject(v.get_object().value());
    case simdjson::ondemand::json_type::array: {
        uint64_t h = 0;
        for (auto el : v.get_array())
            h += touch(el.value());
        return h;
    }
    case simdjson::ondemand::json_type::string:
        return v.get_string().value().size();
    case simdjson::ondemand::json_type::number:
        return uint64_t(v.get_int64().value());
    case simdjson::ondemand::json_type::boolean:
        return v.get_bool().value();
    default:
        return 0;
    }
}

} // namespace

// Runs fn(file) over the files on `threads` threads; returns seconds.
double forFiles(const std::vector<std::string> &files, int threads,
                const std::function<void(const std::string &)> &fn)
{
    std::atomic<size_t> next{0};
    const auto t0 = std::chrono::steady_clock::now();
    auto work = [&] {
        for (size_t i; (i = next.fetch_add(1)) < files.size();)
            fn(files[i]);
    };
    std::vector<std::thread> pool;
    for (int k = 1; k < threads; ++k)
        pool.emplace_back(work);
    work();
    for (auto &t : pool)
        t.join();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double simdjsonRaw(const std::vector<std::string> &files, int threads, std::atomic<uint64_t> &docs)
{
    return forFiles(files, threads, [&](const std::string &path) {
        simdjson::padded_string text = simdjson::padded_string::load(path).value();
        simdjson::ondemand::parser parser;
        simdjson::ondemand::document_stream stream = parser.iterate_many(text).value();
        uint64_t h = 0, n = 0;
        for (auto doc : stream) {
            h += touchObject(doc.get_object().value());
            ++n;
        }
        docs += n + (h == 42 ? 1 : 0);
    });
}

double nlohmannLines(const std::vector<std::string> &files, int threads,
                     std::atomic<uint64_t> &lines)
{
    return forFiles(files, threads, [&](const std::string &path) {
        std::ifstream in(path);
        std::string line;
        uint64_t n = 0, h = 0;
        while (std::getline(in, line)) {
            const auto j = nlohmann::json::parse(line);
            h += j["t"].get_ref<const std::string &>().size();
            ++n;
        }
        lines += n + (h == 42 ? 1 : 0);
    });
}

double preadAll(const std::vector<std::string> &files, int threads)
{
    return forFiles(files, threads, [](const std::string &path) {
        const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            return;
        std::vector<char> buf(4 << 20);
        off_t off = 0;
        uint64_t h = 0;
        for (ssize_t n; (n = ::pread(fd, buf.data(), buf.size(), off)) > 0; off += n)
            h += uint8_t(buf[size_t(n) / 2]);
        ::close(fd);
        if (h == 42)
            std::puts("");
    });
}

} // namespace syncline::bench

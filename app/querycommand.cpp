// `syncline query PATH... "SQL" [--csv | --json] [--align-on PATTERN] [--raw] [--no-correct]
//  [--quiet]` — runs one SQL statement over the job's timeline as an SQLite database (the schema
// of `export --sqlite`, report/sqliteexporter.h) and prints the result: aligned text (default),
// CSV (RFC 4180, a header line) or JSON ({"columns": [...], "rows": [[...], ...]}).
// The database is written to a fresh temporary file (created exclusively), queried read-only
// and removed.
#include "command.h"
#include "jobargs.h"

#include "recorder/utf8.h"
#include "timeline/report/sqliteexporter.h"
#include "timeline/report/textwriter.h"

#include <sqlite3.h>

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <unistd.h>
#include <vector>

namespace syncline::app {

namespace {

enum class Format
{
    Text,
    Csv,
    Json
};

int run(int argc, char **argv)
{
    JobArgs args;
    Format format = Format::Text;
    const int rc = args.parse("query", argc, argv, [&](int &i) {
        const std::string a = argv[i];
        if (a == "--csv" || a == "--json") {
            format = a == "--csv" ? Format::Csv : Format::Json;
            return 1;
        }
        return 0;
    });
    if (rc >= 0)
        return rc;
    if (args.paths.size() < 2) {
        std::fprintf(stderr, "syncline query: expected PATH... and an SQL statement\n");
        return 2;
    }
    const std::string sql = args.paths.back();
    args.paths.pop_back();
    auto tl = args.load("query");
    if (!tl)
        return 1;
    const char *tmpdir = std::getenv("TMPDIR");
    std::string dir = tmpdir && *tmpdir ? tmpdir : "/tmp";
    std::string tmpl = dir + "/syncline-query-XXXXXX";
    std::vector<char> name(tmpl.begin(), tmpl.end());
    name.push_back('\0');
    if (!mkdtemp(name.data())) {
        std::fprintf(stderr, "syncline query: cannot create a temporary directory in %s\n",
                     dir.c_str());
        return 1;
    }
    const std::string tmpDir = name.data(), db = tmpDir + "/job.db";
    auto cleanup = [&] {
        std::remove(db.c_str());
        rmdir(tmpDir.c_str());
    };
    std::string error;
    if (!SqliteExporter::write(*tl, args.mode(), db, &error)) {
        std::fprintf(stderr, "syncline query: %s\n", error.c_str());
        cleanup();
        return 1;
    }
    sqlite3 *h = nullptr;
    sqlite3_stmt *st = nullptr;
    int status = 0;
    if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK ||
        sqlite3_prepare_v2(h, sql.c_str(), -1, &st, nullptr) != SQLITE_OK) {
        std::fprintf(stderr, "syncline query: %s\n", h ? sqlite3_errmsg(h) : "cannot open");
        sqlite3_close(h);
        cleanup();
        return 2;
    }
    const int cols = sqlite3_column_count(st);
    std::vector<std::string> header;
    for (int c = 0; c < cols; ++c)
        header.push_back(sqlite3_column_name(st, c));
    std::vector<std::vector<std::string>> rows; // text form (Text, Csv)
    TextWriter w(std::cout);
    if (format == Format::Json) {
        w << "{\"columns\": [";
        for (int c = 0; c < cols; ++c) {
            if (c)
                w << ", ";
            w.jsonString(header[size_t(c)]);
        }
        w << "], \"rows\": [";
    } else if (format == Format::Csv) {
        for (int c = 0; c < cols; ++c) {
            if (c)
                w << ',';
            w.csvField(header[size_t(c)]);
        }
        w << '\n';
    }
    size_t n = 0;
    int r;
    while ((r = sqlite3_step(st)) == SQLITE_ROW) {
        std::vector<std::string> row;
        if (format == Format::Json)
            w << (n ? ",\n  [" : "\n  [");
        for (int c = 0; c < cols; ++c) {
            const int type = sqlite3_column_type(st, c);
            const char *text = reinterpret_cast<const char *>(sqlite3_column_text(st, c));
            const std::string v = text ? std::string(text, size_t(sqlite3_column_bytes(st, c))) : "";
            if (format == Format::Json) {
                if (c)
                    w << ", ";
                if (type == SQLITE_NULL)
                    w << "null";
                else if (type == SQLITE_INTEGER)
                    w.num(int64_t(sqlite3_column_int64(st, c)));
                else if (type == SQLITE_FLOAT)
                    w.num(sqlite3_column_double(st, c));
                else
                    w.jsonString(v);
            } else if (format == Format::Csv) {
                if (c)
                    w << ',';
                w.csvField(v);
            } else {
                row.push_back(type == SQLITE_NULL ? "NULL" : utf8::terminalSafe(v));
            }
        }
        if (format == Format::Json)
            w << ']';
        else if (format == Format::Csv)
            w << '\n';
        else
            rows.push_back(std::move(row));
        ++n;
    }
    if (r != SQLITE_DONE) {
        std::cout.flush();
        std::fprintf(stderr, "syncline query: %s\n", sqlite3_errmsg(h));
        status = 1;
    }
    if (format == Format::Json)
        w << "]}\n";
    if (format == Format::Text) {
        std::vector<size_t> width(static_cast<size_t>(cols), 0);
        for (int c = 0; c < cols; ++c)
            width[size_t(c)] = header[size_t(c)].size();
        for (const auto &row : rows)
            for (size_t c = 0; c < row.size(); ++c)
                width[c] = std::max(width[c], row[c].size());
        auto line = [&](const std::vector<std::string> &v) {
            for (size_t c = 0; c < v.size(); ++c)
                std::printf(c + 1 < v.size() ? "%-*s  " : "%-*s", int(c + 1 < v.size() ? width[c] : 0),
                            v[c].c_str());
            std::printf("\n");
        };
        line(header);
        for (const auto &row : rows)
            line(row);
        std::printf("(%zu row%s)\n", n, n == 1 ? "" : "s");
    }
    std::cout.flush();
    sqlite3_finalize(st);
    sqlite3_close(h);
    cleanup();
    printProblemSummary(*tl, "query");
    return status;
}

} // namespace

SYNCLINE_REGISTER_COMMAND((Command{
    "query",
    "query PATH... \"SQL\" [--csv | --json] [--align-on PATTERN] [--raw] [--no-correct] [--quiet]",
    "Loads the job and runs one SQL statement (SQLite) over it, the tables of export --sqlite\n"
    "(events, workers, threads, counters, links, steps, meta; docs/cli.md \"SQLite schema\"):\n"
    "  syncline query run/ \"SELECT name, rank, count(*), sum(dur_ns) FROM events\n"
    "                       WHERE status != 'open' AND kind != 'instant' GROUP BY name, rank\"\n"
    "  --csv    print the result as CSV (a header line)\n"
    "  --json   print {\"columns\": [...], \"rows\": [[...], ...]}\n"
    "The database is read-only to the statement. An SQL error exits 2 with SQLite's message.",
    run}));

} // namespace syncline::app

// `syncline query PATH... "SQL" [--csv | --json] [--align-on PATTERN] [--raw] [--no-correct]
//  [--quiet]` — runs one SQL statement over the job's timeline as an SQLite database (the schema
// of `export --sqlite`, report/sqliteexporter.h) and prints the result: aligned text (default),
// CSV (RFC 4180, a header line) or JSON ({"columns": [...], "rows": [[...], ...]}).
// The database is cached beside the job's index (`.syncline-index/query-<hash>.db`, keyed by
// JobStamp: every input's path, size, mtime, inode and head hash, the options, the format):
// a query on an unchanged job opens it without loading the job; a changed job, or a stale,
// foreign, truncated or non-SQLite file there, is rebuilt (written aside, renamed over). The
// statement runs on a read-only connection. Where no cache place can be used, a temporary
// database is written and removed.
#include "command.h"
#include "jobargs.h"

#include "recorder/utf8.h"
#include "timeline/load/store/jobstamp.h"
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
    // The cached database beside the job's index, when one matches the job's files as they are
    // now (the stamp is taken before any load); else the job is loaded and the database
    // written there (or, when no cache place can be used, to a temporary file).
    const std::string variant = std::string(SqliteExporter::kFormat) + " syncline " +
                                SYNCLINE_VERSION + " mode=" +
                                clockChoiceName(args.clock.value_or(ClockChoice::Corrected)) +
                                (args.ranks.all() ? "" : " ranks=" + args.ranks.toString());
    const JobStamp stamp =
        JobStamp::of(args.paths, args.alignOn, args.correct, variant, "query-", ".db");
    std::string db, tmpDir;
    bool cached = false;
    if (!stamp.key.empty())
        for (const std::string &f : stamp.files)
            if (SqliteExporter::isCache(f, stamp.key)) {
                db = f;
                cached = true;
                break;
            }
    auto cleanup = [&] {
        if (!tmpDir.empty()) {
            std::remove(db.c_str());
            rmdir(tmpDir.c_str());
        }
    };
    std::shared_ptr<Timeline> tl;
    if (!cached) {
        tl = args.load("query");
        if (!tl)
            return 1;
        int errors = 0, warnings = 0;
        for (const LoadProblem &p : tl->problems) {
            errors += p.severity == LoadProblem::Severity::Error;
            warnings += p.severity == LoadProblem::Severity::Warning;
        }
        const SqliteExporter::Meta extra = {{"cache_key", stamp.key},
                                            {"load_errors", std::to_string(errors)},
                                            {"load_warnings", std::to_string(warnings)}};
        std::string error, why;
        if (!stamp.key.empty())
            for (const std::string &f : stamp.files)
                if (JobStamp::preparePlace(f, &why) &&
                    SqliteExporter::write(*tl, args.mode(), f, &error, extra)) {
                    db = f;
                    break;
                }
        if (db.empty()) { // no usable cache place: a private temporary directory
            const char *tmpdir = std::getenv("TMPDIR");
            std::string tmpl = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") +
                               "/syncline-query-XXXXXX";
            if (!mkdtemp(tmpl.data())) {
                std::fprintf(stderr, "syncline query: cannot create a temporary directory\n");
                return 1;
            }
            tmpDir = tmpl;
            db = tmpDir + "/job.db";
            if (!SqliteExporter::write(*tl, args.mode(), db, &error, extra)) {
                std::fprintf(stderr, "syncline query: %s\n", error.c_str());
                cleanup();
                return 1;
            }
        }
    }
    sqlite3 *h = nullptr;
    sqlite3_stmt *st = nullptr;
    int status = 0;
    if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOFOLLOW, nullptr) !=
            SQLITE_OK ||
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
        if (cached && (r == SQLITE_CORRUPT || r == SQLITE_NOTADB)) {
            // Damage the checks before could not see: the next query rebuilds it.
            std::remove(db.c_str());
            std::fprintf(stderr, "syncline query: removed the damaged cache %s; run again\n",
                         db.c_str());
        }
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
    // The load's problem counts (stored with the data, so a cached answer reports them too).
    int64_t counts[2] = {0, 0};
    if (sqlite3_prepare_v2(h, "SELECT key, value FROM meta WHERE key IN ('load_errors', "
                              "'load_warnings')",
                           -1, &st, nullptr) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW)
            counts[std::string(reinterpret_cast<const char *>(sqlite3_column_text(st, 0))) ==
                           "load_errors"
                       ? 0
                       : 1] = sqlite3_column_int64(st, 1);
        sqlite3_finalize(st);
    }
    sqlite3_close(h);
    cleanup();
    printProblemCounts(counts[0], counts[1], "query");
    return status;
}

} // namespace

SYNCLINE_REGISTER_COMMAND((Command{
    "query",
    "query PATH... \"SQL\" [--csv | --json] [--align-on PATTERN] [--clock C] [--raw] [--no-correct] [--quiet]",
    "Loads the job and runs one SQL statement (SQLite) over it, the tables of export --sqlite\n"
    "(events, workers, threads, counters, links, steps, collectives, meta; docs/cli.md\n"
    "\"SQLite schema\"):\n"
    "  syncline query run/ \"SELECT name, rank, count(*), sum(dur_ns) FROM events\n"
    "                       WHERE status != 'open' AND kind != 'instant' GROUP BY name, rank\"\n"
    "  --csv    print the result as CSV (a header line)\n"
    "  --json   print {\"columns\": [...], \"rows\": [[...], ...]}\n"
    "The database is read-only to the statement. An SQL error exits 2 with SQLite's message.\n"
    "The database is cached in the job's .syncline-index/ and rebuilt when a file changes.",
    run}));

} // namespace syncline::app

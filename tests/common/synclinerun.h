// synclinerun — runs the real `syncline` executable of the build tree as a process (its exit
// code, stdout and stderr), and writes / reads test files byte for byte: the helpers of the
// tests that drive the CLI (tst_jobcommands, tst_comparecommand).
#pragma once

#include <QProcess>
#include <QString>
#include <QStringList>

#include <fstream>
#include <sstream>
#include <string>

namespace synclinerun {

struct Run
{
    int exitCode = -1; // -1: crashed or did not finish within the timeout
    std::string out, err;
};

inline Run syncline(const QStringList &args, int timeoutMs = 50000)
{
    QProcess p;
    p.start(QStringLiteral(SYNCLINE_BINARY_DIR "/bin/syncline"), args);
    Run r;
    if (!p.waitForFinished(timeoutMs))
        return r;
    r.exitCode = p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.out = p.readAllStandardOutput().toStdString();
    r.err = p.readAllStandardError().toStdString();
    return r;
}

inline void write(const QString &path, const std::string &text)
{
    std::ofstream(path.toStdString(), std::ios::binary) << text;
}

inline std::string slurp(const QString &path)
{
    std::ifstream in(path.toStdString(), std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

} // namespace synclinerun

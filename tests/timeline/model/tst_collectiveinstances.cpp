// CollectiveInstances: the instance key of a collective event. Args with a process group and a
// sequence number (Kineto's NCCL metadata, syncline.torch's record_collectives) key by them, so
// two workers that recorded different stretches still pair the same operation; args without
// them, or malformed, fall back to the k-th occurrence of the name. The args reader takes only
// the object's own members, integers in [0, 2^40), and never reads past the text.
#include "timeline/model/collectiveinstances.h"

#include <QtTest>

using namespace syncline;

namespace {

// One worker with one track of `names` (complete events, 10 µs apart), args per event ("" none).
void addWorker(Timeline &tl, const std::vector<std::string> &names,
               const std::vector<std::string> &args)
{
    Worker w;
    EventTrack t;
    for (size_t i = 0; i < names.size(); ++i) {
        t.localStart.push_back(int64_t(i) * 10'000);
        t.localEnd.push_back(int64_t(i) * 10'000 + 5'000);
        t.nameId.push_back(tl.names.intern(names[i]));
        t.parent.push_back(-1);
        t.depth.push_back(0);
        t.flags.push_back(args[i].empty() ? 0 : EventHasArgs);
        if (!args[i].empty())
            t.argRefs.push_back({uint32_t(i), tl.args.intern(args[i])});
    }
    w.tracks.push_back(std::move(t));
    tl.workers.push_back(std::move(w));
}

std::string kineto(int seq, const std::string &pg = "0")
{
    return "{\n  \"External id\": 12,\"Collective name\": \"allreduce\", \"In msg nelems\": 4, "
           "\"Out msg nelems\": 4, \"Group size\": 2, \"Process Group Name\": \"" +
           pg + "\", \"Process Group Description\": \"default_pg\", \"seq_num\": " +
           std::to_string(seq) + "\n}";
}

} // namespace

class TstCollectiveInstances : public QObject
{
    Q_OBJECT

private slots:
    void groupAndSequenceFromArgs_data()
    {
        QTest::addColumn<QString>("args");
        QTest::addColumn<QString>("group");
        QTest::addColumn<qlonglong>("seq");
        QTest::newRow("kineto") << QString::fromStdString(kineto(41)) << "0" << 41ll;
        QTest::newRow("Seq") << "{\"Process Group Name\": \"3\", \"Seq\": 7}" << "3" << 7ll;
        QTest::newRow("syncline.torch") << "{\"group\": \"world\", \"seq\": 0}" << "world" << 0ll;
        QTest::newRow("seq_num over Seq")
            << "{\"Seq\": 1, \"seq_num\": 2, \"Process Group Name\": \"0\"}" << "0" << 2ll;
        QTest::newRow("nested members ignored")
            << "{\"x\": {\"seq_num\": 5, \"group\": \"g\"}, \"l\": [\"seq_num\", 6], \"Process Group Name\": \"1\", \"seq_num\": 9}"
            << "1" << 9ll;
        QTest::newRow("escaped quote in a value")
            << "{\"note\": \"a \\\"seq_num\\\": 4\", \"group\": \"g\\\"1\", \"seq\": 3}" << "g\\\"1" << 3ll;
        QTest::newRow("largest") << "{\"group\": \"g\", \"seq\": 1099511627775}" << "g" << 1099511627775ll;
        // Not keyed (-1): a missing half, a number that is no sequence, p2p, broken text.
        QTest::newRow("no group") << "{\"bucket\": 3, \"iteration\": 1, \"seq\": 4}" << "" << -1ll;
        QTest::newRow("no seq (2024 kineto)")
            << "{\"Collective name\": \"allreduce\", \"Process Group ID\": 0, \"Sequence number\": 18449}"
            << "" << -1ll;
        QTest::newRow("negative") << "{\"group\": \"g\", \"seq\": -1}" << "" << -1ll;
        QTest::newRow("fraction") << "{\"group\": \"g\", \"seq\": 1.5}" << "" << -1ll;
        QTest::newRow("quoted") << "{\"group\": \"g\", \"seq\": \"4\"}" << "" << -1ll;
        QTest::newRow("2^40") << "{\"group\": \"g\", \"seq\": 1099511627776}" << "" << -1ll;
        QTest::newRow("huge") << "{\"group\": \"g\", \"seq\": 99999999999999999999999}" << "" << -1ll;
        QTest::newRow("empty group") << "{\"group\": \"\", \"seq\": 4}" << "" << -1ll;
        QTest::newRow("p2p") << "{\"peer\": 1, \"group\": \"world\", \"tag\": 0, \"seq\": 2}" << "" << -1ll;
        QTest::newRow("unterminated") << "{\"group\": \"world\", \"seq\": 2" << "" << -1ll;
        QTest::newRow("cut string") << "{\"group\": \"wor" << "" << -1ll;
        QTest::newRow("cut object") << "{\"x\": {\"y\": [1, 2" << "" << -1ll;
        QTest::newRow("array") << "[{\"group\": \"g\", \"seq\": 1}]" << "" << -1ll;
        QTest::newRow("empty") << "" << "" << -1ll;
    }
    void groupAndSequenceFromArgs()
    {
        QFETCH(QString, args);
        QFETCH(QString, group);
        QFETCH(qlonglong, seq);
        std::string g;
        int64_t s = -1;
        const bool ok = CollectiveInstances::groupAndSequence(args.toStdString(), g, s);
        QCOMPARE(ok, seq >= 0);
        if (ok) {
            QCOMPARE(QString::fromStdString(g), group);
            QCOMPARE(qlonglong(s), seq);
        }
    }

    // Rank 1 recorded from the third all_reduce on (its profiler window started later): by
    // seq_num its first event is rank 0's third; the k-th rule would call it rank 0's first.
    void keyedBySequenceWhereCountsDiffer()
    {
        Timeline tl;
        const std::vector<std::string> ar(5, "nccl:all_reduce");
        addWorker(tl, ar, {kineto(10), kineto(11), kineto(12), kineto(13), kineto(14)});
        addWorker(tl, {ar.begin(), ar.begin() + 3}, {kineto(12), kineto(13), kineto(14)});
        const auto all = [](uint32_t) { return true; };
        const auto r0 = CollectiveInstances::of(tl, 0, 0, all);
        const auto r1 = CollectiveInstances::of(tl, 1, 0, all);
        QCOMPARE(r0.size(), size_t(5));
        QCOMPARE(r1.size(), size_t(3));
        for (size_t i = 0; i < 3; ++i) {
            QVERIFY(r1[i].byGroup());
            QCOMPARE(r1[i].key, r0[i + 2].key);
            QCOMPARE(r1[i].sequence, r0[i + 2].sequence);
            QCOMPARE(r1[i].sequence & CollectiveInstances::kIndexMask, int64_t(12 + i));
        }
        // Another process group with the same numbers is another instance.
        Timeline other;
        addWorker(other, {"nccl:all_reduce"}, {kineto(12, "1")});
        const auto o = CollectiveInstances::of(other, 0, 0, all);
        QVERIFY(o[0].key != r1[0].key);
        // The generation goes in the high bits.
        const auto g1 = CollectiveInstances::of(tl, 1, 1, all);
        QCOMPARE(g1[0].sequence, (int64_t(1) << CollectiveInstances::kGenerationShift) | 12);
    }

    // Without metadata (or with a half of it) the k-th of each name, counted per name; a second
    // event of one worker with the same (group, seq) is not another instance.
    void fallsBackToKthAndDropsDuplicates()
    {
        Timeline tl;
        addWorker(tl, {"all_reduce", "broadcast", "all_reduce", "ncclKernel", "cpu op", "all_reduce"},
                  {"", "{\"seq\": 4}", "{\"Process Group ID\": 0}", kineto(3), kineto(3), ""});
        const auto c = CollectiveInstances::of(tl, 0, 0, [](uint32_t) { return true; });
        QCOMPARE(c.size(), size_t(5)); // the cpu op with kineto(3) again is left out
        QCOMPARE(c[0].key, tl.names.find("all_reduce"));
        QCOMPARE(c[0].sequence, int64_t(0));
        QCOMPARE(c[1].key, tl.names.find("broadcast"));
        QCOMPARE(c[1].sequence, int64_t(0));
        QCOMPARE(c[2].sequence, int64_t(1));
        QVERIFY(c[3].byGroup());
        QCOMPARE(c[3].nameId, tl.names.find("ncclKernel"));
        QCOMPARE(c[3].sequence, int64_t(3));
        QCOMPARE(c[4].nameId, tl.names.find("all_reduce"));
        QCOMPARE(c[4].sequence, int64_t(2));
    }
};

QTEST_APPLESS_MAIN(TstCollectiveInstances)
#include "tst_collectiveinstances.moc"

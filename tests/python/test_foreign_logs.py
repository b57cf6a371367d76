"""`syncline check` on logs written by an independent writer (this file, from docs/log-format.md
alone): a collective instance marked failed (args "failed": true) — a peer crashed during it, so
it ended before another rank began it — constrains nothing, and the job is clean; unmarked, the
same instance is a causality violation that no map can repair."""
import json
import subprocess

import pytest

REF = "foreign-server@0badc0de"


def write_job(directory, failed):
    # Two hosts; true time τ (ns); host r's clock reads τ + offset[r]; the server reads τ.
    offset = [1_000_000_000_000, 1_077_000_000_000]
    for rank in (0, 1):
        off = offset[rank]
        recs = []

        def rec(local, **fields):
            recs.append((local, json.dumps(fields, separators=(",", ":"))))

        for burst in range(12):  # one burst every 0.1 s, 20 µs each way, no queueing
            tau = burst * 100_000_000 + 1_000_000
            for seq in range(4):
                t1 = tau + seq * 100_000
                rec(t1 + 45_000 + off, t="sync", burst=burst, seq=seq, ref=REF, t1=t1 + off,
                    t2=t1 + 20_000, t3=t1 + 25_000, t4=t1 + 45_000 + off)
        for k in range(9):
            begin, end = 10_000_000 * k + 1_000_000 * rank, 10_000_000 * k + 9_500_000
            rec(begin + off, t="X", ts=begin + off, dur=end - begin, tid=1,
                name="ddp_allreduce", args={"seq": k})
        if rank == 0:
            args = {"seq": 9}
            if failed:
                args.update(failed=True, error="Connection closed by peer [rank 2]")
            rec(100_000_000 + off, t="X", ts=100_000_000 + off, dur=1_000_000, tid=1,
                name="ddp_allreduce", args=args)
            rec(102_000_000 + off, t="msg", ts=102_000_000 + off, tid=1, dir="send", peer=1,
                id="a")
            rec(153_000_000 + off, t="msg", ts=153_000_000 + off, tid=1, dir="recv", peer=1,
                id="b")
        else:
            rec(103_000_000 + off, t="msg", ts=103_000_000 + off, tid=1, dir="recv", peer=0,
                id="a")
            rec(150_000_000 + off, t="X", ts=150_000_000 + off, dur=1_000_000, tid=1,
                name="ddp_allreduce", args={"seq": 9})
            rec(152_000_000 + off, t="msg", ts=152_000_000 + off, tid=1, dir="send", peer=0,
                id="b")
        recs.sort(key=lambda r: r[0])
        header = {"t": "header", "format": "syncline", "version": 1, "rank": rank,
                  "local_rank": 0, "world_size": 2, "group_rank": rank, "role": "default",
                  "restart": 0, "run_id": "foreign", "host": f"host-{rank}",
                  "boot_id": f"boot-{rank}", "pid": 100 + rank, "clock": "monotonic_raw",
                  "anchor": {"mono_ns": off, "wall_ns": 1_700_000_000_000_000_000,
                             "spread_ns": 50},
                  "config": None, "start_ns": off}
        lines = [json.dumps(header), '{"t":"thread","tid":1,"name":"main"}']
        lines += [line for _, line in recs]
        lines.append(json.dumps({"t": "close", "ts": 1_200_000_000 + off, "events": 11,
                                 "dropped": 0, "open": 0}))
        (directory / f"timer_events.{rank}.log").write_text("\n".join(lines) + "\n")


@pytest.mark.parametrize("failed", [True, False])
def test_failed_collective_is_no_causality_violation(tmp_path, bin_dir, failed):
    write_job(tmp_path, failed)
    r = subprocess.run([str(bin_dir / "syncline"), "check", "--align-on", "ddp_allreduce",
                        str(tmp_path)], capture_output=True, text=True, timeout=120)
    if failed:
        assert r.returncode == 0, r.stdout + r.stderr
        assert "causality" not in r.stdout
    else:  # the control: the rule applied to an instance that looks complete
        assert r.returncode == 1, r.stdout + r.stderr
        assert "1 causality violation(s) remain" in r.stdout

"""The demo's "raw vs corrected" report: each worker incarnation's clock against the truth, and
each host's achieved error.

Truth, per host: {offset_ns, drift_ppm} such that the host's stamps read
physical·(1 + drift_ppm·1e-6) + offset_ns, physical being this machine's CLOCK_MONOTONIC_RAW.
On the testbed (demo_testbed.truth) that is the time namespace's offset and no drift; with hosts
emulated inside the recorder it is the log header's `skew` (a host without one: 0, 0). The
engine's estimate is `syncline stats --json`'s per-worker `offset_ns` (global − local at the
worker's first event); both are compared relative to rank 0 (restart 0), so where the global
scale's zero lies does not matter. An error is corrected − true time of the worker's events
(the estimate of how far its clock is ahead, short of the truth): the sign of the floor. Optional per host: `floor_ns`, the error the links' asymmetry
sets (testbed only), printed beside the achieved error.
"""
import json
import pathlib
import statistics


def first_event_and_header(log):
    """The log's header and the local stamp of its first B/I/X record."""
    header, first = None, None
    with open(log, encoding="utf-8") as f:
        for line in f:
            try:
                r = json.loads(line)
            except json.JSONDecodeError:
                continue
            if r.get("t") == "header":
                header = r
            elif r.get("t") in ("B", "I", "X"):
                first = r["ts"] if first is None else min(first, r["ts"])
                if first is not None and header is not None:
                    break
    return header, first


def truth_from_headers(logs):
    """{host: {offset_ns, drift_ppm}} from the headers' `skew` (emulated hosts)."""
    out = {}
    for header, _ in logs.values():
        skew = header.get("skew") or {"offset_ns": 0, "drift_ppm": 0.0}
        out.setdefault(header["host"], {"offset_ns": skew["offset_ns"],
                                        "drift_ppm": skew["drift_ppm"]})
    return out


def true_minus_local(t, local_ns):
    """physical − local at local_ns for a host of truth t."""
    physical = (local_ns - t["offset_ns"]) / (1.0 + t["drift_ppm"] * 1e-6)
    return physical - local_ns


def incarnation_key(d):
    """A worker incarnation: (rank, restart, pid) — from a log header or a stats JSON worker."""
    return d["rank"], d["restart"], d["pid"]


def read_logs(jobdir):
    logs = {}
    for log in sorted(pathlib.Path(jobdir).glob("timer_events.*.log")):
        header, first = first_event_and_header(log)
        if header and first is not None:
            logs[incarnation_key(header)] = (header, first)
    return logs


def describe_raw(truth, testbed, say):
    """The raw clocks' disagreement, in words."""
    ref, *others = list(truth)
    for host in others:
        t, r = truth[host], truth[ref]
        ahead = t["offset_ns"] - r["offset_ns"]
        if testbed:
            say(f"raw clocks: {host}'s monotonic clock reads {ahead / 1e6:+.3f} ms against "
                f"{ref}'s (their time namespaces' offsets), with no drift (one oscillator drives "
                f"both); the hosts' wall clocks are this machine's, exact.")
        else:
            say(f"raw clocks: {host}'s clock is {ahead / 1e6:+.1f} ms offset + "
                f"{t['drift_ppm']:g} ppm of drift since boot against {ref}'s (from the log "
                f"headers' `skew`), and drifts {t['drift_ppm']:g} µs further apart every second.")
            say(f"wall clocks (what viewers without skew correction align by): {host} is "
                f"{ahead / 1e6:+.1f} ms off at the start and drifts {t['drift_ppm']:g} µs/s — "
                f"the viewer's View ▸ Raw clocks (no correction) shows that.")


def report_clocks(jobdir, stats_json, truth, testbed, say):
    """Prints the table and the per-host lines; returns {host: achieved error ns} (median over
    the host's incarnations), or {} without estimates."""
    say("\n=== clocks: raw vs corrected ===")
    logs = read_logs(jobdir)
    truth = truth or truth_from_headers(logs)
    describe_raw(truth, testbed, say)
    estimated = {}
    if stats_json and pathlib.Path(stats_json).exists():
        for w in json.loads(pathlib.Path(stats_json).read_text())["workers"]:
            estimated[incarnation_key(w)] = w["clock"]
    if not estimated or not logs:
        say("corrected: no `syncline stats --json` output, so no estimates to compare")
        return {}
    r0 = min(logs)
    base_true = true_minus_local(truth[logs[r0][0]["host"]], logs[r0][1])
    base_est = estimated[r0]["offset_ns"]
    say(f"{'rank':>4} {'restart':>7} {'host':<7} {'raw clock vs rank ' + str(r0[0]):>22} "
        f"{'syncline estimate':>18} {'error':>10} {'bound':>10} {'drift est.':>11}  method")
    worst = max_truth = 0.0
    outside, per_host = [], {}
    for key in sorted(logs):
        header, first = logs[key]
        # how far ahead this clock is of rank 0's, true and estimated
        true_ahead = base_true - true_minus_local(truth[header["host"]], first) + 0.0
        est = base_est - estimated[key]["offset_ns"] + 0.0
        err = true_ahead - est + 0.0  # corrected − true time of this worker's events
        per_host.setdefault(header["host"], []).append(err)
        worst = max(worst, abs(err))
        max_truth = max(max_truth, abs(true_ahead))
        c = estimated[key]
        if abs(err) > c["bound_ns"] + estimated[r0]["bound_ns"]:
            outside.append(key[:2])
        say(f"{key[0]:>4} {key[1]:>7} {header['host']:<7} {true_ahead / 1e6:>19.3f} ms "
            f"{est / 1e6:>15.3f} ms {err / 1e3:>7.1f} µs {c['bound_ns'] / 1e3:>7.1f} µs "
            f"{c['drift_ppm']:>7.1f} ppm  {c['method']}")
    say(f"raw: the hosts' monotonic clocks disagree by {max_truth / 1e6:.3f} ms; corrected: the "
        f"largest error left is {worst / 1e3:.1f} µs ("
        + ("every one within its bound" if not outside
           else f"(rank, restart) {outside} outside their bounds")
        + f", bounds relative to rank {r0[0]} add rank {r0[0]}'s).")
    achieved = {h: statistics.median(e) + 0.0 for h, e in per_host.items()}  # no "-0.0"
    for host, err in achieved.items():
        t = truth[host]
        line = (f"{host}: achieved error {err / 1e3:+.1f} µs against the truth (median over its "
                f"{len(per_host[host])} incarnations)")
        if "floor_ns" in t and t.get("to_server_ns"):
            line += (f"; the floor its links set: {t['floor_ns'] / 1e3:+.1f} µs (half the "
                     f"asymmetry: {t['to_server_ns'] / 1e3:.0f} µs to the server's host, "
                     f"{t['from_server_ns'] / 1e3:.0f} µs back; no method can see it)")
        elif "floor_ns" in t:
            line += "; the time server's host"
        say(line)
    return achieved

// delayline — a netfilter-queue delay line for the multi-host testbed (scripts/testbed/).
//
// The testbed's kernel may lack sch_netem, so links get their delay here instead: iptables rules
// in the testbed's router namespace send each direction of each link to its own NFQUEUE number;
// this program holds every packet of queue N for DELAY + a uniform random jitter in [0, JITTER]
// and then accepts it. Packets of one queue leave in arrival order (a packet is never released
// before the one queued ahead of it), as on a real link.
//
// Usage: delayline [--seed S] [--rt] [--spin-ns N] [--check] QUEUE:DELAY_NS:JITTER_NS [QUEUE:DELAY_NS:JITTER_NS ...]
//   prints "ready" on stdout once every queue is bound; on SIGTERM/SIGINT it accepts whatever it
//   still holds, prints one JSON line of per-queue statistics (packets, achieved hold time
//   min/median/max and lateness of the release against its schedule, in ns) and exits 0.
//   --check: bind the queues, print "ready" and exit 0 (can this kernel queue to us?).
//   --rt: SCHED_FIFO priority 1, so the release wakes up on time on a loaded machine (root).
//   --spin-ns N: wake up N ns (default 100000) before a release is due and spin on the clock
//   for the rest: timer wake-ups in a VM are tens of µs late; the spin costs at most N ns of
//   CPU per release (a few % at the testbed's packet rates), never more.
// Threads: one. Clock: CLOCK_MONOTONIC of the namespace it runs in (the router's, no offset).
// Invariants: every packet queued to us gets exactly one verdict (NF_ACCEPT), also at exit;
// a full hold ring (more than RING packets in flight on one queue) accepts the newest packet at
// once and counts it as an overflow, it is never dropped.
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/netfilter.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <libnetfilter_queue/libnetfilter_queue.h>

enum { MAX_QUEUES = 64, RING = 16384, SAMPLES = 1 << 16 };

typedef struct {
    uint32_t id;
    int64_t arrival, release;
} Held;

typedef struct {
    int num;
    int64_t delay, jitter;
    struct nfq_q_handle *qh;
    Held ring[RING];
    unsigned head, count;
    int64_t lastRelease;
    uint64_t packets, overflows;
    int64_t holdSamples[SAMPLES]; // achieved hold times (first SAMPLES packets)
    int64_t lateMax, lateSum;
} Queue;

static Queue *queues;
static int nQueues;
static volatile sig_atomic_t stopping;
static uint64_t rng = 0x9E3779B97F4A7C15ull;

static int64_t nowNs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static uint64_t nextRandom(void) { // xorshift64*: deterministic for a given --seed
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 2685821657736338717ull;
}

static void onSignal(int sig) {
    (void)sig;
    stopping = 1;
}

static void release(Queue *q, int64_t now) {
    Held *h = &q->ring[q->head];
    nfq_set_verdict(q->qh, h->id, NF_ACCEPT, 0, NULL);
    int64_t hold = now - h->arrival;
    if (q->packets < SAMPLES) q->holdSamples[q->packets] = hold;
    int64_t late = now - h->release;
    if (late > q->lateMax) q->lateMax = late;
    q->lateSum += late;
    q->packets++;
    q->head = (q->head + 1) % RING;
    q->count--;
}

static int onPacket(struct nfq_q_handle *qh, struct nfgenmsg *msg, struct nfq_data *nfa, void *data) {
    (void)msg;
    Queue *q = data;
    struct nfqnl_msg_packet_hdr *ph = nfq_get_msg_packet_hdr(nfa);
    if (!ph) return 0;
    uint32_t id = ntohl(ph->packet_id);
    int64_t now = nowNs();
    if (q->count == RING) { // never drop: let it through now
        nfq_set_verdict(qh, id, NF_ACCEPT, 0, NULL);
        q->overflows++;
        return 0;
    }
    int64_t jitter = q->jitter > 0 ? (int64_t)(nextRandom() % (uint64_t)(q->jitter + 1)) : 0;
    int64_t rel = now + q->delay + jitter;
    if (rel < q->lastRelease) rel = q->lastRelease; // in order
    q->lastRelease = rel;
    Held *h = &q->ring[(q->head + q->count) % RING];
    h->id = id;
    h->arrival = now;
    h->release = rel;
    q->count++;
    return 0;
}

static int cmp64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static void printStats(void) {
    printf("{\"queues\":[");
    for (int i = 0; i < nQueues; i++) {
        Queue *q = &queues[i];
        uint64_t n = q->packets < SAMPLES ? q->packets : SAMPLES;
        qsort(q->holdSamples, n, sizeof(int64_t), cmp64);
        printf("%s{\"queue\":%d,\"delay_ns\":%" PRId64 ",\"jitter_ns\":%" PRId64
               ",\"packets\":%" PRIu64 ",\"overflows\":%" PRIu64,
               i ? "," : "", q->num, q->delay, q->jitter, q->packets, q->overflows);
        if (n)
            printf(",\"hold_min_ns\":%" PRId64 ",\"hold_median_ns\":%" PRId64
                   ",\"hold_max_ns\":%" PRId64 ",\"late_mean_ns\":%" PRId64
                   ",\"late_max_ns\":%" PRId64,
                   q->holdSamples[0], q->holdSamples[n / 2], q->holdSamples[n - 1],
                   q->lateSum / (int64_t)q->packets, q->lateMax);
        printf("}");
    }
    printf("]}\n");
    fflush(stdout);
}

static int usage(const char *msg) {
    fprintf(stderr, "delayline: %s\nusage: delayline [--seed S] [--rt] [--spin-ns N] [--check] QUEUE:DELAY_NS:JITTER_NS ...\n", msg);
    return 2;
}

int main(int argc, char **argv) {
    int rt = 0, check = 0;
    int64_t spin = 100000;
    queues = calloc(MAX_QUEUES, sizeof(Queue));
    if (!queues) return 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            rng = strtoull(argv[++i], NULL, 0) | 1;
        } else if (!strcmp(argv[i], "--spin-ns") && i + 1 < argc) {
            spin = strtoll(argv[++i], NULL, 0);
            if (spin < 0 || spin > 10000000) return usage("--spin-ns wants 0..10000000");
        } else if (!strcmp(argv[i], "--check")) {
            check = 1;
        } else if (!strcmp(argv[i], "--rt")) {
            rt = 1;
        } else {
            if (nQueues == MAX_QUEUES) return usage("too many queues");
            Queue *q = &queues[nQueues];
            char tail;
            if (sscanf(argv[i], "%d:%" SCNd64 ":%" SCNd64 "%c", &q->num, &q->delay, &q->jitter, &tail) != 3 ||
                q->num < 0 || q->num > 65535 || q->delay < 0 || q->jitter < 0)
                return usage("bad queue spec (want QUEUE:DELAY_NS:JITTER_NS, non-negative integers)");
            nQueues++;
        }
    }
    if (!nQueues) return usage("no queue given");
    prctl(PR_SET_TIMERSLACK, 1UL);
    if (rt) {
        struct sched_param sp = {.sched_priority = 1};
        if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
            fprintf(stderr, "delayline: SCHED_FIFO refused (%s); running with normal priority\n", strerror(errno));
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = onSignal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    struct nfq_handle *h = nfq_open();
    if (!h) {
        fprintf(stderr, "delayline: nfq_open: %s\n", strerror(errno));
        return 1;
    }
    for (int i = 0; i < nQueues; i++) {
        Queue *q = &queues[i];
        q->qh = nfq_create_queue(h, (uint16_t)q->num, onPacket, q);
        if (!q->qh) {
            fprintf(stderr, "delayline: cannot bind queue %d: %s\n", q->num, strerror(errno));
            return 1;
        }
        if (nfq_set_mode(q->qh, NFQNL_COPY_META, 0) < 0) {
            fprintf(stderr, "delayline: nfq_set_mode: %s\n", strerror(errno));
            return 1;
        }
        nfq_set_queue_maxlen(q->qh, RING);
    }
    nfnl_rcvbufsiz(nfq_nfnlh(h), 8 << 20);
    int fd = nfq_fd(h);
    printf("ready\n");
    fflush(stdout);
    if (check) {
        for (int i = 0; i < nQueues; i++) nfq_destroy_queue(queues[i].qh);
        nfq_close(h);
        free(queues);
        return 0;
    }

    char buf[65536];
    while (!stopping) {
        int64_t now = nowNs();
        int64_t next = INT64_MAX;
        for (int i = 0; i < nQueues; i++) {
            Queue *q = &queues[i];
            if (q->count && q->ring[q->head].release < next) next = q->ring[q->head].release;
        }
        if (next != INT64_MAX && next - now <= spin)
            while ((now = nowNs()) < next) {
            } // the last stretch on the clock, not on a timer
        next = INT64_MAX;
        for (int i = 0; i < nQueues; i++) {
            Queue *q = &queues[i];
            while (q->count && q->ring[q->head].release <= now) release(q, now);
            if (q->count && q->ring[q->head].release < next) next = q->ring[q->head].release;
        }
        struct timespec ts, *tp = NULL;
        if (next != INT64_MAX) {
            int64_t wait = next - spin - nowNs();
            if (wait < 0) wait = 0;
            ts.tv_sec = wait / 1000000000;
            ts.tv_nsec = wait % 1000000000;
            tp = &ts;
        }
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int r = ppoll(&pfd, 1, tp, NULL);
        if (r < 0 && errno != EINTR) {
            fprintf(stderr, "delayline: ppoll: %s\n", strerror(errno));
            break;
        }
        if (r > 0) {
            for (;;) { // drain what is there without blocking
                ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT);
                if (n < 0) {
                    if (errno == ENOBUFS) continue; // the kernel dropped queue messages; go on
                    break;
                }
                nfq_handle_packet(h, buf, (int)n);
            }
        }
    }
    int64_t now = nowNs();
    for (int i = 0; i < nQueues; i++)
        while (queues[i].count) release(&queues[i], now);
    printStats();
    for (int i = 0; i < nQueues; i++) nfq_destroy_queue(queues[i].qh);
    nfq_close(h);
    free(queues);
    return 0;
}

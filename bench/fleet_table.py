"""The table of bench/fleet_bench.sh, from the simulator's lines each
backend appended to ROWS (`BACKEND RECORD key=value ...`):
    python3 fleet_table.py ROWS REST_SECONDS"""

import sys

rows_file, rest_seconds = sys.argv[1], float(sys.argv[2])
records = {}  # backend -> record -> {key: value}; changes as "change:NAME"
for line in open(rows_file):
    backend, record, *pairs = line.split()
    fields = dict(pair.split("=", 1) for pair in pairs)
    if record == "change":
        record = "change:" + fields["name"]
    records.setdefault(backend, {})[record] = fields

backends = list(records)
titles = {"sqlite": "SQLite, one broker", "postgres": "PostgreSQL, two brokers"}


def figure(backend, compute):
    try:
        return compute(records[backend])
    except (KeyError, ValueError, ZeroDivisionError):
        return "-"


def per_agent_kib(key):
    def compute(r):
        fleet = r["fleet"]
        return f"{(int(fleet[key]) - int(fleet['rss_before_kb'])) / int(fleet['agents']):.1f} KiB"
    return compute


def percent(seconds, over):
    return f"{100 * float(seconds) / over:.1f}%"


def change_rows(name, what):
    def timing(r):
        c = r["change:" + name]
        return f"{c['p50_ms']} / {c['p99_ms']} / {c['max_ms']} ms"

    def counts(r):
        c = r["change:" + name]
        return f"{c['fetched']} of {c['agents']}: {c['via_push']} by push, {c['via_poll']} by poll"

    def pushes(r):
        c = r["change:" + name]
        return f"{c['push_p50_ms']} / {c['push_p99_ms']} / {c['push_max_ms']} ms ({c['pushed']} agents)"

    def by_broker(r):
        c = r["change:" + name]
        brokers = sorted(k[:-len("_fetched")] for k in c if k.startswith("broker") and k.endswith("_fetched"))
        return "; ".join(f"{b}: {c[b + '_push_p99_ms']} / {c[b + '_p99_ms']} ms ({c[b + '_fetched']} agents)"
                         for b in brokers)

    def cpu(r):
        c = r["change:" + name]
        database = f", database {c['database_cpu_s']} s" if "database" in r["machine"]["measured"] else ""
        return f"broker {c['broker_cpu_s']} s, simulator {c['simulator_cpu_s']} s{database}"

    return [(f"{what}: the change's own request", lambda r: f"{r['change:' + name]['request_ms']} ms"),
            (f"{what}: p50 / p99 / max until pushed", pushes),
            (f"{what}: p50 / p99 / max until fetched", timing),
            (f"{what}: p99 until pushed / fetched, by broker", by_broker),
            (f"{what}: agents that fetched it", counts), (f"{what}: CPU from the change to the last fetch", cpu)]


rows = [
    ("sockets opened in", lambda r: f"{r['fleet']['opened_s']} s"),
    ("broker RSS before the sockets", lambda r: f"{int(r['fleet']['rss_before_kb']) / 1024:.1f} MiB"),
    ("broker RSS per socket", per_agent_kib("rss_sockets_kb")),
    ("broker RSS per agent (socket + poll connection)", per_agent_kib("rss_polling_kb")),
    ("broker CPU at rest (of one core)", lambda r: percent(r["rest"]["broker_cpu_s"], rest_seconds)),
    ("simulator CPU at rest (of one core)", lambda r: percent(r["rest"]["simulator_cpu_s"], rest_seconds)),
    ("database CPU at rest (of one core)", lambda r: percent(r["rest"]["database_cpu_s"], rest_seconds)
     if "database" in r["machine"]["measured"] else "-"),
    ("target-state polls at rest", lambda r: f"{int(r['rest']['polls']) / rest_seconds:.0f}/s"),
    *change_rows("label", "label change (target_changed)"),
    *change_rows("object", "new object (stack_changed)"),
    ("sockets lost / failed openings", lambda r: f"{r['health']['sockets_lost']} / {r['health']['handshake_failures']}"),
    ("poll failures", lambda r: r["health"]["poll_failures"]),
    ("frames received", lambda r: ", ".join(f"{k[7:]} {v}" for k, v in r["health"].items() if k.startswith("frames_"))),
    ("load average before / after", lambda r: f"{r['machine']['load_before']} / {r['machine']['load_after']}"),
]

header = ["figure"] + [titles.get(b, b) for b in backends]
table = [header] + [[name] + [str(figure(b, compute)) for b in backends] for name, compute in rows]
widths = [max(len(row[i]) for row in table) for i in range(len(header))]
for index, row in enumerate(table):
    print("| " + " | ".join(cell.ljust(width) for cell, width in zip(row, widths)) + " |")
    if index == 0:
        print("|" + "|".join("-" * (width + 2) for width in widths) + "|")

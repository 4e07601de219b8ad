"""The table scripts/bench-compare prints: every figure of both sides' benchmark outputs.

Usage: bench_compare_report.py RUNS_DIR BENCH...
Reads RUNS_DIR/<bench>-<round>-<old|new>.txt. A figure is a rate (higher is faster), a time
(lower is faster) or a share of the ceiling measured in the same process. The ratio column is
the median over rounds of each round's new ÷ old, inverted for a time, so above 1 is faster.
"""

import re
import statistics
import sys
from pathlib import Path

RATE, TIME, SHARE = "rate", "time", "share"


def result_pairs(text, prefix):
    """The key=value pairs of the RESULT lines whose first key starts with prefix."""
    for line in text.splitlines():
        if not line.startswith("RESULT "):
            continue
        pairs = dict(item.split("=", 1) for item in line[7:].split() if "=" in item)
        first = line[7:].split("=", 1)[0]
        if first.startswith(prefix):
            yield {key: float(value) for key, value in pairs.items()}


def server_figures(text):
    figures = {}
    for pairs in result_pairs(text, "webhook_per_s"):
        figures["webhook /s"] = (RATE, pairs["webhook_per_s"])
        figures["  its ceiling (verify + 100-row INSERT + 401) /s"] = (RATE, pairs["ceiling_per_s"])
        figures["  webhook ÷ ceiling"] = (SHARE, pairs["ratio"])
    for pairs in result_pairs(text, "get_per_s"):
        figures["GET entitlements (wrk) /s"] = (RATE, pairs["get_per_s"])
        figures["  its ceiling (the same GET answered 401) /s"] = (RATE, pairs["ceiling_per_s"])
        figures["  GET ÷ ceiling"] = (SHARE, pairs["ratio"])
        if pairs.get("p99_ms", -1) >= 0:
            figures["  GET p99 ms"] = (TIME, pairs["p99_ms"])
    for label in ("account", "revenue"):
        for pairs in result_pairs(text, f"{label}_staleness"):
            figures[f"{label} view staleness under the webhook, p99 s"] = (
                TIME, pairs.get("p99_s", 0.0))
    for pairs in result_pairs(text, "projector_lag_s"):
        figures["account projector current after the webhook load, s"] = (
            TIME, pairs["projector_lag_s"])
    for pairs in result_pairs(text, "embedded_hit"):
        figures["embedded entitlements(for:) cached p99 µs"] = (TIME, pairs["embedded_hit_p99_us"])
        figures["embedded entitlements(for:) round trip p99 µs"] = (TIME, pairs["miss_p99_us"])
    return figures


REBUILD_LINE = re.compile(
    r"^\s*\d+\s+(read \(account rows\)|rebuild \(\d+ accounts\)|revenue analytics)\s+(\d+)\s+(\d+)")
REBUILD_NAMES = {
    "read": "read of the same rows, rows/s",
    "rebuild": "rebuild, events/s",
    "revenue": "revenue analytics made again, events/s",
}
RATIO_LINE = re.compile(r"rebuild ÷ read of the same rows: ([0-9.]+)")


def rebuild_figures(text):
    figures = {}
    for line in text.splitlines():
        match = REBUILD_LINE.match(line)
        if match:
            name = REBUILD_NAMES[match.group(1).split()[0]]
            figures[name] = (RATE, float(match.group(3)))
        match = RATIO_LINE.search(line)
        if match:
            figures["  rebuild ÷ read"] = (SHARE, float(match.group(1)))
    return dict(sorted(figures.items(), key=lambda item: item[0].lstrip().startswith("read")))


APPEND_LINE = re.compile(r"^(\d+ appenders?, .+?)\s+(\d+)\s+(\d+)\s+([0-9.]+)\s")


def append_figures(text):
    figures = {}
    for line in text.splitlines():
        match = APPEND_LINE.match(line)
        if match:
            name = match.group(1).strip()
            figures[f"append, {name} /s"] = (RATE, float(match.group(2)))
            figures[f"  {name}: ÷ plain INSERT"] = (SHARE, float(match.group(4)))
    return figures


PARSERS = {"server": server_figures, "rebuild": rebuild_figures, "append": append_figures}


def targets(text):
    """The TARGET lines of a newer benchmark (name → (value, met))."""
    found = {}
    for line in text.splitlines():
        if line.startswith("TARGET "):
            name, _, rest = line[7:].rpartition(": ")
            found[name] = rest
    return found


def main():
    runs = Path(sys.argv[1])
    for bench in sys.argv[2:]:
        rounds = sorted(
            {int(path.stem.split("-")[1]) for path in runs.glob(f"{bench}-*-*.txt")})
        per_round = []
        for number in rounds:
            sides = {}
            for side in ("old", "new"):
                path = runs / f"{bench}-{number}-{side}.txt"
                sides[side] = PARSERS[bench](path.read_text(errors="replace")) if path.exists() else {}
            per_round.append(sides)
        names = []
        for sides in per_round:
            for side in ("old", "new"):
                for name in sides[side]:
                    if name not in names:
                        names.append(name)
        print(f"\n{bench}: {len(per_round)} rounds, medians (ratio: median of the rounds' new ÷ old; "
              "for a time old ÷ new; above 1 is faster)")
        print(f"{'figure':52} {'old':>11} {'new':>11} {'ratio':>7}  rounds")
        for name in names:
            kind = None
            olds, news, ratios = [], [], []
            for sides in per_round:
                old, new = sides["old"].get(name), sides["new"].get(name)
                if old:
                    kind = old[0]
                    olds.append(old[1])
                if new:
                    kind = new[0]
                    news.append(new[1])
                if old and new and old[1] > 0 and new[1] > 0:
                    ratios.append(old[1] / new[1] if kind == TIME else new[1] / old[1])
            def show(values):
                if not values:
                    return "—"
                value = statistics.median(values)
                return f"{value:.2f}" if kind == SHARE or abs(value) < 100 else f"{value:,.0f}"
            ratio = f"{statistics.median(ratios):.2f}" if ratios else "—"
            spread = " ".join(f"{value:.2f}" for value in ratios)
            print(f"{name:52} {show(olds):>11} {show(news):>11} {ratio:>7}  {spread}")
        last = runs / f"{bench}-{rounds[-1]}-new.txt" if rounds else None
        if last and last.exists():
            for name, verdict in targets(last.read_text(errors="replace")).items():
                print(f"target (new, last round): {name}: {verdict}")


if __name__ == "__main__":
    main()

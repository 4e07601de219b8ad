"""Keeps whole accounts of a fixture log: every stream of each chosen account, the replay
streams about their chains, every app-level stream, and the answers of those accounts."""
import json, sys
from collections import defaultdict

work, out = sys.argv[1], sys.argv[2]
rows = [json.loads(line) for line in open(f"{work}/events.jsonl")]
streams_of = defaultdict(set)
for line in open(f"{work}/account_streams.txt"):
    token, stream = line.split()
    streams_of[token].add(stream)
types_of_stream = defaultdict(set)
for row in rows:
    types_of_stream[row["streamId"]].add(row["eventType"])

def types(token):
    return set().union(*(types_of_stream[s] for s in streams_of[token]))

chosen = []
for wanted in ["ledger.account_linked.v1", "ledger.consumable_debited.v1",
               "appstore.renewal_info.v1", "appstore.transaction.v1"]:
    chosen += [t for t in sorted(streams_of) if wanted in types(t)][:6]
for token in sorted(streams_of):
    if len(set(chosen)) >= 24:
        break
    chosen.append(token)
chosen = set(chosen)
streams = set().union(*(streams_of[t] for t in chosen))
chains = {s.split(":", 2)[2] for s in streams if s.startswith("sub:")}

def kept(row):
    stream = row["streamId"]
    if stream in streams or stream.startswith("app:"):
        return True
    if stream.startswith("replay:"):
        return bool(set(json.loads(row["payload"]).get("originals", [])) & chains)
    return False

with open(f"{out}/events.jsonl", "w") as events:
    for row in rows:
        if kept(row):
            events.write(json.dumps(row, separators=(",", ":")) + "\n")
with open(f"{out}/account_streams.jsonl", "w") as index:
    for token in sorted(streams_of):
        for stream in sorted(streams_of[token]):
            if stream in streams:
                index.write(json.dumps({"account": token, "streamId": stream}) + "\n")
with open(f"{out}/answers.jsonl", "w") as answers:
    for line in open(f"{work}/answers.jsonl"):
        if json.loads(line)["account"] in chosen:
            answers.write(line)

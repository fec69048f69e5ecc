"""Replay the reply packets of a traced GPGPU-Sim run through an ideal crossbar under two arbitrations.

Diagnostic (stop 89; RESULTS.md, "iSLIP"): which arbitration makes a burst of replies take as long as it takes in
GPGPU-Sim's network. The input is a trace of a GPGPU-Sim build with prints added (not kept here), one event a
line, times in interconnect cycles of the launch:

    IPUSH <time> <subnet> <src node> <dst node> <flits> <request uid> <packet id>   a packet handed to BookSim
    INJ   <time> <subnet> <src node> <dst node> <packet id> <head 0/1> <tail 0/1>    a flit injected into it
    EJ    <time> <subnet> <node> <packet id> <src node>                              a flit leaving it

The reply packets (subnet 1) handed to the network in a window of time are fed, at their push times, to an ideal
crossbar: one queue per source, only its head competing (one VC), one packet a port a cycle, no latency. Under
``one-pointer`` (ours before stop 89) the sources are scanned from one pointer that advances by one a cycle; under
``islip`` each destination grants the source nearest after its own pointer, which moves past it. Printed: the
cycle each drains the window's packets, beside the last ejection GPGPU-Sim made of them.

    python benchmarks/gpgpusim/icnt_replay.py trace.txt 1030 1200
"""

from __future__ import annotations

import argparse
from collections import defaultdict, deque


def read_replies(path: str) -> list[tuple[int, int, int, int]]:
    """(push time, source node, destination node, GPGPU-Sim's last ejection time) of every one-flit reply."""
    push: dict[int, tuple[int, int, int]] = {}
    eject: dict[int, int] = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) > 7 and p[0] == "IPUSH" and p[2] == "1":
                push[int(p[7])] = (int(p[1]), int(p[3]), int(p[4]))
            elif len(p) > 4 and p[0] == "EJ" and p[2] == "1":
                eject[int(p[4])] = max(eject.get(int(p[4]), 0), int(p[1]))
    return sorted((t, s, d, eject[pid]) for pid, (t, s, d) in push.items() if pid in eject)


def drain(packets: list[tuple[int, int, int, int]], arbitration: str) -> int:
    """The cycle after the last of ``packets`` crosses an ideal crossbar under ``arbitration``."""
    sources = sorted({s for _t, s, _d, _e in packets})
    queues: dict[int, deque[int]] = {s: deque() for s in sources}
    n, nsrc = len(packets), len(sources)
    pointer, grant = 0, defaultdict(int)
    t, i, done = packets[0][0], 0, 0
    while done < n:
        while i < n and packets[i][0] <= t:
            queues[packets[i][1]].append(packets[i][2])
            i += 1
        if arbitration == "one-pointer":
            busy: set[int] = set()
            for j in range(nsrc):
                q = queues[sources[(pointer + j) % nsrc]]
                if q and q[0] not in busy:
                    busy.add(q.popleft())
                    done += 1
            pointer = (pointer + 1) % nsrc
        else:
            asking: dict[int, list[int]] = defaultdict(list)
            for j, s in enumerate(sources):
                if queues[s]:
                    asking[queues[s][0]].append(j)
            for d, js in asking.items():
                won = min(js, key=lambda j, d=d: (j - grant[d]) % nsrc)
                queues[sources[won]].popleft()
                done += 1
                grant[d] = (won + 1) % nsrc
        t += 1
    return t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trace")
    ap.add_argument("start", type=int, help="first push time of the window (interconnect cycles)")
    ap.add_argument("end", type=int, help="end of the window (exclusive)")
    a = ap.parse_args()
    window = [p for p in read_replies(a.trace) if a.start <= p[0] < a.end]
    print(f"{len(window)} reply packets pushed in [{a.start}, {a.end}); GPGPU-Sim's last ejection of them: "
          f"{max(e for *_x, e in window)}")
    for arbitration in ("one-pointer", "islip"):
        print(f"ideal crossbar, {arbitration}: drained at {drain(window, arbitration)}")


if __name__ == "__main__":
    main()

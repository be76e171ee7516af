"""One camera reader's work, alone in its process: ``python -m bench.camera_replay TEMPLATES FRAMES KINDS``.

The bench runs this in a child process of its own so that what it measures is only what the camera
reader does and imports: OpenCV, numpy and ``bornes.drivers.camera`` (not the scene generator, not
PIL, not the bench). It loads the templates an enrolment saved in the folder ``TEMPLATES`` as the
referee does (``KINDS``: the comma-separated kinds taught), then feeds the frames of ``FRAMES`` (PNG
files, in name order, decoded one at a time as a camera delivers them) to the play watcher, timing
each ``feed`` by the CPU time of the thread and by the wall clock. It waits for one line on stdin
before the timed loop, so the bench can first move it into a CPU-quota cgroup. It prints one JSON
object: the times, which frames the recognizer looked at, the reads, and the process's peak resident
memory (VmHWM).
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path


def status_kib(field: str) -> int:
    """A /proc/self/status memory figure, in KiB (VmRSS now, VmHWM the peak)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def main(argv: list[str]) -> int:
    state, frames, kinds = Path(argv[0]), Path(argv[1]), argv[2].split(",")
    import cv2

    from bornes.drivers.camera.templates import load
    from bornes.drivers.camera.vision import as_image
    from bornes.drivers.camera.watch import PlayWatcher, Read, Refusal

    cv2.setNumThreads(1)  # one core: OpenCV's own thread pool would spread a frame over the others
    watcher = PlayWatcher(load(state, kinds=kinds).deck())
    paths = sorted(frames.glob("*.png"))
    print("ready", flush=True)
    sys.stdin.readline()  # the bench has moved this process where it is to be measured
    cpu: list[float] = []
    wall: list[float] = []
    looked: list[bool] = []
    said: list[tuple[str, str]] = []
    for path in paths:
        read = cv2.imread(str(path), cv2.IMREAD_COLOR)
        frame = None if read is None else as_image(read)
        before = watcher.looked
        started, started_cpu = time.perf_counter(), time.thread_time()
        outcomes = watcher.feed(frame, path.stem)
        cpu.append(time.thread_time() - started_cpu)
        wall.append(time.perf_counter() - started)
        looked.append(watcher.looked > before)
        said += [(o.frame, o.kind) for o in outcomes if isinstance(o, Read)]
        said += [(o.frame, "refused") for o in outcomes if isinstance(o, Refusal)]
    json.dump({"cpu": cpu, "wall": wall, "looked": looked, "said": said, "hwm_kib": status_kib("VmHWM"),
               "rss_kib": status_kib("VmRSS"), "cpus": sorted(os.sched_getaffinity(0))}, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

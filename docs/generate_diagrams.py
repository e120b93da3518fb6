"""Write the site's diagrams as SVG files under ``docs/diagrams/``: drawn here, shown offline.

Each diagram is a list of boxes placed on a grid by hand (column, row) and the arrows between
them; the SVG needs no script and no font download. Run ``python docs/generate_diagrams.py``
after changing one; ``tests/test_docs_diagrams.py`` fails while a file is not current.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape

OUT = Path(__file__).resolve().parent / "diagrams"

FONT = 13
CHAR = 7.1  # the average advance of the sans-serif face at 13 px
LINE = 17
PAD_X, PAD_Y = 12, 8
COL, ROW = 190, 92  # grid pitch
MARGIN = 24
INK, EDGE, FILL, DIM = "#1f2937", "#6b7280", "#ffffff", "#eef2ff"


@dataclass(frozen=True)
class Box:
    key: str
    text: str  # lines separated by "\n"; the first is bold
    col: float
    row: float
    shape: str = "rect"  # rect, round (a result), diamond (a question), room (a package)
    width: float | None = None

    @property
    def lines(self) -> list[str]:
        return self.text.split("\n")

    def size(self) -> tuple[float, float]:
        bold = 1.12 if self.shape != "diamond" else 1.0  # the first line is bold
        widths = [len(line) * CHAR * (bold if i == 0 else 1) for i, line in enumerate(self.lines)]
        w = self.width or max(widths) + 2 * PAD_X
        h = len(self.lines) * LINE + 2 * PAD_Y
        if self.shape == "diamond":
            return w * 1.45, h * 1.5
        return w, h

    def center(self) -> tuple[float, float]:
        return MARGIN + self.col * COL, MARGIN + self.row * ROW


@dataclass(frozen=True)
class Arrow:
    start: str
    end: str
    label: str = ""
    dashed: bool = False


def _border(box: Box, toward: tuple[float, float]) -> tuple[float, float]:
    """Where the segment from the box's centre toward a point leaves the box."""
    (cx, cy), (w, h) = box.center(), box.size()
    dx, dy = toward[0] - cx, toward[1] - cy
    if dx == 0 and dy == 0:
        return cx, cy
    if box.shape == "diamond":
        t = 1 / (abs(dx) / (w / 2) + abs(dy) / (h / 2))
    else:
        t = min((w / 2) / abs(dx) if dx else math.inf, (h / 2) / abs(dy) if dy else math.inf)
    return cx + dx * t, cy + dy * t


def _box_svg(box: Box) -> list[str]:
    (cx, cy), (w, h) = box.center(), box.size()
    x, y = cx - w / 2, cy - h / 2
    if box.shape == "diamond":
        points = f"{cx:.1f},{y:.1f} {x + w:.1f},{cy:.1f} {cx:.1f},{y + h:.1f} {x:.1f},{cy:.1f}"
        out = [f'<polygon points="{points}" fill="{FILL}" stroke="{INK}"/>']
    else:
        radius = h / 2 if box.shape == "round" else 6
        fill = DIM if box.shape == "room" else FILL
        out = [
            f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" rx="{radius:.1f}" '
            f'fill="{fill}" stroke="{INK}"/>'
        ]
    top = cy - (len(box.lines) - 1) * LINE / 2
    for i, line in enumerate(box.lines):
        weight = ' font-weight="bold"' if i == 0 and box.shape != "diamond" else ""
        out.append(
            f'<text x="{cx:.1f}" y="{top + i * LINE:.1f}" text-anchor="middle" '
            f'dominant-baseline="central"{weight}>{escape(line)}</text>'
        )
    return out


def _arrow_svg(arrow: Arrow, boxes: dict[str, Box]) -> list[str]:
    a, b = boxes[arrow.start], boxes[arrow.end]
    x1, y1 = _border(a, b.center())
    x2, y2 = _border(b, a.center())
    dash = ' stroke-dasharray="5 4"' if arrow.dashed else ""
    out = [
        f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" stroke="{EDGE}" '
        f'stroke-width="1.4"{dash} marker-end="url(#head)"/>'
    ]
    if arrow.label:
        mx, my = (x1 + x2) / 2, (y1 + y2) / 2
        w = len(arrow.label) * CHAR * 0.92 + 8
        out += [
            f'<rect x="{mx - w / 2:.1f}" y="{my - 9:.1f}" width="{w:.1f}" height="18" '
            f'fill="{FILL}" fill-opacity="0.92"/>',
            f'<text x="{mx:.1f}" y="{my:.1f}" text-anchor="middle" dominant-baseline="central" '
            f'font-size="{FONT - 1}" fill="{EDGE}">{escape(arrow.label)}</text>',
        ]
    return out


def render(title: str, boxes: list[Box], arrows: list[Arrow]) -> str:
    """One diagram as an SVG document."""
    by_key = {box.key: box for box in boxes}
    right = max(box.center()[0] + box.size()[0] / 2 for box in boxes) + MARGIN
    bottom = max(box.center()[1] + box.size()[1] / 2 for box in boxes) + MARGIN
    left = min(box.center()[0] - box.size()[0] / 2 for box in boxes) - MARGIN
    top = min(box.center()[1] - box.size()[1] / 2 for box in boxes) - MARGIN
    body: list[str] = []
    for arrow in arrows:
        body += _arrow_svg(arrow, by_key)
    for box in boxes:
        body += _box_svg(box)
    width, height = right - left, bottom - top
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{left:.0f} {top:.0f} '
            f'{width:.0f} {height:.0f}" width="{width:.0f}" height="{height:.0f}" '
            f'font-family="sans-serif" font-size="{FONT}" fill="{INK}" role="img">',
            f"<title>{escape(title)}</title>",
            "<defs><marker id='head' viewBox='0 0 10 10' refX='10' refY='5' markerWidth='8' "
            f"markerHeight='8' orient='auto-start-reverse'><path d='M0,0 L10,5 L0,10 z' "
            f"fill='{EDGE}'/></marker></defs>",
            f'<rect x="{left:.0f}" y="{top:.0f}" width="{width:.0f}" height="{height:.0f}" '
            f'fill="{FILL}"/>',
            *body,
            "</svg>",
            "",
        ]
    )


RELEASE = (
    "The release's Workload: a composite gang of two gangs",
    [
        Box("w", "Workload resnet\n(scheduling.k8s.io/v1beta1)", 1.5, 0),
        Box(
            "r",
            "workload-root · CompositePodGroupTemplate\ngang: minGroupCount 2\n"
            "topology: topology.kubernetes.io/zone\ndisruptionMode: all",
            1.5,
            1.35,
        ),
        Box(
            "wk",
            "workers · PodGroupTemplate\ngang: minCount 4\ntopology: topology.example.com/rack",
            0.6,
            2.9,
        ),
        Box("d", "driver · PodGroupTemplate\ngang: minCount 1", 2.5, 2.9),
        Box("p1", "4 pods", 0.6, 4.2, "round"),
        Box("p2", "1 pod", 2.5, 4.2, "round"),
    ],
    [
        Arrow("w", "r"),
        Arrow("r", "wk"),
        Arrow("r", "d"),
        Arrow("wk", "p1", "spec.schedulingGroup.podGroupName", dashed=True),
        Arrow("d", "p2", dashed=True),
    ],
)

STATES = (
    "What diagnose tells apart",
    [
        Box("g", "group object\nexists?", 1, 0, "diamond"),
        Box("m", "Missing\npods pending on a missing reference", 0, 1.3, "round"),
        Box("c", "...InitiallyScheduled\ncondition", 2, 1.3, "diamond"),
        Box("e", "minCount members\nexist?", 1, 2.8, "diamond"),
        Box("wm", "WaitingForMembers\nk of minCount exist", 0, 4.2, "round"),
        Box("ps", "Pending\nthe scheduler has not decided", 1.6, 4.2, "round"),
        Box("u", "Unschedulable\nthe scheduler's message", 2.55, 2.8, "round"),
        Box("h", "members\nhealthy?", 3.5, 2.8, "diamond"),
        Box("ok", "Scheduled", 3.0, 4.2, "round"),
        Box("dg", "Degraded\nfailed, evicted, gone, image pull", 4.3, 4.2, "round"),
        Box("pr", "Preempted\nDisruptionTarget True", 3.6, 1.3, "round"),
    ],
    [
        Arrow("g", "m", "no"),
        Arrow("g", "c", "yes"),
        Arrow("c", "e", "not written"),
        Arrow("e", "wm", "no"),
        Arrow("e", "ps", "yes"),
        Arrow("c", "u", "False"),
        Arrow("c", "h", "True"),
        Arrow("h", "ok", "yes"),
        Arrow("h", "dg", "no"),
        Arrow("c", "pr", dashed=True),
    ],
)

VERDICT = (
    "How each verdict is decided, for a PodGroup",
    [
        Box("a", "read the group, its member pods, their events", 1.5, 0),
        Box("b", "group exists?", 1.5, 1, "diamond"),
        Box("missing", "Missing", 0.2, 1, "round"),
        Box(
            "c",
            "DisruptionTarget on the group, or\nPreemptionByScheduler / Preempted on a member?",
            1.5,
            2.1,
            "diamond",
        ),
        Box("preempted", "Preempted", 3.5, 2.1, "round"),
        Box("d", "InitiallyScheduled True?", 1.5, 3.25, "diamond"),
        Box("e", "fewer active members\nthan minCount?", 0.5, 4.4, "diamond"),
        Box("waiting", "WaitingForMembers", 0, 5.6, "round"),
        Box("f", "condition written?", 1.1, 5.6, "diamond"),
        Box(
            "unsched",
            "Unschedulable\nreason: Unschedulable / SchedulerError / Invalid",
            0.7,
            7.9,
            "round",
        ),
        Box(
            "h",
            "every active member PodScheduled\nFalse Unschedulable?",
            1.9,
            6.75,
            "diamond",
        ),
        Box("pending", "Pending", 2.6, 7.9, "round"),
        Box("g", "fewer running members than\nminCount, or a member Failed?", 2.8, 4.4, "diamond"),
        Box("degraded", "Degraded", 2.4, 5.6, "round"),
        Box("scheduled", "Scheduled\nextras still pending listed", 3.5, 5.6, "round"),
    ],
    [
        Arrow("a", "b"),
        Arrow("b", "missing", "no"),
        Arrow("b", "c", "yes"),
        Arrow("c", "preempted", "yes"),
        Arrow("c", "d", "no"),
        Arrow("d", "e", "no"),
        Arrow("e", "waiting", "yes"),
        Arrow("e", "f", "no"),
        Arrow("f", "unsched", "False"),
        Arrow("f", "h", "no"),
        Arrow("h", "unsched", "yes"),
        Arrow("h", "pending", "no"),
        Arrow("d", "g", "yes"),
        Arrow("g", "degraded", "yes"),
        Arrow("g", "scheduled", "no"),
    ],
)

ROOMS = (
    "The rooms of workloadbuilder.aio and the layers between them",
    [
        Box("client", "client\nClient: one core for every verb", 1.5, 0, "room"),
        Box(
            "controllers",
            "controllers/\nwork queue, rate limiters, Controller,\n"
            "LeaderElection, Manager, metrics,\nprobes, webhooks",
            0.0,
            1.45,
            "room",
        ),
        Box(
            "writes",
            "writes/\npreflight, apply, resize, delete,\nreconcile, reconcile_job, events,\n"
            "drift, ownership",
            1.55,
            1.45,
            "room",
        ),
        Box("observe", "observe/\nread, diagnose, wait, audit", 3.05, 1.45, "room"),
        Box(
            "cache",
            "cache/\nCache (a Reader), informer, indexer,\nexpectations, reader, snapshot,\n"
            "groups, members",
            0.8,
            3.0,
            "room",
        ),
        Box("rbac", "rbac/\npermissions, reviews", 2.5, 3.0, "room"),
        Box(
            "wire",
            "wire/\ntransport, retry, answers, shapes,\nwatch, resources, queries",
            0.8,
            4.45,
            "room",
        ),
        Box("config", "config/\nnew_client, kubeconfig, exec", 2.5, 4.45, "room"),
        Box(
            "errors",
            "errors · access · metrics\nwhat every room raises, speaks and counts",
            1.5,
            5.7,
            "room",
        ),
    ],
    [
        Arrow("client", "controllers"),
        Arrow("client", "writes"),
        Arrow("client", "observe"),
        Arrow("controllers", "cache"),
        Arrow("writes", "cache"),
        Arrow("writes", "rbac"),
        Arrow("observe", "cache"),
        Arrow("cache", "wire"),
        Arrow("rbac", "wire"),
        Arrow("wire", "errors"),
        Arrow("config", "errors"),
    ],
)

DIAGRAMS = {
    "release-tree.svg": RELEASE,
    "diagnose-states.svg": STATES,
    "verdict-flow.svg": VERDICT,
    "aio-rooms.svg": ROOMS,
}


def rendered() -> dict[str, str]:
    """Every diagram's file name and SVG text."""
    return {name: render(*spec) for name, spec in DIAGRAMS.items()}


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name, text in rendered().items():
        (OUT / name).write_text(text, encoding="utf-8")
        print(f"wrote docs/diagrams/{name}")


if __name__ == "__main__":
    main()
